"""Holes given as line ranges (``simpilot import lines``): each becomes the task marking would make
of those lines.

A hole names a file, a kind and its first and last line (1-based, inclusive). Its span follows
marking's convention for statement holes: from the first non-blank character of the first line to
the end of the last line's code, without trailing whitespace, and without a comment after the code
unless tree-sitter counts it in the last statement (a comment at the end of a nested block): where
marked holes end, at the end of their last statement. When the language's marker finds a candidate
of that kind with exactly that span, the task is that candidate's (its construct and ``block``
flag); when the
lines are no statements but hold exactly one expression candidate of that kind (the condition on
an ``if`` line), it is that one. Otherwise the lines must be whole statements of one block (or
the braceless body of an ``if`` or loop) and the construct is named after the innermost construct
the marker recognises around them (``if_body``, ``loop_body``, ``statements`` or
``function_rest`` in a function body, …), or :data:`GENERIC` outside all of them. Labels,
distances and the id are made as for marked holes (:func:`task_from_candidate`); a hole's own
``id`` replaces the generated one.

A hole read with SimCopilot's convention (``LineHole.closes_block``: ``--format simcopilot``)
may also run from a statement to the end of a Java block around it, that block's ``}`` included,
as SimCopilot's completion holes do; after the ``}`` that takes it out of the cursor's block it
holds only more closers (or the rest of the statement, ``} else {``). Its task's ground truth then
closes the cursor's block, which tells the post-processors that the code after the hole goes on
outside it (``HoleContext.closes_block``). Without the convention such lines are "part of a block"
and rejected: simpilot's own completion holes end within the innermost block.

A hole that cannot become a task (a file that is not a readable non-test source file, lines out
of the file, lines that start or end inside a statement or a token, a duplicate) is returned in
``LinesResult.rejected`` with the reason, never dropped silently.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from tree_sitter import Node

from postprocess.bracketview import past_the_blocks, view
from replay.config.manifest import Manifest
from replay.core.errors import SimpilotError
from replay.core.json_input import decode, known_fields, numbered
from replay.core.records import Kind, Task, json_kind
from replay.marking import ParsedRepository, parse_repository, task_from_candidate
from replay.marking.candidates import Candidate
from replay.marking.labels import annotate
from replay.marking.languages import LANGUAGES

GENERIC = "lines"  # the construct of a hole outside every construct the markers recognise
FIELDS = ("file", "kind", "first_line", "last_line", "id")

_COMMENTS = {"python": frozenset({"comment"}), "java": frozenset({"line_comment", "block_comment"})}
# The nodes whose children are statements (or declarations): a hole is a run of them.
_CONTAINERS = {
    "python": frozenset({"module", "block"}),
    "java": frozenset(
        {
            "program",
            "block",
            "constructor_body",
            "switch_block_statement_group",
            "class_body",
            "interface_body",
            "enum_body_declarations",
            "annotation_type_body",
        }
    ),
}
_JAVA_LOOPS = frozenset({"for_statement", "enhanced_for_statement", "while_statement", "do_statement"})
_JAVA_METHODS = {
    "method_declaration": "method_rest",
    "constructor_declaration": "constructor_rest",
    "compact_constructor_declaration": "constructor_rest",
}


@dataclass(frozen=True, slots=True)
class LineHole:
    """One hole as given: ``file`` relative to the repository root, lines 1-based and inclusive."""

    file: str
    kind: Kind
    first_line: int
    last_line: int
    id: str | None = None
    where: str = ""  # where it was read ("holes.jsonl:3", "holes.json entry 3")
    # The hole may run on to the end of a block around its first line, the block's ``}`` included
    # (SimCopilot's convention for its holes; a Java task made so closes the cursor's block).
    closes_block: bool = False

    def describe(self) -> str:
        lines = f"line {self.first_line}" if self.first_line == self.last_line else f"lines {self.first_line}-{self.last_line}"
        return f"{self.where + ': ' if self.where else ''}{self.file} {lines} ({self.kind.value})"


@dataclass
class LinesResult:
    tasks: list[Task] = field(default_factory=list)
    rejected: list[tuple[LineHole, str]] = field(default_factory=list)  # (hole, why)


# -- reading the holes ---------------------------------------------------------------------------


def read_holes(path: Path) -> list[LineHole]:
    """The holes of a JSON list or a JSONL file; a malformed file or entry is a :class:`SimpilotError`
    naming the entry, the field and what it should hold."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SimpilotError(f"{path}: cannot be read ({exc})") from exc
    return parse_holes(text, str(path))


