"""Python scope walks behind task labels (the definitions are in ``labels.py``).

Three walks over tree-sitter trees, each iterative:

* :func:`scan` — once per file, over statements only (expressions cannot hold a ``def``):
  module-level bindings, every def/class with its line, star imports;
* :func:`_function_table` — once per outermost function holding a hole, cached in the file
  facts: the scopes (function, lambda, comprehension, class) and what each binds where;
* :func:`analyse` — the hole itself: every name is resolved through those scopes, then the
  module, then the repository index, the way Python would resolve it.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from tree_sitter import Node

from postprocess.syntax import language
from replay.marking.syntax import Stack, condition, walk_span  # noqa: F401  (condition: part of the language interface)

if TYPE_CHECKING:
    from replay.marking.labels import Findings, RepoIndex

LANGUAGE = language("python")
COMMENT_OPENERS: tuple[bytes, ...] = (b"#",)
COMMENT_TYPES = frozenset({"comment"})

IF_OWNERS = frozenset({"if_statement", "elif_clause"})
IF_STATEMENTS = frozenset({"if_statement"})
LOOPS = frozenset({"for_statement", "while_statement"})
STATEMENT_LISTS = frozenset({"block", "module"})

BUILTINS = frozenset(dir(builtins))
_SELF = frozenset({"self", "cls"})
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
_LITERALS = frozenset(
    {
        "string",
        "concatenated_string",
        "integer",
        "float",
        "list",
        "dictionary",
        "set",
        "tuple",
        "list_comprehension",
        "dictionary_comprehension",
        "set_comprehension",
        "true",
        "false",
        "none",
    }
)
_SKIPPED = frozenset(
    {
        "import_statement",
        "import_from_statement",
        "future_import_statement",
        "global_statement",
        "nonlocal_statement",
        "comment",
        "dotted_name",
    }
)
_IFS_AND_LOOPS = IF_OWNERS | LOOPS  # what the hole's walk hands to Findings.compound
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
                facts.defs.setdefault(_text(name), []).append(DefSite(name.start_point.row, owner, prop))
                if top:
                    module_scope.bind(_text(name), Binding(name.start_byte, name.start_point.row, "function"))
            body = node.child_by_field_name("body")
            if body is not None:
                stack.append((body, body.type, None, False, False))
            continue
        if t == "class_definition":
            name = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            if name is not None:
                facts.classes.setdefault(_text(name), []).append(name.start_point.row)
                facts.bases.setdefault(_text(name), []).extend(_base_names(node))
                if top:
                    module_scope.bind(_text(name), Binding(name.start_byte, name.start_point.row, "class"))
            if body is not None:
                stack.append((body, body.type, _text(name) if name is not None else None, False, False))
            continue
        if t == "decorated_definition":
            prop = any(_text(d).endswith(_PROPERTY_DECORATORS) for d in node.named_children if d.type == "decorator")
            stack.extend((c, c.type, owner, top, prop) for c in node.named_children if c.type != "decorator")
            continue
        if top:
            _bind_statement(node, module_scope, facts)
        if t in _COMPOUND:
            # below module level only compound statements can hold a def or class
            stack.extend((c, ct, owner, top, False) for c, ct in _typed_children(node) if top or ct in _COMPOUND)
    return facts


def _base_names(cls: Node) -> list[str]:
    """``class C(Base, mod.Other, metaclass=M)`` -> ["Base", "Other"]."""
    bases = cls.child_by_field_name("superclasses")
    names = []
    for b in bases.named_children if bases is not None else []:
        last = b.child_by_field_name("attribute") if b.type == "attribute" else b
        if last is not None and last.type == "identifier":
            names.append(_text(last))
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
            scope.bind(_text(n), Binding(n.start_byte, n.start_point.row, kind))
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
            full = _text(dotted)
            if alias is not None:
                scope.bind(_text(alias), Binding(alias.start_byte, alias.start_point.row, "import", Import(full, None, False)))
            else:
                first = full.split(".", 1)[0]
                scope.bind(first, Binding(dotted.start_byte, dotted.start_point.row, "import", Import(first, None, False)))
        return
    source = node.child_by_field_name("module_name")
    if source is None:
        return
    relative = source.type == "relative_import"
    module = _absolute(source, package) if relative else _text(source)
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
        scope.bind(_text(bound), Binding(bound.start_byte, bound.start_point.row, "import", Import(module, _text(dotted), relative)))


def _absolute(relative: Node, package: str) -> str:
    """``from ..x import y`` in package ``a.b`` imports from ``a.x``."""
    dots, rest = 0, ""
    for child in relative.children:
        if child.type == "import_prefix":
            dots = len(_text(child))
        elif child.type == "dotted_name":
            rest = _text(child)
    parts = package.split(".") if package else []
    base = parts[: max(0, len(parts) - (dots - 1))]
    return ".".join(base + ([rest] if rest else []))


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


# -- per repository ---------------------------------------------------------------------------


@dataclass(slots=True)
class Repo:
    """Lookups over every file: which modules are the repository's, and what each defines."""

    by_module: dict[str, FileFacts]
    top_level: frozenset[str]
    script_modules: frozenset[str]  # modules importable by bare name from their own folder
    methods: dict[str, set[str]]  # class -> names of the methods its body defines
    bases: dict[str, list[str]]  # class -> simple names of its bases
    repo_cache: dict[str, bool] = field(default_factory=dict)


