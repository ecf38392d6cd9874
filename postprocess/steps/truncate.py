"""Syntax-aware truncation after SAFIM (Gong et al., 2024: "Evaluation of LLMs on Syntax-Aware
Code Fill-in-the-Middle Tasks"), with tree-sitter: cut what follows a complete answer.

A truncation never removes what the file needs to parse, and it never assumes a shape of the hole
(a block at one indentation, a whole condition): a hole can end after a dedented line, in the
middle of an expression or of a token. The answer is judged in its place, ``prefix + answer +
suffix``:

* when that parses, the answer is returned exactly as it is;
* otherwise the answer is cut at the end of one of its lines, or before the first closer it leaves
  unmatched (the ``)`` that already follows an ``if`` condition), and the longest cut that makes
  the file parse is taken: first among the cuts that also differ from the empty hole's parse by
  one contiguous run of syntax at the hole (SAFIM's test: the node enter/leave event sequences of
  the two parses share a head and a tail covering all of the empty hole's), then among any. No
  cut that parses: the answer is returned unchanged, truncation never guesses.

When the model saw only the code before the cursor (an empty suffix), the file may go on in any
way after the answer: an error at its very end (a statement, an argument list or a block left
open, a token cut short) is no fault of the answer. Only an error that ends before the answer's
last line can be repaired, and a Java file is closed with the brackets the prefix and the answer
leave open so that it can parse.
"""

from __future__ import annotations

import re
from collections import deque
from functools import lru_cache

from ..bracketview import closer_for, left_open, lex, prefix_scan
from ..context import HoleContext
from ..javascan import match
from ..pyscan import scan
from ..syntax import LANGUAGES, parse, parser

# Python comments and strings; triple-quoted ones may run to the end of the text
_PY_TOKEN = re.compile(
    r"#[^\n]*"
    r'|"""(?:[^"\\]|\\[\s\S]|"(?!""))*(?:"""|\Z)'
    r"|'''(?:[^'\\]|\\[\s\S]|'(?!''))*(?:'''|\Z)"
    r'|"(?:[^"\\\n]|\\[\s\S])*"?'
    r"|'(?:[^'\\\n]|\\[\s\S])*'?"
)
_CLAUSED = re.compile(r"(?:if|elif|else|try|except|finally|for|while|async\s+for)\b")  # may go on with a clause
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


def _one_insertion(empty: list[int], full: list[int]) -> bool:
    limit = min(len(empty), len(full))
    head = 0
    while head < limit and empty[head] == full[head]:
        head += 1
    tail = 0
    while tail < limit - head and empty[-1 - tail] == full[-1 - tail]:
        tail += 1
    return head + tail >= len(empty)


def _first_error_end(node) -> int | None:
    """The byte offset where the earliest-ending ERROR or MISSING node of the parse ends."""
    if node.is_error or node.is_missing:
        return node.end_byte
    ends = [end for child in node.children if child.has_error and (end := _first_error_end(child)) is not None]
    return min(ends) if ends else None


