"""The whole pipeline on a small repository: mark → replay through the bridge → test → report."""

from __future__ import annotations

import json
import re
import socket
import sqlite3
import sys
from pathlib import Path

import pytest

from replay.scenarios import read_tasks

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
        r = simpilot("--db", str(db), "replay", str(scenario), "--model", model, "--run", f"t-{model}", "--repo", str(repo), "--jobs", "2")
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
    assert r.returncode == 0, r.stderr
    assert "model error" in r.stderr and "--resume" in r.stderr
    statuses = {s for _, _, s in outcomes(db, "t-down")}
    assert statuses == {"model_error"}
    with sqlite3.connect(db) as con:
        errors = [row[0] for row in con.execute("SELECT error FROM completions WHERE run_id='t-down'")]
    assert errors and all("cannot connect" in e for e in errors)


def test_resume_skips_what_is_stored(marked) -> None:
    repo, scenario, db = marked
    first = simpilot("--db", str(db), "replay", str(scenario), "--model", "oracle", "--run", "t-resume", "--repo", str(repo), "-p", "simcopilot")
    assert first.returncode == 0, first.stderr
    again = simpilot("--db", str(db), "replay", str(scenario), "--model", "oracle", "--run", "t-resume", "--repo", str(repo), "-p", "simcopilot")
    assert again.returncode == 1 and "--resume" in again.stderr
    resumed = simpilot("--db", str(db), "replay", str(scenario), "--model", "oracle", "--run", "t-resume", "--repo", str(repo), "-p", "simcopilot", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert len(outcomes(db, "t-resume")) == len(read_tasks(scenario))