def parse_holes(text: str, name: str) -> list[LineHole]:
    """The holes of ``text`` (a JSON list of objects, or one JSON object a line), ``name`` its file."""
    if text.lstrip().startswith("["):
        items = decode(text, list, "not a JSON list ({exc})", "is {kind}, expected a list of holes", f"{name}: ", SimpilotError)
        return [_hole(item, f"{name} entry {i}") for i, item in enumerate(items, start=1)]
    holes = []
    for number, line in numbered(text.splitlines()):
        where = f"{name}:{number}"
        item = decode(line, object, "not JSON ({exc.msg}); expected a JSON list or one hole object a line", "", f"{where}: ", SimpilotError)
        holes.append(_hole(item, where))
    return holes


def _hole(item: Any, where: str) -> LineHole:
    item = known_fields(item, where, FIELDS, f"an object with {', '.join(FIELDS)}")

    def need(name: str, kind: type, what: str) -> Any:
        if name not in item:
            raise SimpilotError(f"{where}: field '{name}' is missing (expected {what})")
        value = item[name]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise SimpilotError(f"{where}: field '{name}' is {json_kind(value)}, expected {what}")
        return value

    file = need("file", str, "a path relative to the repository root")
    kind = need("kind", str, '"infill" or "completion"')
    if kind not in {k.value for k in Kind}:
        raise SimpilotError(f'{where}: field \'kind\' is {kind!r}, expected "infill" or "completion"')
    first = need("first_line", int, "a line number from 1")
    last = need("last_line", int, "a line number from 1")
    if first < 1 or last < first:
        raise SimpilotError(f"{where}: lines {first}-{last} are no range (1-based, first_line <= last_line)")
    given = item.get("id")
    if given is not None and (not isinstance(given, str) or not given.strip()):
        raise SimpilotError(f"{where}: field 'id' is {json_kind(given)}, expected a non-empty string (or no id)")
    return LineHole(file, Kind(kind), first, last, given, where)


# -- holes to tasks ------------------------------------------------------------------------------


class _File:
    """One source file, parsed, with its marker's candidates (found once, on first use)."""

    def __init__(self, language: str, source: bytes, text: str, root: Node) -> None:
        self.language, self.source, self.text, self.root = language, source, text, root
        self.digest = hashlib.sha256(source).hexdigest()
        self.line_starts = [0] + [i + 1 for i, byte in enumerate(source) if byte == 0x0A]
        if self.line_starts[-1] == len(source) and len(self.line_starts) > 1:
            self.line_starts.pop()  # the last line ends with a newline: no line after it
        self._candidates: list[Candidate] | None = None
        self.taken: set[str] = set()  # the ids of this file's tasks so far (for task_from_candidate)

    @property
    def candidates(self) -> list[Candidate]:
        if self._candidates is None:
            marker: Any = LANGUAGES[self.language].marker()
            self._candidates = marker.candidates(self.root)
        return self._candidates

    def line(self, number: int) -> tuple[int, int]:
        """Byte offsets of the start and end (without the newline) of 1-based line ``number``."""
        start = self.line_starts[number - 1]
        end = self.source.find(b"\n", start)
        return start, len(self.source) if end < 0 else end

    def row(self, byte: int) -> int:
        """The 1-based line of ``byte``."""
        lo, hi = 0, len(self.line_starts)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self.line_starts[mid] <= byte:
                lo = mid
            else:
                hi = mid
        return lo + 1


