"""A repository without tests, judged by its program's output: mark → replay oracle and empty."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from replay.config.manifest import open_repository
from replay.core.records import Kind
from replay.core.scenarios import read_tasks
from replay.marking import mark_repository

from .conftest import simpilot

pytestmark = pytest.mark.e2e
FIXTURE = Path(__file__).parents[1] / "data" / "fixtures" / "outputprog"
SEED, PER_KIND = "11", "4"
# ``normalise`` strips whitespace that ``str.split`` never leaves: 'pass' there prints the same
NEUTRAL = "word = word.strip()"


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_output_compared_repository_marks_and_replays(tmp_path: Path) -> None:
    repo = tmp_path / "outputprog"
    shutil.copytree(FIXTURE, repo)
    candidates = mark_repository(open_repository(repo), seed=int(SEED), per_kind=int(PER_KIND), kinds=set(Kind)).tasks
    neutral = [t.id for t in candidates if t.ground_truth == NEUTRAL]
    assert neutral, "the chosen seed no longer marks the output-neutral hole: pick another --seed"

    out = tmp_path / "scenarios"
    marked = simpilot("mark", str(repo), "--out", str(out), "--seed", SEED, "--per-kind", PER_KIND, "--jobs", "2")
    assert marked.returncode == 0, marked.stderr
    assert "tests pass with the hole filled by 'pass'" in marked.stdout + marked.stderr
    tasks = read_tasks(out / "outputprog.jsonl")
    assert tasks and all(t.tests is None and t.validation and t.validation.ok for t in tasks)
    assert not {t.id for t in tasks} & set(neutral)  # the gate dropped the hole no output notices

    db = tmp_path / "runs.db"
    for model in ("oracle", "empty"):
        r = simpilot("--db", str(db), "replay", str(out / "outputprog.jsonl"), "--model", model, "--run", model, "--jobs", "2")
        assert r.returncode == 0, r.stderr
    with sqlite3.connect(db) as con:
        statuses = {run: [s for (s,) in con.execute("SELECT status FROM outcomes WHERE run_id=?", (run,))] for run in ("oracle", "empty")}
        details = [d for (d,) in con.execute("SELECT detail FROM outcomes WHERE run_id='empty' AND status='empty'")]
    assert len(statuses["oracle"]) == 2 * len(tasks) and set(statuses["oracle"]) == {"pass"}
    assert len(statuses["empty"]) == 2 * len(tasks) and "pass" not in statuses["empty"]
    assert any(d.startswith(("output differs at line", "output ends early")) for d in details)
    report = simpilot("--db", str(db), "report", "oracle", "empty", "--json")
    rates = {(s["model"], s["preset"]): s["rows"][0]["rate"] for s in json.loads(report.stdout)["sections"]}
    assert rates[("oracle", "simcopilot")] == 1.0 and rates[("empty", "simcopilot")] == 0.0
