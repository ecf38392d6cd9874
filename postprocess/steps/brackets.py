"""Step 3 of SimCopilot's post-processing for Java: balance the answer's brackets.

Only brackets of the code count: those in strings, text blocks, chars and comments are skipped,
and prefix, answer and suffix are lexed as the one file they make (``bracketview``). What the
answer's balance must be is read from the editor's view, never from the hole's shape: a hole can
end with the ``}`` of a block its prefix opened, open a block whose body is in the suffix, or
close one block and open the next (``} else {``). So, for an infill (the suffix was shown):

* the openers left after the answer must be the ones the suffix closes: an answer that already
  leaves exactly those is returned as it is;
* an answer that closes more (the ``}`` of the method it was completing, then the next method; or
  the ``)`` that already follows an ``if`` condition) is cut before the closer that goes too far;
* an answer that leaves more open gets closers for its own openers: ``)`` and ``]`` on the last
  line (before its final ``;``), ``}`` on a line of its own, indented like the line that opened it.

For a completion (nothing shown after the cursor) the hole ends, by what a completion task is,
at the end of the innermost block around the cursor: the model is not shown the ``}`` that closes
it, so an answer that writes that ``}`` (and then, often, the next method) has run past the hole
and is cut before it. A hole that says it closes the cursor's block (``closes_block``:
SimCopilot's completion holes run to the ``}`` that closes it) keeps that ``}`` and any closers
after it; an answer that then writes more code (the next method) is cut after them, while
``} else {`` and ``} catch (E e) {`` are the statement going on. Otherwise only what no file can
hold is repaired: a closer that closes nothing at all is cut, and a ``)`` or ``]`` left open
before the line's final ``;`` (outside a ``for`` or ``try`` header, a ``;`` cannot be inside
parentheses) is closed there.

A closer that does not match the innermost opener is left alone: no guess about it is safe.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..bracketview import PAIRS, View, closer_for, ends_in_code, past_the_blocks, view
from ..context import HoleContext
from ..javascan import OPENERS

_HEADER = re.compile(r"\b(?:for|try)\s*$")  # a `(` whose contents may hold a `;`


@dataclass(slots=True)
class _Walk:
    """The answer's brackets replayed on what the prefix leaves open."""

    stack: list[tuple[int, str]]  # open after the answer: (offset in the answer, or -1 for the prefix's; opener)
    unmatched: int | None  # offset of the first closer that closes nothing (the walk stops there)
    dips: list[tuple[int, list[tuple[int, str]]]]  # closers that take the surplus below zero, with the stack before them


def _walk(v: View) -> _Walk:
    """Replay the answer's brackets; the surplus is how many more openers are left than the suffix
    closes (zero after a correct infill answer)."""
    stack = [(-1, ch) for ch in v.prefix_open]
    need = len(v.suffix_closes or "")
    dips: list[tuple[int, list[tuple[int, str]]]] = []
    for offset, ch in v.answer:
        if ch in OPENERS:
            stack.append((offset, ch))
        elif not stack:
            return _Walk(stack, offset, dips)
        elif stack[-1][1] == PAIRS[ch]:
            if len(stack) - need == 0:
                dips.append((offset, list(stack)))
            stack.pop()
    return _Walk(stack, None, dips)


