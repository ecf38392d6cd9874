"""Whether a shortened answer still fits its place: the question every cutting step must ask.

A file may legitimately repeat a line, leave a block early or end on a closer that the code after
the hole repeats; a model's copy or run-on looks the same line by line. What tells them apart is the
file around the hole: removing redundant code never breaks the parse of ``prefix + answer +
suffix``, while removing a line the file needs does. So a step cuts only when the cut parses *no
worse* than the answer as given (no more ERROR or MISSING nodes, nor, in Python, statements
indented unlike their block: tree-sitter accepts those), measured by tree-sitter on the whole
file. When the model saw only the code before the cursor (an empty suffix), a Java file is
closed with the brackets that prefix and answer leave open, as the unseen rest of the file would
close them: an unclosed file is one large ERROR node, which tells nothing.

Parsing the whole file for every candidate would be too slow for a per-completion step, so the file
with an empty hole is parsed once per hole (cached) and each candidate is an incremental re-parse
of that tree with the answer inserted at the cursor. A broken answer makes tree-sitter's error
recovery run through all the code after it, so a Python file is parsed only up to the next
top-level statement after the cursor's line: from there on the code parses the same whatever the
hole holds (an unclosed bracket or string in the answer is an error either way).
"""

from __future__ import annotations

import re
from functools import lru_cache

from tree_sitter import Node, Point, Tree

from .context import HoleContext
from .javascan import CLOSERS, OPENERS, PAIRS, code_brackets
from .syntax import LANGUAGES, parse, parser

_CODE = re.compile(r"\S")
_TOP_LEVEL = re.compile(r"^(?!(?:else|elif|except|finally)\b)[A-Za-z_@]", re.MULTILINE)


def _window(language: str, suffix: str) -> str:
    """The part of the code after the hole that a parse needs. For Python: up to the first
    top-level statement that starts after the suffix's first line of code (which may belong to
    what the answer started: a decorated ``class``, an ``else``) and after no decorator."""
    if language != "python" or "\n" not in suffix:
        return suffix
    first = _CODE.search(suffix, suffix.find("\n") + 1)
    start = suffix.find("\n", first.start()) + 1 if first else 0
    for found in _TOP_LEVEL.finditer(suffix, start) if start else ():
        before = suffix[: found.start()].rstrip()
        if not before[before.rfind("\n") + 1 :].startswith("@"):
            return suffix[: found.start()]
    return suffix


def _bytes(text: str) -> bytes:
    """UTF-8 for the parser; a lone surrogate (which no file holds) passes through as it is."""
    return text.encode("utf-8", "surrogatepass")


def _point(data: bytes) -> Point:
    """Where the end of ``data`` lies as a (row, byte column) point."""
    return Point(data.count(b"\n"), len(data) - (data.rfind(b"\n") + 1))


@lru_cache(maxsize=32)
def _empty_hole(language: str, prefix: str, suffix: str) -> tuple[Tree, bytes, bytes, Point]:
    """The parse of the file with nothing in the hole, and what re-parsing it needs."""
    head, tail = _bytes(prefix), _bytes(_window(language, suffix))
    return parse(head + tail, language), head, tail, _point(head)


def _count_errors(root: Node) -> int:
    """ERROR and MISSING nodes in the tree (only subtrees that hold an error are visited)."""
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            count += 1
        elif node.has_error:
            stack.extend(node.children)
    return count


@lru_cache(maxsize=32)
def _prefix_brackets(prefix: str) -> tuple[tuple[str, ...], bool]:
    """The openers a Java prefix leaves unclosed (outermost first), and whether its end is code
    (not inside a comment or a literal): one scan, with a sentinel bracket at the cursor."""
    found = code_brackets(prefix + "(")
    in_code = bool(found) and found[-1] == len(prefix)
    stack: list[str] = []
    for i in found[:-1] if in_code else found:
        if prefix[i] in OPENERS:
            stack.append(prefix[i])
        elif stack and stack[-1] == PAIRS[prefix[i]]:
            stack.pop()
        elif not stack:
            break  # a closer that closes nothing: like ``match``, stop there
    return tuple(stack), in_code


def left_open(prefix: str) -> tuple[str, ...]:
    """The openers a Java prefix leaves unclosed, outermost first."""
    return _prefix_brackets(prefix)[0]


def cursor_in_code(prefix: str) -> bool:
    """Whether the end of a Java prefix is code, where the answer's brackets are code too."""
    return _prefix_brackets(prefix)[1]


