"""Session replay: a developer typing through each file, top to bottom, on one open document.

The normal replay opens a fresh document for every task. Here each file is opened once, with its
first task's hole removed; the bridge is asked at that task's cursor, then the ground truth goes
back in through ``didChange`` and the next task's hole is taken out the same way, and so on down
the file. At every request the document equals the task's usual document
(:func:`replay.core.scenarios.document_text`: for an infill task the file without the hole, for a
completion task only the code before it), so the answers are judged by the usual pipeline; what
differs is how the server got there — incremental edits on one long-lived document, the way an
editor drives it, which exercises the server's document sync and any per-document state.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Container, Mapping, Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.workspace import TextDocument

from replay.core.errors import SimpilotError
from replay.core.records import Completion, Kind, Position, Task
from replay.core.repo_paths import task_file
from replay.core.scenarios import document_text
from replay.core.textpos import position_at
from replay.run.client import BridgeClient, OpenDocument


def _range(start: Position, end: Position) -> types.Range:
    return types.Range(
        start=types.Position(line=start.line, character=start.character), end=types.Position(line=end.line, character=end.character)
    )


def hole_removal(task: Task, original: str) -> types.TextDocumentContentChangePartial:
    """The edit that takes the file (ground truth in place) to the task's document: the hole goes,
    and for a completion task everything after it too."""
    end = task.span.end if task.kind is Kind.INFILL else position_at(original, len(original))
    return types.TextDocumentContentChangePartial(range=_range(task.cursor, end), text="")


def hole_restoration(task: Task, original_bytes: bytes) -> types.TextDocumentContentChangePartial:
    """The edit that undoes :func:`hole_removal`: the developer's text goes back at the cursor."""
    end_byte = task.span.end_byte if task.kind is Kind.INFILL else len(original_bytes)
    text = original_bytes[task.span.start_byte : end_byte].decode("utf-8")
    return types.TextDocumentContentChangePartial(range=_range(task.cursor, task.cursor), text=text)


class _SyncedDocument:
    """Sends edits to the server while keeping a pygls ``TextDocument`` mirror of what the server
    will hold. pygls splits lines at form feeds, U+2028 and other separators that LSP positions
    do not count; where that would make an incremental edit land elsewhere, the whole text is
    sent instead, so the server's document is always the intended one."""

    def __init__(self, handle: OpenDocument, uri: str, text: str):
        self.handle = handle
        self.mirror = TextDocument(uri, text)
        self.full_changes = 0

    def edit(self, change: types.TextDocumentContentChangePartial, expected: str) -> None:
        self.mirror.apply_change(change)
        if self.mirror.source == expected:
            self.handle.change([change])
        else:
            self.mirror.apply_change(types.TextDocumentContentChangeWholeDocument(text=expected))
            self.handle.change([types.TextDocumentContentChangeWholeDocument(text=expected)])
            self.full_changes += 1


def session_order(tasks: Sequence[Task]) -> dict[tuple[str, str], list[Task]]:
    """Tasks grouped by (repository, file), each group from the top of the file down."""
    files: dict[tuple[str, str], list[Task]] = {}
    for task in sorted(tasks, key=lambda t: (t.repo, t.path, t.span.start_byte, -t.span.end_byte, t.id)):
        files.setdefault((task.repo, task.path), []).append(task)
    return files


async def replay_file(
    client: BridgeClient,
    uri: str,
    original_bytes: bytes,
    tasks: Sequence[Task],
    skip: Container[str] = (),
    on_completion: Callable[[list[Completion]], None] = lambda answers: None,
) -> list[Completion]:
    """Walk one file's ``tasks`` (top to bottom) on one open document. Each task not in ``skip``
    gets what :func:`replay.run.pipeline.replay_run` stores for a request: one Completion per
    sample the server listed (or one error, as sample 0), each with the bridge's timing of the
    answer and its prompt record. ``on_completion`` gets one request's answers together (stored
    together: a resume never finds half of them)."""
    asked = [t for t in tasks if t.id not in skip]
    if not asked:
        return []
    original = original_bytes.decode("utf-8")
    out: list[Completion] = []
    first = asked[0]
    async with client.open_document(uri, first.language, document_text(first, original_bytes)) as handle:
        doc = _SyncedDocument(handle, uri, document_text(first, original_bytes))
        for n, task in enumerate(asked):
            if n:
                doc.edit(hole_removal(task, original), document_text(task, original_bytes))
            texts, error, latency, timing = await handle.ask_timed(task.cursor)
            prompt = client.prompt_at(uri, task.cursor)
            request: dict[str, Any] = {
                "uri": uri,
                "line": task.cursor.line,
                "character": task.cursor.character,
                "kind": task.kind.value,
                "server_pid": client.pid,
                "session": True,
            }
            if error is not None:
                answers = [Completion(task.id, None, error, latency, request, timing=timing, prompt=prompt)]
            else:
                answers = [Completion(task.id, text, None, latency, request, i, timing, prompt) for i, text in enumerate(texts)]
            on_completion(answers)
            out += answers
            doc.edit(hole_restoration(task, original_bytes), original)
    return out


async def replay_session(
    client: BridgeClient,
    tasks: Sequence[Task],
    roots: Mapping[str, Path],
    *,
    skip: Container[str] = (),
    concurrency: int = 4,
    on_completion: Callable[[list[Completion]], None] = lambda answers: None,
) -> list[Completion]:
    """Ask the bridge for every task of ``tasks`` as a developer typing through each file would.

    ``roots`` maps each task's repository name to its checkout (the file's URI is built from it,
    as the normal replay does); tasks whose id is in ``skip`` are not asked (resume). Files are
    walked concurrently (up to ``concurrency``), each file's tasks strictly in order. Each
    request's answers (every sample, with timing and prompt record) are passed to
    ``on_completion`` together the moment they exist (to store them), and all are returned in
    file and position order, a task's samples in sample order.
    """
    limit = asyncio.Semaphore(max(1, concurrency))

    async def walk(key: tuple[str, str], file_tasks: list[Task]) -> list[Completion]:
        repo, rel = key
        if repo not in roots:
            raise SimpilotError(f"no checkout given for repository {repo!r}: pass --repo for it")
        path = roots[repo] / rel
        try:
            data = task_file(roots[repo], file_tasks[0]).read_bytes()
        except OSError as exc:
            raise SimpilotError(f"{repo}: cannot read {rel} ({exc.strerror}): is --repo pointing at the right checkout?") from None
        async with limit:
            return await replay_file(client, path.as_uri(), data, file_tasks, skip, on_completion)

    groups = session_order(tasks)
    results = await asyncio.gather(*(walk(key, group) for key, group in groups.items()))
    return [c for group in results for c in group]


async def run_session(
    server_command: Sequence[str],
    init_options: dict[str, Any],
    tasks: Sequence[Task],
    roots: Mapping[str, Path],
    *,
    log: Path | None = None,
    skip: Container[str] = (),
    concurrency: int = 4,
    on_completion: Callable[[list[Completion]], None] = lambda answers: None,
) -> list[Completion]:
    """:func:`replay_session` with its own bridge, started on ``server_command`` and initialised
    with ``init_options`` (as in :func:`replay.run.pipeline.replay_run`: ``{"model": spec,
    "postprocess": None}``), its workspace folders being the checkouts of ``roots``."""
    folders = sorted({roots[t.repo] for t in tasks if t.repo in roots})
    async with BridgeClient(list(server_command), init_options, folders, log) as client:
        return await replay_session(client, tasks, roots, skip=skip, concurrency=concurrency, on_completion=on_completion)
