"""Repository context for chat prompts: the SimCopilot pre-processing.

The model sees the repository's other non-test source files, each under a one-line path header,
followed by the document with its hole. Inside the document the top-level unit that holds the
hole is moved to the end, so that the hole sits near the end of the prompt where the model
attends best:

- Python: the outermost ``def``/``class`` (with its decorators and the comments right above it)
  containing the hole moves to the end of the file.
- Java: a file is normally one top-level class, and moving it to the end of the file would
  change nothing. So the member of the outermost type declaration that holds the hole (a method,
  constructor, initializer, nested type…) moves to the end of that type's body, just before its
  closing brace; if other top-level types follow that type, the type moves to the end of the file
  as well. Enum bodies are left alone (their constants must stay first).

A unit moves only when it owns its lines (nothing else shares its first or last line) and the
parse put it where expected; otherwise the document keeps its order, which is still a correct
prompt. Completion tasks (nothing after the cursor) need no move: the hole is already last.

Test files never enter the prompt: the SimCopilot reference put the
tests, with their expected values, in the infill context.

The first half of this module is pure (text in, text out); the second half finds and reads the
repository's files, and is the only part that touches the disk.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import threading
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from stat import S_ISREG
from typing import TYPE_CHECKING

from tree_sitter import Node, Parser

from postprocess.syntax import language
from replay.config.endpoint_settings import DEFAULT_CONTEXT_CHARS
from replay.config.manifest import LANGUAGES, MANIFEST_NAME, Manifest, is_regular_file, load_manifest
from replay.core.errors import SimpilotError

from .prompts import HOLE

if TYPE_CHECKING:  # annotations only: the models package imports this module (its prompts)
    from .models.base import CompletionRequest

logger = logging.getLogger(__name__)

MAX_FILE_BYTES = 1 << 20

# ---------------------------------------------------------------------------------------------
# Pure part: the document, the other files and a budget in, the prompt's code out.
# ---------------------------------------------------------------------------------------------

_COMMENT_MARK = {"python": "#", "java": "//"}
_LANGUAGES = {name: language(name) for name in ("python", "java")}
# Parsed in place of the hole. Python needs something there, or a removed block leaves its
# function's node ending before the hole; an identifier parses both as an expression and as a
# statement. Java's braces keep the structure without help.
_PLACEHOLDER = {"python": "__hole__", "java": ""}
_PY_UNITS = {"function_definition", "class_definition", "decorated_definition"}
_JAVA_TYPES = {"class_declaration", "interface_declaration", "record_declaration", "annotation_type_declaration", "enum_declaration"}
_JAVA_BODIES = {"class_body", "interface_body", "annotation_type_body"}
_COMMENTS = {"comment", "line_comment", "block_comment"}


def header(language: str, path: str) -> str:
    """The one-line comment naming a file in the prompt, e.g. ``# file: pkg/mod.py``."""
    return f"{_COMMENT_MARK.get(language, '#')} file: {path}\n"


def directory_distance(a: str, b: str) -> int:
    """Directory hops between the folders of two repository-relative POSIX paths (same folder: 0)."""
    da, db = PurePosixPath(a).parent.parts, PurePosixPath(b).parent.parts
    common = 0
    for x, y in zip(da, db, strict=False):  # up to the shorter path
        if x != y:
            break
        common += 1
    return len(da) + len(db) - 2 * common


def nearest_first(path: str, others: Mapping[str, str]) -> list[tuple[str, str]]:
    """The files of ``others`` but ``path`` itself, nearest to ``path`` first by directory hops
    (ties by path)."""
    return sorted(((p, t) for p, t in others.items() if p != path), key=lambda kv: (directory_distance(kv[0], path), kv[0]))


def file_block(language: str, path: str, text: str) -> str:
    """One other file in the prompt: its header, its text ending in a newline, a blank line."""
    return header(language, path) + text + ("" if text.endswith("\n") else "\n") + "\n"