def summarize(index: RepoIndex) -> None:
    files: dict[str, FileFacts] = index.files
    functions: set[str] = set()
    classes: set[str] = set()
    modules: set[str] = set()
    packages = {p.rsplit("/", 1)[0] for p in files if p.endswith("/__init__.py")}
    scripts: set[str] = set()
    for path, facts in files.items():
        functions.update(facts.defs)
        classes.update(facts.classes)
        parts = facts.module.split(".")
        modules.update(".".join(parts[: i + 1]) for i in range(len(parts)))
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        if folder and folder not in packages:
            scripts.add(parts[-1])
        index.variables[facts.module] = facts.variables
    index.functions, index.classes, index.modules = frozenset(functions), frozenset(classes), frozenset(modules)
    methods: dict[str, set[str]] = {}
    bases: dict[str, list[str]] = {}
    for facts in files.values():
        for name, sites in facts.defs.items():
            for site in sites:
                if site.owner is not None:
                    methods.setdefault(site.owner, set()).add(name)
        for cls, names in facts.bases.items():
            bases.setdefault(cls, []).extend(names)
    top_level = frozenset(m.split(".", 1)[0] for m in modules)
    index.extra = Repo({f.module: f for f in files.values()}, top_level, frozenset(scripts), methods, bases)


def _repo(index: RepoIndex) -> Repo:
    if index.extra is None:
        summarize(index)
    return index.extra


def is_repo_import(index: RepoIndex, target: Import) -> bool:
    if target.relative:
        return True
    repo = _repo(index)
    known = repo.repo_cache.get(target.module)
    if known is None:
        first = target.module.split(".", 1)[0]
        known = repo.repo_cache[target.module] = (
            target.module in index.modules or first in repo.top_level or target.module in repo.script_modules
        )
    return known


def resolve_member(index: RepoIndex, module: str, name: str, depth: int = 0) -> tuple[str, str | None]:
    """What ``name`` of repository module ``module`` is: ("module", dotted) or (kind, None)
    with kind one of class/function/variable/unknown; re-exports are followed."""
    sub = f"{module}.{name}" if module else name
    if sub in index.modules:
        return "module", sub
    facts = _repo(index).by_module.get(module)
    if facts is not None and depth < 8:
        bindings = facts.bindings.get(name)
        if bindings:
            b = bindings[0]
            if b.kind == "import" and b.target is not None:
                if not is_repo_import(index, b.target):
                    return "library", None
                if b.target.name is None:
                    return "module", b.target.module
                return resolve_member(index, b.target.module, b.target.name, depth + 1)
            return b.kind, None
    if name in index.classes:
        return "class", None
    if name in index.functions:
        return "function", None
    return "unknown", None


# -- per function -----------------------------------------------------------------------------


