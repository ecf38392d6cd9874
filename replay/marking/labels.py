"""Task labels and distances: what a hole touches, so results can be broken down by it.

A task is a hole, a byte range ``[start, end)`` of one source file. Its labels are a sorted
tuple of zero or more of the eight strings in :data:`LABELS`; they overlap.

``if_condition``
    The hole is the condition of an ``if``/``elif`` (Java: ``if``/``else if``), or contains such
    a condition completely (e.g. a hole holding a whole ``if`` statement). Conditional
    expressions and ``while`` conditions do not count.
``if_body``
    The innermost statement list that directly holds the hole's first statement is a branch
    body of an if/elif/else, or the hole contains a complete ``if`` statement. A hole holding
    only a condition is not ``if_body``.
``loop_body``
    The same rule for loops: for/while (Java: for, enhanced for, while, do).
``local_variable``
    Inside the hole a name is read or written that is bound in the enclosing function/method
    outside the hole: a parameter or local variable (Python: assignment, for, with-as,
    except-as and walrus targets, comprehension variables of an enclosing comprehension,
    names of enclosing functions; Java: parameters, local declarations, for/catch/resource/
    pattern variables, lambda parameters). Python ``self``/``cls`` do not count, nor do names
    bound only inside the hole; loop variables of a loop around the hole do.
``global_variable``
    Python: a module-level variable (assigned at module level, not a def/class/import) of the
    same module, or one imported by name from a repository module (``repo_module.NAME`` counts
    too). Attributes of ``self``/``cls``/objects do not count.
    Java: a field or static field of a repository class: ``this.x``, a bare ``x`` that resolves
    to a field (not shadowed by a local), ``Other.CONST``, ``obj.field`` naming a repository
    field; repository enum constants count too.
``function``
    A call of a function or method defined in the repository's non-test sources. Python:
    ``f(...)``, ``self.m(...)``, ``obj.m(...)``, ``Cls.m(...)`` matched by name; a bare call of a
    builtin name (``len``) counts only when the repository binds that name in the module or
    imports it from a repository module. Java: a ``method_invocation`` whose name is declared
    in the repository (record accessors included); ``new X()`` is ``class``, and
    ``super(...)``/``this(...)`` do not count.
``class``
    A repository class (Java: class, interface, enum, record) referenced by name:
    instantiation, isinstance/type checks, ``Cls.x``, Java declared types, casts, generic
    arguments, ``instanceof``, ``new X``. ``self`` does not count; the enclosing class by name does.
``library``
    Something from outside the repository that had to be imported. Python: a name bound by an
    ``import``/``from … import`` of a module that is not part of the repository (``math.sqrt``,
    ``deque()``); builtins do not count. Java: a type imported from a non-repository package
    (single-type or wildcard import), a fully qualified ``java.…`` reference, or a ``java.lang``
    class used as the target of a static member access or a constructor call (``Math.max``,
    ``Integer.MAX_VALUE``, ``new StringBuilder()``). ``String s`` as a declared type, or a
    method called on a value (``s.length()``), does not count.

Distances (lines are 1-based; a task's first line is the line of its start byte):

``comment_distance``
    first line − last line of the nearest comment that ends before the hole starts (Python
    ``#``; Java ``//``, ``/* */`` and Javadoc; never docstrings). A comment ending on the first
    line before the hole gives 0; ``None`` when there is no comment above.
``reference_distance``
    The largest ``|use line − definition line|`` over the names used in the hole that are
    defined in the same file (locals and parameters bound outside the hole, module globals,
    fields, functions, methods, classes). A local's definition line is its declaration, or in
    Python its nearest binding above the use in the same scope, else its first binding.
    ``None`` when the hole uses no such name; definitions in other files have no distance.

Where the rules leave a choice, the choices are:

* Python ``self``/``cls`` are no reference for the distance either, as for the labels; a
  binding inside the hole is no definition (the nearest binding above the use *outside* it is).
* Java calls and field accesses on a receiver whose declared type is known to be outside the
  repository (``sb.toString()`` on a ``StringBuilder``, ``arr.length``) are not
  ``function``/``global_variable``; receivers of unknown type are matched by name.
* ``super().m()`` (Java ``super.m()``) counts as ``function`` only when a repository base
  class defines ``m``: ``super().__init__()`` of an ``Exception`` subclass does not.
* ``repo_module.NAME`` counts like an imported name; a module-level ``X = namedtuple(...)`` is
  a variable, not a class.
* When a name has several same-file definitions, the distance uses the one in the class around
  the hole (or of the receiver's type), among Java overloads those taking as many arguments,
  else the nearest.

Cost: :meth:`RepoIndex.build` makes one iterative pass per file. :func:`annotate` walks only
the hole, plus, once per function and cached, the function holding it; comments are found
once per file.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Any, Protocol

from tree_sitter import Node

from replay.marking.languages import LANGUAGES

LABELS = ("class", "function", "global_variable", "if_body", "if_condition", "library", "local_variable", "loop_body")


class Backend(Protocol):
    """What a language module (``labels_python``, ``labels_java``) provides."""

    COMMENT_OPENERS: tuple[bytes, ...]
    COMMENT_TYPES: frozenset[str]
    IF_OWNERS: frozenset[str]  # nodes with an if/elif condition
    IF_STATEMENTS: frozenset[str]  # complete if statements
    LOOPS: frozenset[str]
    STATEMENT_LISTS: frozenset[str]

    def scan(self, path: str, source: bytes, root: Node) -> Any: ...
    def summarize(self, index: RepoIndex) -> None: ...
    def analyse(self, index: RepoIndex, facts: Any, source: bytes, cover: Node, ancestors: list[Node], found: Findings) -> None: ...
    def condition(self, owner: Node) -> Node | None: ...
    def body_kind(self, statement: Node) -> str | None: ...


_WHITESPACE = b" \t\r\n\f\v"


@dataclass(frozen=True, slots=True)
class Annotation:
    labels: tuple[str, ...]  # sorted subset of LABELS
    comment_distance: int | None
    reference_distance: int | None


class Findings:
    """What the walks found in one hole: labels and the largest use/definition line gap."""

    __slots__ = ("start", "end", "labels", "distance", "_backend")

    def __init__(self, start: int, end: int, backend: Backend) -> None:
        self.start, self.end, self._backend = start, end, backend
        self.labels: set[str] = set()
        self.distance: int | None = None

    def inside(self, node: Node) -> bool:
        return self.start <= node.start_byte and node.end_byte <= self.end

    def reference(self, use_row: int, def_row: int | None) -> None:
        """A use on ``use_row`` of a name defined in the same file on ``def_row``."""
        if def_row is not None:
            gap = abs(use_row - def_row)
            if self.distance is None or gap > self.distance:
                self.distance = gap

    def compound(self, node: Node) -> None:
        """Called by the walks for every if/elif owner and loop node overlapping the hole:
        a hole containing a whole ``if`` (loop) is ``if_body`` (``loop_body``) and, with its
        condition, ``if_condition``."""
        backend, t = self._backend, node.type
        if t in backend.IF_OWNERS:
            inner = backend.condition(node)
            if inner is not None and self.inside(inner):
                self.labels.add("if_condition")
            if t in backend.IF_STATEMENTS and self.inside(node):
                self.labels.add("if_body")
        elif t in backend.LOOPS and self.inside(node):
            self.labels.add("loop_body")


def _backend(language: str) -> Backend:
    if language not in LANGUAGES:
        raise ValueError(f"no labeller for language {language!r} (choose from {', '.join(LANGUAGES)})")
    labeller: Backend = LANGUAGES[language].labeller
    return labeller


def scan_file(language: str, path: str, source: bytes, root: Node) -> Any:
    """What one file defines, for :meth:`RepoIndex.from_facts` (picklable, unlike the tree)."""
    return _backend(language).scan(path, source, root)


class RepoIndex:
    """What the repository defines, gathered once per repository from every non-test source file.

    ``functions``/``classes`` are names defined anywhere in the repository; ``modules`` are its
    Python module names (``lpsolve.simplex``, ``lpsolve``) or Java packages; ``variables`` maps a
    Python module to its module-level variables; ``fields`` and ``enum_constants`` are Java's.
    Per-file facts live in ``files``; anything annotate needs later is cached there.
    """

    def __init__(self, language: str) -> None:
        self.language = language
        self.backend = _backend(language)
        self.functions: frozenset[str] = frozenset()
        self.classes: frozenset[str] = frozenset()
        self.modules: frozenset[str] = frozenset()
        self.variables: dict[str, frozenset[str]] = {}
        self.fields: frozenset[str] = frozenset()
        self.enum_constants: frozenset[str] = frozenset()
        self.files: dict[str, Any] = {}
        self.extra: Any = None  # the backend's own repository-wide lookups

    @classmethod
    def build(cls, language: str, files: dict[str, tuple[bytes, Node]]) -> RepoIndex:
        """``files``: repository-relative POSIX path -> (source bytes, parsed root node)."""
        return cls.from_facts(language, {path: scan_file(language, path, source, root) for path, (source, root) in files.items()})

    @classmethod
    def from_facts(cls, language: str, files: dict[str, Any]) -> RepoIndex:
        """``files``: repository-relative POSIX path -> the :func:`scan_file` facts of that file,
        which may have been scanned in another process (marking with several workers)."""
        index = cls(language)
        index.files.update(files)
        index.backend.summarize(index)
        return index

    def file(self, path: str, source: bytes, root: Node) -> Any:
        """The facts of one file, scanned now if the index has none or they are out of date."""
        facts = self.files.get(path)
        if facts is None or facts.size != len(source) or facts.fingerprint != hash(source):
            facts = self.files[path] = self.backend.scan(path, source, root)
        return facts


def annotate(index: RepoIndex, path: str, source: bytes, root: Node, start_byte: int, end_byte: int) -> Annotation:
    """Labels and distances of the hole ``[start_byte, end_byte)`` of ``path``."""
    if not 0 <= start_byte <= end_byte <= len(source):
        raise ValueError(f"{path}: hole [{start_byte}, {end_byte}) is not inside the file's {len(source)} bytes")
    backend = index.backend
    facts = index.file(path, source, root)
    first_row = _row(facts, source, start_byte)
    start, end = _trim(source, start_byte, end_byte)
    found = Findings(start, end, backend)
    if start < end:
        cover = root.descendant_for_byte_range(start, end) or root
        ancestors = _ancestors(cover)
        _structure(backend, root, ancestors, found)
        backend.analyse(index, facts, source, cover, ancestors, found)
    return Annotation(
        labels=tuple(sorted(found.labels)),
        comment_distance=_comment_distance(backend, facts, source, root, start_byte, first_row),
        reference_distance=found.distance,
    )


def _trim(source: bytes, start: int, end: int) -> tuple[int, int]:
    """The hole without surrounding whitespace (structure is judged on what is removed)."""
    while start < end and source[start] in _WHITESPACE:
        start += 1
    while end > start and source[end - 1] in _WHITESPACE:
        end -= 1
    return start, end


def _ancestors(node: Node) -> list[Node]:
    """``node`` and its ancestors, innermost first."""
    chain = [node]
    parent = node.parent
    while parent is not None:
        chain.append(parent)
        parent = parent.parent
    return chain


def _row(facts: Any, source: bytes, byte: int) -> int:
    """0-based row of ``byte``, from newline offsets cached per file."""
    if facts.newlines is None:
        offsets, at = [], source.find(b"\n")
        while at >= 0:
            offsets.append(at)
            at = source.find(b"\n", at + 1)
        facts.newlines = offsets
    return bisect.bisect_left(facts.newlines, byte)


def _comment_distance(backend: Backend, facts: Any, source: bytes, root: Node, start_byte: int, first_row: int) -> int | None:
    if facts.comment_ends is None:
        ends = sorted(find_comments(source, root, backend.COMMENT_OPENERS, backend.COMMENT_TYPES))
        facts.comment_ends, facts.comment_rows = [e for e, _ in ends], [r for _, r in ends]
    i = bisect.bisect_right(facts.comment_ends, start_byte)
    return first_row - facts.comment_rows[i - 1] if i else None


def find_comments(source: bytes, root: Node, openers: tuple[bytes, ...], types: frozenset[str]) -> list[tuple[int, int]]:
    """(end byte, end row) of every comment: each place an opener (``#``, ``//``, ``/*``) occurs
    is looked up in the tree, which tells a comment from the same characters in a string. This
    is far cheaper than a tree-sitter query, which visits every node."""
    found = []
    for opener in openers:
        at = source.find(opener)
        while at >= 0:
            node = root.descendant_for_byte_range(at, at + len(opener))
            if node is not None and node.type in types and node.start_byte == at:
                found.append((node.end_byte, node.end_point.row))
                at = source.find(opener, node.end_byte)
            else:
                at = source.find(opener, at + 1)
    return found


# -- structure: if_condition, if_body, loop_body ---------------------------------------------


def _structure(backend: Backend, root: Node, ancestors: list[Node], found: Findings) -> None:
    """The hole IS a condition / its first statement sits in a branch or loop body.

    Containment (a whole ``if`` or loop inside the hole) is reported by the backend's walk
    through :meth:`Findings.compound`, which sees every node of the hole anyway.
    """
    for node in ancestors:
        if node.type in backend.IF_OWNERS:
            inner = backend.condition(node)
            if inner is not None and found.inside(inner):
                found.labels.add("if_condition")
            break
        if node.type in backend.STATEMENT_LISTS:
            break
    first = root.descendant_for_byte_range(found.start, found.start)
    if first is None:
        return
    parent = first.parent
    while (
        parent is not None
        and parent.start_byte == found.start
        and parent.end_byte <= found.end
        and parent.type not in backend.STATEMENT_LISTS
    ):
        first, parent = parent, parent.parent
    kind = backend.body_kind(first)
    if kind is not None:
        found.labels.add(kind)