def arrange_document(language: str, prefix: str, suffix: str) -> str:
    """The document with the hole marked and the unit holding it moved to the end (see the
    module docstring). Every line of ``prefix + suffix`` appears exactly once (the hole's line
    with the marker in it); only blank lines between units may change."""
    code = prefix + HOLE + suffix
    if not suffix.strip() or language not in _LANGUAGES:
        return code
    width = len(_PLACEHOLDER[language])
    source = (prefix + _PLACEHOLDER[language] + suffix).encode("utf-8")
    hole = len(prefix.encode("utf-8"))
    root = Parser(_LANGUAGES[language]).parse(source).root_node
    lines = code.split("\n")  # tree-sitter rows count "\n" only, and the marker holds none
    arrange = _arrange_python if language == "python" else _arrange_java
    return "\n".join(arrange(lines, root, source, hole, width))


def _arrange_python(lines: list[str], root: Node, source: bytes, hole: int, width: int) -> list[str]:
    top = _holder(root, hole, width, _PY_UNITS)
    span = _owned_rows(top, source) if top is not None else None
    return _move(lines, span, len(lines), blank=2)[0] if span else lines


def _arrange_java(lines: list[str], root: Node, source: bytes, hole: int, width: int) -> list[str]:
    top = _holder(root, hole, width, _JAVA_TYPES)
    if top is None:
        return lines
    offset = 0  # how far the type's rows moved
    span = _owned_rows(top, source)
    if span:
        lines, offset = _move(lines, span, len(lines), blank=1)
    body = top.child_by_field_name("body")
    if body is None or body.type not in _JAVA_BODIES or not body.children:
        return lines
    member = _holder(body, hole, width, None)
    inner = _owned_rows(member, source) if member is not None else None
    closing = body.children[-1]
    if inner and closing.type == "}" and not closing.is_missing and _owns_start(closing, source):
        lines, _ = _move(lines, (inner[0] + offset, inner[1] + offset), closing.start_point.row + offset, blank=1)
    return lines