class _Hole:
    """An answer in its place: the text around it, and how a cut of it parses. The whole answer is
    parsed once; a cut is parsed again from that tree (tree-sitter reuses what the cut leaves
    alone), which keeps the search over a long run-on fast."""

    def __init__(self, text: str, ctx: HoleContext, prefix: str, suffix: str) -> None:
        self.ctx = ctx
        self.text = text
        self.prefix = prefix
        self.shown = suffix
        self.head = prefix.encode("utf-8")
        self.source = self._source(text)
        self.full = parse(self.source, ctx.language)

    def suffix(self, answer: str) -> str:
        """What follows the answer: the suffix shown, or (a Java completion) the closers that the
        prefix and the answer leave open."""
        if self.ctx.infill or self.ctx.language != "java":
            return self.shown
        return "".join("\n" + closer_for(opener) for opener in reversed(left_open(self.prefix, answer))) + "\n"

    def _source(self, answer: str) -> bytes:
        return self.head + (answer + self.suffix(answer)).encode("utf-8")

    def tree(self, cut: str):
        """The parse of the file with ``cut`` (a beginning of the answer) in the hole."""
        new = self._source(cut)
        start = len(self.head) + len(cut.encode("utf-8"))
        kept = len(self.shown.encode("utf-8")) if self.ctx.infill or self.ctx.language != "java" else 0
        old_end, new_end = len(self.source) - kept, len(new) - kept
        tree = self.full.copy()
        tree.edit(start, old_end, new_end, _point(self.source, start), _point(self.source, old_end), _point(new, new_end))
        return parser(self.ctx.language).parse(new, tree)

    def events(self, cut: str) -> list[int] | None:
        """The parse's event sequence, or None when it has an error."""
        tree = self.tree(cut)
        return None if tree.root_node.has_error else _walk(tree)

    def empty(self) -> list[int] | None:
        return _empty_hole(self.ctx.language, self.prefix, self.suffix(""))

    def error_before_last_line(self) -> bool:
        """Whether the parse has an error that ends before the answer's last statement (see
        ``_last_line``): the file can go on after the answer in no way that mends it."""
        end = _first_error_end(self.full.root_node)
        if end is None:
            return False
        return end < len(self.head) + len(self.text[: _last_line(self.text, self.prefix, self.ctx.language)].encode("utf-8"))


def _point(source: bytes, offset: int) -> tuple[int, int]:
    """Row and byte column of ``offset`` in ``source``."""
    return source.count(b"\n", 0, offset), offset - (source.rfind(b"\n", 0, offset) + 1)


def _last_line(text: str, prefix: str, language: str) -> int:
    """Offset in ``text`` of the start of its last statement, as far as a scan can tell: the last
    non-blank line, moved up (Python) over the lines it continues and to a compound statement or a
    decorator it may still be part of (``try:`` … ``exc``), or (Java) to the line where a comment
    or literal it ends in begins."""
    if language == "python":
        return _python_last_line(text, prefix)
    lines = text.rstrip().split("\n")
    start = len(text.rstrip()) - len(lines[-1])
    head = prefix[prefix_scan(prefix)[1] :]
    open_at = lex(head + text).resume - len(head)
    return min(start, text.rfind("\n", 0, max(0, open_at)) + 1)


@lru_cache(maxsize=256)
def _python_tail(prefix: str) -> str:
    """The end of a Python prefix from which a scan of what follows starts right: its last line,
    or the line where a string it ends in begins."""
    found = deque(_PY_TOKEN.finditer(prefix), maxlen=1)  # only the last token matters
    last = found[0] if found else None
    at = last.start() if last is not None and last.end() == len(prefix) else len(prefix)
    return prefix[prefix.rfind("\n", 0, at) + 1 :]


def _python_last_line(text: str, prefix: str) -> int:
    """``_last_line`` for Python, with the strings and brackets the prefix leaves open."""
    tail = _python_tail(prefix)
    states = scan(tail + text)[tail.count("\n") :]
    lines = text.split("\n")
    last = next((i for i in range(len(lines) - 1, -1, -1) if lines[i].strip()), 0)
    while last > 0 and not states[last].logical_start:
        last -= 1
    starts = [i for i, line in enumerate(lines) if line.strip() and states[i].logical_start and not line.lstrip().startswith("#")]
    last = _statement_start(lines, starts, last)
    return sum(len(line) + 1 for line in lines[:last])


def _statement_start(lines: list[str], starts: list[int], last: int) -> int:
    """The line of the statement that line ``last`` may still belong to: the decorators above it,
    or the header of a compound statement at its indentation that it may go on with a clause of
    (``try:`` … ``exc``, ``if …:`` … ``el``)."""
    while True:
        width = _width(lines[last])
        above = [i for i in starts if i < last and _width(lines[i]) <= width]
        if not above or _width(lines[above[-1]]) < width:
            return last
        line = lines[above[-1]].strip()
        if not (line.startswith("@") or (_CLAUSED.match(line) and line.endswith(":") and above[-1] + 1 < last)):
            return last
        last = above[-1]