def _function_table(fn: Node, source: bytes, package: str) -> list[Scope]:
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
                    _text(name), Binding(name.start_byte, name.start_point.row, "function" if t == "function_definition" else "class")
                )
            inner = Scope(node.start_byte, node.end_byte, {"function_definition": "function", "lambda": "lambda"}.get(t, "class"))
            scopes.append(inner)
            params = node.child_by_field_name("parameters")
            if params is not None and t != "class_definition":
                _bind_parameters(params, inner)
            stack.extend((c, ct, inner) for c, ct in _typed_children(node) if ct not in ("parameters", "lambda_parameters", "identifier"))
            continue
        assert scope is not None
        if t in _COMPREHENSIONS:
            inner = Scope(node.start_byte, node.end_byte, "comprehension")
            scopes.append(inner)
            for clause in node.named_children:
                if clause.type == "for_in_clause":
                    _bind_targets(clause.child_by_field_name("left"), inner, "variable")
            stack.extend((c, ct, inner) for c, ct in _typed_children(node))
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
            scope.globals.update(_text(c) for c in node.named_children if c.type == "identifier")
            continue
        elif t == "nonlocal_statement":
            scope.nonlocals.update(_text(c) for c in node.named_children if c.type == "identifier")
            continue
        elif t in ("comment", "string", "integer", "float", "identifier"):
            continue
        for c in reversed(node.named_children):  # the hot loop: no generator, no pairs
            ct = c.type
            if ct not in _EXPRESSIONS or _MAY_BIND.search(source, c.start_byte, c.end_byte) is not None:
                stack.append((c, ct, scope))
    return scopes


def _typed_children(node: Node) -> list[tuple[Node, str]]:
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
            scope.bind(_text(name), Binding(name.start_byte, name.start_point.row, "param"))


# -- per hole ---------------------------------------------------------------------------------

# What a name in the hole stands for (kind, definition row in this file or None, detail).
LOCAL, HOLE, SELF, VARIABLE, FUNCTION, CLASS, LIBRARY, MODULE, OTHER = range(9)


class Resolved(NamedTuple):
    kind: int
    row: int | None = None
    detail: str | None = None  # MODULE: the dotted module; CLASS: the class name


def _pick(bindings: list[Binding], byte: int) -> Binding:
    """The nearest binding above ``byte``, else the first one."""
    best = None
    for b in bindings:
        if b.byte <= byte and (best is None or b.byte > best.byte):
            best = b
    return best if best is not None else min(bindings, key=lambda b: b.byte)


