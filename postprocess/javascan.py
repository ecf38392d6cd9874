"""A small Java lexer for post-processing: where the brackets of the *code* are.

Brackets inside string literals, text blocks, char literals and comments are not code; the
reference bracket balancer counted them and broke 120 tasks. Like
``pyscan`` it never fails on the incomplete text models produce: an unterminated literal or
comment simply runs to the end of its line (or of the text, for block comments and text blocks).
"""

from __future__ import annotations

OPENERS = "([{"
CLOSERS = ")]}"
PAIRS = dict(zip(CLOSERS, OPENERS, strict=True))


def code_brackets(text: str) -> list[int]:
    """Offsets of the brackets in ``text`` that are code (not in a literal or a comment)."""
    found: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif ch == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif text.startswith('"""', i):
            j = i + 3
            while True:
                j = text.find('"""', j)
                if j < 0 or not _escaped(text, j):
                    break
                j += 1
            i = n if j < 0 else j + 3
        elif ch in "\"'":
            i = _end_of_literal(text, i, ch)
        else:
            if ch in OPENERS or ch in CLOSERS:
                found.append(i)
            i += 1
    return found


def _escaped(text: str, i: int) -> bool:
    backslashes = 0
    while i - 1 - backslashes >= 0 and text[i - 1 - backslashes] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


def _end_of_literal(text: str, start: int, quote: str) -> int:
    """The offset just after the string or char literal opened at ``start`` (or its line end)."""
    i, n = start + 1, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == quote:
            return i + 1
        if ch == "\n":
            return i
        i += 1
    return n


def match(text: str) -> tuple[list[int], int | None]:
    """Pair the code's brackets: the offsets of the openers left unclosed (outermost first), and
    the offset of the first closer that closes nothing (``None`` if there is none; scanning stops
    there). A closer that does not match the innermost opener is skipped: no guess about it is
    safe."""
    stack: list[int] = []
    for offset in code_brackets(text):
        ch = text[offset]
        if ch in OPENERS:
            stack.append(offset)
        elif stack and text[stack[-1]] == PAIRS[ch]:
            stack.pop()
        elif not stack:
            return stack, offset
    return stack, None