def tasks_from_lines(manifest: Manifest, holes: list[LineHole], parsed: ParsedRepository | None = None) -> LinesResult:
    """The task of each hole of ``manifest``'s repository, in the order given, and why each other
    hole cannot be one. ``parsed``: the repository already parsed (:func:`parse_repository`)."""
    parsed = parsed if parsed is not None else parse_repository(manifest)
    result = LinesResult()
    files: dict[str, _File] = {}
    ids: dict[str, LineHole] = {}
    spans: dict[tuple[str, Kind, int, int], LineHole] = {}
    for hole in holes:
        path = _path(manifest, parsed, hole.file)
        if not isinstance(path, tuple):
            result.rejected.append((hole, path))
            continue
        path = path[0]
        if path not in files:
            source, text = parsed.files[path]
            files[path] = _File(manifest.language, source, text, parsed.trees[path])
        f = files[path]
        cand = _candidate(f, hole)
        if isinstance(cand, str):
            result.rejected.append((hole, cand))
            continue
        key = (path, hole.kind, cand.start_byte, cand.end_byte)
        if key in spans:
            result.rejected.append((hole, f"the same hole as {spans[key].where or spans[key].describe()}"))
            continue
        taken = set(f.taken)
        note = annotate(parsed.index, path, f.source, f.root, cand.start_byte, cand.end_byte)
        task = task_from_candidate(manifest, path, f.source, f.text, f.digest, cand, note, taken)
        if hole.id is not None:
            task = replace(task, id=hole.id)
        if task.id in ids:
            result.rejected.append((hole, f"id {task.id!r} is already the id of {ids[task.id].where or ids[task.id].describe()}"))
            continue
        f.taken = taken
        spans[key] = ids[task.id] = hole
        result.tasks.append(task)
    return result


def _path(manifest: Manifest, parsed: ParsedRepository, file: str) -> tuple[str] | str:
    """The hole's file as a repository path (a 1-tuple), or why it cannot hold a hole."""
    rel = PurePosixPath(file.replace("\\", "/"))
    if rel.is_absolute() or ".." in rel.parts or not rel.parts:
        return f"{file!r} is not a path inside the repository (give it relative to {manifest.root})"
    path = rel.as_posix()
    if path in parsed.skipped:
        return f"{path} cannot hold a hole: {parsed.skipped[path]}"
    if path in parsed.trees:
        return (path,)
    if not (manifest.root / path).is_file():
        return f"{path} does not exist in {manifest.root}"
    if manifest.is_test_path(path):
        return f"{path} is a test file: test files never become holes (nor enter a prompt)"
    return (
        f"{path} is not a {manifest.language} source file of {manifest.name} "
        f"(sources: files ending {', '.join(manifest.extensions)} under {', '.join(manifest.sources)})"
    )


def _candidate(f: _File, hole: LineHole) -> Candidate | str:
    """The candidate the hole's lines make, or why they make none."""
    count = len(f.line_starts)
    if hole.last_line > count:
        outside = f"line {hole.last_line} is" if hole.first_line <= count else f"lines {hole.first_line}-{hole.last_line} are"
        return f"the file has {count} lines: {outside} out of it"
    span = _whole_lines(f, hole)
    if isinstance(span, tuple):
        start, ends = span
        for end in ends:
            for cand in f.candidates:
                if cand.kind is hole.kind and cand.start_byte == start and cand.end_byte == end:
                    return cand
        runs = [_statements(f, start, end, hole) for end in ends]
        run = next((r for r in runs if isinstance(r, Candidate)), runs[0])
        if not isinstance(run, Candidate) and hole.closes_block:
            closing = [c for end in ends if (c := _to_block_end(f, start, end, hole)) is not None]
            run = next((c for c in closing if isinstance(c, Candidate)), closing[0] if closing else run)
    else:
        run = span
    if isinstance(run, Candidate):
        return run
    # not whole statements: an expression hole of the marker on exactly these lines (an if's condition)
    expressions = [
        c
        for c in f.candidates
        if c.kind is hole.kind and not c.block and f.row(c.start_byte) == hole.first_line and f.row(c.end_byte) == hole.last_line
    ]
    if len(expressions) == 1:
        return expressions[0]
    if len(expressions) > 1:
        return f"{len(expressions)} conditions fit these lines, and lines cannot tell them apart"
    return run


