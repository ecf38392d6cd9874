"""Filters IDE assistants apply to a completion as it streams in (Continue's and Tabby's), made safe
for correct code.

Each filter cuts on a pattern: a line equal to the next one below the cursor, a line repeated in a
row, a dedent out of the hole's block, a final closer that the code after the hole repeats. Real code
shows every one of these patterns (a hole may well close the block it starts in and go on in the
outer one), and each filter must return a correct answer unchanged whatever the hole's shape. So a
filter cuts only where the editor's view (the code before and after the cursor) shows the pattern
is the model's doing:

* the rest of the answer copies the code after the cursor, line for line at its indentation;
* a repetition runs until the answer stops (a model stuck in a loop never gets out of it);
* or the file parses better without the lines (``postprocess.fits``): one closer too many, a line
  that no block of the file can take.

Even then the cut must leave the file parsing no worse: a filter never removes a line the file
needs.
"""

from __future__ import annotations

import re

from ..bracketview import past_the_blocks, view
from ..context import HoleContext
from ..fits import cursor_in_code, fits_better, fits_no_worse
from ..javascan import OPENERS, code_brackets, match
from ..pyscan import scan
from .regenerated import lines_match

REPEATS = 3  # Continue stops after this many identical lines in a row
WINDOW = 30  # lines of the code after the hole compared with the answer
MAX_EXITS = 4  # block exits of one answer tried as the end of its scope
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


def _copies_below(lines: list[str], ctx: HoleContext) -> bool:
    """Whether the non-blank ``lines`` repeat the code after the cursor's line, in order and at its
    indentation, and say something (more than one line, or one distinctive line). The last one may
    stop short, as an answer cut off by its length limit does."""
    code = [line for line in lines if line.strip()]
    below = [line for line in ctx.lines_below[: len(code) + WINDOW] if line.strip()][: len(code)]
    if not code or len(below) < len(code) or not (len(code) > 1 or _distinctive(code[0])):
        return False
    if any(_width(a) != _width(b) for a, b in zip(code, below, strict=True)):
        return False
    *whole, (last, original) = zip(code, below, strict=True)
    cut_short = original.strip().startswith(last.strip())
    return all(lines_match(a, b) for a, b in whole) and (lines_match(last, original) or cut_short)


def stop_at_suffix_line(text: str, ctx: HoleContext) -> str:
    """Continue: stop at the answer line that equals the next non-blank line below the cursor, when
    from there on the answer only re-writes the code after the hole (a file may repeat a line; a
    model re-writing the suffix goes on copying it)."""
    if not ctx.block or not ctx.infill:
        return text
    target = _next_code_line(ctx)
    if target is None or not _distinctive(target):
        return text
    lines = text.split("\n")
    for k in range(1, len(lines)):
        if lines_match(lines[k], target) and _copies_below(lines[k:], ctx):
            cut = "\n".join(lines[:k])
            return cut if fits_no_worse(cut, text, ctx) else text
    return text


def _looping_run(lines: list[str]) -> int | None:
    """Index of the first line of a run of at least ``REPEATS`` equal lines that lasts until the
    answer stops (its last line may be cut short); None if there is none."""
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    last = end - 1
    if last > 0 and lines[last] != lines[last - 1] and lines[last - 1].startswith(lines[last]):
        last -= 1  # the final copy was cut short
    if last < REPEATS - 1 or not lines[last].strip():
        return None
    start = last
    while start > 0 and lines[start - 1] == lines[last]:
        start -= 1
    return start if last - start + 1 >= REPEATS else None


def cut_repetition(text: str, ctx: HoleContext) -> str:
    """Continue: a line repeated ``REPEATS`` times in a row until the answer stops is a model stuck
    in a loop; keep the first of the run. A run that ends before the answer does is the code's own
    (three equal statements in a row are real code often enough)."""
    lines = text.split("\n")
    start = _looping_run(lines)
    if start is None:
        return text
    cut = "\n".join(lines[: start + 1])
    return cut if fits_no_worse(cut, text, ctx) else text


