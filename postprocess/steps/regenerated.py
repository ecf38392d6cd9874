"""Step 2 of SimCopilot's post-processing: remove code the model copied from around the hole.

Models often start by repeating the code just before the cursor (completion and infill) or end by
repeating the code just after it (infill). Only those neighbouring lines are compared, never "any
earlier line of the file": a file repeats itself often enough that such a search cuts real code.

Even a neighbour can be repeated for real (two equal statements in a row, a hole that starts with
the line above it), so a repeat is cut only when the editor's view shows it is a copy:

* cursor on a line of its own: the answer's first lines are the lines right above the cursor, the
  first one starting at the cursor and the others at the indentation of the originals; or it ends
  with the lines right below the cursor, at their indentation;
* cursor inside a line: the answer starts with the text of the line before the cursor, or its
  first line ends with the rest of the cursor's line and all that follows is the code after it;

and in every case something of the answer's own is left, and the file parses no worse with the cut
than without it (``postprocess.fits``): dropping a redundant copy never breaks the parse, dropping a
line the file needs usually does.

Lines match when equal up to white space, or, for longer lines, when rapidfuzz's indel ratio is at
least ``FUZZY_RATIO`` *and* both hold the same names, numbers and operators in the same order: a
copy that differs in spacing, quotes or a separator (``,`` ``;``) is a copy, but
``this.colIdx = new int[n];`` after ``this.rowIdx = new int[n];`` is new code, however similar,
and so are ``if x > 0:`` and ``return "+Inf"`` after ``if x < 0:`` and ``return "-Inf"``: real
code handles neighbouring cases in lines that differ only there.

Only what is cut is removed: the answer's own white space (a leading newline at an end-of-line
cursor, trailing blank lines) is kept as it came.
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz

from ..context import HoleContext
from ..fits import fits_no_worse, inside_literal

FUZZY_RATIO = 92.0
FUZZY_MIN_LENGTH = 12
WINDOW = 30
MIN_LEAD = 2  # a copied start of the cursor's line must say at least this much (``if``, ``x =``)

# The tokens two fuzzily equal lines must share: names, numbers, and every symbol but the quotes
# and separators a copy may spell differently (``'a'``/``"a"``, a trailing ``;`` or ``,``).
_TOKENS = re.compile(r"\w+|[^\w\s'\"`,;]")


def _norm(line: str) -> str:
    return " ".join(line.split())


def _width(line: str) -> int:
    return len(line[: len(line) - len(line.lstrip(" \t"))].expandtabs(4))


def lines_match(a: str, b: str) -> bool:
    na, nb = _norm(a), _norm(b)
    if na == nb:
        return bool(na)
    if min(len(na), len(nb)) < FUZZY_MIN_LENGTH or _TOKENS.findall(na) != _TOKENS.findall(nb):
        return False
    return fuzz.ratio(na, nb) >= FUZZY_RATIO


def _distinctive(lines: list[str]) -> bool:
    """A single repeated line counts only if it says something (``)`` or ``else:`` do not)."""
    return len(lines) > 1 or len(_norm(lines[0])) >= 8


def _copy(answer: list[str], original: list[str]) -> bool:
    return all(lines_match(a, b) for a, b in zip(answer, original, strict=True)) and _distinctive(original)


def _placed_like(lines: list[str], idx: list[int], original: list[str], ctx: HoleContext) -> bool:
    """Whether the copied lines sit where the originals are. The first one, when it is the answer's
    first line, starts at the cursor: a copy has no indentation of its own there (the editor put
    the cursor's). A lone line left of its original may be new code of an outer block, however
    equal: it is a copy only when the answer then goes on exactly at the cursor's indentation, as
    a re-writing of everything before the cursor (the cursor line's own prefix included) does.
    Every other line keeps the original's indentation."""
    first, *rest = idx
    if first == 0:
        if lines[0][:1] in (" ", "\t"):
            return False
        left_of_original = _width(ctx.line_prefix) < _width(original[0])
        if len(idx) == 1 and left_of_original and not _resumes_at_cursor(lines, ctx):
            return False
    elif _width(lines[first]) != _width(original[0]):
        return False
    return all(_width(lines[i]) == _width(o) for i, o in zip(rest, original[1:], strict=True))


def _resumes_at_cursor(lines: list[str], ctx: HoleContext) -> bool:
    """Whether the answer's second line starts with exactly the cursor line's indentation."""
    indent = ctx.line_prefix
    second = lines[1] if len(lines) > 1 else ""
    return second.startswith(indent) and second[len(indent) : len(indent) + 1] not in (" ", "\t", "")


def _head_end(lines: list[str], ctx: HoleContext) -> int:
    """How many leading lines of ``lines`` copy the lines right above the cursor (0: none); at
    least one line of the answer's own must follow."""
    code = [i for i, line in enumerate(lines) if line.strip()]
    above = [line for line in ctx.lines_above[-WINDOW:] if line.strip()]
    for size in range(min(len(above), len(code) - 1), 0, -1):
        idx, original = code[:size], above[-size:]
        if _placed_like(lines, idx, original, ctx) and _copy([lines[i] for i in idx], original):
            return idx[-1] + 1
    return 0


def _tail_start(lines: list[str], ctx: HoleContext) -> int:
    """Index of the first of the trailing lines that copy the lines right below the cursor, at their
    own indentation, after at least one line of the answer's own (``len(lines)``: none)."""
    code = [i for i, line in enumerate(lines) if line.strip()]
    below = [line for line in ctx.lines_below[:WINDOW] if line.strip()]
    for size in range(min(len(below), len(code) - 1), 0, -1):
        idx, original = code[-size:], below[:size]
        same_indent = all(_width(lines[i]) == _width(o) for i, o in zip(idx, original, strict=True))
        if same_indent and _copy([lines[i] for i in idx], original):
            return idx[0]
    return len(lines)


def _at_cursor(rest: str, ctx: HoleContext) -> str:
    """What follows a copy of the lines above, as it sits in the file: a copy ends with the cursor
    line's indentation, which the editor has already put before the cursor. The step still returns
    the line with it (placing the answer is ``reindent``'s job); the fit is judged without it."""
    return rest[len(ctx.line_prefix) :] if ctx.line_prefix and rest.startswith(ctx.line_prefix) else rest


def _block(text: str, ctx: HoleContext) -> str:
    lines = text.split("\n")
    head = _head_end(lines, ctx)
    if head:
        cut = "\n".join(lines[head:])
        if fits_no_worse(_at_cursor(cut, ctx), text, ctx):
            text, lines = cut, lines[head:]
    if ctx.infill:
        start = _tail_start(lines, ctx)
        if start < len(lines):
            cut = "\n".join(lines[:start])
            if fits_no_worse(cut, text, ctx):
                text = cut
    return text


def _word_char(ch: str) -> bool:
    return bool(ch) and (ch.isalnum() or ch == "_")


def _line_start_copied(text: str, ctx: HoleContext) -> int:
    """Where the answer's own text begins when it starts by re-writing the cursor's line up to the
    cursor (``if x > 0`` after ``if``); 0 when it does not."""
    lead = ctx.line_prefix.lstrip(" \t")
    word = lead.rstrip()
    start = len(text) - len(text.lstrip(" \t"))  # the model's own spacing before the copy
    if len(word) < MIN_LEAD or not text.startswith(word, start):
        return 0
    end = start + len(word)
    if _word_char(word[-1]) and _word_char(text[end : end + 1]):
        return 0  # the answer goes on with a longer word: not a copy of this one
    if lead != word:  # the line's spacing after it is in the document already
        end += len(text[end:]) - len(text[end:].lstrip(" \t"))
    return end if text[end:].strip() else 0


def _rest_of_line_copied(text: str, ctx: HoleContext) -> int | None:
    """Where the answer re-writes the rest of the cursor's line (``x > 0:`` when ``:`` follows) and
    then only the code after it; None when it does not. Something of its own must come first."""
    rest = ctx.line_suffix.strip()
    first, newline, more = text.partition("\n")
    own = first.rstrip()
    if not rest or not own.endswith(rest) or not own[: -len(rest)].strip():
        return None
    if _word_char(own[-len(rest) - 1]) and _word_char(rest[0]):
        return None  # the answer's word goes on: not a copy of the line's next one
    copied = [line for line in more.split("\n") if line.strip()] if newline else []
    after = [line for line in ctx.lines_below[: len(copied) + WINDOW] if line.strip()][: len(copied)]
    if len(after) < len(copied) or not all(lines_match(a, b) for a, b in zip(copied, after, strict=True)):
        return None
    return len(own[: -len(rest)].rstrip())


def _inline(text: str, ctx: HoleContext) -> str:
    """A cursor inside a line: a copied start of the line, and a copied rest of it (with the code
    after it), each cut when the file parses no worse without it. Inside a comment or a string (the
    cursor's, or one the answer opens before the copy) the parse cannot tell a copy from the text
    itself (removing text there never changes it): nothing is cut there."""
    start = _line_start_copied(text, ctx)
    if start and not inside_literal(ctx) and fits_no_worse(text[start:], text, ctx):
        text = text[start:]
    end = _rest_of_line_copied(text, ctx)
    if end is not None and not inside_literal(ctx) and not _ends_in_literal(text[:end], ctx) and fits_no_worse(text[:end], text, ctx):
        text = text[:end]
    return text


def _ends_in_literal(kept: str, ctx: HoleContext) -> bool:
    """Whether ``kept`` ends inside a comment or string it opened itself (``# -- helpers ---``):
    what follows it on the line is then part of that comment, and the parse cannot tell a copy of
    the line's rest from the text itself."""
    return inside_literal(HoleContext(ctx.language, ctx.prefix + kept, ctx.suffix))


def drop_regenerated(text: str, ctx: HoleContext) -> str:
    return _block(text, ctx) if ctx.block else _inline(text, ctx)
