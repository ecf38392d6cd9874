"""Candidate holes in Python source, found with tree-sitter.

Depth-first over functions, loops and if/elif/else (shared/REFERENCE.md §1, Algorithm 1):

* infill ``if_condition``: the condition of an ``if``/``elif`` (an expression hole);
* infill ``if_body`` / ``else_body`` / ``loop_body``: a whole block of an if, elif, else, for or while;
* infill ``statements``: a run of one to three statements inside a function body;
* completion ``function_rest`` / ``block_rest``: from a statement to the end of the innermost
  block holding it (function body, if/elif/else body or loop body).

A hole always covers whole statements (or a whole condition), never a comment alone: comments
above the first statement stay visible. Trivial holes (``pass``, a bare ``return``, a docstring,
tiny assignments) and code under ``if __name__ == "__main__":`` are skipped.
"""

from __future__ import annotations

from collections.abc import Iterator

import tree_sitter_python
from tree_sitter import Language, Node, Parser

from ..records import Kind
from .candidates import Candidate

LANGUAGE = Language(tree_sitter_python.language())

MAX_INFILL_LINES = 15
MAX_COMPLETION_LINES = 12
MIN_STATEMENT_NODES = 5  # named nodes in a hole; `y = 1` has 3, `y += g(i)` has 6
MIN_CONDITION_NODES = 2  # `x` alone is too easy; `not x` or `x > 0` are fine
MAX_RUN = 3
_TRIVIAL_STATEMENTS = {"pass_statement", "break_statement", "continue_statement"}
_LOOPS = ("for_statement", "while_statement")
# The walk descends only into nodes that can hold a block: simple statements and expressions
# (where most of a file's nodes are) cannot hold a function, loop or if.
_HOLDS_BLOCKS = frozenset({
    "module", "block", "function_definition", "class_definition", "decorated_definition",
    "if_statement", "elif_clause", "else_clause", "for_statement", "while_statement", "try_statement",
    "except_clause", "except_group_clause", "finally_clause", "with_statement", "match_statement", "case_clause",
})


def parser() -> Parser:
    return Parser(LANGUAGE)


def _statements(block: Node) -> list[Node]:
    """The statements of a block, without comments (comments stay outside holes)."""
    return [c for c in block.named_children if c.type != "comment"]


def _is_docstring(node: Node) -> bool:
    return node.type == "expression_statement" and node.named_child_count == 1 and node.named_children[0].type in ("string", "concatenated_string")


def _named_size(node: Node, cap: int = 1 << 30) -> int:
    """Named descendants, counted without recursion limits (deep files must not crash), stopping
    at ``cap``: the triviality checks only need to know whether a hole reaches a small size."""
    count, stack = 0, [node]
    while stack and count < cap:
        n = stack.pop()
        count += 1
        stack.extend(n.named_children)
    return count


def _trivial(nodes: list[Node]) -> bool:
    if all(n.type in _TRIVIAL_STATEMENTS or _is_docstring(n) for n in nodes):
        return True
    if len(nodes) == 1 and nodes[0].type == "return_statement" and nodes[0].named_child_count == 0:
        return True
    if len(nodes) == 1 and nodes[0].type == "raise_statement" and b"NotImplementedError" in (nodes[0].text or b""):
        return True
    total = 0
    for n in nodes:
        total += _named_size(n, MIN_STATEMENT_NODES - total)
        if total >= MIN_STATEMENT_NODES:
            return False
    return True


def _is_main_guard(node: Node) -> bool:
    if node.type != "if_statement":
        return False
    cond = node.child_by_field_name("condition")
    return cond is not None and b"__name__" in (cond.text or b"") and b"__main__" in (cond.text or b"")


def _lines(first: Node, last: Node) -> int:
    return last.end_point.row - first.start_point.row + 1


class PythonMarker:
    """Finds candidates in one parsed Python file."""

    language = "python"

    def candidates(self, root: Node) -> list[Candidate]:
        found: dict[tuple[Kind, int, int], Candidate] = {}
        for cand in self._walk(root):
            found.setdefault((cand.kind, cand.start_byte, cand.end_byte), cand)
        return sorted(found.values(), key=lambda c: (c.start_byte, c.end_byte, c.kind.value))

    def _walk(self, root: Node) -> Iterator[Candidate]:
        stack = [(root, False)]
        while stack:
            node, in_function = stack.pop()
            if _is_main_guard(node):
                continue
            if node.type == "function_definition":
                yield from self._function(node)
                in_function = True
            elif in_function and node.type == "if_statement":
                yield from self._if(node)
            elif in_function and node.type in _LOOPS:
                yield from self._loop(node)
            stack.extend((c, in_function) for c in reversed(node.named_children) if c.type in _HOLDS_BLOCKS)

    # -- constructs -------------------------------------------------------------------------

    def _function(self, fn: Node) -> Iterator[Candidate]:
        body = fn.child_by_field_name("body")
        if body is None:
            return
        stmts = _statements(body)
        if stmts and _is_docstring(stmts[0]):
            stmts = stmts[1:]
        if not stmts:
            return
        yield from self._rest_of_block(stmts, "function_rest")
        for i in range(len(stmts)):
            for j in range(i, min(i + MAX_RUN, len(stmts))):
                run = stmts[i : j + 1]
                if _lines(run[0], run[-1]) <= MAX_INFILL_LINES and not _trivial(run):
                    yield self._block(Kind.INFILL, "statements", run)

    def _if(self, node: Node) -> Iterator[Candidate]:
        clauses = [node] + [c for c in node.named_children if c.type in ("elif_clause", "else_clause")]
        for clause in clauses:
            cond = clause.child_by_field_name("condition")
            if cond is not None and _named_size(cond, MIN_CONDITION_NODES) >= MIN_CONDITION_NODES and cond.start_point.row == cond.end_point.row:
                yield Candidate(Kind.INFILL, "if_condition", cond.start_byte, cond.end_byte, False)
            body = clause.child_by_field_name("consequence") or clause.child_by_field_name("body")
            if body is None:
                continue
            construct = "else_body" if clause.type == "else_clause" else "if_body"
            yield from self._body(body, construct)

    def _loop(self, node: Node) -> Iterator[Candidate]:
        body = node.child_by_field_name("body")
        if body is not None:
            yield from self._body(body, "loop_body")

    def _body(self, block: Node, construct: str) -> Iterator[Candidate]:
        stmts = _statements(block)
        if stmts and _lines(stmts[0], stmts[-1]) <= MAX_INFILL_LINES and not _trivial(stmts):
            yield self._block(Kind.INFILL, construct, stmts)
        yield from self._rest_of_block(stmts, "block_rest")

    def _rest_of_block(self, stmts: list[Node], construct: str) -> Iterator[Candidate]:
        for k in range(len(stmts)):
            rest = stmts[k:]
            if _lines(rest[0], rest[-1]) <= MAX_COMPLETION_LINES and not _trivial(rest):
                yield self._block(Kind.COMPLETION, construct, rest)

    def _block(self, kind: Kind, construct: str, stmts: list[Node]) -> Candidate:
        return Candidate(kind, construct, stmts[0].start_byte, stmts[-1].end_byte, True)
