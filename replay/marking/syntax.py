"""Small tree-sitter helpers shared by the language modules of marking and labelling."""

from __future__ import annotations

from tree_sitter import Node


def condition(owner: Node) -> Node | None:
    """The condition of an ``if``/``elif`` without its parentheses (Java always has them, Python
    may)."""
    cond = owner.child_by_field_name("condition")
    while cond is not None and cond.type == "parenthesized_expression" and cond.named_child_count == 1:
        cond = cond.named_children[0]
    return cond
