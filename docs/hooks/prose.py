"""Telling a markdown page's prose from its code, for the hooks and the figures test.

A page may show a token or a figure as an example (``[[fig:demo_time.wall_seconds]]`` in a code
span, a timing in a console excerpt): the hooks must leave those alone, and the test that hunts
typed-in figures must not count them. So both walk the page through these two functions, which
agree on what code is: fenced blocks (``` or ~~~, possibly indented, closed by a fence of the same
character at least as long) and inline code spans (a run of backticks closed by a run of the same
length on the same line).

Not a hook itself: mkdocs puts this folder on ``sys.path`` while it loads the hooks, and the tests
put it there themselves.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})")
_BACKTICKS = re.compile(r"`+")


def _pieces(line: str) -> Iterator[tuple[bool, str]]:
    """``line`` cut into (is_prose, text) pieces at its inline code spans. An opening run of
    backticks without a closing run of the same length is literal text, as in CommonMark."""
    at = 0
    prose_from = 0
    while True:
        opening = _BACKTICKS.search(line, at)
        if opening is None:
            break
        run = opening.group()
        closing = re.compile(rf"(?<!`){run}(?!`)").search(line, opening.end())
        if closing is None:
            at = opening.end()
            continue
        if opening.start() > prose_from:
            yield True, line[prose_from : opening.start()]
        yield False, line[opening.start() : closing.end()]
        prose_from = at = closing.end()
    if prose_from < len(line):
        yield True, line[prose_from:]


def _lines(markdown: str) -> Iterator[tuple[bool, str]]:
    """Each line of ``markdown`` with its end, and whether it lies outside fenced code."""
    fence: str | None = None
    for line in markdown.splitlines(keepends=True):
        found = _FENCE.match(line)
        if fence is None and found:
            fence = found.group("fence")
            yield False, line
        elif fence is not None:
            closing = line.strip()
            if len(closing) >= len(fence) and set(closing) == {fence[0]}:
                fence = None
            yield False, line
        else:
            yield True, line


def map_prose(markdown: str, change: Callable[[str], str]) -> str:
    """``markdown`` with ``change`` applied to each piece of prose (a line's text between its code
    spans), and code left exactly as it was."""
    out: list[str] = []
    for is_prose_line, line in _lines(markdown):
        if not is_prose_line:
            out.append(line)
            continue
        out.extend(change(text) if is_prose else text for is_prose, text in _pieces(line))
    return "".join(out)


def prose_lines(markdown: str) -> Iterator[tuple[int, str]]:
    """Each line outside fenced code, numbered from 1, with its code spans blanked out (so that
    what stands on either side of a span is not read as one word)."""
    for number, (is_prose_line, line) in enumerate(_lines(markdown), start=1):
        if is_prose_line:
            yield number, "".join(text if is_prose else " " for is_prose, text in _pieces(line.rstrip("\n")))
