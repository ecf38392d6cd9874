"""``simpilot doctor``: what this machine has and lacks for each language and feature."""

from __future__ import annotations

import replay.cli.options as options
from replay.cli.group import cli
from replay.jobs.doctor import doctor as doctor_job


@cli.command()
@options.as_json("Print the checks as JSON instead of a table.")
def doctor(as_json: bool) -> None:
    """Check this machine: the sandbox (bubblewrap and user namespaces), each language's
    toolchain, and the optional features (local model, llama.cpp server, Ray, editor and browser
    tests). Each missing piece is shown with the command that installs it and what it blocks.

    Exits with status 0 when everything Python repositories need works, 1 otherwise."""
    doctor_job(as_json)
