"""What runs inside the sandbox: test servers, proof reporters, program launchers.

Everything here runs in the repository's own interpreter (or JVM, or node), possibly another
Python than simpilot's: it imports only the standard library (and the test framework it plugs
into), never simpilot's packages. ``tests/test_architecture.py`` enforces this.
"""
