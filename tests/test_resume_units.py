"""Resume's unit of work and a run's completeness (``replay/run/pipeline.py``), with a scripted
language server and test runner: a resumed run judges every (task, preset, sample) without a
stored outcome and nothing else, asks again only requests without a complete answer, and a run
is finished only when every request has its answers and every unit its outcome. The same with
real servers, and a ``kill -9`` in between: ``tests/e2e/test_pipeline.py``, ``test_resume_kill.py``."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from replay.config.model_spec import parse_model_spec
from replay.core.records import Completion, Kind, Outcome, Position, Span, Status, Task
from replay.execution.judge import Verdict
from replay.run import client as client_module
from replay.run import pipeline
from replay.run.pipeline import replay_run
from replay.run.settings import ReplaySettings
from replay.store import RunInfo, Store

SOURCE = b"def f():\n    return 1\n"
PRESETS = ("none", "ide")
RUN = "r"


def task(name: str) -> Task:
    span = Span(13, 21, Position(1, 4), Position(1, 12))
    return Task(name, "repo", "python", f"{name}.py", Kind.INFILL, "statements", True, span, "    ", "return 1", "", 1)


TASKS = [task("a"), task("b")]


class Server:
    """The language server: two samples per request, or ``errors[task id]``; records what it was asked."""

    def __init__(self, errors: dict[str, str] | None = None):
        self.errors = errors or {}
        self.asked: list[str] = []

    def __call__(self, *args: Any) -> Server:  # BridgeClient(command, options, roots, log)
        return self

    async def __aenter__(self) -> Server:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    pid = 1

    async def complete_timed(self, uri: str, language: str, text: str, cursor: Position) -> tuple[list[str], str | None, float, None]:
        name = Path(uri).stem
        self.asked.append(name)
        if name in self.errors:
            return [], self.errors[name], 5.0, None
        return [f"return {name}0", f"return {name}1"], None, 5.0, None

    def prompt_at(self, uri: str, cursor: Position) -> None:
        return None


class Judge:
    """The test runner: passes every text, and records which (task, text) it judged."""

    judged: list[tuple[str, str]] = []

    def __init__(self, executor: object):
        pass

    async def judge(self, catalog: object, task: Task, text: str) -> Verdict:
        Judge.judged.append((task.id, text))
        return Verdict(Status.PASS, "judged", 0.1, "")


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    monkeypatch.setattr(pipeline, "open_executor", lambda settings, evaluator, tasks: SimpleNamespace(close=lambda: None))
    monkeypatch.setattr(pipeline, "Timeouts", Judge)
    monkeypatch.setattr(Judge, "judged", [])
    opened = Store(tmp_path / "results.db")
    opened.create_run(RunInfo(RUN, "2026-11-28", "test", "m", {}, PRESETS, (), "", "none", None), TASKS)
    yield opened
    opened.close()


def replay(store: Store, server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_module, "BridgeClient", server)
    evaluator = SimpleNamespace(catalog=SimpleNamespace(get=lambda repo: SimpleNamespace(root=Path("/repo"))), original=lambda t: SOURCE)
    settings = ReplaySettings(RUN, "m", parse_model_spec({"kind": "empty"}), PRESETS, (), ("server",), resume=True)
    asyncio.run(replay_run(store, evaluator, TASKS, settings))  # type: ignore[arg-type]


def units(*names: str) -> set[tuple[str, str, int]]:
    return {(name, preset, sample) for name in names for preset in PRESETS for sample in (0, 1)}


def finished(store: Store) -> bool:
    info = store.run(RUN)
    return info is not None and info.finished is not None


def test_a_run_stores_one_outcome_per_task_preset_and_sample_and_finishes(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    server = Server()
    replay(store, server, monkeypatch)
    assert sorted(server.asked) == ["a", "b"]
    assert store.outcome_keys(RUN) == units("a", "b") and len(store.outcomes(RUN, sample=None)) == 8
    assert finished(store)


def test_resume_judges_every_unit_without_an_outcome_and_nothing_stored(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """A task with one stored outcome (of one preset, one sample) still has three units to judge."""
    store.add_completions(RUN, [Completion("a", "return a0", sample=0), Completion("a", "return a1", sample=1)])
    store.add_outcome(RUN, Outcome("a", "none", "return a0", Status.FAIL, "stored", sample=0))
    server = Server()
    replay(store, server, monkeypatch)
    assert server.asked == ["b"]  # a's answers are stored
    assert store.outcome_keys(RUN) == units("a", "b")
    details = {(o.task_id, o.postprocess, o.sample): o.detail for o in store.outcomes(RUN, sample=None)}
    assert details == {key: "stored" if key == ("a", "none", 0) else "judged" for key in units("a", "b")}
    assert finished(store)


def test_a_stored_model_error_is_asked_again_and_all_its_outcomes_judged(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    store.add_completions(RUN, [Completion("a", None, "model_error: timeout")])
    for preset in PRESETS:
        store.add_outcome(RUN, Outcome("a", preset, None, Status.MODEL_ERROR, "model_error: timeout"))
    server = Server()
    replay(store, server, monkeypatch)
    assert sorted(server.asked) == ["a", "b"]
    assert [c.raw for c in store.samples(RUN)["a"]] == ["return a0", "return a1"]
    outcomes = {(o.task_id, o.postprocess, o.sample): o.status for o in store.outcomes(RUN, sample=None)}
    assert outcomes == dict.fromkeys(units("a", "b"), Status.PASS)
    assert finished(store)


def test_a_run_with_one_outcome_missing_is_not_finished_and_resume_judges_only_that(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    add = store.add_outcome

    def lose_one(run_id: str, outcome: Outcome) -> None:  # a write lost
        if (outcome.task_id, outcome.postprocess, outcome.sample) != ("b", "ide", 1):
            add(run_id, outcome)

    monkeypatch.setattr(store, "add_outcome", lose_one)
    replay(store, Server(), monkeypatch)
    assert store.outcome_keys(RUN) == units("a", "b") - {("b", "ide", 1)}
    assert not finished(store)
    monkeypatch.setattr(store, "add_outcome", add)
    Judge.judged.clear()
    server = Server()
    replay(store, server, monkeypatch)
    assert server.asked == [] and Judge.judged == [("b", "return b1")]
    assert store.outcome_keys(RUN) == units("a", "b") and finished(store)


def test_a_run_with_a_request_unanswered_is_not_finished(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    replay(store, Server({"b": "model_error: connection refused"}), monkeypatch)
    assert store.outcome_keys(RUN) == units("a") | {("b", preset, 0) for preset in PRESETS}  # every stored answer has its outcomes
    assert {o.status for o in store.outcomes(RUN) if o.task_id == "b"} == {Status.MODEL_ERROR}
    assert not finished(store)
    server = Server()
    replay(store, server, monkeypatch)  # the endpoint is back
    assert server.asked == ["b"] and store.outcome_keys(RUN) == units("a", "b") and finished(store)
