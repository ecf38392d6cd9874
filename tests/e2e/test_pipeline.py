"""The whole pipeline on a small repository: mark → replay through the bridge → test → report."""

from __future__ import annotations

import json
import re
import socket
import sqlite3
import sys
from pathlib import Path

import pytest

from replay.core.scenarios import read_tasks

from .conftest import simpilot, tree_digest

pytestmark = pytest.mark.e2e
TAP = Path(__file__).parent / "lsp_tap.py"


@pytest.fixture(scope="module")
def marked(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """(repository copy, scenario file, database) after one validated marking."""
    import shutil

    from tests.conftest import DATA

    base = tmp_path_factory.mktemp("pipeline")
    repo = base / "tinyrepo"
    shutil.copytree(DATA / "tinyrepo", repo)
    result = simpilot("mark", str(repo), "--out", str(base / "scenarios"), "--per-kind", "3", "--jobs", "2")
    assert result.returncode == 0, result.stderr
    return repo, base / "scenarios" / "tinyrepo.jsonl", base / "runs.db"


def outcomes(db: Path, run: str) -> list[tuple[str, str, str]]:
    with sqlite3.connect(db) as con:
        return list(con.execute("SELECT task_id, postprocess, status FROM outcomes WHERE run_id=? ORDER BY task_id", (run,)))


def test_marked_tasks_are_validated(marked) -> None:
    _, scenario, _ = marked
    tasks = read_tasks(scenario)
    assert {t.kind.value for t in tasks} == {"infill", "completion"}
    assert all(t.validation and t.validation.ok for t in tasks)


def test_oracle_passes_everything_and_empty_nothing(marked) -> None:
    repo, scenario, db = marked
    before = tree_digest(repo)
    for model in ("oracle", "empty"):
        # no --repo: mark recorded where the repository is, beside the scenario
        r = simpilot("--db", str(db), "replay", str(scenario), "--model", model, "--run", f"t-{model}", "--jobs", "2")
        assert r.returncode == 0, r.stderr
    oracle = outcomes(db, "t-oracle")
    empty = outcomes(db, "t-empty")
    n = len(read_tasks(scenario))
    assert len(oracle) == 2 * n and {s for _, _, s in oracle} == {"pass"}
    assert len(empty) == 2 * n and "pass" not in {s for _, _, s in empty}
    assert tree_digest(repo) == before  # the user's repository is only read
    report = simpilot("--db", str(db), "report", "t-oracle", "t-empty", "--json")
    data = json.loads(report.stdout)
    rates = {(s["model"], s["preset"]): s["rows"][0]["rate"] for s in data["sections"]}
    assert rates[("oracle", "simcopilot")] == 1.0 and rates[("empty", "simcopilot")] == 0.0


def _frames(raw: bytes) -> list[dict]:
    out, i = [], 0
    while (m := re.compile(rb"Content-Length: (\d+)\r\n(?:[^\r\n]+\r\n)*\r\n").search(raw, i)):
        start = m.end()
        out.append(json.loads(raw[start : start + int(m.group(1))]))
        i = start + int(m.group(1))
    return out


def test_answers_travel_over_json_rpc_from_the_server_process(marked, tmp_path: Path) -> None:
    repo, scenario, db = marked
    log = tmp_path / "server-to-client.bin"
    command = f"{sys.executable} {TAP} {log} -- {sys.executable} -m lsp_bridge"
    r = simpilot("--db", str(db), "replay", str(scenario), "--model", "oracle", "--run", "t-tap", "--repo", str(repo),
                 "-p", "none", "--server-command", command)
    assert r.returncode == 0, r.stderr
    frames = _frames(log.read_bytes())
    answers = [f["result"]["items"][0]["insertText"] for f in frames if isinstance(f.get("result"), dict) and "items" in f["result"]]
    with sqlite3.connect(db) as con:
        stored = [row[0] for row in con.execute("SELECT raw FROM completions WHERE run_id='t-tap'")]
        pids = {json.loads(row[0])["server_pid"] for row in con.execute("SELECT request FROM completions WHERE run_id='t-tap'")}
    assert sorted(answers) == sorted(stored) and len(stored) == len(read_tasks(scenario))
    assert any(f.get("result", {}) and "capabilities" in f["result"] for f in frames if isinstance(f.get("result"), dict))
    assert len(pids) == 1 and pids.pop() not in (None,)


def test_refused_endpoint_is_recorded_as_model_error(marked, tmp_path: Path) -> None:
    repo, scenario, db = marked
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    models = tmp_path / "models.toml"
    models.write_text(f'[models.down]\nkind = "openai-chat"\nbase_url = "http://127.0.0.1:{port}/v1"\nmodel = "m"\nretries = 1\nbackoff = 0.01\n')
    r = simpilot("--db", str(db), "replay", str(scenario), "--model", "down", "--models", str(models), "--run", "t-down", "--repo", str(repo))
    # every request failed: the outcomes are stored, and the exit status says nothing was measured
    assert r.returncode == 1, r.stderr
    assert "stored as model_error" in r.stderr and "--resume" in r.stderr and "every model request" in r.stderr
    assert "6 task(s) got no answer from the model (tinyrepo:tiny/stats.py:" in r.stderr and "cannot connect" in r.stderr  # which, and why
    statuses = {s for _, _, s in outcomes(db, "t-down")}
    assert statuses == {"model_error"}
    with sqlite3.connect(db) as con:
        errors = [row[0] for row in con.execute("SELECT error FROM completions WHERE run_id='t-down'")]
    assert errors and all("cannot connect" in e for e in errors)


STORED = 9_999_999_999.0  # a latency (ms) and a test duration (s) no real request or run can take (months), yet valid for every report


def interrupt(db: Path, run: str, task_ids: list[str]) -> tuple[set[str], set[str]]:
    """Make a finished run look cut short, with a sentinel on everything it keeps: of the tasks
    (in order), the first third keep their answer and outcome, the second third their answer
    only (killed while testing), the last third nothing. Returns (kept answers, kept outcomes):
    a resume that asks the model or runs the tests again for them overwrites their sentinel."""
    answered = {t for i, t in enumerate(task_ids) if i % 3 != 2}
    judged = {t for i, t in enumerate(task_ids) if i % 3 == 0}
    with sqlite3.connect(db) as con:
        for task_id in task_ids:
            if task_id not in answered:
                con.execute("DELETE FROM completions WHERE run_id=? AND task_id=?", (run, task_id))
            if task_id not in judged:
                con.execute("DELETE FROM outcomes WHERE run_id=? AND task_id=?", (run, task_id))
        con.execute("UPDATE completions SET latency_ms=? WHERE run_id=?", (STORED, run))
        con.execute("UPDATE outcomes SET duration_s=? WHERE run_id=?", (STORED, run))
        con.execute("UPDATE runs SET finished=NULL WHERE run_id=?", (run,))
    return answered, judged


def sentinels(db: Path, run: str) -> tuple[set[str], set[str]]:
    """The tasks whose stored answer and whose stored outcome still carry the sentinel."""
    with sqlite3.connect(db) as con:
        answers = {r[0] for r in con.execute("SELECT task_id FROM completions WHERE run_id=? AND latency_ms=?", (run, STORED))}
        judged = {r[0] for r in con.execute("SELECT task_id FROM outcomes WHERE run_id=? AND duration_s=?", (run, STORED))}
    return answers, judged


def results(db: Path, run: str) -> tuple[list[tuple], list[tuple]]:
    """What a run found, without timings: (answers, outcomes), in task order."""
    with sqlite3.connect(db) as con:
        answers = list(con.execute("SELECT task_id, raw, error FROM completions WHERE run_id=? ORDER BY task_id", (run,)))
        judged = list(con.execute("SELECT task_id, postprocess, processed, status, detail FROM outcomes WHERE run_id=? ORDER BY task_id, postprocess", (run,)))
    return answers, judged


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_resume_skips_what_is_stored(marked) -> None:
    """``--resume`` asks the model only for tasks with no stored answer and tests only what has
    no stored outcome (the sentinels on stored rows survive), and ends with what an
    uninterrupted run stores."""
    repo, scenario, db = marked

    def replay(run: str, *extra: str):
        return simpilot("--db", str(db), "replay", str(scenario), "--model", "oracle", "--run", run, "--repo", str(repo), "-p", "simcopilot", *extra)

    whole = replay("t-whole")
    assert whole.returncode == 0, whole.stderr
    first = replay("t-resume")
    assert first.returncode == 0, first.stderr
    again = replay("t-resume")
    assert again.returncode == 1 and "--resume" in again.stderr
    task_ids = sorted(t.id for t in read_tasks(scenario))
    assert len(task_ids) >= 3
    answered, judged = interrupt(db, "t-resume", task_ids)
    assert sentinels(db, "t-resume") == (answered, judged)

    resumed = replay("t-resume", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert sentinels(db, "t-resume") == (answered, judged)  # nothing stored was asked or tested again
    assert results(db, "t-resume") == results(db, "t-whole")
    assert len(results(db, "t-resume")[1]) == len(task_ids)
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT finished IS NOT NULL FROM runs WHERE run_id='t-resume'").fetchone() == (1,)
