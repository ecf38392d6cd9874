"""Step 3 of SimCopilot's post-processing for Python: indent the answer to the hole.

An answer is judged where it lands, in the editor's view: a line of Python may sit at the
indentation of any block the prefix leaves open (or one level deeper after a block opener), and the
suffix's next statement must still fit after it (``postprocess.blocks``). An answer that fits is
returned exactly, whatever the hole's shape: a cursor at column 0 (the answer's own indentation
is absolute), a ``return`` after a loop body, an ``else`` after a ``return``, code that leaves a
nested block. Only an answer that fits no frame is moved. Which frame the model wrote in is then
inferred from the answer itself:

* first line indented: the model indented everything itself, relative to that first line;
* first line flush, later lines at or beyond the hole's column: already absolute (what a FIM model
  writes), left as is;
* first line flush, later statements left of the hole: a snippet written in a shallower frame
  (often column 0; for a block opener, one indentation unit left of its body), shifted so that
  the first line sits at the hole; new top-level code (``def`` at column 0) is left alone.

At a cursor at column 0 the hole's column is the one the open blocks and the suffix imply. Lines
inside triple-quoted strings are data and are never moved; a moved answer is indented with the
file's character (a tab for a level in a file indented with tabs, spaces otherwise).
"""

from __future__ import annotations

import re

from ..blocks import Cursor, suffix_head, width
from ..context import HoleContext
from ..pyscan import LineState, scan

_TOP_LEVEL = re.compile(r"^(?:def |class |async def |@|if __name__)")


def _split_indent(line: str) -> tuple[str, str]:
    body = line.lstrip(" \t")
    return line[: len(line) - len(body)], body


def reindent(text: str, ctx: HoleContext) -> str:
    if ctx.language != "python" or not ctx.block or not text.strip():
        return text
    cursor = Cursor.at(ctx.prefix)
    if not cursor.starts_statement():
        return text  # inside brackets or a string (or nothing known): every indentation is legal
    head = suffix_head(ctx.suffix)
    states = scan(text)
    tabs = cursor.frame.tabs if cursor.frame.tabs is not None else "\t" in ctx.indent
    unit = cursor.frame.unit()
    retyped = _retyped_indentation(text, ctx, states, tabs, unit)
    if retyped is not None and cursor.fits(ctx.line_prefix + retyped, head):
        return retyped
    if cursor.fits(ctx.line_prefix + text, head) or _whole_lines_fit(text, ctx, cursor, head):
        return text
    lines = _restyle(text.split("\n"), states, tabs, unit)
    first = None
    for hole in _hole_columns(ctx, cursor, head):
        moved = _move(lines, states, hole, _base(lines, states, hole, unit), tabs, bool(ctx.line_prefix))
        if cursor.fits(ctx.line_prefix + moved, head):
            return moved
        first = first if first is not None else moved
    return first if first is not None else text  # nothing fits: the likeliest frame


def _retyped_indentation(text: str, ctx: HoleContext, states: list[LineState], tabs: bool, unit: int) -> str | None:
    """The answer with the indentation it typed again removed, when it did: the editor put the
    cursor after the line's indentation (where the user wants the line), and the answer's first
    line starts with indentation of its own. An answer of whole lines (ending with a newline) is
    written from column 0 of the next line instead, and is judged as it is.

    A first line indented by less than one indentation unit is no indentation the model typed
    but a tokenizer's artefact: many tokenizers start a word with its space (``" return"``), and
    a model after a cursor that already has its indentation may begin with that token. Read as
    the answer's frame, that one space would shift every later line; only the space goes, and
    the later lines, written for the columns they stand at, stay."""
    if not ctx.line_prefix or text[:1] not in (" ", "\t") or text.endswith("\n"):
        return None
    lines = _restyle(text.split("\n"), states, tabs, unit)
    base = width(_split_indent(lines[0])[0])
    if base < unit:
        base = width(ctx.line_prefix)  # the artefact: the first line loses its space, nothing moves
    return _move(lines, states, width(ctx.line_prefix), base, tabs, True)


def _restyle(lines: list[str], states: list[LineState], tabs: bool, unit: int) -> list[str]:
    """The answer indented with the file's character, one indentation level for one: a tab is
    ``unit`` columns in a file indented with spaces, four spaces are a tab in one indented with
    tabs (a model's usual level), so that widths compare with the file's."""
    out = [lines[0]]
    for k in range(1, len(lines)):
        ws, body = _split_indent(lines[k])
        if states[k].in_string or not body or ("\t" not in ws if not tabs else " " not in ws):
            out.append(lines[k])
        elif tabs:
            out.append(ws.replace("    ", "\t") + body)
        else:
            out.append(ws.replace("\t", " " * unit) + body)
    return out


def _whole_lines_fit(text: str, ctx: HoleContext, cursor: Cursor, head: str) -> bool:
    """Whether an answer of whole lines (it ends with a newline) fits at its own indentation.

    Such an answer was written from the start of its lines, so its first line carries its own
    indentation; typed after white space the editor left on the cursor's line (DevBench's holes
    do this), it is still the model's line as meant, not one to move."""
    return bool(ctx.line_prefix) and text.endswith("\n") and cursor.fits(text, head)


def _hole_columns(ctx: HoleContext, cursor: Cursor, head: str) -> list[int]:
    """Where the answer's first line may go: after the cursor's indentation when there is one,
    else the columns the open blocks allow, the suffix's next statement's first (the hole most
    often sits in the middle of that statement's block)."""
    if ctx.line_prefix:
        return [width(ctx.indent)]
    columns = cursor.frame.legal()
    ws, body = _split_indent(head[head.rfind("\n") + 1 :] if "\n" in head else "")
    if body and not body.startswith("#") and width(ws) in columns:
        columns.remove(width(ws))
        columns.insert(0, width(ws))
    return columns


def _base(lines: list[str], states: list[LineState], hole: int, unit: int) -> int:
    """The column of the frame the answer was written in, for its first line."""
    first_ws, first_body = _split_indent(lines[0])
    measured = [(k, width(_split_indent(line)[0])) for k, line in enumerate(lines) if k > 0 and line.strip() and states[k].logical_start]
    if width(first_ws) > 0:
        return width(first_ws)
    if not measured:
        return hole
    lowest = min(w for _, w in measured)
    opens_block = first_body.split("#", 1)[0].rstrip().endswith(":")
    if lowest >= hole:
        return 0 if opens_block and measured[0][1] <= hole else hole
    if opens_block:  # a block opener whose body sits left of the hole: written from column 0
        return max(0, lowest - unit)
    if lowest == 0 and any(_TOP_LEVEL.match(lines[k]) for k, w in measured if w == 0):
        return hole  # the model went on to write new top-level code: not ours to move
    return lowest


def _move(lines: list[str], states: list[LineState], hole: int, base: int, tabs: bool, after_indent: bool) -> str:
    """The answer with its first line at ``hole`` (after the cursor's indentation, or from column
    0) and every later line shifted alike; lines inside strings are data and stay."""
    shift = hole - base
    first = _split_indent(lines[0])[1]
    out = [first if after_indent else _indentation(hole, tabs) + first]
    for k in range(1, len(lines)):
        line = lines[k]
        if not line.strip() or states[k].in_string:
            out.append(line)
            continue
        ws, body = _split_indent(line)
        if shift == 0 and (tabs or "\t" not in ws):
            out.append(line)
            continue
        out.append(_indentation(max(0, width(ws) + shift), tabs) + body)
    return "\n".join(out)


def _indentation(columns: int, tabs: bool) -> str:
    return "\t" * (columns // 8) + " " * (columns % 8) if tabs else " " * columns
