"""A library with a third-party dependency, from the command line: ``[environment] setup`` builds a
venv once (from PyPI), ``mark`` validates holes in its src/ layout, and ``replay`` reuses the
cached venv, with the oracle passing every task and the empty model none."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from replay.core.scenarios import read_tasks
from tests.conftest import DATA

from .conftest import simpilot, tree_digest

pytestmark = pytest.mark.e2e
FIXTURE = DATA / "fixtures" / "pylib"


def statuses(db: Path, run: str) -> list[str]:
    with sqlite3.connect(db) as con:
        return [status for (status,) in con.execute("SELECT status FROM outcomes WHERE run_id = ?", (run,))]


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_a_library_with_dependencies_is_marked_and_replayed(tmp_path: Path) -> None:
    env = {"SIMPILOT_CACHE": str(tmp_path / "cache")}
    before = tree_digest(FIXTURE)
    marked = simpilot("mark", str(FIXTURE), "--out", str(tmp_path / "out"), "--per-kind", "1", "--jobs", "2", env=env, timeout=900)
    assert marked.returncode == 0, marked.stderr
    assert "pylib: building the test environment" in marked.stderr and "test environment ready" in marked.stderr
    venvs = [p for p in (tmp_path / "cache" / "envs").iterdir() if p.is_dir()]
    assert len(venvs) == 1 and list(venvs[0].glob("lib/python*/site-packages/ledger/accounts.py")), "the library is installed in the venv"

    tasks = read_tasks(tmp_path / "out" / "pylib.jsonl")
    assert len(tasks) >= 4 and all(t.path.startswith("src/ledger/") for t in tasks)
    # each filler failed the selected tests: the work copy's code ran, not the venv's installed copy
    assert all(t.validation and t.validation.ok and t.tests for t in tasks)

    db = tmp_path / "runs.db"
    for model in ("oracle", "empty"):
        # no --repo: mark recorded where the repository is
        r = simpilot("--db", str(db), "replay", str(tmp_path / "out" / "pylib.jsonl"), "--model", model,
                     "--run", model, "--jobs", "2", env=env, timeout=600)
        assert r.returncode == 0, r.stderr
        assert "cached environment" in r.stderr and "building" not in r.stderr
    oracle, empty = statuses(db, "oracle"), statuses(db, "empty")
    assert len(oracle) == len(empty) >= len(tasks)
    assert set(oracle) == {"pass"}
    assert "pass" not in empty
    assert tree_digest(FIXTURE) == before  # the setup's install ran in a throw-away copy
    with sqlite3.connect(db) as con:  # the run's configuration names the venv (a resume cannot mix two)
        stored = json.loads(con.execute("SELECT config FROM runs WHERE run_id='oracle'").fetchone()[0])
    assert stored["environments"]["pylib"].startswith("venv pylib-")
