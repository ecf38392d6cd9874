"""``simpilot doctor``: what this machine has and lacks, as a table (or JSON) on stdout, and an
exit status a script can test: 0 when Python repositories can be tested here, 1 otherwise.

The checks live in ``execution/doctor_checks.py``; this module only shows them: a table of what
was found, then, for each missing piece, the command that installs it on a line of its own (a
command folded into a table cell could not be copied), and, when Python repositories cannot be
tested here, one error line naming what they lack. So the first hour's first command already says
what to install, instead of the first ``mark`` failing on it.
"""

from __future__ import annotations

from rich.markup import escape

from replay.core.errors import SimpilotError
from replay.execution.doctor_checks import Check, machine_checks, python_ready
from replay.jobs.output import out, print_json
from replay.reports.text_tables import Table

__all__ = ["doctor", "doctor_table", "fix_lines"]


def doctor_table(checks: list[Check]) -> Table:
    """One row per check: found or missing, what was found (or what is wrong), what it serves."""
    table = Table(title="what this machine has for simpilot", title_justify="left")
    table.add_column("piece", no_wrap=True)
    table.add_column("status", no_wrap=True)
    table.add_column("found", overflow="fold")
    table.add_column("needed for", overflow="fold")
    for check in checks:
        status = "[green]ok[/]" if check.found else ("[red]missing[/]" if check.required else "[yellow]missing[/]")
        table.add_row(escape(check.name), status, escape(check.detail), escape(check.needed_for))
    return table


def fix_lines(checks: list[Check]) -> list[str]:
    """For each missing piece: what it is, what it blocks and the command that installs it."""
    return [f"{c.name} ({c.needed_for}): {c.fix}" for c in checks if not c.found]


def doctor(as_json: bool = False) -> None:
    """Print every check; fail (exit status 1) when something Python repositories need is missing."""
    checks = machine_checks()
    ready = python_ready(checks)
    if as_json:
        print_json({"python_ready": ready, "checks": [c.to_json() for c in checks]})
    else:
        out.print(doctor_table(checks))
        lines = fix_lines(checks)
        if lines:
            out.print("To install what is missing:", highlight=False)
        for line in lines:
            out.print(f"  {line}", markup=False, highlight=False, soft_wrap=True)  # commands whole, to copy
    if not ready:
        lacking = [c for c in checks if c.required and not c.found]
        raise SimpilotError("Python repositories cannot be tested here: " + "; ".join(f"{c.name} ({c.detail}): {c.fix}" for c in lacking))
