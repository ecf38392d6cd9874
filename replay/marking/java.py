"""Candidate holes in Java source, found with tree-sitter.

Depth-first over classes (nested ones, enums, records, interfaces and anonymous classes too),
then methods and constructors, then loops, if/else-if/else and switches (the SimCopilot paper's
Algorithm 1):

* infill ``if_condition``: the expression inside the parentheses of an ``if``;
* infill ``if_body`` / ``else_body`` / ``loop_body``: the statements of a branch of an if or of a
  ``for``, enhanced ``for``, ``while`` or ``do`` (without the braces, or the single statement of a
  branch written without braces); an ``else if`` is an ``if`` of its own;
* infill ``case_body``: the statements of one ``case X:`` group, or of the block of a
  ``case X -> { ... }`` rule (switch statements and switch expressions alike);
* infill ``statements``: a run of one to three statements inside a method or constructor body;
* completion ``method_rest`` / ``constructor_rest`` / ``block_rest``: from a statement to the end
  of the innermost block holding it (method or constructor body, braced branch or loop body,
  case group). The closing brace stays after the hole.

Statement holes cover whole lines: only indentation before the first statement and nothing but
whitespace after the last one, so the cursor sits on a fresh line and a brace or a trailing
comment never shares a line with the hole. Comments above the first statement stay visible.
Trivial holes (``break;``, ``return x;``, ``this.x = x;``, ``throw new
UnsupportedOperationException()``), one-line accessors, ``main(String[])``, classes named
``*Test``/``*Tests`` and lambda bodies are skipped.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass

from tree_sitter import Node, Parser, QueryCursor

from postprocess.syntax import language, query
from replay.core.records import Kind
from replay.marking import labels_java
from replay.marking.candidates import Candidate, in_document_order
from replay.marking.languages import MarkingLanguage

LANGUAGE = language("java")

MAX_INFILL_LINES = 15
MAX_COMPLETION_LINES = 12
MIN_STATEMENT_NODES = 5  # named nodes in a hole; `total += v;` has 4, `total += weights[i];` has 6
MIN_CONDITION_NODES = 2  # `done` alone is too easy; `!done` or `i < n` are fine
MAX_RUN = 3

_METHODS = {
    "method_declaration": "method_rest",
    "constructor_declaration": "constructor_rest",
    "compact_constructor_declaration": "constructor_rest",
}
_COMMENTS = frozenset({"line_comment", "block_comment"})
_LITERALS = frozenset(
    {
        "decimal_integer_literal",
        "hex_integer_literal",
        "octal_integer_literal",
        "binary_integer_literal",
        "decimal_floating_point_literal",
        "hex_floating_point_literal",
        "character_literal",
        "string_literal",
        "text_block",
        "true",
        "false",
        "null_literal",
    }
)
_SIMPLE_VALUES = _LITERALS | {"identifier", "this"}
_TRIVIAL_STATEMENTS = frozenset({"break_statement", "continue_statement"})
_BORING_THROWS = (b"UnsupportedOperationException",)
_CONSTRUCTS = query(
    "java",
    """
    [(class_declaration) (enum_declaration) (record_declaration) (interface_declaration) (annotation_type_declaration)] @class
    [(class_body) (enum_body) (interface_body) (annotation_type_body)] @body
    [(method_declaration) (constructor_declaration) (compact_constructor_declaration)] @method
    (lambda_expression) @lambda
    (if_statement) @if
    [(for_statement) (enhanced_for_statement) (while_statement) (do_statement)] @loop
    (switch_block) @switch
    """,
)


def parser() -> Parser:
    return Parser(LANGUAGE)


def _statements(body: Node | None) -> list[Node]:
    """The statements a body holds, without comments (comments stay outside holes).

    A braced block gives its statements; a branch written without braces gives its one statement.
    """
    if body is None or not body.is_named:  # `while (x);` has a bare `;` body
        return []
    if body.type not in ("block", "constructor_body"):
        return [body]
    return [c for c in body.named_children if c.type not in _COMMENTS]


def _capped_size(node: Node, limit: int) -> int:
    """Named nodes under ``node`` (itself included), counted up to ``limit`` only: stops early,
    so it stays cheap on big statements, and never recurses (deep files must not crash)."""
    count, stack = 0, [node]
    while stack and count < limit:
        n = stack.pop()
        count += 1
        if count + len(stack) + n.named_child_count >= limit:  # those are all distinct named nodes
            return limit
        stack.extend(n.named_children)
    return count


def _is_simple(node: Node | None) -> bool:
    """A bare name or literal: nothing to predict beyond copying."""
    return node is not None and node.type in _SIMPLE_VALUES


def _only_child(node: Node) -> Node | None:
    kids = [c for c in node.named_children if c.type not in _COMMENTS]
    return kids[0] if len(kids) == 1 else None


def _is_simple_assignment(stmt: Node) -> bool:
    """`this.x = x;`, `count = 0;`, `int i = 0;`: a name bound to a bare name or literal."""
    if stmt.type == "expression_statement":
        expr = _only_child(stmt)
        return expr is not None and expr.type == "assignment_expression" and _is_simple(expr.child_by_field_name("right"))
    if stmt.type == "local_variable_declaration":
        declarators = stmt.children_by_field_name("declarator")
        return len(declarators) == 1 and _is_simple(declarators[0].child_by_field_name("value"))
    return False


def _is_trivial_single(stmt: Node) -> bool:
    if stmt.type in _TRIVIAL_STATEMENTS:
        return True
    if stmt.type in ("return_statement", "yield_statement"):
        value = _only_child(stmt)
        return value is None or _is_simple(value)
    if stmt.type == "throw_statement":
        value = _only_child(stmt)
        kind = value.child_by_field_name("type") if value is not None and value.type == "object_creation_expression" else None
        return kind is not None and (kind.text or b"") in _BORING_THROWS
    return _is_simple_assignment(stmt)


def _is_accessor(body: list[Node]) -> bool:
    """A one-statement getter, setter or delegating constructor: `return size;`,
    `return this.root;`, `this.f = v;`, `this(n, null);`."""
    if len(body) != 1:
        return False
    stmt = body[0]
    if stmt.type == "explicit_constructor_invocation":
        args = stmt.child_by_field_name("arguments")
        return args is not None and all(_is_simple(a) for a in args.named_children)
    if stmt.type == "return_statement":
        value = _only_child(stmt)
        return value is None or _is_simple(value) or (value.type == "field_access" and _is_simple(value.child_by_field_name("object")))
    return _is_simple_assignment(stmt)


def _name(node: Node) -> bytes:
    name = node.child_by_field_name("name")
    return (name.text or b"") if name is not None else b""


def _is_main(method: Node) -> bool:
    if method.type != "method_declaration" or _name(method) != b"main":
        return False
    params = method.child_by_field_name("parameters")
    if params is None or params.named_child_count != 1:
        return False
    param = params.named_children[0]
    text = param.text or b""
    return b"String" in text and (b"[]" in text or b"..." in text)


def _is_test_class(node: Node) -> bool:
    return _name(node).endswith((b"Test", b"Tests"))


@dataclass(frozen=True, slots=True)
class _Siblings:
    """Facts about one list of sibling statements, read from the tree once, so that the many
    runs over them (every rest of a block, every one-to-three statement run) are judged without
    touching a node again."""

    start: list[int]  # bytes
    end: list[int]
    first_row: list[int]
    last_row: list[int]
    size: list[int]  # named nodes, counted up to MIN_STATEMENT_NODES
    filler: list[bool]  # `break;`, `continue;`
    trivial_alone: list[bool]
    opens_line: list[bool]  # only indentation before it on its line
    closes_line: list[bool]  # only whitespace after it on its line

    def _ok(self, i: int, j: int) -> bool:
        """Whether statements ``i..j`` (not too long) make a hole: not trivial, not sharing a line."""
        if not (self.opens_line[i] and self.closes_line[j]) or all(self.filler[i : j + 1]):
            return False
        return not (i == j and self.trivial_alone[i]) and sum(self.size[i : j + 1]) >= MIN_STATEMENT_NODES

    def whole(self, construct: str) -> Iterator[Candidate]:
        """All the statements as an infill hole."""
        j = len(self.start) - 1
        if self.last_row[j] - self.first_row[0] < MAX_INFILL_LINES and self._ok(0, j):
            yield Candidate(Kind.INFILL, construct, self.start[0], self.end[j], True)

    def rests(self, construct: str) -> Iterator[Candidate]:
        """Every rest of the list (statement ``k`` to the last) as a completion hole. Rows only
        grow along the list, so the short enough rests are the last ones: the first of them is
        found by bisection."""
        j = len(self.start) - 1
        if not self.closes_line[j]:
            return
        for k in range(bisect.bisect_left(self.first_row, self.last_row[j] - MAX_COMPLETION_LINES + 1), j + 1):
            if self._ok(k, j):
                yield Candidate(Kind.COMPLETION, construct, self.start[k], self.end[j], True)

    def runs(self) -> Iterator[Candidate]:
        """Every run of one to MAX_RUN statements as a ``statements`` infill hole (a run too
        long stays too long when it grows)."""
        n, first_row, last_row = len(self.start), self.first_row, self.last_row
        for i in range(n):
            for j in range(i, min(i + MAX_RUN, n)):
                if last_row[j] - first_row[i] >= MAX_INFILL_LINES:
                    break
                if self._ok(i, j):
                    yield Candidate(Kind.INFILL, "statements", self.start[i], self.end[j], True)


def _siblings(stmts: list[Node], source: bytes, base: int) -> _Siblings:
    """``source`` is the root node's text, which starts at byte ``base`` of the file (the root
    skips leading whitespace, and the bytes before it need no check). One pass over the
    statements reads each node's facts once."""
    starts, ends, first_rows, last_rows, sizes, filler, alone, opens, closes = [], [], [], [], [], [], [], [], []
    for n in stmts:
        s, e, t = n.start_byte, n.end_byte, n.type
        starts.append(s)
        ends.append(e)
        first_rows.append(n.start_point[0])
        last_rows.append(n.end_point[0])
        sizes.append(_capped_size(n, MIN_STATEMENT_NODES))
        filler.append(t in _TRIVIAL_STATEMENTS)
        alone.append(_is_trivial_single(n))
        s, e = s - base, e - base
        opens.append(not source[source.rfind(b"\n", 0, s) + 1 : s].strip())
        line_end = source.find(b"\n", e)
        closes.append(not source[e : len(source) if line_end < 0 else line_end].strip())
    return _Siblings(
        start=starts,
        end=ends,
        first_row=first_rows,
        last_row=last_rows,
        size=sizes,
        filler=filler,
        trivial_alone=alone,
        opens_line=opens,
        closes_line=closes,
    )