def fit_document(code: str, budget: int) -> str:
    """``code`` cut to at most ``budget`` characters, keeping the part nearest the hole: whole
    lines are dropped from the start and the end (the hole's own line may be cut)."""
    if len(code) <= budget:
        return code
    at = code.index(HOLE)
    before, after = code[:at], code[at + len(HOLE) :]
    room = budget - len(HOLE)
    if room <= 0:
        return HOLE
    keep_before = min(len(before), max(room - len(after), room - room // 2))
    keep_after = min(len(after), room - keep_before)
    head = before[len(before) - keep_before :]
    if keep_before < len(before) and "\n" in head:
        head = head[head.index("\n") + 1 :]
    tail = after[:keep_after]
    if keep_after < len(after) and "\n" in tail:
        tail = tail[: tail.rindex("\n") + 1]
    return head + HOLE + tail


def assemble(path: str, language: str, prefix: str, suffix: str, others: Mapping[str, str], budget: int) -> str:
    """The prompt's code: other files (farthest first, so the nearest sit next to the document),
    then the arranged document. ``path`` and the keys of ``others`` are repository-relative POSIX
    paths. At most ``budget`` characters (headers included; a budget shorter than the marker
    still yields the marker); files are dropped farthest first (directory hops from the document,
    ties by path), the document never is. ``budget <= 0`` means the document alone, uncut."""
    document = arrange_document(language, prefix, suffix)
    if budget <= 0:
        return document
    document = fit_document(document, budget)
    room = budget - len(document) - len(header(language, path))
    chosen: list[str] = []
    for other, text in nearest_first(path, others):
        block = file_block(language, other, text)
        if len(block) > room:
            break
        room -= len(block)
        chosen.append(block)
    if not chosen:
        return document
    return "".join(reversed(chosen)) + header(language, path) + document


def _holder(parent: Node, hole: int, width: int, types: set[str] | None) -> Node | None:
    """The named child of ``parent`` that contains the hole, if it is one of ``types`` (any
    non-comment node when ``types`` is None)."""
    for child in parent.named_children:
        inside = child.start_byte <= hole and (hole + width < child.end_byte if width == 0 else hole + width <= child.end_byte)
        if inside:
            if types is None:
                return child if child.type not in _COMMENTS and not child.is_error else None
            return child if child.type in types else None
    return None


def _owns_start(node: Node, source: bytes) -> bool:
    line_start = source.rfind(b"\n", 0, node.start_byte) + 1
    return not source[line_start : node.start_byte].strip()


def _owned_rows(node: Node, source: bytes) -> tuple[int, int] | None:
    """Rows ``[first, last)`` of ``node`` with the comments right above it, or None when another
    node shares its first or last line (then it cannot move by whole lines)."""
    first = node
    while (prev := first.prev_named_sibling) is not None and prev.type in _COMMENTS and prev.end_point.row + 1 == first.start_point.row:
        first = prev
    last = node
    following = node.next_named_sibling
    if following is not None and following.type in _COMMENTS and following.start_point.row == node.end_point.row == following.end_point.row:
        last = following  # a trailing comment on the closing line
    line_end = source.find(b"\n", last.end_byte)
    rest = source[last.end_byte : line_end if line_end >= 0 else len(source)]
    if not _owns_start(first, source) or rest.strip():
        return None
    return first.start_point.row, last.end_point.row + 1


def _move(lines: list[str], span: tuple[int, int], stop: int, blank: int) -> tuple[list[str], int]:
    """``lines[first:last]`` moved to just before row ``stop``, after ``blank`` empty lines; the
    blank lines that followed it stay behind. Returns the lines and how far the unit moved."""
    first, last = span
    end = last
    while end < stop and not lines[end].strip():
        end += 1
    middle = lines[end:stop]
    while middle and not middle[-1].strip():
        middle.pop()
    if not middle:
        return lines, 0  # already the last unit
    tail = lines[stop:] or [""]  # end of file: keep the final newline
    moved = lines[:first] + middle + [""] * blank
    offset = len(moved) - first
    return moved + lines[first:last] + tail, offset


# ---------------------------------------------------------------------------------------------
# I/O part: find the repository of a document and read its other non-test source files.
# ---------------------------------------------------------------------------------------------

# Where a repository without a manifest starts: the nearest folder holding one of these.
_ROOT_MARKERS = (".git", "pyproject.toml", "setup.py", "setup.cfg", "pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle")
_WALK_LIMIT = 20_000  # entries looked at before a manifest-less walk gives up (a home folder…)
_SKIP_DIRS = {"__pycache__", "node_modules", "venv", "build", "dist", "target", "out"}

_lock = threading.Lock()
_listings: dict[tuple[Path, str, int], tuple[str, ...]] = {}
_contents: dict[Path, tuple[int, int, str | None]] = {}


def find_root(document: Path) -> tuple[Path, Path | None]:
    """The repository root of ``document`` and its manifest: the nearest folder above it holding
    ``simpilot.toml``; else the nearest holding a project marker (``.git``, ``pyproject.toml``,
    ``pom.xml``…), with no manifest; else the document's own folder."""
    folder = document.parent
    chain = (folder, *folder.parents)
    for candidate in chain:
        if (candidate / MANIFEST_NAME).is_file():
            return candidate, candidate / MANIFEST_NAME
    for candidate in chain:
        if any((candidate / marker).exists() for marker in _ROOT_MARKERS):
            return candidate, None
    return folder, None


def source_files(root: Path, manifest_path: Path | None, language: str) -> tuple[str, ...]:
    """Repository-relative POSIX paths of the non-test ``language`` sources under ``root``,
    cached per root, language and manifest modification time."""
    if language not in LANGUAGES:
        return ()
    stamp = _mtime(manifest_path) if manifest_path else 0
    key = (root, language, stamp)
    with _lock:
        if key in _listings:
            return _listings[key]
    listing = tuple(_list_sources(root, manifest_path, language))
    with _lock:
        _listings[key] = listing
    return listing


def read_source(root: Path, rel: str) -> str | None:
    """The text of ``root/rel``, or None when it is outside ``root`` (a symbolic link out), not
    a regular file, larger than MAX_FILE_BYTES, unreadable or not UTF-8. Cached by modification
    time and size.

    A source file's name says nothing of what it is: ``x.py`` may be a named pipe (opening one
    for reading waits for a writer, forever) or a device. The file is opened without blocking and
    read only once its descriptor is known to be a regular file."""
    path = (root / rel).resolve()
    if not path.is_relative_to(root):
        logger.debug("skipping %s: outside %s", rel, root)
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as exc:
        logger.debug("skipping %s: %s", path, exc)
        return None
    with os.fdopen(fd, "rb") as handle:
        stat = os.fstat(fd)
        if not S_ISREG(stat.st_mode):
            logger.debug("skipping %s: not a regular file", path)
            return None
        with _lock:
            cached = _contents.get(path)
        if cached and cached[:2] == (stat.st_mtime_ns, stat.st_size):
            return cached[2]
        text: str | None = None
        if stat.st_size > MAX_FILE_BYTES:
            logger.debug("skipping %s: %d bytes", path, stat.st_size)
        else:
            try:
                text = handle.read(MAX_FILE_BYTES + 1).decode("utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                logger.debug("skipping %s: %s", path, exc)
    with _lock:
        _contents[path] = (stat.st_mtime_ns, stat.st_size, text)
    return text


def repository_files(document: Path, language: str) -> tuple[str, dict[str, str]]:
    """The document's repository-relative path and the other source files' texts. The document
    itself is never read: the editor's text is the truth (on disk it may hold the answer)."""
    root, manifest_path = find_root(document)
    root = root.resolve()
    doc = document.resolve()
    rel = doc.relative_to(root).as_posix() if doc.is_relative_to(root) else document.name
    others: dict[str, str] = {}
    for other in source_files(root, manifest_path, language):
        if other == rel or (root / other).resolve() == doc:
            continue
        text = read_source(root, other)
        if text is not None:
            others[other] = text
    return rel, others


def prompt_code(request: CompletionRequest, budget: int = DEFAULT_CONTEXT_CHARS) -> str:
    """The code part of the prompt for ``request``: its repository's other files within
    ``budget`` characters, then the arranged document. ``budget`` 0: the document only."""
    rel, others = request_files(request) if budget > 0 else (Path(request.path).name, {})
    return assemble(rel, request.language, request.prefix, request.suffix, others, budget)


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


def _list_sources(root: Path, manifest_path: Path | None, language: str) -> list[str]:
    if manifest_path is not None:
        try:
            manifest = load_manifest(manifest_path)
            if manifest.programs is not None:  # each file is a program of its own: nothing else is its context
                return []
            if manifest.language != language:  # e.g. a Python helper script in a Java repository
                manifest = dataclasses.replace(manifest, language=language)
            return manifest.source_files()
        except SimpilotError as exc:
            logger.debug("manifest %s not usable (%s); listing files by extension", manifest_path, exc)
    # No manifest: the test rules are still the manifest's own (Manifest.is_test_path).
    rules = Manifest(name="workspace", language=language, root=root, sources=(".",), tests=(), test_command=())
    found: list[str] = []
    seen = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIP_DIRS)
        seen += len(dirnames) + len(filenames)
        if seen > _WALK_LIMIT:
            logger.debug("stopped listing %s after %d entries", root, _WALK_LIMIT)
            break
        for name in filenames:
            if name.endswith(rules.extensions) and is_regular_file(Path(dirpath) / name):
                rel = (Path(dirpath) / name).relative_to(root).as_posix()
                if not rules.is_test_path(rel):
                    found.append(rel)
    return sorted(found)


def request_files(request: CompletionRequest) -> tuple[str, dict[str, str]]:
    """The document's repository-relative path and its repository's other non-test source
    files, for the prompt builders. A document that is not a file in a folder (``untitled:``) or
    an unreadable folder on the way gives its name and no files: the answer then comes from the
    document alone."""
    document = Path(request.path)
    if not (document.is_absolute() and document.parent.is_dir()):
        return document.name, {}
    try:
        return repository_files(document, request.language)
    except OSError as exc:
        logger.debug("no repository context for %s: %s", document, exc)
        return document.name, {}
