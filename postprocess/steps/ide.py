"""Filters IDE assistants apply to a completion as it streams in (Continue and Tabby, see
shared/REFERENCE.md §5), made safe for correct code.

Each filter is written so that the ground truth of a hole passes through unchanged: a line "equal
to the next line below" must be distinctive (a lone ``}`` matches too much real code), and
repetition is cut only after three identical lines in a row.
"""

from __future__ import annotations

import re

from ..context import HoleContext
from ..pyscan import scan
from .regenerated import lines_match

REPEATS = 3  # Continue stops after this many identical lines in a row
_CLOSING = re.compile(r"^\s*[)\]}]+[;,)]*\s*$")


def _width(line: str) -> int:
    return len(line[: len(line) - len(line.lstrip(" \t"))].expandtabs(4))


def _distinctive(line: str) -> bool:
    body = line.strip()
    return len(body) >= 8 and not _CLOSING.match(body)


def _next_code_line(ctx: HoleContext) -> str | None:
    """The first non-blank line after the cursor's line (the line the answer must lead into)."""
    for line in ([ctx.line_suffix] if ctx.line_suffix.strip() else []) + ctx.lines_below:
        if line.strip():
            return line
    return None


def stop_at_suffix_line(text: str, ctx: HoleContext) -> str:
    """Continue: stop at the first answer line that equals the next non-blank line below the
    cursor (the model has started re-writing the code after the hole)."""
    if not ctx.block or not ctx.infill:
        return text
    target = _next_code_line(ctx)
    if target is None or not _distinctive(target):
        return text
    lines = text.split("\n")
    for k in range(1, len(lines)):
        if lines_match(lines[k], target):
            return "\n".join(lines[:k]).rstrip()
    return text


def cut_repetition(text: str, ctx: HoleContext) -> str:
    """Continue: a line repeated ``REPEATS`` times in a row is a model stuck in a loop; keep the
    first of the run."""
    lines = text.split("\n")
    run = 1
    for k in range(1, len(lines)):
        run = run + 1 if lines[k].strip() and lines[k] == lines[k - 1] else 1
        if run == REPEATS:
            return "\n".join(lines[: k - REPEATS + 2]).rstrip()
    return text


def limit_scope(text: str, ctx: HoleContext) -> str:
    """Tabby: the answer ends where a line dedents below the hole's block. One closing line at the
    dedent is kept only when the code after the hole does not already close the block (an empty
    suffix means the model was not shown the rest of the file, which still closes it)."""
    if not ctx.block:
        return text
    hole = _width(ctx.indent)
    lines = text.split("\n")
    states = scan(text) if ctx.language == "python" else None
    for k in range(1, len(lines)):
        line = lines[k]
        if not line.strip() or (states is not None and not states[k].logical_start):
            continue
        if _width(line) >= hole:
            continue
        keep = k
        if _CLOSING.match(line) and ctx.infill:
            below = _next_code_line(ctx)
            if below is None or not (_CLOSING.match(below) and _width(below) == _width(line)):
                keep = k + 1
        return "\n".join(lines[:keep]).rstrip()
    return text


def drop_suffix_closer(text: str, ctx: HoleContext) -> str:
    """Tabby: drop a final closing line that is the first line of the code after the hole."""
    if not ctx.block or not ctx.infill:
        return text
    below = _next_code_line(ctx)
    lines = text.rstrip().split("\n")
    if below is None or len(lines) < 2 or not _CLOSING.match(lines[-1]):
        return text
    if lines[-1].strip() == below.strip() and _width(lines[-1]) == _width(below):
        return "\n".join(lines[:-1]).rstrip()
    return text
