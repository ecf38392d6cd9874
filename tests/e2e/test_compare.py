"""``simpilot compare``: presets judged on one run's stored raw answers, never asking the model
again, with every figure recomputable from the outcome rows it stores."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from postprocess import PRESETS, ablation_name
from replay.scoring.stats import mcnemar_exact, wilson

from ..conftest import DATA
from .conftest import simpilot

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def noisy_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """One noisy-oracle run on a copy of the tiny repository, shared by this module's tests
    (compare only adds rows, and adds the same rows when run again)."""
    tmp_path = tmp_path_factory.mktemp("compare")
    tiny_repo = tmp_path / "tinyrepo"
    shutil.copytree(DATA / "tinyrepo", tiny_repo, ignore=shutil.ignore_patterns("__pycache__"))
    marked = simpilot("mark", str(tiny_repo), "--out", str(tmp_path / "scenarios"), "--per-kind", "2", "--jobs", "2")
    assert marked.returncode == 0, marked.stderr
    db = tmp_path / "runs.db"
    r = simpilot("--db", str(db), "replay", str(tmp_path / "scenarios" / "tinyrepo.jsonl"), "--model", "noisy-oracle:3",
                 "--postprocess", "none", "--repo", str(tiny_repo), "--run", "noisy")
    assert r.returncode == 0, r.stderr
    return str(tiny_repo), db


def _rows(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT task_id, postprocess, processed, status FROM outcomes WHERE run_id='noisy'").fetchall()


def test_compare_stores_and_recomputes(noisy_run: tuple[str, Path]) -> None:
    repo, db = noisy_run
    with sqlite3.connect(db) as con:
        answers_before = con.execute("SELECT task_id, raw, created FROM completions WHERE run_id='noisy'").fetchall()
    r = simpilot("--db", str(db), "compare", "noisy", "--json")  # mark recorded where the repository is
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout)
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT task_id, raw, created FROM completions WHERE run_id='noisy'").fetchall() == answers_before
        stored_presets = dict(con.execute("SELECT name, steps FROM presets WHERE run_id='noisy'").fetchall())
    rows = _rows(db)
    tasks = sorted({t for t, *_ in rows})
    passed = {}
    for task_id, preset, _, status in rows:
        passed.setdefault(preset, set())
        if status == "pass":
            passed[preset].add(task_id)
    presets = [row["preset"] for row in result["presets"]]
    assert presets == ["none", "simcopilot", "syntax", "ide"]
    for name in presets:  # every variant has one stored row per task, and its steps are recorded
        assert json.loads(stored_presets[name]) == list(PRESETS[name])
        assert sorted(t for t, p, *_ in rows if p == name) == tasks
    first = passed["none"]
    for row in result["presets"]:
        mine = passed[row["preset"]]
        assert (row["n"], row["passed"]) == (len(tasks), len(mine))
        assert (row["low"], row["high"]) == pytest.approx(wilson(len(mine), len(tasks)))
        if row["preset"] != "none":
            assert (row["only_this"], row["only_first"]) == (len(mine - first), len(first - mine))
            assert row["p_value"] == pytest.approx(mcnemar_exact(len(mine - first), len(first - mine)))
    for effect in result["steps"]:
        without = passed[ablation_name(effect["preset"], effect["step"])]
        assert effect["fixed"] == len(passed[effect["preset"]] - without)
        assert effect["broke"] == len(without - passed[effect["preset"]])
    simcopilot = next(r for r in result["presets"] if r["preset"] == "simcopilot")
    assert simcopilot["passed"] > result["presets"][0]["passed"], "post-processing should undo some of the noise"


def test_compare_again_runs_nothing_new(noisy_run: tuple[str, Path]) -> None:
    repo, db = noisy_run
    first = simpilot("--db", str(db), "compare", "noisy", "--repo", repo, "-p", "none", "-p", "simcopilot", "--json")
    assert first.returncode == 0, first.stderr
    before = _rows(db)
    second = simpilot("--db", str(db), "compare", "noisy", "--repo", repo, "-p", "none", "-p", "simcopilot", "--json")
    assert second.returncode == 0, second.stderr
    a, b = json.loads(first.stdout), json.loads(second.stdout)
    assert [sorted(r.items()) for r in b["presets"]] == [sorted(r.items()) for r in a["presets"]]
    assert b == a
    assert _rows(db) == before


def test_compare_explains_bad_input(noisy_run: tuple[str, Path], tmp_path: Path) -> None:
    repo, db = noisy_run
    missing = simpilot("--db", str(db), "compare", "nope", "--repo", repo)
    assert missing.returncode == 1 and "no run 'nope'" in missing.stderr
    presets = tmp_path / "presets.toml"
    presets.write_text('[presets.mine]\nsteps = ["strip_noncode", "reindent"]\n', encoding="utf-8")
    custom = simpilot("--db", str(db), "--presets", str(presets), "compare", "noisy", "--repo", repo, "-p", "none", "-p", "mine", "--json")
    assert custom.returncode == 0, custom.stderr
    assert [r["preset"] for r in json.loads(custom.stdout)["presets"]] == ["none", "mine"]
    presets.write_text('[presets.mine]\nsteps = ["strip_noncode"]\n', encoding="utf-8")
    clash = simpilot("--db", str(db), "--presets", str(presets), "compare", "noisy", "--repo", repo, "-p", "mine")
    assert clash.returncode == 1 and "made with other steps" in clash.stderr
