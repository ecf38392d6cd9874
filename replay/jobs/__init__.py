"""What each command does, callable from Python: one module a command (``simpilot X`` calls
``replay.jobs.X``). The command line (``replay.cli``) only parses and calls these.
"""
