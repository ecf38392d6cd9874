"""Candidate holes in Python source, found with tree-sitter.

Depth-first over functions, loops and if/elif/else:

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

import bisect

from tree_sitter import Node, Parser

from postprocess.syntax import language
from replay.core.records import Kind
from replay.marking import labels_python
from replay.marking.candidates import Candidate, in_document_order
from replay.marking.languages import MarkingLanguage

LANGUAGE = language("python")

MAX_INFILL_LINES = 15
MAX_COMPLETION_LINES = 12
MIN_STATEMENT_NODES = 5  # named nodes in a hole; `y = 1` has 3, `y += g(i)` has 6
MIN_CONDITION_NODES = 2  # `x` alone is too easy; `not x` or `x > 0` are fine
MAX_RUN = 3
_TRIVIAL_STATEMENTS = {"pass_statement", "break_statement", "continue_statement"}
_LOOPS = ("for_statement", "while_statement")
# The walk descends only into nodes that can hold a block: simple statements and expressions
# (where most of a file's nodes are) cannot hold a function, loop or if.
_HOLDS_BLOCKS = frozenset(
    {
        "module",
        "block",
        "function_definition",
        "class_definition",
        "decorated_definition",
        "if_statement",
        "elif_clause",
        "else_clause",
        "for_statement",
        "while_statement",
        "try_statement",
        "except_clause",
        "except_group_clause",
        "finally_clause",
        "with_statement",
        "match_statement",
        "case_clause",
    }
)


def parser() -> Parser:
    return Parser(LANGUAGE)


def _statements(block: Node) -> list[Node]:
    """The statements of a block, without comments (comments stay outside holes)."""
    return [c for c in block.named_children if c.type != "comment"]


def _is_docstring(node: Node) -> bool:
    return (
        node.type == "expression_statement"
        and node.named_child_count == 1
        and node.named_children[0].type in ("string", "concatenated_string")
    )


def _named_size(node: Node, cap: int = 1 << 30) -> int:
    """Named descendants, counted without recursion limits (deep files must not crash), stopping
    at ``cap``: the triviality checks only need to know whether a hole reaches a small size.
    Nodes already waiting on the stack count towards the cap, so a wide node answers at once."""
    count, stack = 0, [node]
    while stack and count < cap:
        n = stack.pop()
        count += 1
        if count + len(stack) + n.named_child_count >= cap:
            return cap
        stack.extend(n.named_children)
    return count


def _is_main_guard(node: Node) -> bool:
    if node.type != "if_statement":
        return False
    cond = node.child_by_field_name("condition")
    return cond is not None and b"__name__" in (cond.text or b"") and b"__main__" in (cond.text or b"")


class _Siblings:
    """Facts about one list of sibling statements, read from the tree once, so that the many
    runs over them (every rest of a block, every one-to-three statement run) are judged without
    touching a node again. Sizes are counted lazily: most runs are rejected before needing one."""

    __slots__ = ("nodes", "start", "end", "first_row", "last_row", "filler", "alone", "_size")

    def __init__(self, stmts: list[Node]) -> None:
        self.nodes = stmts
        self.start = [n.start_byte for n in stmts]
        self.end = [n.end_byte for n in stmts]
        self.first_row = [n.start_point[0] for n in stmts]
        self.last_row = [n.end_point[0] for n in stmts]
        types = [n.type for n in stmts]
        # `pass`, `break`, `continue` or a docstring: a run of only these is trivial
        self.filler = [t in _TRIVIAL_STATEMENTS or _is_docstring(n) for t, n in zip(types, stmts, strict=True)]
        # trivial on its own: a bare `return`, `raise NotImplementedError...`
        self.alone = [_trivial_alone(t, n) for t, n in zip(types, stmts, strict=True)]
        self._size: list[int | None] = [None] * len(stmts)

    def trivial(self, i: int, j: int) -> bool:
        """Whether statements ``i..j`` are too trivial to be a hole (see :func:`_trivial`)."""
        if all(self.filler[i : j + 1]) or (i == j and self.alone[i]):
            return True
        sizes, total = self._size, 0
        for k in range(i, j + 1):
            size = sizes[k]
            if size is None:
                size = sizes[k] = _named_size(self.nodes[k], MIN_STATEMENT_NODES)
            total += size
            if total >= MIN_STATEMENT_NODES:
                return False
        return True

    def whole(self, out: list[Candidate], construct: str) -> None:
        """All the statements as an infill hole, unless too long or trivial."""
        j = len(self.start) - 1
        if self.last_row[j] - self.first_row[0] < MAX_INFILL_LINES and not self.trivial(0, j):
            out.append(Candidate(Kind.INFILL, construct, self.start[0], self.end[j], True))

    def rests(self, out: list[Candidate], construct: str) -> None:
        """Every rest of the list (statement ``k`` to the last) as a completion hole, unless too
        long or trivial. Rows only grow along the list, so the short enough rests are the last
        ones: the first of them is found by bisection."""
        j = len(self.start) - 1
        end = self.end[j]
        for k in range(bisect.bisect_left(self.first_row, self.last_row[j] - MAX_COMPLETION_LINES + 1), j + 1):
            if not self.trivial(k, j):
                out.append(Candidate(Kind.COMPLETION, construct, self.start[k], end, True))

    def runs(self, out: list[Candidate]) -> None:
        """Every run of one to MAX_RUN statements as a ``statements`` infill hole, unless too long
        or trivial (a run too long stays too long when it grows)."""
        n, first_row, last_row = len(self.start), self.first_row, self.last_row
        for i in range(n):
            for j in range(i, min(i + MAX_RUN, n)):
                if last_row[j] - first_row[i] >= MAX_INFILL_LINES:
                    break
                if not self.trivial(i, j):
                    out.append(Candidate(Kind.INFILL, "statements", self.start[i], self.end[j], True))


def _trivial_alone(t: str, node: Node) -> bool:
    if t == "return_statement":
        return node.named_child_count == 0
    return t == "raise_statement" and b"NotImplementedError" in (node.text or b"")


def _trivial(nodes: list[Node]) -> bool:
    """Whether a run of statements is too trivial to be a hole: only ``pass``/``break``/
    ``continue``/docstrings, a bare ``return``, ``raise NotImplementedError``, or fewer than
    MIN_STATEMENT_NODES named nodes in all."""
    return _Siblings(nodes).trivial(0, len(nodes) - 1)


class PythonMarker:
    """Finds candidates in one parsed Python file."""

    language = "python"

    def candidates(self, root: Node) -> list[Candidate]:
        return in_document_order(self._walk(root))

    def _walk(self, root: Node) -> list[Candidate]:
        """Depth-first pre-order over the nodes that can hold a block (each node's type read
        once); every construct appends its holes to one list, in that order."""
        out: list[Candidate] = []
        stack = [(root, root.type, False)]
        while stack:
            node, t, in_function = stack.pop()
            if t == "if_statement" and _is_main_guard(node):
                continue
            if t == "function_definition":
                self._function(node, out)
                in_function = True
            elif in_function and t == "if_statement":
                self._if(node, out)
            elif in_function and t in _LOOPS:
                self._loop(node, out)
            children = [(c, c.type) for c in node.named_children]
            stack.extend((c, ct, in_function) for c, ct in reversed(children) if ct in _HOLDS_BLOCKS)
        return out

    # -- constructs (each appends its holes to ``out``) ----------------------------------------

    def _function(self, fn: Node, out: list[Candidate]) -> None:
        body = fn.child_by_field_name("body")
        if body is None:
            return
        stmts = _statements(body)
        if stmts and _is_docstring(stmts[0]):
            stmts = stmts[1:]
        if not stmts:
            return
        sib = _Siblings(stmts)
        sib.rests(out, "function_rest")
        sib.runs(out)

    def _if(self, node: Node, out: list[Candidate]) -> None:
        clauses = [node] + [c for c in node.named_children if c.type in ("elif_clause", "else_clause")]
        for clause in clauses:
            cond = clause.child_by_field_name("condition")
            if (
                cond is not None
                and _named_size(cond, MIN_CONDITION_NODES) >= MIN_CONDITION_NODES
                and cond.start_point[0] == cond.end_point[0]
            ):
                out.append(Candidate(Kind.INFILL, "if_condition", cond.start_byte, cond.end_byte, False))
            body = clause.child_by_field_name("consequence") or clause.child_by_field_name("body")
            if body is None:
                continue
            construct = "else_body" if clause.type == "else_clause" else "if_body"
            self._body(body, construct, out)

    def _loop(self, node: Node, out: list[Candidate]) -> None:
        body = node.child_by_field_name("body")
        if body is not None:
            self._body(body, "loop_body", out)

    def _body(self, block: Node, construct: str, out: list[Candidate]) -> None:
        stmts = _statements(block)
        if not stmts:
            return
        sib = _Siblings(stmts)
        sib.whole(out, construct)
        sib.rests(out, "block_rest")


MARKING = {"python": MarkingLanguage(PythonMarker, parser, labels_python)}
