"""Python scope walks behind task labels (the definitions are in ``labels.py``).

Three walks over tree-sitter trees, each iterative:

* :func:`scan` — once per file, over statements only (expressions cannot hold a ``def``):
  module-level bindings, every def/class with its line, star imports (``python_bindings.py``);
* :func:`~replay.marking.python_bindings.function_table` — once per outermost function holding a
  hole, cached in the file facts: the scopes (function, lambda, comprehension, class) and what
  each binds where (``python_bindings.py``);
* :func:`analyse` — the hole itself (here): every name is resolved through those scopes, then the
  module, then the repository index (``python_repository.py``), the way Python would resolve it.

This module is the language's interface to ``labels.py`` (its constants, ``scan``, ``summarize``,
``analyse``, ``condition``, ``body_kind``).
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

from tree_sitter import Node

from postprocess.syntax import language
from replay.marking.python_bindings import Binding, DefSite, FileFacts, Scope, function_table
from replay.marking.python_bindings import module_name as module_name
from replay.marking.python_bindings import scan as scan
from replay.marking.python_repository import is_repo_import, lookups, resolve_member
from replay.marking.python_repository import summarize as summarize
from replay.marking.syntax import Stack, condition, text, walk_span  # noqa: F401  (condition: part of the language interface)

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
            known = self.cache[node.start_byte] = self._resolve(text(node), node.start_byte)
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
        found, name = self.found, text(attr)
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
                kind, detail = resolve_member(self.index, base.detail or "", text(attr))
                return self._member(kind, detail, text(attr))
        return Resolved(OTHER)

    def _defining_base(self, method: str) -> str | None:
        """The repository base class (searched breadth-first) that defines ``method`` for the
        class around the hole, or None when it comes from outside the repository."""
        repo = lookups(self.index)
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
            owner_name = text(node.child_by_field_name("name"))
    scopes: list[Scope] = []
    if outermost is not None:
        if outermost.start_byte not in facts.tables:
            facts.tables[outermost.start_byte] = function_table(outermost, source, facts.package)
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