class _Hole:
    """One walk over one hole."""

    def __init__(self, index: RepoIndex, facts: FileFacts, scopes: list[Scope], owner_name: str | None, found: Findings) -> None:
        self.index, self.facts, self.found = index, facts, found
        # scopes overlapping the hole, innermost (latest start) first
        self.scopes = sorted((s for s in scopes if s.start < found.end and s.end > found.start), key=lambda s: -s.start)
        self.owner_name = owner_name  # the innermost class around the hole
        self.cache: dict[int, Resolved] = {}

    def resolve(self, node: Node) -> Resolved:
        known = self.cache.get(node.start_byte)
        if known is None:
            known = self.cache[node.start_byte] = self._resolve(_text(node), node.start_byte)
        return known

    def _resolve(self, name: str, byte: int) -> Resolved:
        found = self.found
        innermost = True
        for scope in self.scopes:
            if not scope.start <= byte < scope.end:
                continue
            if scope.kind == "class" and not innermost:
                continue
            innermost = False
            if name in scope.globals:
                break
            if name in scope.nonlocals:
                continue
            bindings = scope.bindings.get(name)
            if bindings:
                outside = [b for b in bindings if not found.start <= b.byte < found.end]
                if not outside:
                    return Resolved(HOLE)
                b = _pick(outside, byte)
                if b.kind in ("param", "variable"):
                    return Resolved(SELF) if name in _SELF else Resolved(LOCAL, b.row)
                return self._binding(name, b)
        bindings = self.facts.bindings.get(name)
        if bindings:
            b = _pick(bindings, byte)
            return Resolved(VARIABLE, b.row) if b.kind == "variable" else self._binding(name, b)
        for star in self.facts.star_imports:
            if not is_repo_import(self.index, star):
                if name not in BUILTINS:
                    return Resolved(LIBRARY)
            else:
                kind, detail = resolve_member(self.index, star.module, name)
                if kind != "unknown":
                    return self._member(kind, detail, name)
        if name in BUILTINS:
            return Resolved(OTHER)
        if name in self.index.classes:
            return Resolved(CLASS, None, name)
        if name in self.index.functions:
            return Resolved(FUNCTION)
        return Resolved(OTHER)

    def _binding(self, name: str, b: Binding) -> Resolved:
        if b.kind == "function":
            return Resolved(FUNCTION, b.row)
        if b.kind == "class":
            return Resolved(CLASS, b.row, name)
        target = b.target
        if target is None or not is_repo_import(self.index, target):
            return Resolved(LIBRARY)
        if target.name is None:
            return Resolved(MODULE, None, target.module)
        kind, detail = resolve_member(self.index, target.module, target.name)
        return self._member(kind, detail, target.name)

    @staticmethod
    def _member(kind: str, detail: str | None, name: str) -> Resolved:
        return {
            "module": Resolved(MODULE, None, detail),
            "class": Resolved(CLASS, None, name),
            "function": Resolved(FUNCTION),
            "variable": Resolved(VARIABLE),
            "library": Resolved(LIBRARY),
        }.get(kind, Resolved(OTHER))

    # -- the walk ---------------------------------------------------------------------------

    def walk(self, cover: Node) -> None:
        """The names, attributes and calls in the hole; a node's flag: it is the callee of a call."""
        handlers = {
            "attribute": self.attribute_node,
            "call": self.call,
            "keyword_argument": self.keyword_argument,
            **dict.fromkeys(("function_definition", "lambda", "class_definition"), self.definition),
            **dict.fromkeys(("parameters", "lambda_parameters"), self.parameters),
        }
        found = self.found
        walk_span(cover, found.start, found.end, {"identifier": self.name}, handlers, _SKIPPED, _IFS_AND_LOOPS, found.compound)

    def attribute_node(self, node: Node, callee: bool, stack: Stack) -> None:
        """``obj.attr``: the object is walked, the attribute judged (:meth:`attribute`)."""
        obj, attr = node.child_by_field_name("object"), node.child_by_field_name("attribute")
        if obj is not None:
            stack.append((obj, False))
        if attr is not None and self.found.inside(attr) and obj is not None:
            self.attribute(obj, attr, callee)

    def call(self, node: Node, callee: bool, stack: Stack) -> None:
        """The arguments, and the function as a callee."""
        fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if args is not None:
            stack.append((args, False))
        if fn is not None:
            stack.append((fn, True))

    def keyword_argument(self, node: Node, callee: bool, stack: Stack) -> None:
        """Only the value: the keyword is no name of the caller's."""
        value = node.child_by_field_name("value")
        if value is not None:
            stack.append((value, False))

    def definition(self, node: Node, callee: bool, stack: Stack) -> None:
        """A def, lambda or class: everything but the name it binds."""
        stack.extend((c, False) for c in node.named_children if c.type != "identifier" or c != node.child_by_field_name("name"))

    def parameters(self, node: Node, callee: bool, stack: Stack) -> None:
        """Only what the parameters evaluate where the function is made: defaults, annotations."""
        stack.extend((v, False) for p in node.named_children for v in _parameter_expressions(p))

    def name(self, node: Node, callee: bool) -> None:
        r = self.resolve(node)
        found, row = self.found, node.start_point.row
        kind = r.kind
        if kind == LOCAL:
            found.labels.add("local_variable")
        elif kind == VARIABLE:
            found.labels.add("global_variable")
        elif kind == CLASS:
            found.labels.add("class")
        elif kind == LIBRARY:
            found.labels.add("library")
        elif kind == FUNCTION:
            if callee:
                found.labels.add("function")
        else:
            return
        found.reference(row, r.row)

    def attribute(self, obj: Node, attr: Node, callee: bool) -> None:
        """``obj.attr``: a repository module member, or a method matched by name."""
        found, name = self.found, _text(attr)
        base = self._entity(obj)
        if base.kind == LIBRARY or obj.type in _LITERALS:
            return
        if base.kind == MODULE:
            kind, _ = resolve_member(self.index, base.detail or "", name)
            if kind == "class":
                found.labels.add("class")
            elif kind == "variable":
                found.labels.add("global_variable")
            elif kind == "library":
                found.labels.add("library")
            elif kind == "function" and callee:
                found.labels.add("function")
            return
        prefer = self.owner_name if base.kind == SELF else base.detail if base.kind == CLASS else None
        if obj.type == "call" and _is_super(obj):
            prefer = self._defining_base(name)
            if prefer is None:
                return  # inherited from a builtin or library base (``Exception.__init__``)
        if callee and name in self.index.functions:
            found.labels.add("function")
        sites = self.facts.defs.get(name)
        if sites and (callee or any(s.is_property for s in sites)):
            found.reference(attr.start_point.row, _nearest(sites, prefer, attr.start_point.row))

    def _entity(self, obj: Node) -> Resolved:
        """What the object of an attribute is, as far as modules and classes go."""
        if obj.type == "identifier":
            return self.resolve(obj)
        if obj.type == "attribute":
            inner, attr = obj.child_by_field_name("object"), obj.child_by_field_name("attribute")
            if inner is None or attr is None:
                return Resolved(OTHER)
            base = self._entity(inner)
            if base.kind == LIBRARY:
                return base
            if base.kind == MODULE:
                kind, detail = resolve_member(self.index, base.detail or "", _text(attr))
                return self._member(kind, detail, _text(attr))
        return Resolved(OTHER)

    def _defining_base(self, method: str) -> str | None:
        """The repository base class (searched breadth-first) that defines ``method`` for the
        class around the hole, or None when it comes from outside the repository."""
        repo = _repo(self.index)
        queue = list(repo.bases.get(self.owner_name or "", ()))
        seen: set[str] = set()
        while queue:
            cls = queue.pop(0)
            if cls in seen or cls not in self.index.classes:
                continue
            seen.add(cls)
            if method in repo.methods.get(cls, ()):
                return cls
            queue.extend(repo.bases.get(cls, ()))
        return None


