"""Java declarations behind task labels: what each file declares, and what the repository does.

:func:`scan` runs once per file: package, imports, every type, field, method and enum constant
with its line and owner (anonymous and local classes included). :func:`summarize` runs once per
repository, on the first hole that needs it: every repository type by its qualified name, the
methods each type declares and the class it extends. The hole's walk (``labels_java.py``)
resolves names against them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from tree_sitter import Node

from replay.marking.repo_summary import methods_by_owner, repository
from replay.marking.syntax import text

if TYPE_CHECKING:
    from replay.marking.labels import RepoIndex

TYPE_DECLS = frozenset(
    {"class_declaration", "interface_declaration", "enum_declaration", "record_declaration", "annotation_type_declaration"}
)
BODIES = frozenset({"class_body", "interface_body", "enum_body", "enum_body_declarations", "annotation_type_body"})


class Site(NamedTuple):
    row: int
    owner: str | None  # the type whose body declares it
    type: str | None = None  # declared type (fields), ``X[]`` for arrays
    arity: int | None = None  # methods: parameter count, negative when the last one is varargs

    def accepts(self, args: int) -> bool:
        if self.arity is None:
            return True
        return args >= -self.arity - 1 if self.arity < 0 else args == self.arity


class Local(NamedTuple):
    byte: int  # where it is declared, and visible from
    row: int
    scope_end: int  # where it stops being visible
    type: str | None


@dataclass(slots=True)
class FileFacts:
    path: str
    size: int
    fingerprint: int
    package: str = ""
    imports: dict[str, str] = field(default_factory=dict)  # simple name -> qualified name
    wildcards: list[str] = field(default_factory=list)
    static_imports: dict[str, str] = field(default_factory=dict)  # member -> qualified type
    static_wildcards: list[str] = field(default_factory=list)  # qualified types
    types: dict[str, list[Site]] = field(default_factory=dict)  # Site.type: the superclass
    type_params: set[str] = field(default_factory=set)
    fields: dict[str, list[Site]] = field(default_factory=dict)
    methods: dict[str, list[Site]] = field(default_factory=dict)
    enum_constants: dict[str, list[Site]] = field(default_factory=dict)
    tables: dict[int, dict[str, list[Local]]] = field(default_factory=dict)  # member start -> locals
    newlines: list[int] | None = None
    comment_ends: list[int] | None = None
    comment_rows: list[int] | None = None


def type_name(node: Node | None) -> str | None:
    """The name of a declared type: ``Map<K, V>`` -> ``Map``, ``Map.Entry<K, V>`` -> ``Map.Entry``, ``int[]``."""
    if node is None:
        return None
    t = node.type
    if t in ("type_identifier", "integral_type", "floating_point_type", "boolean_type", "void_type"):
        return text(node)
    if t == "generic_type":
        return type_name(node.named_children[0]) if node.named_child_count else None
    if t == "scoped_type_identifier":
        return ".".join(text(c) for c in flatten(node))
    if t == "array_type":
        element = type_name(node.child_by_field_name("element"))
        return f"{element}[]" if element else None
    if t == "annotated_type":
        return type_name(node.named_children[-1]) if node.named_child_count else None
    return None


# -- per file ---------------------------------------------------------------------------------


def scan(path: str, source: bytes, root: Node) -> FileFacts:
    """Package, imports and every declaration of one file.

    One pass over the type bodies (nested, local and anonymous ones too) in document order,
    reading only their direct members, so method bodies are never walked.
    """
    facts = FileFacts(path, len(source), hash(source))
    for node in root.named_children:
        if node.type == "package_declaration":
            facts.package = text(next((c for c in node.named_children if c.type in ("scoped_identifier", "identifier")), None))
        elif node.type == "import_declaration":
            _import(node, facts)
    open_types: list[tuple[int, str | None]] = []  # (end byte, name) of the types around a body
    for body in _bodies(source, root):
        while open_types and open_types[-1][0] <= body.start_byte:
            open_types.pop()
        decl = body.parent
        if decl is None:
            continue
        outer = open_types[-1][1] if open_types else None
        owner = _declare_type(decl, outer, facts) if decl.type in TYPE_DECLS else outer
        open_types.append((body.end_byte, owner))
        members = body.named_children
        if body.type == "enum_body":
            members = [m for c in members for m in (c.named_children if c.type == "enum_body_declarations" else [c])]
        for member in members:
            _declare_member(member, owner, facts)
    return facts


def _bodies(source: bytes, root: Node) -> Iterator[Node]:
    """Every type body, in document order: each ``{`` is looked up in the tree (cheaper than a
    tree-sitter query, which visits every node)."""
    at = source.find(b"{")
    while at >= 0:
        brace = root.descendant_for_byte_range(at, at + 1)
        parent = brace.parent if brace is not None and brace.type == "{" else None
        if parent is not None and parent.type in BODIES and parent.start_byte == at:
            yield parent
        at = source.find(b"{", at + 1)


def _declare_type(decl: Node, outer: str | None, facts: FileFacts) -> str | None:
    name = decl.child_by_field_name("name")
    superclass = decl.child_by_field_name("superclass")
    base = type_name(superclass.named_children[0]) if superclass is not None and superclass.named_child_count else None
    _type_parameters(decl, facts)
    if name is None:
        return outer
    facts.types.setdefault(text(name), []).append(Site(name.start_point.row, outer, base))
    if decl.type == "record_declaration":
        _record_components(decl, text(name), facts)
    return text(name)


def _declare_member(node: Node, owner: str | None, facts: FileFacts) -> None:
    t = node.type
    if t in ("field_declaration", "constant_declaration"):
        declared = type_name(node.child_by_field_name("type"))
        for d in node.named_children:
            name = d.child_by_field_name("name") if d.type == "variable_declarator" else None
            if name is not None:
                typ = f"{declared}[]" if declared and d.child_by_field_name("dimensions") is not None else declared
                facts.fields.setdefault(text(name), []).append(Site(name.start_point.row, owner, typ))
    elif t in ("method_declaration", "constructor_declaration"):
        _type_parameters(node, facts)
        name = node.child_by_field_name("name")
        if name is not None and t == "method_declaration":
            facts.methods.setdefault(text(name), []).append(Site(name.start_point.row, owner, None, _arity(node)))
    elif t == "enum_constant":
        name = node.child_by_field_name("name")
        if name is not None:
            facts.enum_constants.setdefault(text(name), []).append(Site(name.start_point.row, owner, owner))


def _arity(method: Node) -> int:
    params = method.child_by_field_name("parameters")
    kinds = [p.type for p in params.named_children] if params is not None else []
    count = sum(k in ("formal_parameter", "spread_parameter") for k in kinds)
    return -count if "spread_parameter" in kinds else count


def _type_parameters(decl: Node, facts: FileFacts) -> None:
    params = decl.child_by_field_name("type_parameters")
    for p in params.named_children if params is not None else []:
        facts.type_params.update(text(c) for c in p.named_children if c.type in ("type_identifier", "identifier"))


def _import(node: Node, facts: FileFacts) -> None:
    static = any(c.type == "static" for c in node.children)
    wildcard = any(c.type == "asterisk" for c in node.children)
    name = text(next((c for c in node.named_children if c.type in ("scoped_identifier", "identifier")), None))
    if not name:
        return
    if wildcard:
        (facts.static_wildcards if static else facts.wildcards).append(name)
    elif static:
        owner, _, member = name.rpartition(".")
        facts.static_imports[member] = owner
    else:
        facts.imports[name.rpartition(".")[2]] = name


def _record_components(node: Node, owner: str | None, facts: FileFacts) -> None:
    """Record components are fields and accessor methods at once."""
    params = node.child_by_field_name("parameters")
    for p in params.named_children if params is not None else []:
        name = p.child_by_field_name("name")
        if name is not None:
            site = Site(name.start_point.row, owner, type_name(p.child_by_field_name("type")))
            facts.fields.setdefault(text(name), []).append(site)
            facts.methods.setdefault(text(name), []).append(site._replace(arity=0))


def flatten(node: Node) -> list[Node]:
    """The names of a qualified name, outermost first: ``java.util.List`` -> java, util, List."""
    parts: list[Node] = []
    pending = [node]
    while pending:
        n = pending.pop()
        if n.type in ("scoped_type_identifier", "scoped_identifier"):
            pending.extend(reversed(n.named_children))
        elif n.type in ("type_identifier", "identifier"):
            parts.append(n)
    return parts


def simple_name(name: str | None) -> str | None:
    """``Outer.Inner`` -> ``Inner``: the type whose members are declared with that owner."""
    return name.rpartition(".")[2] if name else name


# -- per repository ---------------------------------------------------------------------------


@dataclass(slots=True)
class Repo:
    qualified: frozenset[str]  # package.Type of every repository type, nested ones as package.Outer.Inner
    methods: dict[str, set[str]]  # type -> names of the methods its body declares
    superclass: dict[str, str]  # type -> simple name of the class it extends


def summarize(index: RepoIndex) -> None:
    files: dict[str, FileFacts] = index.files
    functions: set[str] = set()
    classes: set[str] = set()
    fields: set[str] = set()
    constants: set[str] = set()
    packages: set[str] = set()
    qualified: set[str] = set()
    for facts in files.values():
        functions.update(facts.methods)
        classes.update(facts.types)
        fields.update(facts.fields)
        constants.update(facts.enum_constants)
        if facts.package:
            packages.add(facts.package)
        for name, sites in facts.types.items():
            for site in sites:
                qualified.add(_qualify(facts, name, site.owner))
    index.functions, index.classes, index.modules = frozenset(functions), frozenset(classes), frozenset(packages)
    index.fields, index.enum_constants = frozenset(fields), frozenset(constants)
    methods = methods_by_owner(facts.methods for facts in files.values())
    superclass: dict[str, str] = {}
    for facts in files.values():
        for name, sites in facts.types.items():
            if sites[0].type:
                superclass[name] = sites[0].type
    index.extra = Repo(frozenset(qualified), methods, superclass)


def _qualify(facts: FileFacts, name: str, owner: str | None) -> str:
    parts = [name]
    seen = {name}
    while owner is not None and owner not in seen:
        seen.add(owner)
        parts.append(owner)
        sites = facts.types.get(owner)
        owner = sites[0].owner if sites else None
    prefix = f"{facts.package}." if facts.package else ""
    return prefix + ".".join(reversed(parts))


def lookups(index: RepoIndex) -> Repo:
    """The repository's lookups, summarized on first use."""
    found: Repo = repository(index, summarize)
    return found


def is_repo_name(index: RepoIndex, qualified: str) -> bool:
    """Whether an imported name (a type, a nested type, a package) belongs to the repository."""
    if qualified in lookups(index).qualified or qualified in index.modules:
        return True
    return any(qualified.startswith(p + ".") for p in index.modules)
