"""Step 3 of SimCopilot's post-processing for Python: indent the answer to the hole.

The cursor of a block hole sits after the indentation of its line, so the first answer line gets
no indentation of its own and every later line keeps its indentation *relative to the first*.
Which frame the model wrote in is inferred from the answer itself:

* first line indented: the model indented everything itself, relative to that first line;
* first line flush, later lines at or beyond the hole's column: already absolute (what a FIM model
  writes, and what the ground truth looks like), left as is;
* first line flush, later statements left of the hole: a snippet written in a shallower frame
  (often column 0; for a block opener, one indentation unit left of its body), shifted so that
  the first line sits at the hole; new top-level code (``def`` at column 0) is left alone.

Lines inside triple-quoted strings are data and are never moved; tabs in indentation become spaces
when the file indents with spaces.
"""

from __future__ import annotations

import re

from ..context import HoleContext
from ..pyscan import scan

INDENT_UNIT = 4
_TOP_LEVEL = re.compile(r"^(?:def |class |async def |@|if __name__)")


def _width(ws: str) -> int:
    return len(ws.expandtabs(4))


def _split_indent(line: str) -> tuple[str, str]:
    body = line.lstrip(" \t")
    return line[: len(line) - len(body)], body


def reindent(text: str, ctx: HoleContext) -> str:
    if ctx.language != "python" or not ctx.block or not text.strip():
        return text
    lines = text.split("\n")
    states = scan(text)
    hole = _width(ctx.indent)
    first_ws, first_body = _split_indent(lines[0])
    measured = [
        (k, _width(_split_indent(line)[0]))
        for k, line in enumerate(lines)
        if k > 0 and line.strip() and states[k].logical_start
    ]
    if _width(first_ws) > 0:
        base = _width(first_ws)
    elif not measured:
        base = hole
    else:
        lowest = min(w for _, w in measured)
        opens_block = first_body.split("#", 1)[0].rstrip().endswith(":")
        if lowest >= hole:
            base = 0 if opens_block and measured[0][1] <= hole else hole
        elif opens_block:  # a block opener whose body sits left of the hole: written from column 0
            base = max(0, lowest - INDENT_UNIT)
        elif lowest == 0 and any(_TOP_LEVEL.match(lines[k]) for k, w in measured if w == 0):
            base = hole  # the model went on to write new top-level code: not ours to move
        else:
            base = lowest
    shift = hole - base
    use_spaces = "\t" not in ctx.indent
    out = [first_body]
    for k in range(1, len(lines)):
        line = lines[k]
        if not line.strip() or states[k].in_string:
            out.append(line)
            continue
        ws, body = _split_indent(line)
        if shift == 0 and not (use_spaces and "\t" in ws):
            out.append(line)
            continue
        width = max(0, _width(ws) + shift)
        out.append((" " * width if use_spaces else "\t" * (width // 4) + " " * (width % 4)) + body)
    return "\n".join(out)