def _is_super(call: Node) -> bool:
    fn = call.child_by_field_name("function")
    return fn is not None and fn.type == "identifier" and fn.text == b"super"


def _parameter_expressions(p: Node) -> Iterator[Node]:
    """Default values and annotations of a parameter: expressions evaluated outside the callee."""
    for f in ("value", "type"):
        child = p.child_by_field_name(f)
        if child is not None:
            yield child


def _nearest(sites: list[DefSite], owner: str | None, row: int) -> int:
    own = [s for s in sites if owner is not None and s.owner == owner]
    return min(own or sites, key=lambda s: abs(s.row - row)).row


def analyse(index: RepoIndex, facts: FileFacts, source: bytes, cover: Node, ancestors: list[Node], found: Findings) -> None:
    outermost, owner_name = None, None
    for node in ancestors:
        if node.type == "function_definition":
            outermost = node
        elif node.type == "class_definition" and owner_name is None:
            owner_name = _text(node.child_by_field_name("name"))
    scopes: list[Scope] = []
    if outermost is not None:
        if outermost.start_byte not in facts.tables:
            facts.tables[outermost.start_byte] = _function_table(outermost, source, facts.package)
        scopes = facts.tables[outermost.start_byte]
    _Hole(index, facts, scopes, owner_name, found).walk(cover)


def body_kind(statement: Node) -> str | None:
    """``if_body``/``loop_body`` when the block directly holding ``statement`` is such a body."""
    block = statement.parent
    if block is None or block.type != "block":
        return None
    owner = block.parent
    if owner is None:
        return None
    if owner.type in IF_OWNERS:
        return "if_body" if block == owner.child_by_field_name("consequence") else None
    if owner.type == "else_clause":
        return "if_body" if owner.parent is not None and owner.parent.type == "if_statement" else None
    if owner.type in LOOPS:
        return "loop_body" if block == owner.child_by_field_name("body") else None
    return None