def _width(line: str) -> int:
    """The indentation of ``line`` in columns."""
    return len(line.expandtabs(8)) - len(line.expandtabs(8).lstrip())


def _apart(text: str, ctx: HoleContext) -> _Hole | None:
    """The file with a line break where a part of the hole runs on a line with no break between
    them (a prefix that ends after code, a suffix that starts with code); None when there is no
    such place. Holes cut by others do not always join into valid code (a prefix that ends in a
    comment, an answer glued to the suffix's first line), and that is no fault of the answer."""
    prefix, suffix = ctx.prefix, ctx.suffix
    if ctx.line_prefix.strip() and not text.startswith("\n"):
        prefix += "\n"
    if suffix.strip() and not suffix.startswith("\n") and not text.endswith("\n"):
        suffix = "\n" + suffix
    return None if (prefix, suffix) == (ctx.prefix, ctx.suffix) else _Hole(text, ctx, prefix, suffix)


@lru_cache(maxsize=64)
def _empty_hole(language: str, prefix: str, suffix: str) -> list[int] | None:
    """The empty hole's event sequence; None when its parse holds an ERROR node, which no parse
    without errors can differ from by one run of syntax."""
    tree = parse(prefix + suffix, language)
    return None if _has_error_node(tree.root_node) else _walk(tree)


def _has_error_node(node) -> bool:
    return node.is_error or any(_has_error_node(child) for child in node.children if child.has_error)


def _cuts(text: str) -> list[str]:
    """The shorter answers a cut can give, longest first: up to the end of one of the answer's
    non-blank lines, and up to the first closer it leaves unmatched (found with the Java scanner
    in either language: a cut is only ever taken when the file then parses)."""
    lines = text.split("\n")[:MAX_LINES]
    found = {"\n".join(lines[:end]) for end in range(len(lines) - 1, 0, -1) if lines[end - 1].strip()}
    _, unmatched = match(text)
    if unmatched is not None and text[:unmatched].strip():
        found.add(text[:unmatched].rstrip())
    return sorted((cut for cut in found if cut != text), key=len, reverse=True)


def _best_cut(hole: _Hole) -> str:
    """The longest cut that parses as one run of syntax at the hole, else the longest that parses,
    else the answer itself. The cuts of a run-on answer lie in its first MAX_LINES lines (one
    closer aside): they are parsed from the parse of those lines, not of the whole answer, since
    each parse edits a copy of the tree it starts from, at a cost that grows with that tree."""
    head = "\n".join(hole.text.split("\n")[:MAX_LINES])
    near = hole if head == hole.text else _Hole(head, hole.ctx, hole.prefix, hole.shown)
    parsing = None
    for cut in _cuts(hole.text):
        events = (near if len(cut) <= len(head) else hole).events(cut)
        if events is None:
            continue
        empty = hole.empty()
        if empty is None:
            return cut
        if _one_insertion(empty, events):
            return cut
        parsing = parsing or cut
    return parsing or hole.text


def _kept(reading: _Hole) -> bool:
    """Whether the whole answer parses in its place as well as the file allows: no error, or (a
    completion) none that ends before its last line."""
    if not reading.full.root_node.has_error:
        return True
    return not reading.ctx.infill and not reading.error_before_last_line()


def truncate_syntax(text: str, ctx: HoleContext) -> str:
    if ctx.language not in LANGUAGES or not text.strip():
        return text
    joined = _Hole(text, ctx, ctx.prefix, ctx.suffix)
    if _kept(joined):
        return text
    apart = _apart(text, ctx)
    if apart is not None and _kept(apart):
        return text
    return _best_cut(joined)
