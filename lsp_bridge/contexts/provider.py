"""The bridge's edge of the context strategies: find the document's repository, keep its index,
build each request's context off the event loop.

One :class:`ContextIndex` per repository root and language, made on the first request and made
again only when a file was added, removed or changed (its modification time and size), so a
request pays for scoring and picking, not for reading and parsing the repository. The file list
is ``repo_context``'s, which applies the manifest's test rules: test files never enter an index,
so they never enter a context.

``oracle_definitions`` needs the task's ground truth: the bridge looks the task up in the
scenario files it was given, by document and cursor only, as the oracle model does; without
scenario files (``simpilot serve``) the strategy is refused when the bridge starts.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from ..models.base import CompletionRequest, ModelError
from ..models.oracle import OracleModel
from ..repo_context import find_root, read_source, source_files
from . import ContextError, Strategy, build
from .index import ContextIndex
from .records import BuiltContext, Source

_lock = threading.Lock()
_indexes: dict[tuple[Path, str], tuple[tuple[tuple[str, int, int], ...], ContextIndex]] = {}


def repository_index(root: Path, manifest: Path | None, language: str) -> ContextIndex:
    """The index of ``root``'s non-test ``language`` sources, cached while no file changed."""
    listing = source_files(root, manifest, language)
    stamp = tuple((rel, *_stat(root / rel)) for rel in listing)
    with _lock:
        cached = _indexes.get((root, language))
    if cached is not None and cached[0] == stamp:
        return cached[1]
    files = {rel: text for rel in listing if (text := read_source(root, rel)) is not None}
    index = ContextIndex(language, files)
    with _lock:
        _indexes[root, language] = (stamp, index)
    return index


def _stat(path: Path) -> tuple[int, int]:
    try:
        st = path.stat()
        return st.st_mtime_ns, st.st_size
    except OSError:
        return 0, -1


def index_for(request: CompletionRequest) -> tuple[str, ContextIndex]:
    """The document's repository-relative path and its repository's index (an empty index for a
    document outside any folder, e.g. ``untitled:``)."""
    document = Path(request.path)
    if not (document.is_absolute() and document.parent.is_dir()):
        return document.name, ContextIndex(request.language, {})
    root, manifest = find_root(document)
    root = root.resolve()
    doc = document.resolve()
    rel = doc.relative_to(root).as_posix() if doc.is_relative_to(root) else document.name
    return rel, repository_index(root, manifest, request.language)


class ContextProvider:
    """Builds every request's context with one strategy."""

    def __init__(self, chosen: Strategy, scenarios: list[str] | None = None):
        self.strategy = chosen
        self._truths: OracleModel | None = None
        if chosen.needs_truth:
            if not scenarios:
                raise ContextError(f"the context strategy {chosen.name!r} needs the tasks' ground truth: it is for replay, not an editor")
            try:
                self._truths = OracleModel(scenarios)
            except ModelError as exc:
                raise ContextError(str(exc)) from None

    async def build(self, request: CompletionRequest) -> BuiltContext:
        truth = None
        if self._truths is not None:
            try:
                truth = await self._truths.complete(request)
            except ModelError as exc:
                raise ContextError(f"no ground truth for {self.strategy.name}: {exc}") from None
        return await asyncio.to_thread(self._build, request, truth)

    def _build(self, request: CompletionRequest, truth: str | None) -> BuiltContext:
        path, index = index_for(request)
        return build(index, Source(request.language, path, request.prefix, request.suffix, truth), self.strategy)
