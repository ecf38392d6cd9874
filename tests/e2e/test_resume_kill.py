"""``kill -9`` in the middle of a replay, then ``--resume``: the same results as a run left alone.

The model is a real HTTP endpoint in this process speaking the OpenAI chat format that answers one
request at a time, slowly, so a run lasts a few seconds and can be killed with some outcomes stored
and others not. It answers the ground truth for some tasks and a wrong line for the others, chosen
from the prompt alone, so every run gets the same answers and the outcomes mix passes and failures.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from replay.cli import cli
from replay.core.records import Task
from tests.conftest import tiny_scenario

from .conftest import chat_endpoint, simpilot

pytestmark = pytest.mark.e2e
HOLE = "<<<HOLE>>>"
DELAY_S = 0.4
DEADLINE_S = 120.0


def _common_tail(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def _common_head(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


class Holes:
    """Answers the task whose code around the hole best matches the prompt's code around the
    hole marker: the ground truth for every other task, ``return None`` for the rest."""

    def __init__(self, tasks: list[Task], repo: Path):
        self.asked = 0  # requests answered: a resume must not ask for what is stored
        self._lock = threading.Lock()
        self.holes = []
        for i, task in enumerate(sorted(tasks, key=lambda t: t.id)):
            original = (repo / task.path).read_bytes()
            before = original[: task.span.start_byte].decode("utf-8")
            after = original[task.span.end_byte :].decode("utf-8")
            answer = task.ground_truth if i % 2 == 0 else "return None"
            self.holes.append((before, after, answer))

    def answer(self, prompt: str) -> str:
        with self._lock:
            self.asked += 1
        before, _, after = prompt.rpartition(HOLE)  # the instructions name the marker first
        scores = [(_common_tail(before, b) + _common_head(after, a), i) for i, (b, a, _) in enumerate(self.holes)]
        best = max(scores, key=lambda s: (s[0], -s[1]))[1]  # ties (identical prompts): the first
        return self.holes[best][2]


@pytest.fixture
def setup(tiny_repo: Path, tmp_path: Path) -> Iterator[tuple[list[Task], Path, Path, Path, Holes]]:
    """(tasks, scenario, models.toml, database, the model) with a slow model serving (one answer
    at a time, each after DELAY_S)."""
    tasks, scenario = tiny_scenario(tiny_repo, tmp_path, per_kind=4)
    holes = Holes(tasks, tiny_repo)
    with chat_endpoint(holes.answer, delay=DELAY_S) as url:
        models = tmp_path / "models.toml"
        models.write_text(f'[models.slow]\nkind = "openai-chat"\nbase_url = "{url}"\nmodel = "m"\nconcurrency = 1\ncontext_chars = 0\nretries = 0\n')
        yield tasks, scenario, models, tmp_path / "runs.db", holes


def replay_args(repo: Path, scenario: Path, models: Path, db: Path, run: str) -> list[str]:
    return ["--db", str(db), "replay", str(scenario), "--model", "slow", "--models", str(models), "--run", run,
            "--repo", str(repo), "--jobs", "2"]


def rows(db: Path, run: str) -> list[tuple[str, str, str | None, str]]:
    with sqlite3.connect(db) as con:
        return list(con.execute("SELECT task_id, postprocess, processed, status FROM outcomes WHERE run_id=? ORDER BY task_id, postprocess", (run,)))


def answers(db: Path, run: str) -> set[tuple[str, str | None, float]]:
    """The stored answers with their latency, which a second request would not reproduce."""
    with sqlite3.connect(db) as con:
        return set(con.execute("SELECT task_id, raw, latency_ms FROM completions WHERE run_id=?", (run,)))


def stored(db: Path, run: str) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as con:
            return con.execute("SELECT count(*) FROM outcomes WHERE run_id=?", (run,)).fetchone()[0]
    except sqlite3.OperationalError:  # the tables are not made yet
        return 0


def _stat(pid: int) -> tuple[int, str, str] | None:
    """(parent pid, state, start time) of a live process, None when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None
    return int(fields[1]), fields[0], fields[19]


