"""Java scope walks behind task labels (the definitions are in ``labels.py``).

Three walks over tree-sitter trees, each iterative:

* :func:`scan` — once per file: package, imports, every type, field, method and enum constant
  with its line and owner (anonymous and local classes included);
* :func:`_locals` — once per member (method, constructor, initializer) holding a hole, cached:
  every parameter and local declaration with the byte range where it is in scope;
* :func:`analyse` — the hole itself. A bare name is a local if one is in scope, else a field,
  else a class (Java reclassifies ambiguous names in that order); calls and field accesses
  look at the declared type of their receiver when it is known.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from tree_sitter import Node, QueryCursor

from postprocess.syntax import language, query
from replay.marking.syntax import Stack as _Stack
from replay.marking.syntax import condition, walk_span  # noqa: F401  (condition: part of the language interface)

if TYPE_CHECKING:
    from replay.marking.labels import Findings, RepoIndex

LANGUAGE = language("java")
COMMENT_OPENERS: tuple[bytes, ...] = (b"//", b"/*")
COMMENT_TYPES = frozenset({"line_comment", "block_comment"})

IF_OWNERS = frozenset({"if_statement"})
IF_STATEMENTS = IF_OWNERS
LOOPS = frozenset({"for_statement", "enhanced_for_statement", "while_statement", "do_statement"})
STATEMENT_LISTS = frozenset({"block", "constructor_body", "switch_block_statement_group", "switch_block", "program", "class_body"})

JAVA_LANG = frozenset({
    "Appendable", "ArithmeticException", "ArrayIndexOutOfBoundsException", "ArrayStoreException",
    "AssertionError", "AutoCloseable", "Boolean", "Byte", "CharSequence", "Character", "Class",
    "ClassCastException", "ClassNotFoundException", "CloneNotSupportedException", "Cloneable",
    "Comparable", "Deprecated", "Double", "Enum", "Error", "Exception", "Float",
    "FunctionalInterface", "IllegalArgumentException", "IllegalMonitorStateException",
    "IllegalStateException", "IndexOutOfBoundsException", "Integer", "InterruptedException",
    "Iterable", "Long", "Math", "NegativeArraySizeException", "NoSuchFieldException",
    "NoSuchMethodException", "NullPointerException", "Number", "NumberFormatException", "Object",
    "OutOfMemoryError", "Override", "Process", "ProcessBuilder", "Readable", "Record",
    "ReflectiveOperationException", "Runnable", "Runtime", "RuntimeException", "SafeVarargs",
    "SecurityException", "Short", "StackOverflowError", "StrictMath", "String", "StringBuffer",
    "StringBuilder", "StringIndexOutOfBoundsException", "SuppressWarnings", "System", "Thread",
    "ThreadLocal", "Throwable", "TypeNotPresentException", "UnsupportedOperationException", "Void",
})  # fmt: skip
PRIMITIVES = frozenset({"int", "long", "short", "byte", "char", "boolean", "float", "double", "void"})
_TYPE_DECLS = frozenset(
    {"class_declaration", "interface_declaration", "enum_declaration", "record_declaration", "annotation_type_declaration"}
)
_BODIES = frozenset({"class_body", "interface_body", "enum_body", "enum_body_declarations", "annotation_type_body"})
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
_SKIPPED = frozenset(
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
_IFS_AND_LOOPS = IF_OWNERS | LOOPS  # what the hole's walk hands to Findings.compound


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


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def type_name(node: Node | None) -> str | None:
    """The name of a declared type: ``Map<K, V>`` -> ``Map``, ``Map.Entry<K, V>`` -> ``Map.Entry``, ``int[]``."""
    if node is None:
        return None
    t = node.type
    if t in ("type_identifier", "integral_type", "floating_point_type", "boolean_type", "void_type"):
        return _text(node)
    if t == "generic_type":
        return type_name(node.named_children[0]) if node.named_child_count else None
    if t == "scoped_type_identifier":
        return ".".join(_text(c) for c in _flatten(node))
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
            facts.package = _text(next((c for c in node.named_children if c.type in ("scoped_identifier", "identifier")), None))
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
        owner = _declare_type(decl, outer, facts) if decl.type in _TYPE_DECLS else outer
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
        if parent is not None and parent.type in _BODIES and parent.start_byte == at:
            yield parent
        at = source.find(b"{", at + 1)


def _declare_type(decl: Node, outer: str | None, facts: FileFacts) -> str | None:
    name = decl.child_by_field_name("name")
    superclass = decl.child_by_field_name("superclass")
    base = type_name(superclass.named_children[0]) if superclass is not None and superclass.named_child_count else None
    _type_parameters(decl, facts)
    if name is None:
        return outer
    facts.types.setdefault(_text(name), []).append(Site(name.start_point.row, outer, base))
    if decl.type == "record_declaration":
        _record_components(decl, _text(name), facts)
    return _text(name)


def _declare_member(node: Node, owner: str | None, facts: FileFacts) -> None:
    t = node.type
    if t in ("field_declaration", "constant_declaration"):
        declared = type_name(node.child_by_field_name("type"))
        for d in node.named_children:
            name = d.child_by_field_name("name") if d.type == "variable_declarator" else None
            if name is not None:
                typ = f"{declared}[]" if declared and d.child_by_field_name("dimensions") is not None else declared
                facts.fields.setdefault(_text(name), []).append(Site(name.start_point.row, owner, typ))
    elif t in ("method_declaration", "constructor_declaration"):
        _type_parameters(node, facts)
        name = node.child_by_field_name("name")
        if name is not None and t == "method_declaration":
            facts.methods.setdefault(_text(name), []).append(Site(name.start_point.row, owner, None, _arity(node)))
    elif t == "enum_constant":
        name = node.child_by_field_name("name")
        if name is not None:
            facts.enum_constants.setdefault(_text(name), []).append(Site(name.start_point.row, owner, owner))


def _arity(method: Node) -> int:
    params = method.child_by_field_name("parameters")
    kinds = [p.type for p in params.named_children] if params is not None else []
    count = sum(k in ("formal_parameter", "spread_parameter") for k in kinds)
    return -count if "spread_parameter" in kinds else count


def _type_parameters(decl: Node, facts: FileFacts) -> None:
    params = decl.child_by_field_name("type_parameters")
    for p in params.named_children if params is not None else []:
        facts.type_params.update(_text(c) for c in p.named_children if c.type in ("type_identifier", "identifier"))


def _import(node: Node, facts: FileFacts) -> None:
    static = any(c.type == "static" for c in node.children)
    wildcard = any(c.type == "asterisk" for c in node.children)
    name = _text(next((c for c in node.named_children if c.type in ("scoped_identifier", "identifier")), None))
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
            facts.fields.setdefault(_text(name), []).append(site)
            facts.methods.setdefault(_text(name), []).append(site._replace(arity=0))


def _flatten(node: Node) -> list[Node]:
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


def _simple(name: str | None) -> str | None:
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
    methods: dict[str, set[str]] = {}
    superclass: dict[str, str] = {}
    for facts in files.values():
        for name, sites in facts.methods.items():
            for site in sites:
                if site.owner is not None:
                    methods.setdefault(site.owner, set()).add(name)
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


def _repo(index: RepoIndex) -> Repo:
    if index.extra is None:
        summarize(index)
    return index.extra


def is_repo_name(index: RepoIndex, qualified: str) -> bool:
    """Whether an imported name (a type, a nested type, a package) belongs to the repository."""
    if qualified in _repo(index).qualified or qualified in index.modules:
        return True
    return any(qualified.startswith(p + ".") for p in index.modules)


# -- per member -------------------------------------------------------------------------------


_DECLARATIONS = query(
    "java",
    """
    [(formal_parameter) (spread_parameter) (catch_formal_parameter)
     (lambda_expression) (local_variable_declaration) (resource) (enhanced_for_statement)
     (instanceof_expression) (type_pattern) (record_pattern_component)] @declaration
    """,
)
_PARAMETERS = frozenset({"formal_parameter", "spread_parameter", "catch_formal_parameter"})
_HIDING = _SKIPPED | _PARAMETERS  # nothing under these declares a local


def _locals(member: Node) -> dict[str, list[Local]]:
    """Every parameter and local variable declared in ``member``, with where it is visible.

    The declaring nodes are found by a query (in C, so the many expression nodes of a member
    are never visited from Python); each one's scope is its innermost enclosing scope node.
    """
    table: dict[str, list[Local]] = {}

    def declare(name: Node | None, scope_end: int, typ: str | None) -> None:
        """``name`` is visible from its declaration to ``scope_end``."""
        if name is not None and name.type == "identifier":
            table.setdefault(_text(name), []).append(Local(name.start_byte, name.start_point.row, scope_end, typ))

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


# -- per hole ---------------------------------------------------------------------------------

# What a name in the hole stands for.
LOCAL, HOLE, FIELD, CLASS, LIBRARY_CLASS, LIBRARY, OTHER = range(7)
# What a receiver is known to be: a value or type of the repository, a value of a type from
# outside it, unknown, this/super, or a library type itself (``Math.``): what a static library
# call returns is taken to be library too, what a method of an outside value returns is unknown.
REPO, OUTSIDE, UNKNOWN, THIS, SUPER, STATIC_LIBRARY = range(6)


class Resolved(NamedTuple):
    kind: int
    row: int | None = None
    type: str | None = None  # LOCAL/FIELD: the declared type; CLASS: the class name


class _Hole:
    """One walk over one hole."""

    def __init__(
        self, index: RepoIndex, facts: FileFacts, table: dict[str, list[Local]], owners: list[str], superclass: str | None, found: Findings
    ) -> None:
        self.index, self.facts, self.table, self.found = index, facts, table, found
        self.owners = owners  # enclosing type names, innermost first
        self.superclass = superclass
        self.cache: dict[int, Resolved] = {}

    # -- names ------------------------------------------------------------------------------

    def resolve(self, node: Node) -> Resolved:
        known = self.cache.get(node.start_byte)
        if known is None:
            known = self.cache[node.start_byte] = self._resolve(_text(node), node.start_byte, node.start_point.row)
        return known

    def _resolve(self, name: str, byte: int, row: int) -> Resolved:
        best = None
        for local in self.table.get(name, ()):
            if local.byte <= byte < local.scope_end and (best is None or local.byte > best.byte):
                best = local
        if best is not None:
            return Resolved(HOLE) if self.found.start <= best.byte < self.found.end else Resolved(LOCAL, best.row, best.type)
        facts, index = self.facts, self.index
        for sites in (facts.fields.get(name), facts.enum_constants.get(name)):
            if sites:
                site = self._site(sites, None, row)
                return Resolved(FIELD, site.row, site.type)
        if name in index.fields or name in index.enum_constants:
            return Resolved(FIELD)
        if name in facts.static_imports:
            return Resolved(FIELD) if is_repo_name(index, facts.static_imports[name]) else Resolved(LIBRARY)
        if name[:1].islower() and any(not is_repo_name(index, w) for w in facts.static_wildcards):
            return Resolved(LIBRARY)
        kind = self.type_kind(name)
        if kind == CLASS:
            sites = facts.types.get(name)
            return Resolved(CLASS, sites[0].row if sites else None, name)
        if kind == LIBRARY or name in ("java", "javax"):
            return Resolved(LIBRARY_CLASS)
        return Resolved(OTHER)

    def type_kind(self, name: str) -> int:
        """CLASS for a repository type, LIBRARY for an imported or java.lang one, else OTHER."""
        facts, index = self.facts, self.index
        if name == "var" or (name in facts.type_params and name not in facts.types):
            return OTHER
        if name in facts.imports:
            return CLASS if is_repo_name(index, facts.imports[name]) else LIBRARY
        if name in facts.types or name in index.classes:
            return CLASS
        if name in JAVA_LANG:
            return LIBRARY
        if name[:1].isupper() and any(not is_repo_name(index, w) for w in facts.wildcards):
            return LIBRARY
        return OTHER

    def type_of(self, name: str | None) -> int:
        """What a declared type says about a receiver."""
        if not name:
            return UNKNOWN
        if name.endswith("[]") or name in PRIMITIVES:
            return OUTSIDE
        if "." in name:  # ``Map.Entry`` is judged by ``Map``, ``java.util.List`` by its package
            head = name.split(".", 1)[0]
            if head[:1].islower():
                return REPO if is_repo_name(self.index, name) else OUTSIDE
            name = head
        if name in self.facts.type_params and name not in self.facts.types:
            return OUTSIDE
        kind = self.type_kind(name)
        return REPO if kind == CLASS else OUTSIDE if kind == LIBRARY else UNKNOWN

    def _inherits(self, method: str) -> bool:
        """Whether a repository superclass of the class around the hole declares ``method``."""
        repo = _repo(self.index)
        cls, seen = self.superclass, set()
        while cls is not None and cls not in seen and self.type_kind(cls) == CLASS:
            if method in repo.methods.get(cls, ()):
                return True
            seen.add(cls)
            cls = repo.superclass.get(cls)
        return False

    def _site(self, sites: list[Site], owner: str | None, row: int, args: int | None = None) -> Site:
        """The declaration of a field/method: in ``owner``, else in the innermost enclosing type
        declaring it, else the nearest one to ``row``; overloads taking ``args`` arguments first."""
        if args is not None:
            sites = [s for s in sites if s.accepts(args)] or sites
        for wanted in ([owner] if owner else []) + self.owners:
            own = [s for s in sites if s.owner == wanted]
            if own:
                return min(own, key=lambda s: abs(s.row - row))
        return min(sites, key=lambda s: abs(s.row - row))

    # -- the walk ---------------------------------------------------------------------------

    def walk(self, cover: Node) -> None:
        """The names, types, calls and field accesses in the hole; a node's flag: it is the type
        of a ``new``."""
        handlers = {
            "scoped_type_identifier": self.qualified_type,
            "scoped_identifier": self.qualified_type,
            "generic_type": self.generic_type,
            "method_invocation": self.invocation,
            "field_access": self.field_access,
            "method_reference": self.method_reference,
            "object_creation_expression": self.creation,
            "lambda_expression": self.lambda_expression,
            **dict.fromkeys(_DECLARES, self.declaration),
        }
        leaves = {"identifier": self.name, "type_identifier": self.type_use}
        found = self.found
        walk_span(cover, found.start, found.end, leaves, handlers, _SKIPPED, _IFS_AND_LOOPS, found.compound)

    def declaration(self, node: Node, new: bool, stack: _Stack) -> None:
        """A node declaring a name (or a labeled statement): all it holds but that name."""
        if node.type in _IFS_AND_LOOPS:  # ``for (T x : xs)``
            self.found.compound(node)
        declared = _declared_name(node)
        stack.extend((c, False) for c in reversed(node.named_children) if c != declared)

    def name(self, node: Node, new: bool) -> None:
        """A bare name in an expression (``new``, the walk's flag, is no matter here)."""
        r = self.resolve(node)
        found = self.found
        if r.kind == LOCAL:
            found.labels.add("local_variable")
        elif r.kind == FIELD:
            found.labels.add("global_variable")
        elif r.kind == CLASS:
            found.labels.add("class")
        elif r.kind in (LIBRARY_CLASS, LIBRARY):
            found.labels.add("library")
            return
        else:
            return
        found.reference(node.start_point.row, r.row)

    def type_use(self, node: Node, new: bool) -> None:
        """A type name: repository class, or library when imported (java.lang: only in ``new``)."""
        name = _text(node)
        kind = self.type_kind(name)
        if kind == CLASS:
            self.found.labels.add("class")
            sites = self.facts.types.get(name)
            if sites:
                self.found.reference(node.start_point.row, sites[0].row)
        elif kind == LIBRARY and (new or name not in JAVA_LANG):
            self.found.labels.add("library")

    def qualified_type(self, node: Node, new: bool, stack: _Stack) -> None:
        """``java.util.List``, ``Map.Entry``, ``Outer.Inner``: judged by where the chain starts."""
        parts = _flatten(node)
        if not parts or not self.found.inside(parts[0]):
            return
        head = _text(parts[0])
        if head[:1].islower():
            self.found.labels.add("class" if is_repo_name(self.index, ".".join(_text(p) for p in parts)) else "library")
            return
        kind = self.type_kind(head)
        if kind == CLASS:
            self.type_use(parts[0], new)
            for p in parts[1:]:
                if _text(p) in self.index.classes:
                    self.type_use(p, new)
        elif kind == LIBRARY:
            self.type_use(parts[0], new or len(parts) > 1)  # ``Map.Entry``: a member of a library type

    def generic_type(self, node: Node, new: bool, stack: _Stack) -> None:
        """``ArrayList<Node>``: only the base type is what ``new`` constructs."""
        stack.extend((c, new and i == 0) for i, c in enumerate(node.named_children))

    def creation(self, node: Node, new: bool, stack: _Stack) -> None:
        typ = node.child_by_field_name("type")
        stack.extend((c, c == typ) for c in node.named_children)

    def lambda_expression(self, node: Node, new: bool, stack: _Stack) -> None:
        """Parameters declare names (typed ones still name types); the body is walked."""
        params, body = node.child_by_field_name("parameters"), node.child_by_field_name("body")
        if params is not None and params.type == "formal_parameters":
            stack.append((params, False))
        if body is not None:
            stack.append((body, False))

    def receiver(self, obj: Node | None) -> tuple[int, str | None]:
        """What the object of a call or field access is, and its type's simple name if known."""
        if obj is None:
            return THIS, None
        t = obj.type
        if t == "this":
            return THIS, None
        if t == "super":
            return SUPER, None
        if t == "identifier":
            r = self.resolve(obj)
            if r.kind in (LOCAL, FIELD):
                return self.type_of(r.type), _simple(r.type)
            if r.kind == CLASS:
                return REPO, r.type
            if r.kind in (LIBRARY_CLASS, LIBRARY):
                return STATIC_LIBRARY, None
            return UNKNOWN, None
        if t == "field_access":
            inner, fld = obj.child_by_field_name("object"), obj.child_by_field_name("field")
            kind, _ = self.receiver(inner)
            if kind == STATIC_LIBRARY:
                return STATIC_LIBRARY, None
            if kind == THIS and fld is not None:
                sites = self.facts.fields.get(_text(fld))
                if sites:
                    typ = self._site(sites, None, obj.start_point.row).type
                    return self.type_of(typ), _simple(typ)
            return UNKNOWN, None
        if t in ("string_literal", "text_block", "array_creation_expression"):
            return OUTSIDE, None
        if t in ("object_creation_expression", "cast_expression"):
            typ = type_name(obj.child_by_field_name("type"))
            return self.type_of(typ), _simple(typ)
        if t == "method_invocation":
            kind, _ = self.receiver(obj.child_by_field_name("object")) if obj.child_by_field_name("object") is not None else (UNKNOWN, None)
            return (STATIC_LIBRARY, None) if kind == STATIC_LIBRARY else (UNKNOWN, None)
        if t == "parenthesized_expression" and obj.named_child_count == 1:
            return self.receiver(obj.named_children[0])
        return UNKNOWN, None

    def invocation(self, node: Node, new: bool, stack: _Stack) -> None:
        """A method call: ``function`` when the method is the repository's and the receiver's
        declared type is not known to be outside it; a static import may make it ``library``."""
        obj, name = node.child_by_field_name("object"), node.child_by_field_name("name")
        stack.extend((c, False) for c in node.named_children if c != name)
        if name is None or not self.found.inside(name):
            return
        method = _text(name)
        kind, typ = self.receiver(obj)
        found, row = self.found, name.start_point.row
        if obj is None:
            own = [s for s in self.facts.methods.get(method, ()) if s.owner in self.owners]
            if not own and method in self.facts.static_imports:
                if is_repo_name(self.index, self.facts.static_imports[method]):
                    found.labels.add("function")
                else:
                    found.labels.add("library")
                return
        if kind in (STATIC_LIBRARY, OUTSIDE) or method not in self.index.functions:
            return
        if kind == SUPER and not self._inherits(method):
            return  # ``super.toString()`` of a class extending Object or a library class
        found.labels.add("function")
        sites = self.facts.methods.get(method)
        if sites:
            owner = typ if kind == REPO else self.superclass if kind == SUPER else None
            arguments = node.child_by_field_name("arguments")
            args = arguments.named_child_count if arguments is not None else None
            found.reference(row, self._site(sites, owner, row, args).row)

    def field_access(self, node: Node, new: bool, stack: _Stack) -> None:
        """``this.x``, ``Other.CONST``, ``obj.field``: ``global_variable`` unless the receiver is
        known to be outside the repository (``arr.length``, ``Integer.MAX_VALUE``)."""
        obj, fld = node.child_by_field_name("object"), node.child_by_field_name("field")
        if obj is not None:
            stack.append((obj, False))
        if fld is None or not self.found.inside(fld):
            return
        name = _text(fld)
        kind, typ = self.receiver(obj)
        if kind in (STATIC_LIBRARY, OUTSIDE):
            return
        if kind not in (THIS, SUPER) and name not in self.index.fields and name not in self.index.enum_constants:
            return
        self.found.labels.add("global_variable")
        sites = self.facts.fields.get(name) or self.facts.enum_constants.get(name)
        if sites:
            self.found.reference(fld.start_point.row, self._site(sites, typ if kind == REPO else None, fld.start_point.row).row)

    def method_reference(self, node: Node, new: bool, stack: _Stack) -> None:
        """``Type::method``, ``this::m``, ``x::m``: the target is a receiver, the method a use;
        a type target is a static member access or a constructor, so java.lang ones count."""
        children = node.named_children
        if not children:
            return
        target = children[0]
        stack.append((target, True))
        if len(children) > 1 and children[-1].type == "identifier" and self.found.inside(children[-1]):
            sites = self.facts.methods.get(_text(children[-1]))
            kind, typ = self.receiver(target) if target.type in ("identifier", "this", "super", "field_access") else (UNKNOWN, None)
            if sites and kind not in (STATIC_LIBRARY, OUTSIDE):
                self.found.reference(children[-1].start_point.row, self._site(sites, typ, children[-1].start_point.row).row)


_DECLARING = {
    "variable_declarator": "name", "enhanced_for_statement": "name", "catch_formal_parameter": "name",
    "formal_parameter": "name", "resource": "name", "instanceof_expression": "name", "enum_constant": "name",
    "method_declaration": "name", "constructor_declaration": "name", "class_declaration": "name",
    "interface_declaration": "name", "enum_declaration": "name", "record_declaration": "name",
    "annotation_type_declaration": "name",
}  # fmt: skip


_DECLARES = frozenset(_DECLARING) | {"labeled_statement", "type_pattern", "record_pattern_component"}  # see _declared_name


def _declared_name(node: Node) -> Node | None:
    """The identifier a declaration node declares (not a use), or the label of a labeled statement."""
    t = node.type
    if t in _DECLARING:
        return node.child_by_field_name(_DECLARING[t])
    if t == "labeled_statement":
        return node.named_children[0] if node.named_child_count else None
    if t in ("type_pattern", "record_pattern_component"):
        last = node.named_children[-1] if node.named_child_count else None
        return last if last is not None and last.type == "identifier" else None
    return None


def analyse(index: RepoIndex, facts: FileFacts, source: bytes, cover: Node, ancestors: list[Node], found: Findings) -> None:
    member = None
    owners: list[str] = []
    superclass = None
    for i, node in enumerate(ancestors):
        if node.type in _TYPE_DECLS:
            name = _text(node.child_by_field_name("name"))
            if not owners:
                sup = node.child_by_field_name("superclass")
                superclass = type_name(sup.named_children[0]) if sup is not None and sup.named_child_count else None
            owners.append(name)
        if member is None and _is_member(ancestors, i):
            member = node
    table: dict[str, list[Local]] = {}
    if member is not None:
        if member.start_byte not in facts.tables:
            facts.tables[member.start_byte] = _locals(member)
        table = facts.tables[member.start_byte]
    _Hole(index, facts, table, owners, superclass, found).walk(cover)


def _is_member(ancestors: list[Node], i: int) -> bool:
    """Whether ``ancestors[i]`` is a member of a named type (its parent chain: body, type)."""
    j = i + 1
    while j < len(ancestors) and ancestors[j].type in _BODIES:
        j += 1
    return j > i + 1 and j < len(ancestors) and ancestors[j].type in _TYPE_DECLS


def body_kind(statement: Node) -> str | None:
    """``if_body``/``loop_body`` when the statement list directly holding ``statement`` is such a
    body (a braced block, or the single statement of a branch or loop written without braces)."""
    parent = statement.parent
    if parent is None:
        return None
    holder, body = (parent.parent, parent) if parent.type == "block" else (parent, statement)
    if holder is None:
        return None
    if holder.type == "if_statement":
        return "if_body" if body != holder.child_by_field_name("condition") else None
    if holder.type in LOOPS:
        return "loop_body" if body == holder.child_by_field_name("body") else None
    return None
