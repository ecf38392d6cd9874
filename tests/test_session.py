"""Session replay over tests/data/tinyrepo: one open document per file, edited down the file.

The bridge runs as a real subprocess with the oracle wrapped in a model that logs the document
text of every request, and the client's outgoing notifications are counted, so the test sees
both ends: how many didOpen were sent and what the server held when it was asked.
"""

from __future__ import annotations

import json
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.workspace import TextDocument

from replay.config.manifest import open_repository
from replay.core.records import Kind, PromptRecord, Timing
from replay.core.scenarios import document_text
from replay.marking import mark_repository
from replay.run.client import BridgeClient
from replay.run.session import _SyncedDocument, hole_removal, hole_restoration, replay_session, session_order
from replay.store import Store
from tests.conftest import tiny_scenario

# A bridge whose "logged-oracle" model answers like the oracle and appends each request's
# document to a JSONL file, so the test can compare it with the task's expected document.
SERVER = '''
import json, sys
from lsp_bridge import models
from lsp_bridge.__main__ import main
from lsp_bridge.models.oracle import OracleModel

class Logged:
    name = "logged-oracle"
    def __init__(self, spec):
        self.inner = OracleModel(spec["scenarios"])
        self.log = spec["log"]
    async def complete(self, request):
        with open(self.log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"path": request.path, "line": request.line, "character": request.character,
                                 "text": request.text}) + "\\n")
        return await self.inner.complete(request)
    async def aclose(self):
        return None

models.FACTORIES["logged-oracle"] = Logged
main(sys.argv[1:])
'''


@pytest.fixture
def marked(tiny_repo: Path, tmp_path: Path):
    """Unvalidated candidate tasks of the tiny repository (overlapping ones included) and their scenario file."""
    tasks, scenario = tiny_scenario(tiny_repo, tmp_path, per_kind=20)
    return tiny_repo, tasks, scenario


def test_edits_take_the_file_to_the_task_document_and_back(marked) -> None:
    repo, tasks, _ = marked
    for task in tasks:
        data = (repo / task.path).read_bytes()
        doc = TextDocument("file:///x.py", data.decode())
        doc.apply_change(hole_removal(task, data.decode()))
        assert doc.source == document_text(task, data)
        doc.apply_change(hole_restoration(task, data))
        assert doc.source == data.decode()


class _Recorder:
    """Stands in for an open document: keeps the changes that would be sent."""

    def __init__(self) -> None:
        self.sent: list[list[types.TextDocumentContentChangeEvent]] = []

    def change(self, changes) -> None:
        self.sent.append(changes)


def test_edits_pygls_would_misplace_are_sent_as_whole_text(tiny_repo: Path) -> None:
    """pygls splits lines at a form feed, LSP does not: an incremental edit below one would land
    a line too high on the server, so the whole document is sent instead."""
    stats = tiny_repo / "tiny" / "stats.py"
    stats.write_text(stats.read_text(encoding="utf-8").replace("SCALE = 100", "SCALE = 100  # page\x0cbreak"), encoding="utf-8")
    tasks = mark_repository(open_repository(tiny_repo), seed=0, per_kind=20).tasks
    data = stats.read_bytes()
    original = data.decode()
    recorder = _Recorder()
    doc = _SyncedDocument(recorder, "file:///x.py", original)  # type: ignore[arg-type]
    for task in tasks:
        doc.edit(hole_removal(task, original), document_text(task, data))
        assert doc.mirror.source == document_text(task, data)
        doc.edit(hole_restoration(task, data), original)
        assert doc.mirror.source == original
    whole = [ch for changes in recorder.sent for ch in changes if isinstance(ch, types.TextDocumentContentChangeWholeDocument)]
    assert len(recorder.sent) == 2 * len(tasks) and len(whole) == doc.full_changes == 2 * len(tasks)


def test_order_is_top_to_bottom_per_file(marked) -> None:
    _, tasks, _ = marked
    for group in session_order(tasks).values():
        starts = [t.span.start_byte for t in group]
        assert starts == sorted(starts)
    assert sum(len(g) for g in session_order(tasks).values()) == len(tasks)


