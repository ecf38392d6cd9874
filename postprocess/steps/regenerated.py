"""Step 2 of SimCopilot's post-processing: remove code the model copied from around the hole.

Models often start by repeating the lines just above the cursor (completion and infill) or end by
repeating the lines just below it (infill). Only those neighbouring lines are compared — never
"any earlier line of the file", which cut real code in the reference implementation
(shared/REFERENCE.md §2). Lines match when equal up to white space, or, for longer lines, when
rapidfuzz's indel ratio is at least ``FUZZY_RATIO`` *and* both hold the same names and numbers
in the same order: a copy that differs in punctuation or spacing is a copy, but
``this.colIdx = new int[n];`` after ``this.rowIdx = new int[n];`` is new code, however similar.
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz

from ..context import HoleContext

FUZZY_RATIO = 92.0
FUZZY_MIN_LENGTH = 12
WINDOW = 30


_WORDS = re.compile(r"\w+")


def _norm(line: str) -> str:
    return " ".join(line.split())


def lines_match(a: str, b: str) -> bool:
    na, nb = _norm(a), _norm(b)
    if na == nb:
        return bool(na)
    if min(len(na), len(nb)) < FUZZY_MIN_LENGTH or _WORDS.findall(na) != _WORDS.findall(nb):
        return False
    return fuzz.ratio(na, nb) >= FUZZY_RATIO


def _distinctive(lines: list[str]) -> bool:
    """A single repeated line counts only if it says something (``)`` or ``else:`` do not)."""
    return len(lines) > 1 or len(_norm(lines[0])) >= 8


def _overlap_head(out: list[str], above: list[str]) -> int:
    """How many leading non-blank lines of ``out`` repeat the end of ``above`` (largest run)."""
    code = [i for i, line in enumerate(out) if line.strip()]
    ctx = [line for line in above[-WINDOW:] if line.strip()]
    for start in range(len(ctx)):
        tail = ctx[start:]
        if len(tail) > len(code):
            continue
        if all(lines_match(out[code[k]], tail[k]) for k in range(len(tail))) and _distinctive(tail):
            return code[len(tail) - 1] + 1
    return 0


def _overlap_tail(out: list[str], below: list[str]) -> int:
    """How many trailing lines of ``out`` repeat the start of ``below``; returns the cut index."""
    code = [i for i, line in enumerate(out) if line.strip()]
    ctx = [line for line in below[:WINDOW] if line.strip()]
    for size in range(min(len(ctx), len(code)), 0, -1):
        head = ctx[:size]
        idx = code[-size:]
        if all(lines_match(out[idx[k]], head[k]) for k in range(size)) and _distinctive(head):
            return idx[0]
    return len(out)


def _expression(text: str, ctx: HoleContext) -> str:
    """An expression hole: drop a repeated start of the cursor's line and anything after the
    point where the model re-wrote the rest of that line (``x > 0:`` when ``:`` follows)."""
    lead = ctx.line_prefix.strip()
    stripped = text.lstrip()
    if lead and stripped.startswith(lead) and len(stripped) > len(lead):
        text = stripped[len(lead) :].lstrip()
    rest = ctx.line_suffix.strip()
    if rest:
        first, _, _ = text.partition("\n")
        cut = first.rstrip().rfind(rest)
        if cut > 0 and first.rstrip().endswith(rest):
            return first[:cut].rstrip()
    return text


def drop_regenerated(text: str, ctx: HoleContext) -> str:
    if not ctx.block:
        return _expression(text, ctx)
    out = text.split("\n")
    head = _overlap_head(out, ctx.lines_above)
    out = out[head:]
    if ctx.infill:
        below = [ctx.line_suffix] + ctx.lines_below if ctx.line_suffix.strip() else ctx.lines_below
        out = out[: _overlap_tail(out, below)]
    while out and not out[-1].strip():
        out.pop()
    result = "\n".join(out)
    return result.lstrip("\n") if head else result
