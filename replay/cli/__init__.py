"""The ``simpilot`` command line: click only. Options are parsed here and each command calls its
job in ``replay.jobs``; progress goes to stderr, data (reports, JSON) to stdout."""

from replay.cli import configuration, doctor, marking, replaying, reporting
from replay.cli.group import cli, main

__all__ = ["cli", "configuration", "doctor", "main", "marking", "replaying", "reporting"]