class JavaMarker:
    """Finds candidates in one parsed Java file."""

    language = "java"

    def candidates(self, root: Node) -> list[Candidate]:
        return in_document_order(self._walk(root))

    def _walk(self, root: Node) -> Iterator[Candidate]:
        """The constructs in document order (a depth-first pre-order), each with the innermost
        scope holding it: a class body, a method, or something skipped whole (a lambda, a test
        class, ``main``). The query finds them in C, so the many expression nodes are never
        visited from Python; an explicit stack of open scopes replaces recursion."""
        source, base = root.text or b"", root.start_byte
        found = QueryCursor(_CONSTRUCTS).captures(root)
        order = sorted(
            ((n.start_byte, -n.end_byte, i, role, n) for role, nodes in found.items() for i, n in enumerate(nodes)),
            key=lambda e: e[:3],
        )
        scopes: list[tuple[int, str]] = []  # (end byte, "class" | "method" | "skip"), innermost last
        for start, _, _, role, node in order:
            while scopes and scopes[-1][0] <= start:
                scopes.pop()
            scope = scopes[-1][1] if scopes else "class"
            if scope == "skip":
                continue
            if role == "class":
                if _is_test_class(node):
                    scopes.append((node.end_byte, "skip"))
            elif role in ("body", "lambda"):
                scopes.append((node.end_byte, "class" if role == "body" else "skip"))
            elif role == "method":
                skip = _is_main(node)
                if not skip:
                    yield from _method(node, source, base)
                scopes.append((node.end_byte, "skip" if skip else "method"))
            elif scope == "method":
                if role == "if":
                    yield from _if(node, source, base)
                elif role == "loop":
                    yield from _body(node.child_by_field_name("body"), "loop_body", source, base)
                else:
                    yield from _switch(node, source, base)


