"""A plain JUnit 5 library with no build script: its manifest names only the language, sources and
tests, and simpilot compiles it and runs JUnit itself for everything, through the real CLI.

The fixture (tests/data/fixtures/javalib) has four classes and @Test and @ParameterizedTest
methods. Marking must select test *methods* for each hole (learned with a throwing probe), the
oracle must pass every task and the empty answer none, read back from the results store."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from replay.core.records import Status
from replay.store import Store
from tests.conftest import DATA

from .conftest import simpilot, tree_digest

pytestmark = pytest.mark.e2e

FIXTURE = DATA / "fixtures" / "javalib"


@pytest.fixture
def javalib(tmp_path: Path) -> Path:
    target = tmp_path / "javalib"
    shutil.copytree(FIXTURE, target)
    return target


def test_the_manifest_needs_no_test_command() -> None:
    text = (FIXTURE / "simpilot.toml").read_text()
    assert "test_command" not in text and not list(FIXTURE.glob("*.sh"))


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_mark_then_replay_a_plain_junit5_library(javalib: Path, tmp_path: Path) -> None:
    before = tree_digest(javalib)
    out = tmp_path / "scenarios"
    r = simpilot("mark", str(javalib), "--out", str(out), "--per-kind", "2", "--jobs", "2")
    assert r.returncode == 0, r.stderr
    tasks = [json.loads(line) for line in (out / "javalib.jsonl").read_text().splitlines()]
    assert len(tasks) >= 8 and {t["kind"] for t in tasks} == {"infill", "completion"}
    assert len({t["path"] for t in tasks}) == 4
    for t in tasks:
        # every hole's tests are methods, and fewer than the candidate classes' methods
        assert t["tests"] and all("#" in test and "(" not in test for test in t["tests"]), t["tests"]
        assert t["validation"]["filler_fails"] and t["validation"]["stable"]
    classes = {test.split("#")[0] for t in tasks for test in t["tests"]}
    assert classes <= {f"javalib.{c}Test" for c in ("Fraction", "RunLength", "IntervalSet", "CsvLine")}
    assert any(len(t["tests"]) == 1 for t in tasks)  # a hole only one test method reaches
    db = tmp_path / "runs.db"
    for model in ("oracle", "empty"):
        # no --repo: mark recorded where the repository is
        r = simpilot("--db", str(db), "replay", str(out / "javalib.jsonl"), "--model", model,
                     "--run", model, "-p", "simcopilot", "--jobs", "2")
        assert r.returncode == 0, r.stderr
    store = Store(db)
    try:
        oracle, empty = store.outcomes("oracle"), store.outcomes("empty")
    finally:
        store.close()
    assert len(oracle) == len(empty) == len(tasks)
    assert all(o.status is Status.PASS for o in oracle), [(o.task_id, o.status, o.detail) for o in oracle if o.status is not Status.PASS]
    assert not any(o.status is Status.PASS for o in empty)
    assert tree_digest(javalib) == before


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_full_suite_runs_every_test_class_through_simpilots_runner(javalib: Path, tmp_path: Path) -> None:
    out = tmp_path / "scenarios"
    r = simpilot("mark", str(javalib), "--out", str(out), "--per-kind", "1", "--max-per-file", "1",
                 "--kinds", "infill", "--full-suite", "--jobs", "2")
    assert r.returncode == 0, r.stderr
    tasks = [json.loads(line) for line in (out / "javalib.jsonl").read_text().splitlines()]
    assert tasks and all(t["tests"] is None for t in tasks)
    db = tmp_path / "runs.db"
    r = simpilot("--db", str(db), "replay", str(out / "javalib.jsonl"), "--model", "oracle", "--repo", str(javalib),
                 "--run", "full", "-p", "simcopilot", "--full-suite", "--jobs", "2")
    assert r.returncode == 0, r.stderr
    store = Store(db)
    try:
        assert {o.status for o in store.outcomes("full")} == {Status.PASS}
    finally:
        store.close()