def _whole_lines(f: _File, hole: LineHole) -> tuple[int, list[int]] | str:
    """Where the lines start (the first line's first non-blank character) and where they may end:
    at the end of the last line without trailing whitespace, or, when the line ends with a comment
    after code, before that comment. Which end is a statement's end is for the syntax tree to say
    (tree-sitter puts a trailing comment inside a nested block, so the statement holding that
    block ends after it; marked holes end where their last statement ends)."""
    comments = _COMMENTS[f.language]
    first_start, first_end = f.line(hole.first_line)
    line = f.source[first_start:first_end]
    if not line.strip():
        return f"line {hole.first_line} is blank: start the hole on a line of code"
    start = first_start + len(line) - len(line.lstrip())
    last_start, last_end = f.line(hole.last_line)
    line = f.source[last_start:last_end]
    if not line.strip():
        return f"line {hole.last_line} is blank: end the hole on a line of code"
    ends = [last_start + len(line.rstrip())]
    leaf = _leaf(f.root, ends[0] - 1)
    if leaf.type in comments:  # a line that is only a comment is judged with the statements
        code = f.source[last_start : max(last_start, leaf.start_byte)].rstrip()
        if code.strip():
            ends.append(last_start + len(code))
    return start, ends


def _leaf(root: Node, byte: int) -> Node:
    return root.descendant_for_byte_range(byte, byte + 1) or root


def _statements(f: _File, start: int, end: int, hole: LineHole) -> Candidate | str:
    """The span as a hole of whole statements (or declarations) of one block, or why it is none."""
    node = _leaf(f.root, start)
    if node.start_byte < start:
        return f"line {hole.first_line} starts inside {_a(node.type)} that begins on line {f.row(node.start_byte)}"
    while node.parent is not None and node.parent.start_byte == start and node.parent.end_byte <= end:
        node = node.parent
    containers = _CONTAINERS[f.language]
    if f.language == "python" and node.type in containers and node.named_child_count:
        node = node.children[0]  # a whole Python block (it has no braces) is the run of its statements
    parent = node.parent
    if parent is None:
        return "the hole would be the whole file"
    siblings = parent.children
    i = next(k for k, c in enumerate(siblings) if c == node)
    j = i
    while j < len(siblings) and siblings[j].end_byte < end:
        j += 1
    if j == len(siblings) or siblings[j].end_byte != end:
        crossing = next((c for c in siblings[i:] if c.start_byte < end < c.end_byte), None)
        if crossing is not None:
            return (
                f"line {hole.last_line} ends inside {_a(crossing.type)} that goes on to line {f.row(crossing.end_byte - 1)}: "
                "a hole must end where a statement ends"
            )
        return f"lines {hole.first_line}-{hole.last_line} are not whole statements of one block"
    run = siblings[i : j + 1]
    comments = _COMMENTS[f.language]
    if run[0].type in comments:
        return f"line {hole.first_line} holds only a comment: start the hole on a line of code (comments above a hole stay visible)"
    if run[-1].type in comments:
        return f"line {hole.last_line} holds only a comment: end the hole on a line of code"
    body = parent.type in containers or (len(run) == 1 and _is_body(parent, node))
    if not body or any(not c.is_named or c.type in ("switch_label", "ERROR") for c in run):
        part = _a(parent.type) if parent.type in containers else "the header of " + _a(parent.type)
        return (
            f"lines {hole.first_line}-{hole.last_line} are part of {part}, not whole statements of one block "
            "(a hole is a run of statements, or an if's condition)"
        )
    return Candidate(hole.kind, _construct(f.language, hole.kind, parent, node), start, end, True)


