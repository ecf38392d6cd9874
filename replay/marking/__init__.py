"""Marking: turning a repository into candidate Task records (before validation).

``mark_repository`` reads each non-test source file, parses it once, asks the language's marker
for candidate holes, picks a deterministic subset and builds Task records labelled with their
categories and distances (``labels.py``). Files that cannot be
read or parsed are reported in ``MarkResult.skipped`` with the reason, never silently dropped.

Labels need to know what the whole repository defines, so marking has two stages: every file is
parsed and scanned for its definitions (:func:`labels.scan_file`), then, with the index of all of
them, each file is marked. Parsing holds the GIL, so with several workers the files are split
between forked processes (:class:`_Share`): each parses its share, the scans (small, picklable)
are exchanged so that every process can build the same index, and each marks its own files.
Syntax trees never cross a process boundary.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import multiprocessing
import pickle
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from tree_sitter import Node

from replay.config.manifest import Manifest
from replay.core.records import Kind, Span, Task
from replay.core.textpos import char_offset, position_at
from replay.marking.candidates import Candidate, select
from replay.marking.labels import Annotation, RepoIndex, annotate, scan_file
from replay.marking.languages import LANGUAGES

MAX_FILE_BYTES = 1_000_000
# Without --per-kind, a file gets one hole of each kind per this many lines (at least
# MIN_PER_KIND): a fixed number per file would sample a 3,000-line module as thinly as a 100-line
# one. A 150-line file gets 6 of each kind.
LINES_PER_HOLE = 25
MIN_PER_KIND = 2
PARALLEL_MIN_LINES = 20_000  # below this, starting worker processes costs more than it saves


@dataclass
class MarkResult:
    tasks: list[Task] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why)
    files: int = 0
    lines: int = 0


def _first_error_line(root) -> int:
    stack = [root]
    while stack:
        n = stack.pop()
        if n.type == "ERROR" or n.is_missing:
            return n.start_point.row + 1
        stack.extend(c for c in reversed(n.children) if c.has_error or c.is_missing)
    return root.start_point.row + 1


def hole_at(source: bytes, text: str, start_byte: int, end_byte: int) -> tuple[Span, str, str]:
    """The span of the bytes ``start_byte`` to ``end_byte`` of a file (``source``, decoded as
    ``text``), the indentation of the line it starts on, and the text it holds."""
    start = char_offset(source, start_byte)
    end = start + len(source[start_byte:end_byte].decode("utf-8"))
    span = Span(start_byte, end_byte, position_at(text, start), position_at(text, end))
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start]
    return span, before[: len(before) - len(before.lstrip(" \t"))], text[start:end]


def task_from_candidate(
    manifest: Manifest, path: str, source: bytes, text: str, digest: str, cand: Candidate, note: Annotation, taken: set[str]
) -> Task:
    """The task of one chosen candidate with its labels. ``taken`` holds the ids of the file's
    tasks so far: a hole on the same lines as an earlier one gets its column in the id too."""
    span, indent, truth = hole_at(source, text, cand.start_byte, cand.end_byte)
    task_id = f"{manifest.name}:{path}:{cand.kind.value}:{span.start.line + 1}-{span.end.line + 1}"
    if task_id in taken:
        task_id = f"{task_id}@{span.start.character}"
    taken.add(task_id)
    return Task(
        id=task_id,
        repo=manifest.name,
        language=manifest.language,
        path=path,
        kind=cand.kind,
        construct=cand.construct,
        block=cand.block,
        span=span,
        indent=indent,
        ground_truth=truth,
        file_sha256=digest,
        lines_removed=truth.count("\n") + 1,
        labels=note.labels,
        comment_distance=note.comment_distance,
        reference_distance=note.reference_distance,
    )


def _load(manifest: Manifest, path: str) -> tuple[bytes, str] | str:
    """A file's bytes and text, or why the file cannot be marked (parse errors come later)."""
    source = (manifest.root / path).read_bytes()
    if len(source) > MAX_FILE_BYTES:
        return f"larger than {MAX_FILE_BYTES} bytes"
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not UTF-8 (byte {exc.start}): re-encode the file as UTF-8 to include it"
    if "\r" in text:
        return "has CR line endings: convert to LF to include it"
    return source, text


def _load_all(manifest: Manifest, paths: list[str]) -> tuple[dict[str, tuple[bytes, str]], dict[str, str]]:
    """The bytes and text of the readable files, and why each other file cannot be marked."""
    loaded: dict[str, tuple[bytes, str]] = {}
    unreadable: dict[str, str] = {}
    for path in paths:
        got = _load(manifest, path)
        if isinstance(got, str):
            unreadable[path] = got
        else:
            loaded[path] = got
    return loaded, unreadable


