"""Java locals behind task labels: every parameter and local variable a member (method,
constructor, initializer) declares, with the byte range where it is in scope. Made once per
member holding a hole, and cached in the file facts."""

from __future__ import annotations

from collections.abc import Callable

from tree_sitter import Node, QueryCursor

from postprocess.syntax import query
from replay.marking.java_declarations import Local, type_name
from replay.marking.syntax import text

_SCOPE_ENDS = frozenset(
    {
        "block",
        "switch_block",
        "for_statement",
        "enhanced_for_statement",
        "catch_clause",
        "lambda_expression",
        "try_with_resources_statement",
        "constructor_body",
        "switch_rule",
    }
)
SKIPPED = frozenset(
    {
        "marker_annotation",
        "annotation",
        "line_comment",
        "block_comment",
        "type_parameters",
        "break_statement",
        "continue_statement",
        "modifiers",
        "string_literal",
        "dimensions",
    }
)

_DECLARATIONS = query(
    "java",
    """
    [(formal_parameter) (spread_parameter) (catch_formal_parameter)
     (lambda_expression) (local_variable_declaration) (resource) (enhanced_for_statement)
     (instanceof_expression) (type_pattern) (record_pattern_component)] @declaration
    """,
)
_PARAMETERS = frozenset({"formal_parameter", "spread_parameter", "catch_formal_parameter"})
_HIDING = SKIPPED | _PARAMETERS  # nothing under these declares a local


def locals_of(member: Node) -> dict[str, list[Local]]:
    """Every parameter and local variable declared in ``member``, with where it is visible.

    The declaring nodes are found by a query (in C, so the many expression nodes of a member
    are never visited from Python); each one's scope is its innermost enclosing scope node.
    """
    table: dict[str, list[Local]] = {}

    def declare(name: Node | None, scope_end: int, typ: str | None) -> None:
        """``name`` is visible from its declaration to ``scope_end``."""
        if name is not None and name.type == "identifier":
            table.setdefault(text(name), []).append(Local(name.start_byte, name.start_point.row, scope_end, typ))

    found = QueryCursor(_DECLARATIONS).captures(member).get("declaration", [])
    for node in sorted(found, key=lambda n: (n.start_byte, -n.end_byte)):
        scope_end = _scope_end(node, member)
        if scope_end is not None:
            _declare_local(node, node.type, scope_end, declare)
    return table


def _scope_end(node: Node, member: Node) -> int | None:
    """Where the scope holding ``node`` ends (its innermost enclosing block, loop, lambda...,
    else the member), or None when ``node`` sits where nothing is declared (an annotation, a
    parameter's own subtree)."""
    end = None
    if node != member:
        parent = node.parent
        while parent is not None:
            t = parent.type
            if t in _HIDING:
                return None
            if end is None and t in _SCOPE_ENDS:
                end = parent.end_byte
            if parent == member:
                break
            parent = parent.parent
    return member.end_byte if end is None else end


def _declare_local(node: Node, t: str, scope_end: int, declare: Callable[[Node | None, int, str | None], None]) -> None:
    """The locals one declaring node introduces (its nested declarations are found on their own)."""
    if t in _PARAMETERS:
        owner = node.parent.parent if t != "catch_formal_parameter" and node.parent is not None else node.parent
        end = owner.end_byte if owner is not None else scope_end
        name = node.child_by_field_name("name")
        if name is None:  # spread_parameter: `String... rest`
            d = next((c for c in node.named_children if c.type == "variable_declarator"), None)
            name = d.child_by_field_name("name") if d is not None else None
            typ = type_name(next((c for c in node.named_children if c.type != "variable_declarator" and c.type != "modifiers"), None))
        else:
            typ = type_name(node.child_by_field_name("type"))
        declare(name, end, typ)
    elif t == "lambda_expression":
        params = node.child_by_field_name("parameters")
        if params is not None and params.type == "identifier":
            declare(params, node.end_byte, None)
        elif params is not None and params.type == "inferred_parameters":
            for p in params.named_children:
                declare(p, node.end_byte, None)
    elif t in ("local_variable_declaration", "resource"):
        declared = type_name(node.child_by_field_name("type"))
        end = node.parent.parent.end_byte if t == "resource" and node.parent is not None and node.parent.parent is not None else scope_end
        if t == "resource":
            declare(node.child_by_field_name("name"), end, declared)
        for d in node.named_children:
            if d.type == "variable_declarator":
                declare(d.child_by_field_name("name"), end, declared)
    elif t == "enhanced_for_statement":
        declare(node.child_by_field_name("name"), node.end_byte, type_name(node.child_by_field_name("type")))
    elif t == "instanceof_expression":
        declare(node.child_by_field_name("name"), scope_end, type_name(node.child_by_field_name("right")))
    elif t in ("type_pattern", "record_pattern_component"):
        children = node.named_children
        if children and children[-1].type == "identifier":
            declare(children[-1], scope_end, type_name(children[0]) if len(children) > 1 else None)