def _to_block_end(f: _File, start: int, end: int, hole: LineHole) -> Candidate | str | None:
    """The span as a hole that starts with a statement (or declaration) and runs on to the end of
    a block around it, that block's ``}`` included (``LineHole.closes_block``); None when it is
    not of that shape (only Java blocks have a closer to end on), or why it cannot be one: after
    the ``}`` that takes it out of the cursor's block it may hold only more closers (and the rest
    of the statement, ``} else {``), as the post-processors read such a hole."""
    if f.language != "java":
        return None
    node = _leaf(f.root, start)
    if node.start_byte < start:
        return None
    while node.parent is not None and node.parent.start_byte == start and node.parent.end_byte <= end:
        node = node.parent
    parent = node.parent
    containers = _CONTAINERS[f.language]
    if parent is None or not node.is_named or node.type in _COMMENTS[f.language] or node.type in ("switch_label", "ERROR"):
        return None
    if parent.type not in containers and not _is_body(parent, node):
        return None
    block: Node | None = parent
    while block is not None and block.end_byte < end:
        block = block.parent
    if block is None or block.end_byte != end or block.type not in containers | {"switch_block"}:
        return None
    if not block.children or block.children[-1].type != "}":
        return None
    prefix, truth = f.source[:start].decode("utf-8"), f.source[start:end].decode("utf-8")
    past = past_the_blocks(truth, view(prefix, truth, None))
    if past is not None:
        at = start + len(truth[:past].encode("utf-8"))
        return (
            f"line {f.row(at)} goes on after the block around line {hole.first_line} is closed: "
            "a hole that closes its block ends with the closers"
        )
    return Candidate(hole.kind, _construct(f.language, hole.kind, parent, node), start, end, True)


def _a(node_type: str) -> str:
    words = node_type.replace("_", " ")
    return ("an " if words[:1] in "aeiou" else "a ") + words


def _is_body(parent: Node, node: Node) -> bool:
    """Whether ``node`` is a braceless body of ``parent`` (Java ``if (x) y();``, ``while (x) y();``)."""
    return any(parent.child_by_field_name(name) == node for name in ("consequence", "alternative", "body"))


def _construct(language: str, kind: Kind, container: Node, child: Node) -> str:
    """The innermost construct the language's marker recognises around statements of ``container``
    (``child`` the first of them), named as the marker names its holes of ``kind``."""
    infill = kind is Kind.INFILL
    node: Node | None = container
    while node is not None:
        named = _python_body(node, infill) if language == "python" else _java_body(node, child, infill)
        if named is not None:
            return named
        child, node = node, node.parent
    return GENERIC


def _python_body(node: Node, infill: bool) -> str | None:
    owner = node.parent
    if node.type != "block" or owner is None:
        return None
    if owner.type == "function_definition":
        return "statements" if infill else "function_rest"
    if owner.type in ("if_statement", "elif_clause"):
        return "if_body" if infill else "block_rest"
    if owner.type == "else_clause" and owner.parent is not None and owner.parent.type == "if_statement":
        return "else_body" if infill else "block_rest"
    if owner.type in ("for_statement", "while_statement") and owner.child_by_field_name("body") == node:
        return "loop_body" if infill else "block_rest"
    return None


def _java_body(node: Node, child: Node, infill: bool) -> str | None:
    t = node.type
    if t == "switch_block_statement_group":
        return "case_body" if infill else "block_rest"
    if t == "if_statement":  # the statements of a branch, braced or not
        branch = "if_body" if node.child_by_field_name("consequence") == child else "else_body"
        if child.type == "if_statement":  # `else if` is an if of its own
            return None
        return (branch if infill else "block_rest") if _is_body(node, child) else None
    if t in _JAVA_LOOPS:
        return ("loop_body" if infill else "block_rest") if node.child_by_field_name("body") == child else None
    if t == "switch_rule" and child.type == "block":
        return "case_body" if infill else "block_rest"
    if t in _JAVA_METHODS and child.type in ("block", "constructor_body"):
        return "statements" if infill else _JAVA_METHODS[t]
    return None