def _line_count(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def default_per_kind(lines: int) -> int:
    """Holes of each kind for a file of ``lines`` lines when no number is given."""
    return max(MIN_PER_KIND, -(-lines // LINES_PER_HOLE))


@dataclass(frozen=True)
class _Selection:
    """Which candidates become tasks (the options of :func:`mark_repository`)."""

    seed: int
    per_kind: int | None  # None: by the file's size (default_per_kind)
    kinds: frozenset[Kind]
    max_per_file: int | None


@dataclass(frozen=True)
class _Scan:
    """What the first stage found in one share of the files: why files failed to parse, and the
    label facts of the others. Picklable, so that processes can exchange it."""

    skipped: dict[str, str]
    facts: dict[str, Any]


class _Share:
    """The files one process marks: parsed and scanned first (:meth:`scan`), marked once the
    index of the whole repository is known (:meth:`mark`). The trees stay in this object."""

    def __init__(self, manifest: Manifest, files: dict[str, tuple[bytes, str]], selection: _Selection) -> None:
        self.manifest, self.files, self.selection = manifest, files, selection
        self.trees: dict[str, Node] = {}

    def scan(self) -> _Scan:
        """Parses every file, keeps the trees of those without syntax errors and scans them."""
        ts_parser = LANGUAGES[self.manifest.language].parser()
        skipped, facts = {}, {}
        for path, (source, _) in self.files.items():
            root = ts_parser.parse(source).root_node
            if root.has_error:
                skipped[path] = f"syntax error near line {_first_error_line(root)}: fix it to include the file"
            else:
                self.trees[path] = root
                facts[path] = scan_file(self.manifest.language, path, source, root)
        return _Scan(skipped, facts)

    def mark(self, index: RepoIndex) -> dict[str, list[Task]]:
        """The tasks of every file that parsed, by path."""
        marker = LANGUAGES[self.manifest.language].marker()
        return {path: self._tasks(index, marker, path, root) for path, root in self.trees.items()}

    def _tasks(self, index: RepoIndex, marker: Any, path: str, root: Node) -> list[Task]:
        source, text = self.files[path]
        pick = self.selection
        per_kind = pick.per_kind if pick.per_kind is not None else default_per_kind(_line_count(text))
        chosen = select(
            marker.candidates(root), seed=pick.seed, key=path, per_kind=per_kind, kinds=set(pick.kinds), max_per_file=pick.max_per_file
        )
        digest = hashlib.sha256(source).hexdigest()
        taken: set[str] = set()
        return [
            task_from_candidate(
                self.manifest, path, source, text, digest, c, annotate(index, path, source, root, c.start_byte, c.end_byte), taken
            )
            for c in chosen
        ]


def _split(loaded: dict[str, tuple[bytes, str]], parts: int) -> list[list[str]]:
    """The paths in ``parts`` groups with about as many files and as many bytes each (parsing
    costs by the byte, labelling by the file): the files by size, dealt out back and forth."""
    groups: list[list[str]] = [[] for _ in range(parts)]
    ordered = sorted(loaded, key=lambda p: (-len(loaded[p][0]), p))
    for i, path in enumerate(ordered):
        turn, k = divmod(i, parts)
        groups[k if turn % 2 == 0 else parts - 1 - k].append(path)
    return groups


def _index(language: str, paths: list[str], scans: list[_Scan]) -> RepoIndex:
    """The repository index from the scans of all shares, its files in the order of ``paths``
    (so that it is the same in every process, whatever the split)."""
    facts = {path: f for s in scans for path, f in s.facts.items()}
    return RepoIndex.from_facts(language, {path: facts[path] for path in paths if path in facts})


def _child(conn: Connection, share: _Share, paths: list[str], others: int, inherited: list[Connection]) -> None:
    """A forked worker: sends the scan of its share, receives the ``others`` scans of the other
    shares, marks its files and sends their tasks. A failure is sent as an exception.

    ``inherited`` are the parent's ends of the pipes, copied by the fork: closed at once, so that
    when the parent goes away this worker's writes fail instead of waiting for a reader."""
    for end in inherited:
        end.close()
    try:
        own = share.scan()
        conn.send_bytes(pickle.dumps(own, pickle.HIGHEST_PROTOCOL))
        scans = [own] + [pickle.loads(conn.recv_bytes()) for _ in range(others)]
        conn.send_bytes(pickle.dumps(share.mark(_index(share.manifest.language, paths, scans)), pickle.HIGHEST_PROTOCOL))
    except BaseException:
        with contextlib.suppress(OSError):  # the parent has gone: there is nobody to tell
            conn.send_bytes(pickle.dumps(RuntimeError(f"marking worker failed:\n{traceback.format_exc()}")))
    finally:
        conn.close()


def _unpickle(blob: bytes) -> Any:
    """A message from a worker; a worker's failure is raised here."""
    message = pickle.loads(blob)
    if isinstance(message, BaseException):
        raise message
    return message


def _mark_forked(shares: list[_Share], paths: list[str]) -> tuple[list[_Scan], dict[str, list[Task]]]:
    """Scans and tasks of all shares: the first is marked here, each other one on a forked
    process. A scan is pickled once, by the process that made it; this process forwards it."""
    context = multiprocessing.get_context("fork")
    links: list[Connection] = []
    processes = []
    try:
        for share in shares[1:]:
            mine, theirs = context.Pipe()
            process = context.Process(target=_child, args=(theirs, share, paths, len(shares) - 1, [*links, mine]), daemon=True)
            process.start()
            theirs.close()  # so that a crashed worker reads as end of file, and later forks do not hold it
            links.append(mine)
            processes.append(process)
        own = shares[0].scan()
        blobs = [pickle.dumps(own, pickle.HIGHEST_PROTOCOL)] + [link.recv_bytes() for link in links]
        for k, link in enumerate(links, start=1):  # forwarded before unpickled: workers wait on it
            for j, blob in enumerate(blobs):
                if j != k:
                    link.send_bytes(blob)
        scans = [own] + [_unpickle(blob) for blob in blobs[1:]]
        tasks = shares[0].mark(_index(shares[0].manifest.language, paths, scans))
        for link in links:
            tasks.update(_unpickle(link.recv_bytes()))
        return scans, tasks
    finally:
        for link in links:
            link.close()
        for process in processes:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join()


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Marking makes millions of small objects (nodes, candidates) and no reference cycles, so
    reference counting frees everything and the cyclic garbage collector, triggered by the
    allocations, only walks the long-lived objects (facts, tasks) again and again: about a tenth
    of the time. It is paused while marking and restored after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@dataclass
class ParsedRepository:
    """Every readable source file of a repository parsed, with the label index of all of them: what
    marking sees before it chooses holes (``lines.py`` turns given line ranges into tasks with it)."""

    files: dict[str, tuple[bytes, str]]  # the readable files: bytes and text
    trees: dict[str, Node]  # those without syntax errors
    skipped: dict[str, str]  # why each other source file cannot hold a hole
    index: RepoIndex


def parse_repository(manifest: Manifest) -> ParsedRepository:
    """Parse and scan every source file of ``manifest`` (in this process), as marking does."""
    paths = manifest.source_files()
    with _collector_paused():
        loaded, unreadable = _load_all(manifest, paths)
        share = _Share(manifest, loaded, _Selection(0, None, frozenset(), None))
        scan = share.scan()
        index = _index(manifest.language, paths, [scan])
    return ParsedRepository(loaded, share.trees, {**unreadable, **scan.skipped}, index)


def mark_repository(
    manifest: Manifest,
    *,
    seed: int = 0,
    per_kind: int | None = None,
    kinds: set[Kind] | None = None,
    max_per_file: int | None = None,
    workers: int = 1,
) -> MarkResult:
    """Candidate tasks of every source file of ``manifest``, labelled (deterministic for ``seed``).
    ``per_kind`` holes of each kind per file, or by each file's size when None.

    With ``workers`` > 1 and a large repository, the files are parsed and marked on that many
    processes (see the module docstring). The result does not depend on ``workers``.
    """
    paths = manifest.source_files()
    selection = _Selection(seed, per_kind, frozenset(kinds or {Kind.INFILL, Kind.COMPLETION}), max_per_file)
    with _collector_paused():
        loaded, unreadable = _load_all(manifest, paths)
        lines = {path: _line_count(text) for path, (_, text) in loaded.items()}
        if workers > 1 and sum(lines.values()) >= PARALLEL_MIN_LINES and "fork" in multiprocessing.get_all_start_methods():
            shares = [_Share(manifest, {p: loaded[p] for p in part}, selection) for part in _split(loaded, workers)]
            scans, tasks = _mark_forked(shares, paths)
        else:
            share = _Share(manifest, loaded, selection)
            scans = [share.scan()]
            tasks = share.mark(_index(manifest.language, paths, scans))
    result = MarkResult()
    why = {**unreadable, **{p: reason for s in scans for p, reason in s.skipped.items()}}
    result.skipped = [(p, why[p]) for p in paths if p in why]
    for path in paths:
        if path in tasks:
            result.files += 1
            result.lines += lines[path]
            result.tasks.extend(tasks[path])
    return result
