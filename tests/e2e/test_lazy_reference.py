"""Replay's timeout rule without paying for it: a file's run on the untouched code is made only
when a task's run reaches the rule's minimum, and the verdicts are those of the rule."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from replay.cli import cli
from replay.execution.scheduling import limits
from replay.execution.scheduling.references import ReferenceRuns

from .conftest import chat_endpoint

pytestmark = pytest.mark.e2e

SLEEPER = "__import__('time').sleep(30)"


@pytest.fixture
def sleepy() -> Iterator[str]:
    """A model whose every answer sleeps far longer than the tests may take."""
    with chat_endpoint(lambda prompt: SLEEPER) as url:
        yield f"openai-chat:sleepy@{url}"


@pytest.fixture
def reference_runs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """The files whose untouched run was made, in order."""
    made: list[tuple[str, str]] = []
    original = ReferenceRuns.get

    def get(self, task):
        key = (task.repo, task.path)
        if key not in self._results:
            made.append(key)
        return original(self, task)

    monkeypatch.setattr(ReferenceRuns, "get", get)
    monkeypatch.setattr(limits, "REPLAY_MIN_TIMEOUT", 2.0)  # a rule minimum this test can wait for
    return made


def _replay(tiny_repo: Path, tmp_path: Path, model: str, run: str, made: list) -> list[tuple[str, str]]:
    runner = CliRunner()
    marked = runner.invoke(cli, ["mark", str(tiny_repo), "--out", str(tmp_path / "sc"), "--per-kind", "1", "--jobs", "1"])
    assert marked.exit_code == 0, marked.output
    made.clear()  # marking's validation gate makes its own untouched runs
    db = tmp_path / "runs.db"
    result = runner.invoke(cli, ["--db", str(db), "replay", str(tmp_path / "sc" / "tinyrepo.jsonl"), "--model", model,
                                 "--repo", str(tiny_repo), "-p", "none", "--run", run, "--jobs", "1"])
    assert result.exit_code == 0, result.output
    with sqlite3.connect(db) as con:
        return con.execute("SELECT status, detail FROM outcomes WHERE run_id=?", (run,)).fetchall()


def test_runs_that_end_in_time_need_no_reference_run(tiny_repo: Path, tmp_path: Path, reference_runs) -> None:
    outcomes = _replay(tiny_repo, tmp_path, "oracle", "oracle", reference_runs)
    assert outcomes and {status for status, _ in outcomes} == {"pass"}
    assert reference_runs == []


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_a_run_that_reaches_the_minimum_gets_the_rule(tiny_repo: Path, tmp_path: Path, reference_runs, sleepy: str) -> None:
    outcomes = _replay(tiny_repo, tmp_path, sleepy, "sleepy", reference_runs)
    block = [o for o in outcomes if o[0] == "timeout"]
    assert block, outcomes  # the sleeping answers are stopped ...
    assert reference_runs and len(reference_runs) == len(set(reference_runs))  # ... after one untouched run per file
