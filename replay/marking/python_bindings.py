"""Python bindings behind task labels: what each file, and each function holding a hole, binds.

Two walks over tree-sitter trees, each iterative:

* :func:`scan` — once per file, over statements only (expressions cannot hold a ``def``):
  module-level bindings, every def/class with its line, star imports;
* :func:`function_table` — once per outermost function holding a hole, cached in the file
  facts: the scopes (function, lambda, comprehension, class) and what each binds where.

The hole's own walk (``labels_python.py``) resolves names through them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

from tree_sitter import Node

from replay.marking.syntax import text

_COMPOUND = frozenset({
    "module", "block", "if_statement", "elif_clause", "else_clause", "for_statement", "while_statement",
    "try_statement", "except_clause", "except_group_clause", "finally_clause", "with_statement",
    "match_statement", "case_clause", "decorated_definition", "function_definition", "class_definition",
})  # fmt: skip
_COMPREHENSIONS = frozenset({"list_comprehension", "set_comprehension", "dictionary_comprehension", "generator_expression"})
_TARGET_CONTAINERS = frozenset(
    {
        "pattern_list",
        "tuple_pattern",
        "list_pattern",
        "tuple",
        "list",
        "parenthesized_expression",
        "list_splat_pattern",
        "list_splat",
        "as_pattern_target",
    }
)
_EXPRESSIONS = frozenset({
    "call", "argument_list", "attribute", "subscript", "slice", "binary_operator", "boolean_operator",
    "comparison_operator", "unary_operator", "not_operator", "conditional_expression", "parenthesized_expression",
    "tuple", "list", "set", "dictionary", "pair", "keyword_argument", "list_splat", "dictionary_splat",
    "expression_list", "await", "type", "concatenated_string", "string", "identifier", "integer", "float",
    "true", "false", "none",
})  # fmt: skip
# an expression can only bind a name through a lambda, a comprehension or a walrus
_MAY_BIND = re.compile(rb"lambda|for|:=")
_PROPERTY_DECORATORS = ("property", "cached_property", ".setter", ".getter", ".deleter")


class Import(NamedTuple):
    module: str  # absolute dotted module (relative imports resolved against the file's package)
    name: str | None  # None: the binding is the module itself
    relative: bool


class Binding(NamedTuple):
    byte: int
    row: int
    kind: str  # "param" | "variable" | "import" | "function" | "class"
    target: Import | None = None


class DefSite(NamedTuple):
    row: int
    owner: str | None  # the class whose body holds the def
    is_property: bool


@dataclass(slots=True)
class Scope:
    start: int
    end: int
    kind: str  # "function" | "lambda" | "comprehension" | "class"
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)

    def bind(self, name: str, binding: Binding) -> None:
        self.bindings.setdefault(name, []).append(binding)


@dataclass(slots=True)
class FileFacts:
    path: str
    size: int
    fingerprint: int
    module: str
    package: str
    bindings: dict[str, list[Binding]] = field(default_factory=dict)  # module level
    star_imports: list[Import] = field(default_factory=list)
    defs: dict[str, list[DefSite]] = field(default_factory=dict)  # every def, at any depth
    classes: dict[str, list[int]] = field(default_factory=dict)  # every class, at any depth
    bases: dict[str, list[str]] = field(default_factory=dict)  # class -> simple names of its bases
    tables: dict[int, list[Scope]] = field(default_factory=dict)  # outermost function start -> scopes
    newlines: list[int] | None = None
    comment_ends: list[int] | None = None
    comment_rows: list[int] | None = None

    @property
    def variables(self) -> frozenset[str]:
        return frozenset(n for n, bs in self.bindings.items() if any(b.kind == "variable" for b in bs))


# -- per file ---------------------------------------------------------------------------------


def module_name(path: str) -> tuple[str, str]:
    """(module, package) of a repository path: ``lpsolve/simplex.py`` -> ``lpsolve.simplex``, ``lpsolve``."""
    parts = path[:-3].split("/") if path.endswith(".py") else path.split("/")
    if len(parts) > 1 and parts[0] in ("src", "lib"):
        parts = parts[1:]
    if parts[-1] == "__init__":
        parts = parts[:-1]
        return ".".join(parts), ".".join(parts)
    return ".".join(parts), ".".join(parts[:-1])


def scan(path: str, source: bytes, root: Node) -> FileFacts:
    """Module-level bindings and every def/class of one file, in one pass over its statements."""
    module, package = module_name(path)
    facts = FileFacts(path, len(source), hash(source), module, package)
    module_scope = Scope(root.start_byte, root.end_byte, "module", facts.bindings)
    # (node, its type, owner class or None, at module level, is a property)
    stack: list[tuple[Node, str, str | None, bool, bool]] = [(root, root.type, None, True, False)]
    while stack:
        node, t, owner, top, prop = stack.pop()
        if t == "function_definition":
            name = node.child_by_field_name("name")
            if name is not None:
                facts.defs.setdefault(text(name), []).append(DefSite(name.start_point.row, owner, prop))
                if top:
                    module_scope.bind(text(name), Binding(name.start_byte, name.start_point.row, "function"))
            body = node.child_by_field_name("body")
            if body is not None:
                stack.append((body, body.type, None, False, False))
            continue
        if t == "class_definition":
            name = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            if name is not None:
                facts.classes.setdefault(text(name), []).append(name.start_point.row)
                facts.bases.setdefault(text(name), []).extend(_base_names(node))
                if top:
                    module_scope.bind(text(name), Binding(name.start_byte, name.start_point.row, "class"))
            if body is not None:
                stack.append((body, body.type, text(name) if name is not None else None, False, False))
            continue
        if t == "decorated_definition":
            prop = any(text(d).endswith(_PROPERTY_DECORATORS) for d in node.named_children if d.type == "decorator")
            stack.extend((c, c.type, owner, top, prop) for c in node.named_children if c.type != "decorator")
            continue
        if top:
            _bind_statement(node, module_scope, facts)
        if t in _COMPOUND:
            # below module level only compound statements can hold a def or class
            stack.extend((c, ct, owner, top, False) for c, ct in typed_children(node) if top or ct in _COMPOUND)
    return facts


def _base_names(cls: Node) -> list[str]:
    """``class C(Base, mod.Other, metaclass=M)`` -> ["Base", "Other"]."""
    bases = cls.child_by_field_name("superclasses")
    names = []
    for b in bases.named_children if bases is not None else []:
        last = b.child_by_field_name("attribute") if b.type == "attribute" else b
        if last is not None and last.type == "identifier":
            names.append(text(last))
    return names


def _bind_statement(node: Node, scope: Scope, facts: FileFacts) -> None:
    """Bindings a module-level statement (or compound-statement header) makes."""
    t = node.type
    if t == "expression_statement":
        for child in node.named_children:
            _bind_expression(child, scope)
    elif t == "for_statement":
        _bind_targets(node.child_by_field_name("left"), scope, "variable")
    elif t in ("with_statement", "except_clause", "except_group_clause"):
        for child in node.named_children:
            if child.type in ("with_clause", "with_item"):
                for item in child.named_children:
                    _bind_statement(item, scope, facts)
        _bind_as(node, scope)
    elif t == "with_item":
        _bind_as(node, scope)
    elif t in ("import_statement", "import_from_statement"):
        _bind_import(node, scope, facts.package, facts.star_imports)


def _bind_expression(node: Node, scope: Scope) -> None:
    while node.type in ("assignment", "augmented_assignment"):
        _bind_targets(node.child_by_field_name("left"), scope, "variable")
        right = node.child_by_field_name("right")
        if right is None:
            return
        node = right
    if node.type == "named_expression":
        _bind_targets(node.child_by_field_name("name"), scope, "variable")


def _bind_as(node: Node, scope: Scope) -> None:
    for child in node.named_children:
        if child.type == "as_pattern":
            _bind_targets(child.child_by_field_name("alias"), scope, "variable")


def _bind_targets(node: Node | None, scope: Scope, kind: str) -> None:
    """Bind every plain name of an assignment target (attributes and subscripts bind nothing)."""
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        if n.type == "identifier":
            scope.bind(text(n), Binding(n.start_byte, n.start_point.row, kind))
        elif n.type in _TARGET_CONTAINERS:
            stack.extend(n.named_children)


def _bind_import(node: Node, scope: Scope, package: str, stars: list[Import] | None) -> None:
    if node.type == "import_statement":
        for item in node.named_children:
            dotted, alias = (
                (item.child_by_field_name("name"), item.child_by_field_name("alias")) if item.type == "aliased_import" else (item, None)
            )
            if dotted is None:
                continue
            full = text(dotted)
            if alias is not None:
                scope.bind(text(alias), Binding(alias.start_byte, alias.start_point.row, "import", Import(full, None, False)))
            else:
                first = full.split(".", 1)[0]
                scope.bind(first, Binding(dotted.start_byte, dotted.start_point.row, "import", Import(first, None, False)))
        return
    source = node.child_by_field_name("module_name")
    if source is None:
        return
    relative = source.type == "relative_import"
    module = _absolute(source, package) if relative else text(source)
    for item in node.named_children:
        if item.type == "wildcard_import":
            if stars is not None:
                stars.append(Import(module, None, relative))
            continue
        if item == source:
            continue
        dotted, alias = (
            (item.child_by_field_name("name"), item.child_by_field_name("alias")) if item.type == "aliased_import" else (item, None)
        )
        if dotted is None or dotted.type != "dotted_name":
            continue
        bound = alias if alias is not None else dotted
        scope.bind(text(bound), Binding(bound.start_byte, bound.start_point.row, "import", Import(module, text(dotted), relative)))


def _absolute(relative: Node, package: str) -> str:
    """``from ..x import y`` in package ``a.b`` imports from ``a.x``."""
    dots, rest = 0, ""
    for child in relative.children:
        if child.type == "import_prefix":
            dots = len(text(child))
        elif child.type == "dotted_name":
            rest = text(child)
    parts = package.split(".") if package else []
    base = parts[: max(0, len(parts) - (dots - 1))]
    return ".".join(base + ([rest] if rest else []))


# -- per function -----------------------------------------------------------------------------


def function_table(fn: Node, source: bytes, package: str) -> list[Scope]:
    """Every scope inside the outermost function ``fn`` and what it binds, outer scopes first.

    Expressions bind nothing unless they hold a lambda, a comprehension or a walrus, so those
    whose text has none of ``lambda``, ``for``, ``:=`` are not walked.
    """
    scopes: list[Scope] = []
    stack: list[tuple[Node, str, Scope | None]] = [(fn, fn.type, None)]  # each type read once
    while stack:
        node, t, scope = stack.pop()
        if t in ("function_definition", "lambda", "class_definition"):
            name = node.child_by_field_name("name")
            if scope is not None and name is not None:
                scope.bind(
                    text(name), Binding(name.start_byte, name.start_point.row, "function" if t == "function_definition" else "class")
                )
            inner = Scope(node.start_byte, node.end_byte, {"function_definition": "function", "lambda": "lambda"}.get(t, "class"))
            scopes.append(inner)
            params = node.child_by_field_name("parameters")
            if params is not None and t != "class_definition":
                _bind_parameters(params, inner)
            stack.extend((c, ct, inner) for c, ct in typed_children(node) if ct not in ("parameters", "lambda_parameters", "identifier"))
            continue
        assert scope is not None
        if t in _COMPREHENSIONS:
            inner = Scope(node.start_byte, node.end_byte, "comprehension")
            scopes.append(inner)
            for clause in node.named_children:
                if clause.type == "for_in_clause":
                    _bind_targets(clause.child_by_field_name("left"), inner, "variable")
            stack.extend((c, ct, inner) for c, ct in typed_children(node))
            continue
        if t in ("assignment", "augmented_assignment"):
            _bind_targets(node.child_by_field_name("left"), scope, "variable")
        elif t == "named_expression":
            target = next((s for s in reversed(scopes) if s.kind != "comprehension" and s.start <= node.start_byte < s.end), scope)
            _bind_targets(node.child_by_field_name("name"), target, "variable")
        elif t == "for_statement":
            _bind_targets(node.child_by_field_name("left"), scope, "variable")
        elif t == "as_pattern":
            _bind_targets(node.child_by_field_name("alias"), scope, "variable")
        elif t in ("import_statement", "import_from_statement"):
            _bind_import(node, scope, package, None)
            continue
        elif t == "global_statement":
            scope.globals.update(text(c) for c in node.named_children if c.type == "identifier")
            continue
        elif t == "nonlocal_statement":
            scope.nonlocals.update(text(c) for c in node.named_children if c.type == "identifier")
            continue
        elif t in ("comment", "string", "integer", "float", "identifier"):
            continue
        for c in reversed(node.named_children):  # the hot loop: no generator, no pairs
            ct = c.type
            if ct not in _EXPRESSIONS or _MAY_BIND.search(source, c.start_byte, c.end_byte) is not None:
                stack.append((c, ct, scope))
    return scopes


def typed_children(node: Node) -> list[tuple[Node, str]]:
    """The named children of ``node`` with their types, last first (ready for a stack)."""
    return [(c, c.type) for c in reversed(node.named_children)]


def _bind_parameters(params: Node, scope: Scope) -> None:
    for p in params.named_children:
        name: Node | None = p
        if p.type in ("default_parameter", "typed_default_parameter"):
            name = p.child_by_field_name("name")
        elif p.type in ("typed_parameter", "list_splat_pattern", "dictionary_splat_pattern"):
            name = next((c for c in p.named_children if c.type == "identifier"), None)
            if name is None and p.named_children and p.named_children[0].type in ("list_splat_pattern", "dictionary_splat_pattern"):
                name = next((c for c in p.named_children[0].named_children if c.type == "identifier"), None)
        if name is not None and name.type == "identifier":
            scope.bind(text(name), Binding(name.start_byte, name.start_point.row, "param"))
