"""Decision tasks: places where the right suggestion is nothing, or exactly one line.

An assistant is asked at every pause in typing, and most of the time the best answer is to show
nothing or very little. Two kinds of place test that decision (``Decision`` in ``records.py``):

* ``no_suggestion``: the cursor at the end of the last line of a complete one-line statement
  (the developer has just typed it). The ground truth is the empty string; the construct says
  what the statement completes: ``function_end`` (the last statement of a function, method or
  constructor body), ``block_end`` (the last statement of a nested block: a branch, a loop
  body, a ``with`` or ``try`` block) or ``statement_end`` (a statement followed by more).
* ``one_line``: a whole one-line statement with more statements after it in its block; the
  ground truth is that line (construct ``statements``, as a one-statement infill hole).

Only statements that can be followed by code are used: never a ``return``, ``raise``/``throw``,
``break``, ``continue`` or ``pass``, after which an insertion is dead code (or, in Java, does not
compile) and can prove nothing. A statement must have its line to itself (only indentation
before it, nothing after it but whitespace), so the cursor position is unambiguous.

:func:`plausible_additions` gives what a model would plausibly add after such a line (the
statement again, the next line of the file, an early ``return``): the gate (validation) needs one
of them to compile and fail the selected tests, which shows that suggesting more is harmful
there and that the tests reach the spot. Everything here is pure: trees and bytes in, records out.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from typing import NamedTuple

from tree_sitter import Node

from replay.config.manifest import Manifest
from replay.core.records import Decision, Kind, Task
from replay.marking import MarkResult, ParsedRepository, hole_at, parse_repository
from replay.marking.candidates import round_robin
from replay.marking.java import parser as java_parser
from replay.marking.labels import annotate

MIN_LINE_NODES = 5  # named nodes in a one-line ground truth, as for ordinary holes (`y = 1` is too easy)
DEFAULT_PER_FILE = 6  # spots of each decision per file when no number is given

# Per language: the statements that may hold a line of their own, those after which nothing can
# run (an insertion there is dead code), and what a function body is.
_SIMPLE = {
    "python": frozenset(
        {"expression_statement", "return_statement", "raise_statement", "assert_statement", "delete_statement", "global_statement"}
    )
    | {"nonlocal_statement", "pass_statement", "break_statement", "continue_statement"},
    "java": frozenset(
        {
            "expression_statement",
            "local_variable_declaration",
            "return_statement",
            "throw_statement",
            "break_statement",
            "continue_statement",
            "yield_statement",
            "assert_statement",
        }
    ),
}
_JUMPS = frozenset({"return_statement", "raise_statement", "throw_statement", "break_statement", "continue_statement"}) | {
    "yield_statement",
    "pass_statement",
}
_FUNCTIONS = {
    "python": frozenset({"function_definition"}),
    "java": frozenset({"method_declaration", "constructor_declaration", "compact_constructor_declaration"}),
}
_BODIES = {"python": frozenset({"block"}), "java": frozenset({"block", "constructor_body"})}
# Nodes that start a scope of their own: a block inside them belongs to them, not to the function
# around (a lambda's body, a class declared in a method, Python's nested class).
_SCOPES = {
    "python": frozenset({"class_definition", "lambda"}),
    "java": frozenset({"class_declaration", "lambda_expression", "class_body", "enum_declaration", "record_declaration"}),
}
_JAVA_ZERO = {"int", "long", "short", "byte", "char", "double", "float"}


class Spot(NamedTuple):
    """A decision place in one file: the hole's bytes (empty for ``no_suggestion``)."""

    decision: Decision
    construct: str
    start_byte: int
    end_byte: int


def _own_line(source: bytes, node: Node) -> bool:
    """Whether ``node`` is alone on its line: only indentation before it, only whitespace after."""
    line_start = source.rfind(b"\n", 0, node.start_byte) + 1
    line_end = source.find(b"\n", node.end_byte)
    line_end = len(source) if line_end < 0 else line_end
    return not source[line_start : node.start_byte].strip() and not source[node.end_byte : line_end].strip()


