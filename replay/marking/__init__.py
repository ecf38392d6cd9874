"""Marking: turning a repository into candidate Task records (before validation).

``mark_repository`` reads each non-test source file, parses it once, asks the language's marker
for candidate holes, picks a deterministic subset and builds Task records labelled with their
categories and distances (``labels.py``). Files that cannot be
read or parsed are reported in ``MarkResult.skipped`` with the reason, never silently dropped.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from tree_sitter import Node, Parser

from ..manifest import Manifest
from ..records import Kind, Span, Task
from ..textpos import char_offset, position_at
from .candidates import Candidate, select
from .labels import RepoIndex, annotate
from .java import JavaMarker, parser as java_parser
from .python import PythonMarker, parser as python_parser

MAX_FILE_BYTES = 1_000_000
PARALLEL_MIN_LINES = 20_000  # below this, starting worker processes costs more than it saves

MARKERS = {"python": (PythonMarker, python_parser), "java": (JavaMarker, java_parser)}


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


def task_from_candidate(manifest: Manifest, path: str, source: bytes, text: str, digest: str, cand: Candidate) -> Task:
    start = char_offset(source, cand.start_byte)
    end = start + len(source[cand.start_byte : cand.end_byte].decode("utf-8"))
    span = Span(cand.start_byte, cand.end_byte, position_at(text, start), position_at(text, end))
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start]
    indent = before[: len(before) - len(before.lstrip(" \t"))]
    truth = text[start:end]
    return Task(
        id=f"{manifest.name}:{path}:{cand.kind.value}:{span.start.line + 1}-{span.end.line + 1}",
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
    )


def _read(manifest: Manifest, path: str, ts_parser: Parser) -> tuple[bytes, str, Node] | str:
    """A file's bytes, text and tree, or why the file cannot be marked."""
    source = (manifest.root / path).read_bytes()
    if len(source) > MAX_FILE_BYTES:
        return f"larger than {MAX_FILE_BYTES} bytes"
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not UTF-8 (byte {exc.start}): re-encode the file as UTF-8 to include it"
    if "\r" in text:
        return "has CR line endings: convert to LF to include it"
    tree = ts_parser.parse(source)
    if tree.root_node.has_error:
        return f"syntax error near line {_first_error_line(tree.root_node)}: fix it to include the file"
    return source, text, tree.root_node


@dataclass(frozen=True)
class _Job:
    """Everything marking one file needs besides the file (shared with forked workers)."""

    manifest: Manifest
    parsed: dict[str, tuple[bytes, str, Node]]
    index: RepoIndex
    marker: Any
    seed: int
    per_kind: int
    kinds: frozenset[Kind]
    max_per_file: int | None

    def tasks(self, path: str) -> list[Task]:
        source, text, root = self.parsed[path]
        digest = hashlib.sha256(source).hexdigest()
        candidates = self.marker.candidates(root)
        chosen = select(candidates, seed=self.seed, key=path, per_kind=self.per_kind, kinds=set(self.kinds), max_per_file=self.max_per_file)
        seen: set[str] = set()
        tasks = []
        for cand in chosen:
            task = task_from_candidate(self.manifest, path, source, text, digest, cand)
            if task.id in seen:  # two holes on the same lines: keep ids unique with the column
                task = replace(task, id=f"{task.id}@{task.span.start.character}")
            seen.add(task.id)
            note = annotate(self.index, path, source, root, cand.start_byte, cand.end_byte)
            tasks.append(replace(task, labels=note.labels, comment_distance=note.comment_distance, reference_distance=note.reference_distance))
        return tasks


_FORKED: _Job | None = None  # the job a forked worker inherited (trees cannot be pickled)


def _forked_tasks(paths: list[str]) -> list[list[Task]]:
    assert _FORKED is not None
    return [_FORKED.tasks(p) for p in paths]


def _parallel(job: _Job, paths: list[str], workers: int) -> list[list[Task]]:
    """``job.tasks`` for every path on ``workers`` forked processes, in the order of ``paths``.
    Forking shares the parsed trees and the index without pickling them."""
    global _FORKED
    chunks = [paths[i : i + 8] for i in range(0, len(paths), 8)]
    _FORKED = job
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            return [tasks for chunk in pool.imap(_forked_tasks, chunks) for tasks in chunk]
    finally:
        _FORKED = None


def mark_repository(
    manifest: Manifest, *, seed: int = 0, per_kind: int = 6, kinds: set[Kind] | None = None, max_per_file: int | None = None,
    workers: int = 1,
) -> MarkResult:
    """Candidate tasks of every source file of ``manifest``, labelled (deterministic for ``seed``).

    Every file is parsed first (on ``workers`` threads: tree-sitter parses without the GIL),
    because labels need to know what the whole repository defines; with ``workers`` > 1 and a
    large repository, the files are then marked on forked processes. The result does not depend
    on ``workers``.
    """
    marker_cls, make_parser = MARKERS[manifest.language]
    result = MarkResult()
    paths = manifest.source_files()
    local = threading.local()

    def read(path: str) -> tuple[bytes, str, Node] | str:
        if not hasattr(local, "parser"):
            local.parser = make_parser()
        return _read(manifest, path, local.parser)

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        read_all = list(pool.map(read, paths))
    parsed: dict[str, tuple[bytes, str, Node]] = {}
    for path, got in zip(paths, read_all):
        if isinstance(got, str):
            result.skipped.append((path, got))
        else:
            parsed[path] = got
            result.files += 1
            result.lines += got[1].count("\n") + (0 if got[1].endswith("\n") or not got[1] else 1)
    index = RepoIndex.build(manifest.language, {p: (source, root) for p, (source, _, root) in parsed.items()})
    job = _Job(manifest, parsed, index, marker_cls(), seed, per_kind, frozenset(kinds or {Kind.INFILL, Kind.COMPLETION}), max_per_file)
    files = list(parsed)
    if workers > 1 and result.lines >= PARALLEL_MIN_LINES and "fork" in multiprocessing.get_all_start_methods():
        per_file = _parallel(job, files, workers)
    else:
        per_file = [job.tasks(p) for p in files]
    result.tasks = [t for tasks in per_file for t in tasks]
    return result
