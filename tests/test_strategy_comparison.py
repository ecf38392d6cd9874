"""Runs that differ in their context strategy, compared from the store (``simpilot compare RUN
RUN…``): per preset, each run's pass rate and prompt tokens, and each later run against the first,
paired task by task. The runs are made by hand so that every count can be checked on paper."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from replay.core.errors import SimpilotError
from replay.core.records import Completion, Kind, Outcome, Position, PromptRecord, Span, Status, Task
from replay.reports.strategies import compare_runs, render, strategy_of
from replay.scoring.stats import mcnemar_exact
from replay.store import RunInfo, Store


def task(i: int) -> Task:
    span = Span(0, 1, Position(i, 0), Position(i, 1))
    return Task(f"r:a.py:infill:{i}-{i}", "r", "python", "a.py", Kind.INFILL, "loop_body", True, span, "    ", f"x += {i}", "0" * 64, 1,
                ("loop_body",), 3, 2 + i)


TASKS = [task(i) for i in range(10)]
# file: tasks 0-3 pass; definitions: 0-1 and 4-9 pass (2 newly fail, 6 newly pass)
PASSES = {"file": set(range(4)), "definitions": {0, 1, *range(4, 10)}}
TOKENS = {"file": 300, "definitions": 900}


def store_with_runs(path: Path, presets: tuple[str, ...] = ("none", "simcopilot")) -> Store:
    store = Store(path)
    for name, passing in PASSES.items():
        run_id = f"ctx-{name}"
        config = {"context": {"name": f"{name}:1024", "builder": name, "budget": 1024}}
        store.create_run(RunInfo(run_id, "2026-01-01", "0", "m", {}, presets, (), "h", "bwrap", None, config), TASKS)
        for t in TASKS:
            prompt = PromptRecord(f"{name}:1024", 1024, "estimate", {"document": TOKENS[name]}, 1.0 + t.span.start.line)
            store.add_completion(run_id, Completion(t.id, "x", prompt=prompt))
            for preset in presets:
                status = Status.PASS if int(t.span.start.line) in passing else Status.FAIL
                store.add_outcome(run_id, Outcome(t.id, preset, "x", status))
    return store


def test_each_run_against_the_first_task_by_task(tmp_path: Path) -> None:
    store = store_with_runs(tmp_path / "runs.db")
    result = compare_runs(store, ["ctx-file", "ctx-definitions"])
    store.close()
    assert [p.preset for p in result.presets] == ["none", "simcopilot"]  # every preset both stored
    none = result.presets[0]
    first, second = none.rows
    assert (first.strategy, first.passed, first.tasks, first.prompt_tokens) == ("file:1024", 4, 10, 300)
    assert (second.strategy, second.passed, second.prompt_tokens) == ("definitions:1024", 8, 900)
    assert first.build_ms_p95 == 10.0  # build times 1..10 ms: the 95th percentile is the largest of ten
    (against,) = none.against_first
    overall = next(s for s in against.strata if s.dimension == "all")
    assert (overall.n, overall.only_first, overall.only_second) == (10, 2, 6)
    assert overall.p_value == pytest.approx(mcnemar_exact(2, 6))
    data = result.to_json()
    assert data["presets"][0]["runs"][1]["passed"] == 8 and data["presets"][0]["against_first"][0]["paired"] == 10
    console = Console(width=80, record=True)
    render(result, console)
    text = console.export_text()
    assert "definitions:1024" in text and "by reference distance" in text and "newly pass" in text


def test_a_preset_one_run_lacks_is_named_with_what_to_do(tmp_path: Path) -> None:
    store = store_with_runs(tmp_path / "runs.db")
    store.create_run(RunInfo("other", "2026-01-01", "0", "m", {}, ("none",), (), "h", "bwrap", None), TASKS)
    with pytest.raises(SimpilotError, match="'other' has no outcomes under preset 'simcopilot'.*simpilot compare other -p simcopilot"):
        compare_runs(store, ["ctx-file", "other"], ["simcopilot"])
    with pytest.raises(SimpilotError, match="no run 'nope'"):
        compare_runs(store, ["ctx-file", "nope"])
    store.close()


def test_a_run_without_a_strategy_says_how_it_built_its_prompts() -> None:
    info = RunInfo("r", "2026-01-01", "0", "m", {}, ("none",), (), "h", "bwrap", None, {"model": {}})
    assert strategy_of(info) == "the adapter's own prompt"
    with_default_budget = RunInfo("r", "2026-01-01", "0", "m", {}, ("none",), (), "h", "bwrap", None, {"context": {"name": "bm25", "budget": 4096}})
    assert strategy_of(with_default_budget) == "bm25:4096"
    assert json.dumps(strategy_of(info))  # plain text, fit for JSON