def _named_size(node: Node, cap: int) -> int:
    count, stack = 0, [node]
    while stack and count < cap:
        n = stack.pop()
        count += 1
        stack.extend(n.named_children)
    return count


def _is_docstring(node: Node) -> bool:
    return node.type == "expression_statement" and node.named_child_count == 1 and node.named_children[0].type == "string"


def _is_main(language: str, node: Node) -> bool:
    """``if __name__ == "__main__":`` (Python) or ``static void main(String[])`` (Java): never marked."""
    if language == "python":
        cond = node.child_by_field_name("condition") if node.type == "if_statement" else None
        return cond is not None and b"__main__" in (cond.text or b"")
    name = node.child_by_field_name("name") if node.type == "method_declaration" else None
    return name is not None and name.text == b"main"


def _bodies(language: str, root: Node) -> list[tuple[Node, bool]]:
    """Every statement block inside a function of the file, with whether it is the function's own
    body (in document order). Blocks of nested scopes count as theirs, not the outer function's."""
    functions, scopes, bodies = _FUNCTIONS[language], _SCOPES[language], _BODIES[language]
    found: list[tuple[Node, bool]] = []
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, in_function = stack.pop()
        if _is_main(language, node):
            continue
        t = node.type
        if t in functions:
            body = node.child_by_field_name("body")
            if body is not None:
                found.append((body, True))
                stack.extend((c, True) for c in reversed(body.named_children))
            continue
        if t in scopes:
            in_function = False
        elif in_function and t in bodies:
            found.append((node, False))
        stack.extend((c, in_function) for c in reversed(node.named_children))
    return sorted(found, key=lambda b: b[0].start_byte)


def find_spots(language: str, root: Node, source: bytes) -> list[Spot]:
    """Every ``no_suggestion`` and ``one_line`` place of one parsed file, in document order."""
    simple = _SIMPLE[language]
    spots: list[Spot] = []
    for body, is_function in _bodies(language, root):
        stmts = [c for c in body.named_children if c.is_named and "comment" not in c.type and not _is_docstring(c)]
        for i, stmt in enumerate(stmts):
            if stmt.type not in simple or stmt.type in _JUMPS or stmt.start_point[0] != stmt.end_point[0]:
                continue
            if not _own_line(source, stmt):
                continue
            last = i == len(stmts) - 1
            construct = ("function_end" if is_function else "block_end") if last else "statement_end"
            spots.append(Spot(Decision.NOTHING, construct, stmt.end_byte, stmt.end_byte))
            if not last and _named_size(stmt, MIN_LINE_NODES) >= MIN_LINE_NODES:
                spots.append(Spot(Decision.ONE_LINE, "statements", stmt.start_byte, stmt.end_byte))
    return spots


def choose(spots: list[Spot], *, seed: int, key: str, per_file: int) -> list[Spot]:
    """Up to ``per_file`` spots of each decision, round-robin over constructs (so that function,
    block and statement ends all appear), shuffled by a generator seeded by ``seed`` and ``key``
    (the file's path): the choice in one file does not depend on any other."""
    rng = random.Random(f"{seed}|decisions|{key}")
    chosen: list[Spot] = []
    for decision in Decision:
        groups: dict[str, list[Spot]] = defaultdict(list)
        for spot in spots:
            if spot.decision is decision:
                groups[spot.construct].append(spot)
        chosen += round_robin([groups[construct] for construct in sorted(groups)], rng, per_file)
    return sorted(chosen, key=lambda s: (s.start_byte, s.end_byte, s.decision.value))


def task_from_spot(manifest: Manifest, parsed: ParsedRepository, path: str, digest: str, spot: Spot) -> Task:
    """The infill task of one spot (the editor has the whole file open). Its id names the
    decision and the line, so that it never collides with an ordinary task of the same lines."""
    source, text = parsed.files[path]
    span, indent, truth = hole_at(source, text, spot.start_byte, spot.end_byte)
    note = annotate(parsed.index, path, source, parsed.trees[path], spot.start_byte, spot.end_byte)
    return Task(
        id=f"{manifest.name}:{path}:{spot.decision.value}:{span.start.line + 1}",
        repo=manifest.name,
        language=manifest.language,
        path=path,
        kind=Kind.INFILL,
        construct=spot.construct,
        block=spot.decision is Decision.ONE_LINE,  # a one-line hole starts after the indentation
        span=span,
        indent=indent,
        ground_truth=truth,
        file_sha256=digest,
        lines_removed=0 if spot.decision is Decision.NOTHING else 1,
        labels=note.labels,
        comment_distance=note.comment_distance,
        reference_distance=note.reference_distance,
        decision=spot.decision,
    )