@pytest.mark.e2e
async def test_session_replay_with_the_oracle(marked, tmp_path: Path) -> None:
    repo, tasks, scenario = marked
    assert {t.kind for t in tasks} == {Kind.INFILL, Kind.COMPLETION}
    server = tmp_path / "logged_bridge.py"
    server.write_text(SERVER, encoding="utf-8")
    log = tmp_path / "requests.jsonl"
    spec = {"kind": "logged-oracle", "scenarios": [str(scenario)], "log": str(log)}
    sent: list[tuple[str, object]] = []
    stored = []
    async with BridgeClient([sys.executable, str(server)], {"model": spec, "postprocess": None}, [repo]) as client:
        lsp = client.client
        for method in ("text_document_did_open", "text_document_did_change", "text_document_did_close"):
            original = getattr(lsp, method)
            setattr(lsp, method, lambda params, _m=method, _o=original: (sent.append((_m, params)), _o(params))[1])
        completions = await replay_session(client, tasks, {repo.name: repo}, on_completion=stored.extend)

    by_id = {t.id: t for t in tasks}
    assert [c.task_id for c in completions] == [c.task_id for c in stored]
    assert sorted(c.task_id for c in completions) == sorted(by_id)
    for c in completions:
        assert c.error is None and c.raw == by_id[c.task_id].ground_truth
        assert c.request["session"] is True and c.request["server_pid"] == client.pid

    files = {t.path for t in tasks}
    opens = [p for m, p in sent if m == "text_document_did_open"]
    assert len(opens) == len(files) == len([p for m, p in sent if m == "text_document_did_close"])
    changes = [p for m, p in sent if m == "text_document_did_change"]
    assert len(changes) == 2 * len(tasks) - len(files)  # restore after every task, remove before all but the first
    assert all(isinstance(ch, types.TextDocumentContentChangePartial) for p in changes for ch in p.content_changes)
    versions = [p.text_document.version for p in changes]
    assert versions == sorted(set(versions))

    # What the server held at each request is exactly the task's usual document.
    requests = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert len(requests) == len(tasks)
    ordered = [t for group in session_order(tasks).values() for t in group]
    for logged, task in zip(requests, ordered):
        assert (logged["line"], logged["character"]) == (task.cursor.line, task.cursor.character)
        assert logged["text"] == document_text(task, (repo / task.path).read_bytes())


@pytest.mark.e2e
async def test_skipped_tasks_are_not_asked(marked) -> None:
    repo, tasks, scenario = marked
    ordered = [t for group in session_order(tasks).values() for t in group]
    skip = {t.id for t in ordered[::2]}
    spec = {"kind": "oracle", "scenarios": [str(scenario)]}
    async with BridgeClient([sys.executable, "-m", "lsp_bridge"], {"model": spec, "postprocess": None}, [repo]) as client:
        completions = await replay_session(client, tasks, {repo.name: repo}, skip=skip)
    assert [c.task_id for c in completions] == [t.id for t in ordered if t.id not in skip]
    assert all(c.ok and c.raw == next(t.ground_truth for t in tasks if t.id == c.task_id) for c in completions)


class _SamplingDocument:
    """An open document of :class:`_SamplingBridge`: every request answered with three samples
    and the bridge's timing, except at ``failing``, where the model errs."""

    def __init__(self, bridge: _SamplingBridge):
        self.bridge = bridge

    def change(self, changes: list) -> None:
        pass

    async def ask_timed(self, cursor, trigger_kind=None):
        self.bridge.asked += 1
        timing = Timing(total_ms=100.0 + cursor.line, prompt_tokens=7, answer_tokens=3, tokens="usage")
        if (cursor.line, cursor.character) == self.bridge.failing:
            return [], "model_error: HTTP 500", 40.0, timing
        return [f"sample{i}@{cursor.line}" for i in range(3)], None, 50.0, timing


class _SamplingBridge:
    """Stands in for :class:`BridgeClient`: a model that gives three samples per request, with its
    timing and the prompt record (what a context strategy sends) at each cursor."""

    pid = 4242

    def __init__(self, failing: tuple[int, int]):
        self.failing, self.asked = failing, 0

    @asynccontextmanager
    async def open_document(self, uri: str, language: str, text: str):
        yield _SamplingDocument(self)

    def prompt_at(self, uri: str, cursor) -> PromptRecord:
        return PromptRecord("window", 1024, "estimate", {"document": 30 + cursor.line}, 1.5, (0, cursor.line))


async def test_a_session_stores_every_sample_with_its_timing_and_prompt(marked, tmp_path: Path) -> None:
    repo, tasks, _ = marked
    ordered = [t for group in session_order(tasks).values() for t in group]
    failing = ordered[1]
    bridge = _SamplingBridge((failing.cursor.line, failing.cursor.character))
    store = Store(tmp_path / "session.db")
    try:
        await replay_session(bridge, tasks, {repo.name: repo}, on_completion=lambda answers: store.add_completions("r", answers))  # type: ignore[arg-type]
        stored = store.samples("r")
    finally:
        store.close()
    assert bridge.asked == len(tasks) and set(stored) == {t.id for t in tasks}
    for task in tasks:
        line = task.cursor.line
        samples = stored[task.id]
        if (line, task.cursor.character) == bridge.failing:  # an error is stored once, as sample 0, with what came with it
            assert [(c.sample, c.raw, c.error) for c in samples] == [(0, None, "model_error: HTTP 500")]
        else:
            assert [(c.sample, c.raw, c.error) for c in samples] == [(i, f"sample{i}@{line}", None) for i in range(3)]
        for c in samples:
            assert c.timing == Timing(total_ms=100.0 + line, prompt_tokens=7, answer_tokens=3, tokens="usage")
            assert c.prompt == PromptRecord("window", 1024, "estimate", {"document": 30 + line}, 1.5, (0, line))
            assert c.request["session"] is True and c.request["server_pid"] == 4242
