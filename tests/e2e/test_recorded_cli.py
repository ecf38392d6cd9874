"""From the command line: record a model's raw answers, replay them with ``recorded:FOLDER`` to
the same outcomes bit for bit, and ask as a typing session."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import chat_endpoint, simpilot

pytestmark = pytest.mark.e2e


def messy(prompt: str) -> str:
    """A small model's answer, as a chat endpoint sends it: fenced, with prose, depending on the
    prompt, so that some pass after post-processing and most do not."""
    code = "return 0" if len(prompt) % 3 else "pass"
    return f"Here is the code:\n```python\n{code}\n```"


@pytest.fixture
def endpoint() -> Iterator[str]:
    with chat_endpoint(messy) as url:
        yield f"openai-chat:messy@{url}"


@pytest.fixture
def marked(tiny_repo: Path, tmp_path: Path) -> Path:
    result = simpilot("mark", str(tiny_repo), "--out", str(tmp_path / "scenarios"), "--per-kind", "1", "--jobs", "2")
    assert result.returncode == 0, result.stderr
    return tmp_path / "scenarios" / "tinyrepo.jsonl"


def outcomes(db: Path, run: str) -> list[tuple]:
    with sqlite3.connect(db) as con:
        return sorted(con.execute("SELECT task_id, postprocess, processed, status, detail FROM outcomes WHERE run_id = ?", (run,)).fetchall())


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_recorded_answers_replay_to_the_same_outcomes(endpoint: str, marked: Path, tiny_repo: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "runs.db")
    folder = tmp_path / "recordings" / "messy"
    result = simpilot("--db", db, "record", str(marked), "--model", endpoint, "--out", str(folder), "--repo", str(tiny_repo))
    assert result.returncode == 0, result.stderr
    tasks = marked.read_text().splitlines()
    recorded = (folder / "tinyrepo.jsonl").read_text().splitlines()
    assert len(recorded) == len(tasks) and "answer(s) recorded" in result.stderr
    again = simpilot("--db", db, "record", str(marked), "--model", endpoint, "--out", str(folder), "--repo", str(tiny_repo))
    assert again.returncode == 0 and f"0 answer(s) recorded, {len(tasks)} already there" in again.stderr
    assert (folder / "tinyrepo.jsonl").read_text().splitlines() == recorded  # resuming adds nothing

    runs = {"live": endpoint, "first": f"recorded:{folder}", "second": f"recorded:{folder}"}
    for run, model in runs.items():
        r = simpilot("--db", db, "replay", str(marked), "--model", model, "--repo", str(tiny_repo), "--run", run)
        assert r.returncode == 0, r.stderr
    live, first, second = (outcomes(Path(db), run) for run in runs)
    assert len(first) == 2 * len(tasks) and first == second == live
    assert {status for *_, status, _ in first} - {"pass"}, "the messy answers should not all pass"


def test_session_replay_from_the_command_line(marked: Path, tiny_repo: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "runs.db")
    r = simpilot("--db", db, "replay", str(marked), "--model", "oracle", "--repo", str(tiny_repo), "--run", "typing", "--session", "-p", "none")
    assert r.returncode == 0, r.stderr and "one open document per file" in r.stderr
    with sqlite3.connect(db) as con:
        requests = [json.loads(row[0]) for row in con.execute("SELECT request FROM completions WHERE run_id = 'typing'")]
    assert requests and all(req.get("session") for req in requests)
    assert {status for *_, status, _ in outcomes(Path(db), "typing")} == {"pass"}


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_a_task_the_recording_lacks_is_named_with_why_and_what_to_do(endpoint: str, marked: Path, tiny_repo: Path, tmp_path: Path) -> None:
    """A recorded run whose recording has no answer for a task: the replay names the task, gives
    the recorded model's error and says to record it again (asking the recording again gives the
    same error), with the model the recording was made with."""
    db = str(tmp_path / "runs.db")
    folder = tmp_path / "recordings" / "messy"
    assert simpilot("--db", db, "record", str(marked), "--model", endpoint, "--out", str(folder), "--repo", str(tiny_repo)).returncode == 0
    kept, dropped = (folder / "tinyrepo.jsonl").read_text().splitlines()[1:], json.loads((folder / "tinyrepo.jsonl").read_text().splitlines()[0])
    (folder / "tinyrepo.jsonl").write_text("\n".join(kept) + "\n")
    lost = dropped["task_id"]
    for run, model in (("live", endpoint), ("rec", f"recorded:{folder}")):
        r = simpilot("--db", db, "replay", str(marked), "--model", model, "--repo", str(tiny_repo), "--run", run, "-p", "none")
        assert r.returncode == 0, r.stderr
    said = " ".join(r.stderr.split())  # rich wraps long lines
    assert f"1 task(s) got no answer from the model ({lost}); they are stored as model_error:" in said
    assert f"{lost}: model_error: recorded:messy: no task at" in said
    assert f"the recording {folder} gives no answer for them" in said and f"--model {endpoint} --out {folder}" in said, r.stderr
    assert "fix what the error says" not in said
