"""Step 3 of SimCopilot's post-processing for Java: balance the answer's brackets.

Only brackets of the code count: those in strings, text blocks, chars and comments are skipped
(``javascan``). A hole's code is balanced on its own — a block, a statement list or an
expression — so:

* an unmatched closer means the model wrote past the end of the hole (the closing ``}`` of the
  method it was completing, then the next method; or the ``)`` that already follows an ``if``
  condition): the answer is cut there;
* brackets still open at the end are closed: ``)`` and ``]`` on the last line (before its final
  ``;``), ``}`` on a line of its own, indented like the line that opened it.

A closer that does not match the innermost opener is left alone: no guess about it is safe.
"""

from __future__ import annotations

from ..context import HoleContext
from ..javascan import CLOSERS, OPENERS, match


def _leading(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _cut(text: str, at: int) -> str:
    return text[:at].rstrip()


def _close(text: str, unclosed: list[int], ctx: HoleContext) -> str:
    for offset in reversed(unclosed):
        opener = text[offset]
        closer = CLOSERS[OPENERS.index(opener)]
        if opener == "{":
            line_start = text.rfind("\n", 0, offset) + 1
            indent = ctx.indent if line_start == 0 else _leading(text[line_start:])
            text = text.rstrip() + "\n" + indent + "}"
            continue
        body = text.rstrip()
        last_line = body[body.rfind("\n") + 1 :]
        if body.endswith(";") and offset >= len(body) - len(last_line):
            text = body[:-1] + closer + ";"
        else:
            text = body + closer
    return text


def balance_brackets(text: str, ctx: HoleContext) -> str:
    if ctx.language != "java" or not text.strip():
        return text
    unclosed, unmatched = match(text)
    if unmatched is not None:
        return _cut(text, unmatched)
    return _close(text, unclosed, ctx) if unclosed else text
