"""Answers no file can hold: a model may send a lone surrogate (``\\ud800``: JSON carries it, some
servers send one when they cut a character in two). The run goes to its end, ``--resume`` finds
nothing lost, the store keeps the answer as it came, the tests judge it as an editor would save
it (U+FFFD), and every report shows it escaped."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from .conftest import chat_endpoint, simpilot

pytestmark = pytest.mark.e2e

ODD = ("return 'caf\ud800'", "x = '\udcff'\n\ud83d", "return '\ud83d\ude00'")


def odd(prompt: str) -> str:
    return ODD[len(prompt) % len(ODD)]


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_a_lone_surrogate_stops_nothing_and_is_kept(tiny_repo: Path, tmp_path: Path) -> None:
    marked = simpilot("mark", str(tiny_repo), "--out", str(tmp_path / "scenarios"), "--per-kind", "1", "--jobs", "2")
    assert marked.returncode == 0, marked.stderr
    scenario = str(tmp_path / "scenarios" / "tinyrepo.jsonl")
    db = str(tmp_path / "runs.db")
    with chat_endpoint(odd) as url:
        model = f"openai-chat:odd@{url}"
        first = simpilot("--db", db, "replay", scenario, "--model", model, "--repo", str(tiny_repo), "--run", "odd")
        assert first.returncode == 0, first.stderr
        again = simpilot("--db", db, "replay", scenario, "--model", model, "--repo", str(tiny_repo), "--run", "odd", "--resume")
        assert again.returncode == 0, again.stderr
    with sqlite3.connect(db) as con:
        con.text_factory = bytes
        raws = [raw.decode("utf-8", "surrogatepass") for (raw,) in con.execute("SELECT raw FROM completions WHERE run_id = 'odd'")]
        outcomes = con.execute("SELECT processed, status FROM outcomes WHERE run_id = 'odd'").fetchall()
    tasks = len(Path(scenario).read_text().splitlines())
    assert len(raws) == tasks and len(outcomes) == 2 * tasks  # two presets; nothing lost or repeated
    assert set(raws) <= set(ODD) and any("\ud800" in r or "\udcff" in r for r in raws)  # kept as it came
    assert {status.decode() for _, status in outcomes} <= {"fail", "syntax_error", "error"}

    csv_dir, html, js = tmp_path / "csv", tmp_path / "r.html", tmp_path / "r.json"
    for args in (["report", "odd"], ["report", "odd", "--html", str(html), "--json", str(js), "--csv", str(csv_dir)], ["compare", "odd"]):
        shown = simpilot("--db", db, *args)
        assert shown.returncode == 0 and "Traceback" not in shown.stderr, shown.stderr
    for shown_text in (html.read_text(encoding="utf-8"), (csv_dir / "outcomes.csv").read_text(encoding="utf-8")):
        assert "\\ud800" in shown_text or "\\udcff" in shown_text  # escaped, as JSON shows it
    json.loads(js.read_text(encoding="utf-8"))
