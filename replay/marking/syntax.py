"""Small tree-sitter helpers shared by the language modules of marking and labelling."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import repeat

from tree_sitter import Node

Stack = list[tuple[Node, bool]]  # what a span walk has still to visit, each node with its flag


def text(node: Node | None) -> str:
    """The source text of ``node`` (empty for none); bytes that are not UTF-8 are replaced."""
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def condition(owner: Node) -> Node | None:
    """The condition of an ``if``/``elif`` without its parentheses (Java always has them, Python
    may)."""
    cond = owner.child_by_field_name("condition")
    while cond is not None and cond.type == "parenthesized_expression" and cond.named_child_count == 1:
        cond = cond.named_children[0]
    return cond


def walk_span(
    cover: Node,
    start: int,
    end: int,
    leaves: Mapping[str, Callable[[Node, bool], None]],
    handlers: Mapping[str, Callable[[Node, bool, Stack], None]],
    skipped: frozenset[str],
    compounds: frozenset[str],
    compound: Callable[[Node], None],
) -> None:
    """Visit, depth first and in source order, the nodes of ``cover`` that overlap the byte span
    ``[start, end)`` (a hole), without recursion. Every node carries a flag, False unless a
    handler pushed it otherwise (a callee, the type of a ``new``). By the node's type:

    * in ``leaves``: given with its flag to that function if it lies wholly inside the span;
    * in ``skipped``: passed over with everything below it;
    * in ``handlers``: given with its flag and the stack to that function, which pushes what
      below it is still to be visited;
    * else its named children are visited, after ``compound`` was given the node when its type
      is in ``compounds``.
    """
    stack: Stack = [(cover, False)]
    unflagged = repeat(False)
    while stack:
        node, flag = stack.pop()
        node_start, node_end = node.start_byte, node.end_byte
        if node_end <= start or node_start >= end:
            continue
        t = node.type
        leaf = leaves.get(t)
        if leaf is not None:
            if start <= node_start and node_end <= end:
                leaf(node, flag)
            continue
        if t in skipped:
            continue
        handler = handlers.get(t)
        if handler is not None:
            handler(node, flag, stack)
            continue
        if t in compounds:
            compound(node)
        stack.extend(zip(reversed(node.named_children), unflagged, strict=False))  # unflagged repeats forever
