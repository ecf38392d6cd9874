"""Context strategies through the real command line and the real bridge: ``replay --context``
makes one run per strategy, every answer stores how its prompt was built, the strategy is part
of the run's configuration (a resume with another is refused), the prompt a model receives is
the strategy's, and ``simpilot contexts`` measures strategies with no model at all."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import tiny_scenario

from .conftest import chat_endpoint, simpilot

pytestmark = pytest.mark.e2e


@pytest.fixture
def scenario(tiny_repo: Path, tmp_path: Path) -> Path:
    return tiny_scenario(tiny_repo, tmp_path, per_kind=1)[1]


def prompts(db: Path, run: str) -> list[dict]:
    with sqlite3.connect(db) as con:
        return [json.loads(p) if p else None for (p,) in con.execute("SELECT prompt FROM completions WHERE run_id=?", (run,))]


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_replay_with_two_strategies_makes_two_runs_that_store_their_prompts(tiny_repo: Path, scenario: Path, tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    args = ("--db", str(db), "replay", str(scenario), "--model", "oracle", "--repo", str(tiny_repo), "--jobs", "1", "-p", "none")
    done = simpilot(*args, "--run", "c", "--context", "bm25:512", "--context", "oracle_definitions:512")
    assert done.returncode == 0, done.stderr
    for run, name in (("c-oracle-ctx-bm25-512", "bm25:512"), ("c-oracle-ctx-oracle_definitions-512", "oracle_definitions:512")):
        stored = prompts(db, run)
        assert stored and all(p is not None and p["strategy"] == name and p["budget"] == 512 for p in stored)
        assert all(sum(p["parts"].values()) <= 512 and "document" in p["parts"] for p in stored)
        with sqlite3.connect(db) as con:
            config = json.loads(con.execute("SELECT config FROM runs WHERE run_id=?", (run,)).fetchone()[0])
            passed = con.execute("SELECT COUNT(*) FROM outcomes WHERE run_id=? AND status='pass'", (run,)).fetchone()[0]
        assert config["context"]["name"] == name and passed == len(stored)
    refused = simpilot(*args, "--run", "c-oracle-ctx-bm25-512", "--resume", "--context", "definitions:512")
    assert refused.returncode != 0 and "context strategy differs" in refused.stderr
    # the two strategies compared task by task from the store: the oracle passes everything either way
    compared = simpilot("--db", str(db), "compare", "c-oracle-ctx-bm25-512", "c-oracle-ctx-oracle_definitions-512", "--json")
    assert compared.returncode == 0, compared.stderr
    (none,) = json.loads(compared.stdout)["presets"]
    assert [r["strategy"] for r in none["runs"]] == ["bm25:512", "oracle_definitions:512"]
    assert all(r["rate"] == 1.0 and r["tasks"] == len(stored) for r in none["runs"])
    (against,) = none["against_first"]
    assert against["paired"] == len(stored) and against["strata"][0]["newly_pass"] == against["strata"][0]["newly_fail"] == 0


def test_the_model_receives_the_strategy_s_prompt(tiny_repo: Path, scenario: Path, tmp_path: Path) -> None:
    seen: list[str] = []
    models = tmp_path / "models.toml"
    with chat_endpoint(lambda prompt: seen.append(prompt) or "pass") as url:
        models.write_text(f'[models.chat]\nkind = "openai-chat"\nbase_url = "{url}"\nmodel = "m"\nretries = 0\n')
        done = simpilot("--db", str(tmp_path / "runs.db"), "replay", str(scenario), "--model", "chat", "--models", str(models),
                        "--repo", str(tiny_repo), "--jobs", "1", "-p", "none", "--context", "file:256")
    assert done.returncode == 0, done.stderr
    assert seen and all("<<<HOLE>>>" in p and "# file: " not in p for p in seen)  # the file alone: no other file's header


def test_contexts_measures_strategies_without_a_model(tiny_repo: Path, scenario: Path, tmp_path: Path) -> None:
    page = tmp_path / "contexts.html"
    done = simpilot("contexts", str(scenario), "--repo", str(tiny_repo), "-s", "file", "-s", "oracle_definitions",
                    "--budget", "256", "--budget", "1024", "--json", "--html", str(page))
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    cells = {(c["strategy"], c["budget"]): c for c in data["overall"]}
    assert set(cells) == {("file", 256), ("file", 1024), ("oracle_definitions", 256), ("oracle_definitions", 1024)}
    if cells["oracle_definitions", 1024]["recall"] is not None:
        assert cells["oracle_definitions", 1024]["recall"] >= cells["file", 1024]["recall"]
    assert "reference distance" in data["strata"] and "<table>" in page.read_text()
