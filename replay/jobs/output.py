"""Where the commands write: data (tables, reports, JSON) to stdout through ``out``, progress and
advice to stderr through ``err``, so that a script can pipe the data and still see what went on."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from replay.reports.text_tables import UncroppedConsole
from replay.run.progress import err

__all__ = ["DEFAULT_DB", "err", "out", "print_json", "report_command"]

out = UncroppedConsole()  # a table wider than the terminal keeps its columns (text_tables.py)
DEFAULT_DB = Path("runs/simpilot.db")


def print_json(data: Any) -> None:
    """``data`` as indented JSON on stdout, unwrapped (a console would fold long lines)."""
    print(json.dumps(data, indent=2), flush=True)


def report_command(db: Path, *run_ids: str) -> str:
    """The command that shows the runs' full report, naming the database when it is not the
    default one (the user would otherwise look in the wrong place)."""
    named = "" if db == DEFAULT_DB else f" --db {shlex.quote(str(db))}"
    return f"simpilot{named} report {' '.join(map(shlex.quote, run_ids))}"
