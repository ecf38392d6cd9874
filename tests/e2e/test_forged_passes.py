"""No forged passes over the whole bundled set: one-line answers that end the test process with
status 0 (``os._exit(0)``, ``System.exit(0)``, ``Runtime.getRuntime().halt(0)``) or skip the
test (``pytest.skip``), replayed as
recordings through the real pipeline (bridge, sandbox, warm servers, store), pass no task, and the
empty answer passes none either. Before each test's own result was required, the first of them
passed every Python task."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from replay.config.manifest import project_root
from replay.core.recordings import answer_for, write_recording_file
from replay.core.records import Completion, Task
from tests.conftest import bundled_tasks

from .conftest import simpilot

pytestmark = pytest.mark.e2e

# The forging line replaces the hole: a statement where a block goes, an expression in a
# condition (the Java lines do not compile there, and a Java method that must return a value
# does not compile with them either: those end as compile errors).
FORGERIES = {
    "exit": {"python": "__import__('os')._exit(0)", "java": "System.exit(0);"},
    "stop": {"python": "__import__('pytest').skip('')", "java": "Runtime.getRuntime().halt(0);"},
}


def _replay_forgery(tmp_path: Path, tasks: list[Task], name: str) -> Counter[str]:
    repos = project_root() / "repos"
    folder = tmp_path / f"recording-{name}"
    by_repo: dict[str, list] = {}
    for task in tasks:
        original = (repos / task.repo / task.path).read_bytes()
        text = FORGERIES[name][task.language]
        by_repo.setdefault(task.repo, []).append(answer_for(task, Completion(task.id, text), original, name, {}))
    for repo, answers in by_repo.items():
        write_recording_file(folder / f"{repo}.jsonl", answers)
    return _replay(tmp_path, f"recorded:{folder}", name)


def _replay(tmp_path: Path, model: str, run: str) -> Counter[str]:
    db = tmp_path / f"{run}.db"
    scenarios = sorted(str(p) for p in (project_root() / "scenarios").glob("*.jsonl"))
    r = simpilot("--db", str(db), "replay", *scenarios, "--model", model, "-p", "none", "--run", run, "--jobs", "2", timeout=3000)
    assert r.returncode == 0, r.stderr[-3000:]
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        rows = con.execute("SELECT status FROM outcomes WHERE run_id = ?", (run,)).fetchall()
    assert len(rows) == len(bundled_tasks())
    return Counter(status for (status,) in rows)


@pytest.mark.slow
@pytest.mark.timeout(3000)
@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_forging_answers_pass_no_bundled_task(tmp_path: Path, name: str) -> None:
    statuses = _replay_forgery(tmp_path, bundled_tasks(), name)
    print(f"\n{name}: {json.dumps(dict(statuses))}")
    assert statuses["pass"] == 0, statuses
    # the process ended early: that is what the answers did, and it is said so
    assert statuses["tests_not_run"] > 0


@pytest.mark.slow
@pytest.mark.timeout(3000)
def test_the_empty_answer_passes_no_bundled_task(tmp_path: Path) -> None:
    statuses = _replay(tmp_path, "empty", "empty")
    assert statuses["pass"] == 0, statuses


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_forging_answers_pass_no_task_of_a_sample(tmp_path: Path) -> None:
    """The default run's share of the check above: two tasks per repository and kind."""
    tasks: list[Task] = []
    seen: Counter[tuple[str, str]] = Counter()
    for task in bundled_tasks():
        if task.block and seen[(task.repo, task.kind.value)] < 2:
            seen[(task.repo, task.kind.value)] += 1
            tasks.append(task)
    scenario_dir = tmp_path / "scenarios"
    scenario_dir.mkdir()
    from replay.core.scenarios import write_tasks

    for repo in sorted({t.repo for t in tasks}):
        write_tasks(scenario_dir / f"{repo}.jsonl", [t for t in tasks if t.repo == repo])
    repos = project_root() / "repos"
    folder = tmp_path / "recording"
    for repo in sorted({t.repo for t in tasks}):
        answers = [answer_for(t, Completion(t.id, FORGERIES["exit"][t.language]), (repos / t.repo / t.path).read_bytes(), "exit", {})
                   for t in tasks if t.repo == repo]
        write_recording_file(folder / f"{repo}.jsonl", answers)
    db = tmp_path / "sample.db"
    r = simpilot("--db", str(db), "replay", *sorted(str(p) for p in scenario_dir.glob("*.jsonl")), "--model", f"recorded:{folder}",
                 "-p", "none", "--run", "sample", "--jobs", "2", timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        statuses = Counter(s for (s,) in con.execute("SELECT status FROM outcomes WHERE run_id = 'sample'"))
    assert sum(statuses.values()) == len(tasks) and statuses["pass"] == 0, statuses
    assert statuses["tests_not_run"] >= len(tasks) // 2, statuses