# -- constructs (each yields its holes) ---------------------------------------------------------


def _method(method: Node, source: bytes, base: int) -> Iterator[Candidate]:
    stmts = _statements(method.child_by_field_name("body"))  # none: abstract or interface
    if not stmts or _is_accessor(stmts):
        return
    sib = _siblings(stmts, source, base)
    yield from sib.rests(_METHODS[method.type])
    yield from sib.runs()


def _if(node: Node, source: bytes, base: int) -> Iterator[Candidate]:
    paren = node.child_by_field_name("condition")
    cond = _only_child(paren) if paren is not None else None
    if (
        cond is not None
        and cond.start_point.row == cond.end_point.row
        and cond.type not in _LITERALS
        and _capped_size(cond, MIN_CONDITION_NODES) >= MIN_CONDITION_NODES
    ):
        yield Candidate(Kind.INFILL, "if_condition", cond.start_byte, cond.end_byte, False)
    yield from _body(node.child_by_field_name("consequence"), "if_body", source, base)
    alternative = node.child_by_field_name("alternative")
    if alternative is not None and alternative.type != "if_statement":  # `else if` is its own if
        yield from _body(alternative, "else_body", source, base)


def _switch(block: Node, source: bytes, base: int) -> Iterator[Candidate]:
    for case in block.named_children:
        if case.type == "switch_block_statement_group":
            stmts = [c for c in case.named_children if c.type not in _COMMENTS and c.type != "switch_label"]
            if len(stmts) == 1 and stmts[0].type == "block":  # `case X: { ... }`
                stmts = _statements(stmts[0])
            yield from _block_body(stmts, "case_body", source, base, braced=True)
        elif case.type == "switch_rule":
            body = case.named_children[-1]
            if body.type == "block":  # `case X -> expr;` leaves nothing to hole on its own line
                yield from _body(body, "case_body", source, base)


def _body(body: Node | None, construct: str, source: bytes, base: int) -> Iterator[Candidate]:
    braced = body is not None and body.type == "block"
    yield from _block_body(_statements(body), construct, source, base, braced=braced)


def _block_body(stmts: list[Node], construct: str, source: bytes, base: int, *, braced: bool) -> Iterator[Candidate]:
    if not stmts:
        return
    sib = _siblings(stmts, source, base)
    yield from sib.whole(construct)
    if braced:  # completing "to the end of the block" needs a block end
        yield from sib.rests("block_rest")


MARKING = {"java": MarkingLanguage(JavaMarker, parser, labels_java)}
