"""simpilot's evaluation side: marking holes, replaying them through the LSP bridge, running the
repository's tests on the patched copy, storing outcomes and reporting on them."""

__version__ = "0.1.0"