def mark_decisions(manifest: Manifest, *, seed: int = 0, per_file: int | None = None) -> MarkResult:
    """Candidate decision tasks of every source file of ``manifest`` (deterministic for ``seed``):
    up to ``per_file`` of each decision per file (:data:`DEFAULT_PER_FILE` when None)."""
    parsed = parse_repository(manifest)
    result = MarkResult()
    paths = manifest.source_files()
    result.skipped = [(p, parsed.skipped[p]) for p in paths if p in parsed.skipped]
    for path in paths:
        if path not in parsed.trees:
            continue
        source, text = parsed.files[path]
        result.files += 1
        result.lines += text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        spots = choose(
            find_spots(manifest.language, parsed.trees[path], source), seed=seed, key=path, per_file=per_file or DEFAULT_PER_FILE
        )
        digest = hashlib.sha256(source).hexdigest()
        result.tasks.extend(task_from_spot(manifest, parsed, path, digest, spot) for spot in spots)
    return result


# -- what a model would plausibly add -------------------------------------------------------------


def _line_bounds(source: bytes, offset: int) -> tuple[int, int]:
    start = source.rfind(b"\n", 0, offset) + 1
    end = source.find(b"\n", offset)
    return start, len(source) if end < 0 else end


def _next_code_line(language: str, source: bytes, offset: int) -> str | None:
    """The next line after ``offset``'s line that holds code, stripped; None when it cannot stand
    as a statement of its own (a closing bracket, a Python line opening a block, an ``else``)."""
    comment = b"#" if language == "python" else b"//"
    _, end = _line_bounds(source, offset)
    for raw in source[end + 1 :].split(b"\n"):
        line = raw.strip()
        if not line or line.startswith(comment) or line.startswith((b"/*", b"*")):
            continue
        text = line.decode("utf-8", "replace")
        if language == "python" and (text.endswith(":") or text.startswith(("elif", "else", "except", "finally", "@"))):
            return None
        if language == "java" and (not text.endswith(";") or text.startswith("}")):
            return None
        return text
    return None


def _java_return(source: bytes, offset: int) -> str:
    """The ``return`` an enclosing Java method accepts: bare in a void method or constructor,
    else a default value of its type."""
    root = java_parser().parse(source).root_node
    node = root.descendant_for_byte_range(max(offset - 1, 0), max(offset - 1, 0))
    while node is not None and node.type not in _FUNCTIONS["java"] and node.type != "lambda_expression":
        node = node.parent
    kind = node.child_by_field_name("type") if node is not None and node.type == "method_declaration" else None
    name = (kind.text or b"").decode() if kind is not None else "void"
    if name == "void":
        return "return;"
    if name == "boolean":
        return "return false;"
    return "return 0;" if name in _JAVA_ZERO else "return null;"


def plausible_additions(task: Task, original: bytes) -> list[str]:
    """What a model would plausibly add after the task's line, each as the text that follows the
    line (a newline, the line's indentation, a statement): the statement again, the file's next
    line, an early ``return``. Distinct, in that order. For ``no_suggestion`` these are whole
    answers; for ``one_line`` the longer answer is the ground truth followed by one of them."""
    end = task.span.end_byte
    line_start, _ = _line_bounds(original, end)
    statement = original[line_start:end].decode("utf-8").strip()
    following = _next_code_line(task.language, original, end)
    ret = "return None" if task.language == "python" else _java_return(original, end)
    found: list[str] = []
    for extra in (statement, following, ret):
        text = f"\n{task.indent}{extra}" if extra else ""
        if text and text not in found:
            found.append(text)
    return found