def _python_exits(text: str, ctx: HoleContext) -> list[int]:
    """Lines where the answer leaves one more enclosing block: logical lines indented less than the
    hole and than every line before them."""
    lines = text.split("\n")
    states = scan(text)
    low, exits = _width(ctx.indent), []
    for k in range(1, len(lines)):
        if lines[k].strip() and states[k].logical_start and _width(lines[k]) < low:
            low = _width(lines[k])
            exits.append(k)
    return exits


def _brace_exits(text: str) -> list[int]:
    """Offsets where the answer closes one more block that it did not open itself (a closer that
    takes its bracket depth lower than ever); the cut is at the closer's line when only
    indentation precedes it there."""
    depth = low = 0
    exits = []
    for i in code_brackets(text):
        depth += 1 if text[i] in OPENERS else -1
        if depth < low:
            low = depth
            start = text.rfind("\n", 0, i) + 1
            exits.append(start if not text[start:i].strip() else i)
    return exits


def _completion_scope_end(text: str, ctx: HoleContext) -> str:
    """A completion task ends within the innermost block around the cursor: the model is not shown
    the ``}`` that closes it, so a Java answer that writes it has run past the hole and is cut
    there — unless nothing at all follows the cursor and the answer closes every block the prefix
    opened: then it completes the file, which cutting would leave unbalanced (the end of a
    program, where DevBench's golden completions finish one class and write the next). A hole
    that closes the cursor's block (``closes_block``) ends after the answer's closers of it: only
    code written past them is cut. A Python completion may stop anywhere, even mid-statement, and
    its block's end is not written, so the parse cannot judge a cut: it is left alone."""
    if ctx.language == "python":
        return text
    if ctx.closes_block:
        past = past_the_blocks(text, view(ctx.prefix, text, None)) if cursor_in_code(ctx.prefix) else None
        return text if past is None else text[:past].rstrip()
    exit = _first_block_exit(text)
    if exit is None or not cursor_in_code(ctx.prefix):
        return text
    if not ctx.suffix.strip() and match(ctx.prefix + text) == ([], None):
        return text
    return text[:exit].rstrip()


def _first_block_exit(text: str) -> int | None:
    """Where the answer's first ``}`` closing a block it did not open stands (its line, when only
    indentation precedes it there); a ``)`` or ``]`` closing the prefix's bracket is the answer
    finishing an expression the cursor was inside."""
    own = 0
    for i in code_brackets(text):
        if text[i] in OPENERS:
            own += 1
        elif own:
            own -= 1
        elif text[i] == "}":
            start = text.rfind("\n", 0, i) + 1
            return start if not text[start:i].strip() else i
    return None


def limit_scope(text: str, ctx: HoleContext) -> str:
    """Tabby: the answer ends where it leaves the hole's block. A hole may leave its block for real
    (a ``} catch (E e) {`` line after the try body, a ``return`` after a loop body): the blocks it
    may leave are those the prefix opened and the code after the hole does not close, which the
    file itself says. So the answer is cut at a block exit only when the lines from there copy the
    code after the hole, or when the file parses better without them (a closer the suffix already
    has, a line no block can take)."""
    if not ctx.block:
        return text
    if not ctx.infill:
        return _completion_scope_end(text, ctx)
    exits: list[tuple[int | None, int]]
    if ctx.language == "python":
        lines = text.split("\n")
        exits = [(k, sum(len(line) + 1 for line in lines[:k])) for k in _python_exits(text, ctx)]
    else:
        lines, exits = [], [(None, offset) for offset in _brace_exits(text)]
    for k, offset in exits[:MAX_EXITS]:
        kept = text[:offset].rstrip()
        copied = k is not None and _copies_below(lines[k:], ctx)
        if (copied and fits_no_worse(kept, text, ctx)) or fits_better(kept, text, ctx):
            return kept
    return text


def drop_suffix_closer(text: str, ctx: HoleContext) -> str:
    """Tabby: drop a final closing line that is the first line of the code after the hole, when
    the file has one closer too many with it."""
    if not ctx.block or not ctx.infill:
        return text
    below = _next_code_line(ctx)
    lines = text.rstrip().split("\n")
    if below is None or len(lines) < 2 or not _CLOSING.match(lines[-1]):
        return text
    if lines[-1].strip() == below.strip() and _width(lines[-1]) == _width(below):
        cut = "\n".join(lines[:-1]).rstrip()
        return cut if fits_better(cut, text, ctx) else text
    return text