def descendants(root: int) -> dict[int, str]:
    """Every live process below ``root``, by pid, with its start time (to tell a reused pid)."""
    parents: dict[int, list[int]] = {}
    starts: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (stat := _stat(int(entry))) is not None:
            parents.setdefault(stat[0], []).append(int(entry))
            starts[int(entry)] = stat[2]
    found, stack = {}, list(parents.get(root, []))
    while stack:
        pid = stack.pop()
        found[pid] = starts[pid]
        stack += parents.get(pid, [])
    return found


def still_alive(processes: dict[int, str]) -> list[int]:
    alive = []
    for pid, start in processes.items():
        stat = _stat(pid)
        if stat is not None and stat[2] == start and stat[1] != "Z":
            alive.append(pid)
    return alive


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_kill_9_then_resume_gives_the_results_of_an_uninterrupted_run(setup, tiny_repo: Path) -> None:
    tasks, scenario, models, db, model = setup
    presets = 2  # none and simcopilot
    total = presets * len(tasks)
    assert len(tasks) >= 6

    whole = simpilot(*replay_args(tiny_repo, scenario, models, db, "whole"))
    assert whole.returncode == 0, whole.stderr
    assert model.asked == len(tasks)  # one request per task

    scratch = db.parent / "killed-tmp"  # a killed run cannot delete its work copies: the next run does
    scratch.mkdir()
    with open(db.parent / "killed.err", "wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "replay", *replay_args(tiny_repo, scenario, models, db, "resumed")],
                                stdout=subprocess.DEVNULL, stderr=err, start_new_session=True, env={**os.environ, "TMPDIR": str(scratch)})
    children: dict[int, str] = {}
    try:
        deadline = time.monotonic() + DEADLINE_S
        while stored(db, "resumed") == 0:  # answers come one at a time: the first is far from the last
            assert proc.poll() is None, f"the run ended before it could be killed: {(db.parent / 'killed.err').read_text()}"
            assert time.monotonic() < deadline, "no outcome was stored in time"
            children = descendants(proc.pid) or children
            time.sleep(0.05)
        children = descendants(proc.pid) or children
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert children, "the run had started no language server or test server"
        # Nothing it started may outlive it: language server, warm test servers, sandboxes.
        deadline = time.monotonic() + 15
        while still_alive(children) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = still_alive(children)
        assert not left, f"processes left behind: {[Path(f'/proc/{p}/cmdline').read_bytes() for p in left]}"
    finally:
        for pid in still_alive(children):
            os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    interrupted = rows(db, "resumed")
    assert 0 < len(interrupted) < total
    assert set(interrupted) <= set(rows(db, "whole"))  # what was stored before the kill is whole and right
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT finished FROM runs WHERE run_id='resumed'").fetchone() == (None,)

    assert any(scratch.glob("simpilot-copy-*")), "the killed run's work copies should still be there"
    answered = answers(db, "resumed")
    assert answered, "an outcome was stored, so its answer was"
    model.asked = 0
    resumed = simpilot(*replay_args(tiny_repo, scenario, models, db, "resumed"), "--resume", env={"TMPDIR": str(scratch)})
    assert resumed.returncode == 0, resumed.stderr
    assert not any(scratch.glob("simpilot-copy-*")), "resuming removes the work copies of the dead run (and its own)"

    final, reference = rows(db, "resumed"), rows(db, "whole")
    assert final == reference
    # The model was asked only for the tasks with no stored answer, and the stored ones are kept.
    assert model.asked == len(tasks) - len(answered)
    assert answered <= answers(db, "resumed")
    assert {s for *_, s in final} >= {"pass"} and {s for *_, s in final} != {"pass"}
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT count(*) FROM runs WHERE finished IS NULL").fetchone() == (0,)
        assert con.execute("SELECT count(*) FROM completions WHERE run_id='resumed'").fetchone() == (len(tasks),)

    reports = {}
    for run in ("whole", "resumed"):
        report = CliRunner().invoke(cli, ["--db", str(db), "report", run, "--json"])
        assert report.exit_code == 0, report.output
        reports[run] = [(s["preset"], s["statuses"], [(r["stratum"], r["value"], r["n"], r["passed"]) for r in s["rows"]])
                        for s in json.loads(report.stdout)["sections"]]
    assert reports["resumed"] == reports["whole"]
    assert sum(sum(statuses.values()) for _, statuses, _ in reports["resumed"]) == total