def _closed(text: str, ctx: HoleContext) -> str:
    """``text`` followed by the closers for what the prefix and ``text`` leave open (a Java
    completion); ``text`` itself otherwise."""
    if ctx.infill or ctx.language != "java":
        return text
    stack = list(left_open(ctx.prefix))
    for i in code_brackets(text):
        if text[i] in OPENERS:
            stack.append(text[i])
        elif stack and stack[-1] == PAIRS[text[i]]:
            stack.pop()
    return text + "".join("\n" + CLOSERS[OPENERS.index(ch)] for ch in reversed(stack))


def _misindented(root: Node, start: int, end: int) -> int:
    """Python statements that do not share the indentation of their block's first statement, in
    the blocks around bytes ``start`` to ``end``. Tree-sitter accepts an unexpected indent or a
    dedent to no enclosing level without an error; the interpreter does not."""
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        if node.type in ("module", "block"):
            statements = [c for c in node.named_children if c.type not in ("comment", "ERROR")]
            column = statements[0].start_point.column if statements else 0
            count += sum(c.start_point.column != column for c in statements)
        stack.extend(c for c in node.children if c.start_byte <= end and c.end_byte >= start)
    return count


def errors(text: str, ctx: HoleContext) -> int | None:
    """Syntax errors of the file with ``text`` in the hole; None when there is no grammar for the
    language (nothing can then be said about the fit)."""
    if ctx.language not in LANGUAGES:
        return None
    return _errors(ctx.language, ctx.prefix, ctx.suffix, _closed(text, ctx))


@lru_cache(maxsize=256)
def _errors(language: str, prefix: str, suffix: str, text: str) -> int:
    """``errors`` for one file; remembered, as several steps ask about the same answer."""
    tree, head, tail, at = _empty_hole(language, prefix, suffix)
    body = _bytes(text)
    edited = tree.copy()
    lines = body.count(b"\n")
    if lines:
        end = Point(at.row + lines, len(body) - body.rfind(b"\n") - 1)
    else:
        end = Point(at.row, at.column + len(body))
    edited.edit(
        start_byte=len(head),
        old_end_byte=len(head),
        new_end_byte=len(head) + len(body),
        start_point=at,
        old_end_point=at,
        new_end_point=end,
    )
    root = parser(language).parse(head + body + tail, edited).root_node
    misindented = _misindented(root, len(head), len(head) + len(body)) if language == "python" else 0
    return _count_errors(root) + misindented


_LITERALS = ("comment", "string", "text_block", "character_literal")


def inside_literal(ctx: HoleContext) -> bool:
    """Whether the cursor is inside a comment or a string, where the parse cannot judge a cut
    (text removed there never changes it). Unknown languages count as inside: nothing can be
    checked."""
    if ctx.language not in LANGUAGES:
        return True
    tree, head, _, _ = _empty_hole(ctx.language, ctx.prefix, ctx.suffix)
    at = len(head)
    node = tree.root_node.descendant_for_byte_range(at, at)
    while node is not None:
        literal = any(kind in node.type for kind in _LITERALS)
        line_comment = "comment" in node.type and node.type != "block_comment"  # runs to the line's end
        if literal and node.start_byte < at < node.end_byte + line_comment:
            return True
        node = node.parent
    return False


def answer_in_literal(text: str, offset: int, ctx: HoleContext) -> bool | None:
    """Whether the answer's character at ``offset`` lies inside a comment or a string once the
    answer stands in its hole (a string the prefix opened counts); None without a grammar."""
    if ctx.language not in LANGUAGES:
        return None
    head = _bytes(ctx.prefix + text[:offset])
    tree = parse(head + _bytes(text[offset:] + _window(ctx.language, ctx.suffix)), ctx.language)
    at = len(head)
    node = tree.root_node.descendant_for_byte_range(at, at + 1)
    while node is not None:
        if any(kind in node.type for kind in _LITERALS) and node.start_byte <= at < node.end_byte:
            return True
        node = node.parent
    return False


def fits_no_worse(cut: str, text: str, ctx: HoleContext) -> bool:
    """Whether the file parses no worse with ``cut`` in the hole than with ``text``. Without a
    grammar the answer is no: a step that cannot check a cut does not make it."""
    shorter = errors(cut, ctx)
    if shorter is None:
        return False
    longer = errors(text, ctx)
    assert longer is not None  # the same language as ``cut``, so a grammar too
    return shorter <= longer


def fits_better(cut: str, text: str, ctx: HoleContext) -> bool:
    """Whether the file parses strictly better with ``cut`` in the hole than with ``text``: the cut
    removes something the file cannot hold (a closer too many, a line no block can take). An
    answer that parses cleanly in place has nothing to remove (and costs one parse to say so)."""
    whole = errors(text, ctx)
    if not whole:
        return False
    shorter = errors(cut, ctx)
    return shorter is not None and shorter < whole
