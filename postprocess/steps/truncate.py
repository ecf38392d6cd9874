"""Syntax-aware truncation (SAFIM's algorithm, see shared/REFERENCE.md §3), with tree-sitter.

Block holes: drop the answer's last line until both hold for ``prefix + answer + suffix``:

(a) the parse has no error (no ERROR and no MISSING node);
(b) it differs from the parse with an empty hole by one contiguous run of syntax at the hole:
    the node enter/leave event sequences of the two parses share a common head and a common tail
    that together cover the whole empty-hole sequence.

If no shortening satisfies both, the answer is returned unchanged: truncation removes what follows
a complete hole, it never guesses. When the model saw only the code before the cursor (an empty
suffix), a Java file is closed with the brackets the prefix left open so that it can parse.

Expression holes (an ``if`` condition): Python keeps the first logical line; Java cuts before the
first unmatched ``)``.
"""

from __future__ import annotations

from functools import lru_cache

import tree_sitter_java
import tree_sitter_python
from tree_sitter import Language, Parser

from ..context import HoleContext
from ..javascan import CLOSERS, OPENERS, match
from ..pyscan import scan

_LANGUAGES = {"python": Language(tree_sitter_python.language()), "java": Language(tree_sitter_java.language())}
_PARSERS = {name: Parser(language) for name, language in _LANGUAGES.items()}
MAX_LINES = 200  # longer answers are cut to this many lines before the search (a model's run-on)


def _walk(tree) -> list[int]:
    """The node enter (+id) / leave (-id) event sequence of a parse, in document order."""
    out: list[int] = []
    cursor = tree.walk()
    while True:
        out.append(cursor.node.kind_id + 1)
        if cursor.goto_first_child():
            continue
        while True:
            out.append(-cursor.node.kind_id - 1)
            if cursor.goto_next_sibling():
                break
            if not cursor.goto_parent():
                return out


def _events(source: bytes, language: str) -> tuple[bool, list[int]]:
    """Whether the parse has an error, and (if not) its event sequence."""
    tree = _PARSERS[language].parse(source)
    if tree.root_node.has_error:
        return True, []
    return False, _walk(tree)


@lru_cache(maxsize=64)
def _empty_hole(language: str, prefix: str, suffix: str) -> list[int]:
    return _walk(_PARSERS[language].parse((prefix + suffix).encode("utf-8")))


def _one_insertion(empty: list[int], full: list[int]) -> bool:
    limit = min(len(empty), len(full))
    head = 0
    while head < limit and empty[head] == full[head]:
        head += 1
    tail = 0
    while tail < limit - head and empty[-1 - tail] == full[-1 - tail]:
        tail += 1
    return head + tail >= len(empty)


@lru_cache(maxsize=64)
def _closing_suffix(prefix: str) -> str:
    """Closers for the brackets a Java prefix leaves open (what the rest of the file would hold)."""
    unclosed, _ = match(prefix)
    return "\n" + "\n".join(CLOSERS[OPENERS.index(prefix[i])] for i in reversed(unclosed)) + "\n"


def _fits(text: str, prefix: str, suffix: str, language: str, empty: list[int]) -> bool:
    error, events = _events((prefix + text + suffix).encode("utf-8"), language)
    return not error and _one_insertion(empty, events)


def _expression(text: str, language: str) -> str:
    if language == "python":
        lines = text.split("\n")
        states = scan(text)
        end = 1
        while end < len(lines) and (states[end].continued or states[end].in_string):
            end += 1
        return "\n".join(lines[:end]).rstrip() if end < len(lines) else text
    _, unmatched = match(text)
    return text if unmatched is None else text[:unmatched].rstrip()


def truncate_syntax(text: str, ctx: HoleContext) -> str:
    if ctx.language not in _PARSERS or not text.strip():
        return text
    if not ctx.block:
        return _expression(text, ctx.language)
    suffix = ctx.suffix
    if not suffix.strip() and ctx.language == "java":
        suffix = _closing_suffix(ctx.prefix)
    empty = _empty_hole(ctx.language, ctx.prefix, suffix)
    if _fits(text, ctx.prefix, suffix, ctx.language, empty):
        return text
    lines = text.split("\n")[:MAX_LINES]
    for end in range(len(lines) - 1, 0, -1):
        if not lines[end - 1].strip():
            continue
        candidate = "\n".join(lines[:end])
        if _fits(candidate, ctx.prefix, suffix, ctx.language, empty):
            return candidate
    return text
