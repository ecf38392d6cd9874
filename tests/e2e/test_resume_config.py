"""``--resume`` through the real command line: a run is continued only with the configuration it
was made with (model settings, presets, sandbox, suite); anything else is refused before a single
request or test, saying what differs and how to start a new run."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from replay.core.scenarios import legacy_file_digest
from tests.conftest import tiny_scenario

from .conftest import chat_endpoint, simpilot

pytestmark = pytest.mark.e2e


@pytest.fixture
def scenario(tiny_repo: Path, tmp_path: Path) -> Path:
    return tiny_scenario(tiny_repo, tmp_path, per_kind=1)[1]


def stored(db: Path, run: str) -> tuple[list[tuple], list[tuple], tuple]:
    """(outcomes, completions, the run's row) exactly as stored, timestamps included."""
    with sqlite3.connect(db) as con:
        outcomes = list(con.execute("SELECT * FROM outcomes WHERE run_id=? ORDER BY task_id, postprocess", (run,)))
        completions = list(con.execute("SELECT * FROM completions WHERE run_id=? ORDER BY task_id", (run,)))
        row = con.execute("SELECT * FROM runs WHERE run_id=?", (run,)).fetchone()
    return outcomes, completions, row


def oracle(db: Path, scenario: Path, repo: Path, *extra: str, presets: Path | None = None):
    """``simpilot replay`` of ``scenario`` with the oracle as run ``r`` (``presets``: a presets.toml)."""
    user_presets = ("--presets", str(presets)) if presets else ()
    return simpilot("--db", str(db), *user_presets, "replay", str(scenario), "--model", "oracle", "--run", "r", "--repo", str(repo),
                    "--jobs", "1", *extra)


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_changed_model_settings_are_refused_and_transport_settings_are_not(tiny_repo: Path, scenario: Path, tmp_path: Path) -> None:
    db, models = tmp_path / "runs.db", tmp_path / "models.toml"

    def write_models(temperature: str, timeout: int = 60) -> None:
        models.write_text(f'[models.chat]\nkind = "openai-chat"\nbase_url = "{url}"\nmodel = "m"\n'
                          f"temperature = {temperature}\ntimeout = {timeout}\ncontext_chars = 0\nretries = 0\n")

    def replay(*extra: str):
        return simpilot("--db", str(db), "replay", str(scenario), "--model", "chat", "--models", str(models), "--run", "r",
                        "--repo", str(tiny_repo), "--jobs", "1", "-p", "none", *extra)

    with chat_endpoint(lambda prompt: "return 0") as url:
        write_models("0.2")
        first = replay()
        assert first.returncode == 0, first.stderr
        before = stored(db, "r")
        assert before[0] and before[1]

        write_models("0.0")
        refused = replay("--resume")
        assert refused.returncode == 1
        assert "model settings differ: temperature 0.2 → 0.0" in refused.stderr, refused.stderr
        assert "another --run" in refused.stderr and "leave out --run" in refused.stderr
        assert stored(db, "r") == before  # nothing asked, nothing judged, nothing recorded

        write_models("0.2", timeout=300)  # a longer timeout is no other model
        resumed = replay("--resume")
        assert resumed.returncode == 0, resumed.stderr
    config = json.loads(stored(db, "r")[2][10])
    assert config["model"]["temperature"] == 0.2 and "timeout" not in config["model"]


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_sandbox_suite_and_preset_changes_are_refused(tiny_repo: Path, scenario: Path, tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    presets = _presets(tmp_path, '"strip_noncode", "reindent"')
    first = oracle(db, scenario, tiny_repo, "-p", "mine", presets=presets)
    assert first.returncode == 0, first.stderr
    before = stored(db, "r")
    cases = [
        (("--unsafe-no-sandbox",), "sandbox differs: mode bubblewrap → none (--unsafe-no-sandbox)"),
        (("--full-suite",), "test suite differs: tests selected per task → the repository's whole test command (--full-suite)"),
    ]
    for extra, says in cases:
        refused = oracle(db, scenario, tiny_repo, "-p", "mine", "--resume", *extra, presets=presets)
        assert refused.returncode == 1 and says in refused.stderr, refused.stderr
    _presets(tmp_path, '"strip_noncode"')
    refused = oracle(db, scenario, tiny_repo, "-p", "mine", "--resume", presets=presets)
    assert refused.returncode == 1
    assert "post-processing presets differ: mine [strip_noncode, reindent] → [strip_noncode]" in refused.stderr, refused.stderr
    assert stored(db, "r") == before


def _presets(folder: Path, steps: str) -> Path:
    path = folder / "presets.toml"
    path.write_text(f"[presets.mine]\nsteps = [{steps}]\n", encoding="utf-8")
    return path


@pytest.mark.slow
def test_a_run_stored_by_an_older_version_is_refused_saying_why(tiny_repo: Path, scenario: Path, tmp_path: Path) -> None:
    """Older versions stored the scenario files' bytes run together as the digest, no
    configuration, and took a test command's exit status for a pass: such a run is not continued
    (its passes were never proven), and the refusal says so and what else differs."""
    db = tmp_path / "runs.db"
    first = oracle(db, scenario, tiny_repo, "-p", "none")
    assert first.returncode == 0, first.stderr
    with sqlite3.connect(db) as con:
        con.execute("UPDATE runs SET scenario_hash=?, config=NULL, config_hash=NULL", (legacy_file_digest([scenario]),))
    before = stored(db, "r")
    resumed = oracle(db, scenario, tiny_repo, "-p", "none", "--resume")
    assert resumed.returncode == 1 and "how a pass is decided differs" in resumed.stderr and "another --run" in resumed.stderr, resumed.stderr
    assert stored(db, "r") == before
    refused = oracle(db, scenario, tiny_repo, "-p", "none", "--resume", "--full-suite")
    assert refused.returncode == 1 and "test suite differs" in refused.stderr, refused.stderr
