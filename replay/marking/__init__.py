"""Marking: turning a repository into candidate Task records (before validation).

``mark_repository`` reads each non-test source file, parses it once, asks the language's marker
for candidate holes, picks a deterministic subset and builds Task records labelled with their
categories and distances (``labels.py``). Files that cannot be
read or parsed are reported in ``MarkResult.skipped`` with the reason, never silently dropped.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace

from ..manifest import Manifest
from ..records import Kind, Span, Task
from ..textpos import char_offset, position_at
from .candidates import Candidate, select
from .labels import RepoIndex, annotate
from .java import JavaMarker, parser as java_parser
from .python import PythonMarker, parser as python_parser

MAX_FILE_BYTES = 1_000_000

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


def _read(manifest: Manifest, path: str, ts_parser, result: MarkResult) -> tuple[bytes, str, object] | None:
    """A file's bytes, text and tree; None (and a reason in ``result.skipped``) when unusable."""
    source = (manifest.root / path).read_bytes()
    if len(source) > MAX_FILE_BYTES:
        result.skipped.append((path, f"larger than {MAX_FILE_BYTES} bytes"))
        return None
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError as exc:
        result.skipped.append((path, f"not UTF-8 (byte {exc.start}): re-encode the file as UTF-8 to include it"))
        return None
    if "\r" in text:
        result.skipped.append((path, "has CR line endings: convert to LF to include it"))
        return None
    tree = ts_parser.parse(source)
    if tree.root_node.has_error:
        result.skipped.append((path, f"syntax error near line {_first_error_line(tree.root_node)}: fix it to include the file"))
        return None
    return source, text, tree.root_node


def mark_repository(
    manifest: Manifest, *, seed: int = 0, per_kind: int = 6, kinds: set[Kind] | None = None, max_per_file: int | None = None
) -> MarkResult:
    """Candidate tasks of every source file of ``manifest``, labelled (deterministic for ``seed``).

    Every file is parsed first, because labels need to know what the whole repository defines.
    """
    marker_cls, make_parser = MARKERS[manifest.language]
    marker, ts_parser = marker_cls(), make_parser()
    kinds = kinds or {Kind.INFILL, Kind.COMPLETION}
    result = MarkResult()
    parsed: dict[str, tuple[bytes, str, object]] = {}
    for path in manifest.source_files():
        got = _read(manifest, path, ts_parser, result)
        if got is not None:
            parsed[path] = got
    index = RepoIndex.build(manifest.language, {p: (source, root) for p, (source, _, root) in parsed.items()})
    for path, (source, text, root) in parsed.items():
        result.files += 1
        result.lines += text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        digest = hashlib.sha256(source).hexdigest()
        chosen = select(marker.candidates(root), seed=seed, key=path, per_kind=per_kind, kinds=kinds, max_per_file=max_per_file)
        seen: set[str] = set()
        for cand in chosen:
            task = task_from_candidate(manifest, path, source, text, digest, cand)
            if task.id in seen:  # two holes on the same lines: keep ids unique with the column
                task = replace(task, id=f"{task.id}@{task.span.start.character}")
            seen.add(task.id)
            note = annotate(index, path, source, root, cand.start_byte, cand.end_byte)
            result.tasks.append(replace(task, labels=note.labels, comment_distance=note.comment_distance, reference_distance=note.reference_distance))
    return result
