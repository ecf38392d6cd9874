"""The command line as a new user first meets it, run as a child process: a replay prints a short
summary (the tables with --verbose), report files go into folders that do not exist yet, and a
`mark` that keeps no task fails, says why, and leaves any existing scenario file alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import tiny_scenario

from .conftest import simpilot

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path, int]:
    """A tiny repository, its candidate tasks, and a store with one oracle run over them."""
    import shutil

    from tests.conftest import DATA

    base = tmp_path_factory.mktemp("first")
    repo = base / "tinyrepo"
    shutil.copytree(DATA / "tinyrepo", repo, ignore=shutil.ignore_patterns("__pycache__"))
    tasks, scenario = tiny_scenario(repo, base, per_kind=10)  # 20 tasks, as in the replay that printed 326 lines
    return base, repo, scenario, len(tasks)


def _replay(base: Path, repo: Path, scenario: Path, run: str, *extra: str):
    r = simpilot("--db", str(base / "runs.db"), "replay", str(scenario), "--model", "oracle", "--run", run,
                 "--repo", str(repo), "--jobs", "2", *extra)
    assert r.returncode == 0, r.stderr
    return r


def test_replay_prints_a_short_summary_by_default(replayed) -> None:
    base, repo, scenario, n = replayed
    assert n >= 20
    r = _replay(base, repo, scenario, "quiet")
    lines = [line for line in (r.stdout + r.stderr).splitlines() if line.strip()]
    assert len(lines) <= 25, "\n".join(lines)
    text = r.stdout
    assert f"{n} tasks" in text and "0 model error(s)" in text
    for preset in ("none", "simcopilot"):
        assert any(line.startswith(f"│ {preset} ") and f"{n}/{n}" in line for line in text.splitlines()), text
    assert f"simpilot --db {base / 'runs.db'} report quiet" in text and "--html" in text
    assert "headline" not in text and "category" not in text  # the strata are in the full report


def test_replay_verbose_prints_the_full_report(replayed) -> None:
    base, repo, scenario, n = replayed
    r = _replay(base, repo, scenario, "loud", "--verbose")
    text = r.stdout
    assert "stratum" in text and "headline" in text and "category" in text and "comparison" in text
    assert len(text.splitlines()) > 25
    assert "java" not in text  # a Python-only run has no Java rows


def test_report_files_go_into_folders_that_do_not_exist(replayed) -> None:
    base, repo, scenario, _ = replayed
    _replay(base, repo, scenario, "files")
    out = base / "new" / "deeper"
    r = simpilot("--db", str(base / "runs.db"), "report", "files", "--html", str(out / "h" / "r.html"),
                 "--json", str(out / "j" / "r.json"), "--csv", str(out / "c"))
    assert r.returncode == 0, r.stderr
    assert (out / "h" / "r.html").read_text(encoding="utf-8").startswith("<!doctype html>")
    data = json.loads((out / "j" / "r.json").read_text(encoding="utf-8"))
    assert data["sections"] and not [row for s in data["sections"] for row in s["rows"] if row["n"] == 0]
    assert (out / "c" / "strata.csv").is_file() and (out / "c" / "outcomes.csv").is_file()


def unreached_repo(tiny_repo: Path) -> Path:
    """The tiny repository with a suite that passes but never imports the code under test."""
    (tiny_repo / "tests" / "test_stats.py").write_text("def test_arithmetic():\n    assert 1 + 1 == 2\n")
    return tiny_repo


def test_mark_that_keeps_nothing_fails_and_writes_nothing(tiny_repo: Path, tmp_path: Path) -> None:
    repo = unreached_repo(tiny_repo)
    out = tmp_path / "scenarios"
    r = simpilot("mark", str(repo), "--out", str(out), "--per-kind", "1", "--jobs", "2")
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert not (out / "tinyrepo.jsonl").exists()
    last = [line for line in r.stderr.splitlines() if line.strip()][-1]
    assert last.startswith("error: tinyrepo: no task kept"), r.stderr
    assert "no test executes the hole" in last  # the reason, counted
    assert "check that the tests in tests import and call the code in tiny" in last and "--per-kind" in last  # what to do
    assert "nothing written" in r.stderr


def test_mark_that_keeps_nothing_leaves_an_existing_file_alone(tiny_repo: Path, tmp_path: Path) -> None:
    repo = unreached_repo(tiny_repo)
    out = tmp_path / "scenarios"
    out.mkdir()
    existing = out / "tinyrepo.jsonl"
    existing.write_text('{"earlier": "tasks"}\n', encoding="utf-8")
    r = simpilot("mark", str(repo), "--out", str(out), "--per-kind", "1", "--jobs", "2")
    assert r.returncode != 0
    assert existing.read_text(encoding="utf-8") == '{"earlier": "tasks"}\n'
