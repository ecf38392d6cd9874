"""Java scope walks behind task labels (the definitions are in ``labels.py``).

Three walks over tree-sitter trees, each iterative:

* :func:`scan` — once per file: package, imports, every type, field, method and enum constant
  with its line and owner (anonymous and local classes included; ``java_declarations.py``, with
  the repository's summary);
* :func:`~replay.marking.java_locals.locals_of` — once per member (method, constructor,
  initializer) holding a hole, cached: every parameter and local declaration with the byte range
  where it is in scope (``java_locals.py``);
* :func:`analyse` — the hole itself (here). A bare name is a local if one is in scope, else a field,
  else a class (Java reclassifies ambiguous names in that order); calls and field accesses
  look at the declared type of their receiver when it is known.

This module is the language's interface to ``labels.py`` (its constants, ``scan``, ``summarize``,
``analyse``, ``condition``, ``body_kind``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from tree_sitter import Node

from postprocess.syntax import language
from replay.marking.java_declarations import (
    BODIES,
    TYPE_DECLS,
    FileFacts,
    Local,
    Site,
    flatten,
    is_repo_name,
    lookups,
    simple_name,
    type_name,
)
from replay.marking.java_declarations import scan as scan
from replay.marking.java_declarations import summarize as summarize
from replay.marking.java_locals import SKIPPED, locals_of
from replay.marking.syntax import Stack as _Stack
from replay.marking.syntax import condition, text, walk_span  # noqa: F401  (condition: part of the language interface)

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
_IFS_AND_LOOPS = IF_OWNERS | LOOPS  # what the hole's walk hands to Findings.compound


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
            known = self.cache[node.start_byte] = self._resolve(text(node), node.start_byte, node.start_point.row)
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
        repo = lookups(self.index)
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
        walk_span(cover, found.start, found.end, leaves, handlers, SKIPPED, _IFS_AND_LOOPS, found.compound)

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
        name = text(node)
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
        parts = flatten(node)
        if not parts or not self.found.inside(parts[0]):
            return
        head = text(parts[0])
        if head[:1].islower():
            self.found.labels.add("class" if is_repo_name(self.index, ".".join(text(p) for p in parts)) else "library")
            return
        kind = self.type_kind(head)
        if kind == CLASS:
            self.type_use(parts[0], new)
            for p in parts[1:]:
                if text(p) in self.index.classes:
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
                return self.type_of(r.type), simple_name(r.type)
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
                sites = self.facts.fields.get(text(fld))
                if sites:
                    typ = self._site(sites, None, obj.start_point.row).type
                    return self.type_of(typ), simple_name(typ)
            return UNKNOWN, None
        if t in ("string_literal", "text_block", "array_creation_expression"):
            return OUTSIDE, None
        if t in ("object_creation_expression", "cast_expression"):
            typ = type_name(obj.child_by_field_name("type"))
            return self.type_of(typ), simple_name(typ)
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
        method = text(name)
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
        name = text(fld)
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
            sites = self.facts.methods.get(text(children[-1]))
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
        if node.type in TYPE_DECLS:
            name = text(node.child_by_field_name("name"))
            if not owners:
                sup = node.child_by_field_name("superclass")
                superclass = type_name(sup.named_children[0]) if sup is not None and sup.named_child_count else None
            owners.append(name)
        if member is None and _is_member(ancestors, i):
            member = node
    table: dict[str, list[Local]] = {}
    if member is not None:
        if member.start_byte not in facts.tables:
            facts.tables[member.start_byte] = locals_of(member)
        table = facts.tables[member.start_byte]
    _Hole(index, facts, table, owners, superclass, found).walk(cover)


def _is_member(ancestors: list[Node], i: int) -> bool:
    """Whether ``ancestors[i]`` is a member of a named type (its parent chain: body, type)."""
    j = i + 1
    while j < len(ancestors) and ancestors[j].type in BODIES:
        j += 1
    return j > i + 1 and j < len(ancestors) and ancestors[j].type in TYPE_DECLS


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
