"""What a failing command's error shows: the command, the end of its output, and the module a
``ModuleNotFoundError`` in it names.
"""

from __future__ import annotations

import re
import shlex

TAIL_LINES = 15  # lines of a failing command's output shown in its error
_MISSING = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")


def details(command: list[str], output: str, lines: int = TAIL_LINES) -> str:
    """Indented lines for an error: the command that ran and the last ``lines`` of its output."""
    tail = [line[:300] for line in output.rstrip().splitlines()[-lines:]]
    shown = "\n".join(f"    | {line}" for line in tail) or "    (no output)"
    return f"\n  command: {shlex.join(command)}\n  last lines of its output:\n{shown}"


def missing_module(output: str) -> str | None:
    """The module a ``ModuleNotFoundError`` in ``output`` names (the last one), if any."""
    found = _MISSING.findall(output)
    return found[-1] if found else None