def _leading(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _cut(text: str, at: int) -> str:
    return text[:at].rstrip()


def _fits(stack: list[tuple[int, str]], closes: str) -> bool:
    """Whether the suffix's closers close exactly these openers."""
    return len(stack) == len(closes) and all(PAIRS[c] == stack[-1 - i][1] for i, c in enumerate(closes))


def _cut_points(text: str, walk: _Walk, closes: str) -> tuple[list[int], list[int]]:
    """Where an answer that closes too much may be cut: before a closer that takes it below what
    the suffix needs. First the closers past the answer's leading ones (a hole may start by closing
    a block, as ``} else {`` does) that leave exactly the openers the suffix closes; then any with
    code before them."""
    body = len(text) - len(text.lstrip("})] \t\r\n"))
    fitting = [at for at, stack in walk.dips if at >= body and _fits(stack, closes)]
    with_code = [at for at, _ in walk.dips if text[:at].strip()]
    return fitting, with_code or [at for at, _ in walk.dips]


def _close_line(body: str, closer: str, offset: int) -> str:
    last_line = body[body.rfind("\n") + 1 :]
    if body.endswith(";") and offset >= len(body) - len(last_line):
        return body[:-1] + closer + ";"
    return body + closer


def _close(text: str, unclosed: list[tuple[int, str]], ctx: HoleContext) -> str:
    """``text`` with closers for ``unclosed`` (its own openers, outermost first)."""
    for offset, opener in reversed(unclosed):
        if opener == "{":
            line_start = text.rfind("\n", 0, offset) + 1
            indent = ctx.indent if line_start == 0 else _leading(text[line_start:])
            text = text.rstrip() + "\n" + indent + "}"
        else:
            text = _close_line(text.rstrip(), closer_for(opener), offset)
    return text


def _infill(text: str, ctx: HoleContext, v: View) -> str:
    walk = _walk(v)
    closes = v.suffix_closes or ""
    if _balanced(walk, closes) or (not v.clean and _fits_apart(text, ctx)):
        return text
    if walk.unmatched is not None:
        return _cut(text, walk.unmatched)
    fitting, others = _cut_points(text, walk, closes)
    surplus = len(walk.stack) - len(closes)
    if fitting:
        return _cut(text, fitting[0])
    if surplus > 0:
        own = [entry for entry in walk.stack if entry[0] >= 0]
        return _close(text, own[max(0, len(own) - surplus) :], ctx)
    return _cut(text, others[0]) if surplus < 0 and others else text


def _balanced(walk: _Walk, closes: str) -> bool:
    """Whether the answer leaves open exactly what the suffix closes."""
    return walk.unmatched is None and _fits(walk.stack, closes)


def _fits_apart(text: str, ctx: HoleContext) -> bool:
    """Whether the answer is balanced when read apart from a prefix that ends in a comment or a
    literal (a hole cut after a line comment with no line break): such a hole does not join into
    one line of code, and that is no fault of the answer."""
    apart = view(ctx.prefix, text, ctx.suffix, joined=False)
    return _balanced(_walk(apart), apart.suffix_closes or "")


def _past_the_block(v: View) -> int | None:
    """The offset of the answer's first ``}`` that closes a block the prefix opened."""
    stack = [(-1, ch) for ch in v.prefix_open]
    for offset, ch in v.answer:
        if ch in OPENERS:
            stack.append((offset, ch))
        elif stack and stack[-1][1] == PAIRS[ch]:
            if ch == "}" and stack[-1][0] < 0:
                return offset
            stack.pop()
    return None


def _completion(text: str, ctx: HoleContext, v: View) -> str:
    walk = _walk(v)
    past = past_the_blocks(text, v) if ctx.closes_block else _past_the_block(v)
    if past is not None and (walk.unmatched is None or past < walk.unmatched):
        return _cut(text, past)
    if walk.unmatched is not None:
        return _cut(text, walk.unmatched)
    body = text.rstrip()
    if not body.endswith(";") or not ends_in_code(ctx.prefix, body):
        return text
    line_start = body.rfind("\n") + 1
    closers = ""
    for offset, opener in reversed(walk.stack):
        if offset < line_start or opener == "{" or _HEADER.search(ctx.prefix[-8:] + text[:offset]):
            break
        closers += closer_for(opener)
    return body[:-1] + closers + ";" + text[len(body) :] if closers else text


def balance_brackets(text: str, ctx: HoleContext) -> str:
    if ctx.language != "java" or not text.strip():
        return text
    if ctx.infill:
        return _infill(text, ctx, view(ctx.prefix, text, ctx.suffix))
    return _completion(text, ctx, view(ctx.prefix, text, None))
