"""A run's configuration: what it holds, what it leaves out, how it is stored and how a resume is
checked against it (open_run on a real store, without replaying anything)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from replay.config.model_spec import parse_model_spec
from replay.config.run import (
    LEGACY_VERDICT,
    VERDICT,
    config_hash,
    differences,
    redact_model_name,
    redact_url,
)
from replay.core.errors import SimpilotError
from replay.core.scenarios import file_digest, legacy_file_digest
from replay.execution.sandbox.bubblewrap import Limits
from replay.run.configuration import legacy_config, model_settings, run_config
from replay.run.resume import open_run
from replay.run.settings import ReplaySettings
from replay.store import Store

CHAT = {"kind": "openai-chat", "base_url": "http://127.0.0.1:8000/v1", "model": "qwen"}
SECRET = "s3cr3t-k3y"


def config(spec: dict | None = None, presets: dict | None = None, **options) -> dict:
    options = {"sandboxed": True, "limits": Limits(), "full_suite": False, **options}
    return run_config(parse_model_spec(spec or CHAT), presets if presets is not None else {"simcopilot": ("strip_noncode", "reindent")}, **options)


# -- what the configuration holds ---------------------------------------------------------------


def test_defaults_are_filled_in_so_writing_one_out_changes_nothing() -> None:
    assert config_hash(config({**CHAT, "temperature": 0})) == config_hash(config(CHAT))
    assert config_hash(config({**CHAT, "max_tokens": 512})) == config_hash(config(CHAT))
    settings = model_settings(parse_model_spec(CHAT))
    assert settings["temperature"] == 0.0 and settings["max_tokens"] == 512 and settings["prompt_mode"] == "chat"


@pytest.mark.parametrize("setting, value", [("temperature", 0.2), ("max_tokens", 64), ("context_chars", 0), ("model", "other"),
                                            ("stop", ["\n\n"]), ("fim_other_files", False)])
def test_every_setting_that_shapes_answers_changes_the_hash(setting: str, value: object) -> None:
    assert config_hash(config({**CHAT, setting: value})) != config_hash(config(CHAT))


@pytest.mark.parametrize("setting, value", [("timeout", 5), ("retries", 0), ("backoff", 2.0), ("concurrency", 1),
                                            ("api_key_env", "MY_KEY"), ("cache_db", "/tmp/cache.sqlite"),
                                            ("base_url", "http://127.0.0.1:9000/v1")])
def test_transport_settings_leave_the_hash_alone(setting: str, value: object) -> None:
    """A run whose endpoint timed out is resumed with a longer timeout: that must be allowed."""
    assert config_hash(config({**CHAT, setting: value})) == config_hash(config(CHAT))


def test_the_fim_template_is_part_of_the_model_settings() -> None:
    fim = {"kind": "openai-completions", "base_url": "http://h/v1", "model": "sc2", "fim_family": "starcoder"}
    settings = model_settings(parse_model_spec(fim))
    assert settings["prompt_mode"] == "fim" and settings["fim_template"] == "<fim_prefix>{pre}<fim_suffix>{suf}<fim_middle>"
    assert settings["stop"] == ["<|endoftext|>", "<file_sep>"]
    assert config_hash(config({**fim, "fim_family": "qwen"})) != config_hash(config(fim))


def test_the_oracles_scenario_paths_are_not_settings() -> None:
    """The scenario hash pins the tasks; the oracle's paths only say where the files were."""
    a = config({"kind": "oracle", "scenarios": ["/a/s.jsonl"]})
    assert a == config({"kind": "oracle", "scenarios": ["/b/s.jsonl"]}) and a["model"] == {"kind": "oracle"}
    assert config({"kind": "noisy-oracle", "seed": 1}) != config({"kind": "noisy-oracle", "seed": 2})


def test_presets_sandbox_suite_and_requests_are_part_of_it() -> None:
    base = config_hash(config())
    assert config_hash(config(presets={"simcopilot": ("strip_noncode",)})) != base
    assert config_hash(config(sandboxed=False)) != base
    assert config_hash(config(limits=Limits(cpu_seconds=10))) != base
    assert config_hash(config(full_suite=True)) != base
    assert config_hash(config(server_command=("my-server", "--stdio"))) != base
    assert config_hash(config(session=True)) != base
    assert config_hash(config()) == base  # and the same configuration gives the same hash


# -- what differs, in words ------------------------------------------------------------------------


def test_differences_name_the_setting_and_both_values() -> None:
    assert differences(config({**CHAT, "temperature": 0.2}), config(CHAT)) == ["model settings differ: temperature 0.2 → 0.0"]
    assert differences(config(sandboxed=True), config(sandboxed=False)) == [
        "sandbox differs: mode bubblewrap → none (--unsafe-no-sandbox)"]
    assert differences(config(), config(full_suite=True)) == [
        "test suite differs: tests selected per task → the repository's whole test command (--full-suite)"]
    assert differences(config(), config(presets={"simcopilot": ("strip_noncode",)})) == [
        "post-processing presets differ: simcopilot [strip_noncode, reindent] → [strip_noncode]"]
    assert differences(config(), config()) == []


def test_a_legacy_run_is_compared_on_what_it_stored() -> None:
    """Before configurations were stored, a run kept its model spec and a sandbox line: those are
    compared, the limits (unknown then) are not."""
    verdict = f"how a pass is decided differs: {LEGACY_VERDICT} → {VERDICT}"  # an old run's passes were not proven
    old = legacy_config({**CHAT, "temperature": 0.2}, {}, "bubblewrap; tests: selected per task; timeouts: …")
    assert differences(old, config(CHAT), known_only=True) == ["model settings differ: temperature 0.2 → 0.0", verdict]
    same = legacy_config(CHAT, {"simcopilot": ("strip_noncode", "reindent")}, "bubblewrap; tests: selected per task; timeouts: …")
    assert differences(same, config(CHAT, limits=Limits(cpu_seconds=5)), known_only=True) == [verdict]
    full = legacy_config(CHAT, {}, "none (unsafe); tests: full suite; timeouts: …")
    assert differences(full, config(CHAT), known_only=True) == [
        "sandbox differs: mode none (--unsafe-no-sandbox) → bubblewrap",
        "test suite differs: the repository's whole test command (--full-suite) → tests selected per task", verdict]


# -- secrets ----------------------------------------------------------------------------------------


def test_urls_lose_their_secrets() -> None:
    assert redact_url(f"https://user:{SECRET}@host:8443/v1") == "https://***@host:8443/v1"
    assert redact_url(f"https://host/v1?api-version=2024&api_key={SECRET}") == "https://host/v1?api-version=2024&api_key=***"
    assert redact_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
    assert redact_model_name(f"openai-chat:m@https://host/v1?token={SECRET}") == "openai-chat:m@https://host/v1?token=***"
    assert redact_model_name("qwen-chat") == "qwen-chat"


def test_no_secret_is_hashed_or_stored(tmp_path: Path) -> None:
    spec = {**CHAT, "base_url": f"https://user:{SECRET}@host/v1?key={SECRET}", "api_key_env": "OPENAI_API_KEY"}
    settings = replay_settings(tmp_path, spec=spec, model="secretive")
    assert SECRET not in json.dumps(settings.config)
    store = Store(tmp_path / "runs.db")
    open_run(store, settings, [], "bubblewrap; tests: selected per task")
    store.close()
    with sqlite3.connect(tmp_path / "runs.db") as con:
        dump = "\n".join(con.iterdump())
    assert SECRET not in dump and "https://***@host/v1?key=***" in dump and "OPENAI_API_KEY" in dump


# -- storing and resuming ---------------------------------------------------------------------------


def replay_settings(tmp_path: Path, *, spec: dict | None = None, model: str = "chat", resume: bool = False, **options) -> ReplaySettings:
    scenario = tmp_path / "s.jsonl"
    if not scenario.exists():
        scenario.write_text('{"a": 1}\n', encoding="utf-8")
    spec = spec or CHAT
    return ReplaySettings(run_id="r", model=model, model_spec=parse_model_spec(spec), presets=("simcopilot",), scenarios=(scenario,),
                          server_command=("x",), resume=resume, config=config(spec, **options))


def test_the_configuration_is_stored_with_its_hash(tmp_path: Path) -> None:
    store = Store(tmp_path / "runs.db")
    settings = replay_settings(tmp_path)
    open_run(store, settings, [], "bubblewrap")
    run = store.run("r")
    assert run.config == settings.config and run.config_hash == config_hash(settings.config)
    store.close()


def test_resume_with_the_same_configuration_is_allowed(tmp_path: Path) -> None:
    store = Store(tmp_path / "runs.db")
    open_run(store, replay_settings(tmp_path), [], "bubblewrap")
    open_run(store, replay_settings(tmp_path, spec={**CHAT, "timeout": 300}, resume=True), [], "bubblewrap")
    store.close()


def test_resume_after_the_endpoint_moved_is_allowed(tmp_path: Path) -> None:
    """'Fix the endpoint and resume' may mean a new address: the model and its settings decide the
    answers, not where it is served; a run stored with the address in its configuration too."""
    store = Store(tmp_path / "runs.db")
    first = replay_settings(tmp_path, model="openai-chat:qwen@http://127.0.0.1:8000/v1")
    open_run(store, first, [], "bubblewrap")
    moved = {**CHAT, "base_url": "http://127.0.0.1:9000/v1"}
    open_run(store, replay_settings(tmp_path, spec=moved, model="openai-chat:qwen@http://127.0.0.1:9000/v1", resume=True), [], "bubblewrap")
    with sqlite3.connect(tmp_path / "runs.db") as con:  # as an older version stored it
        con.execute("UPDATE runs SET config=? WHERE run_id='r'", (json.dumps({**first.config, "model": {**first.config["model"], "base_url": CHAT["base_url"]}}),))
    store.close()
    store = Store(tmp_path / "runs.db")
    open_run(store, replay_settings(tmp_path, spec=moved, model="openai-chat:qwen@http://127.0.0.1:9000/v1", resume=True), [], "bubblewrap")
    with pytest.raises(SimpilotError, match="was made with the model"):
        open_run(store, replay_settings(tmp_path, model="openai-chat:other@http://127.0.0.1:9000/v1", resume=True), [], "bubblewrap")
    store.close()


@pytest.mark.parametrize("change, says", [
    ({"spec": {**CHAT, "temperature": 0.7}}, "model settings differ: temperature 0.0 → 0.7"),
    ({"sandboxed": False}, "sandbox differs: mode bubblewrap → none (--unsafe-no-sandbox)"),
    ({"full_suite": True}, "test suite differs"),
    ({"presets": {"simcopilot": ("strip_noncode",)}}, "post-processing presets differ: simcopilot"),
])
def test_resume_with_another_configuration_is_refused(tmp_path: Path, change: dict, says: str) -> None:
    store = Store(tmp_path / "runs.db")
    open_run(store, replay_settings(tmp_path), [], "bubblewrap")
    with pytest.raises(SimpilotError) as refused:
        open_run(store, replay_settings(tmp_path, resume=True, **change), [], "bubblewrap")
    message = str(refused.value)
    assert says in message and "another --run" in message and "leave out --run" in message
    assert store.run("r").config == replay_settings(tmp_path).config  # the stored run is left as it was
    store.close()


def test_the_scenario_digest_separates_files(tmp_path: Path) -> None:
    (tmp_path / "ab").write_text("ab")
    (tmp_path / "c").write_text("c")
    (tmp_path / "a").write_text("a")
    (tmp_path / "bc").write_text("bc")
    one, other = [tmp_path / "ab", tmp_path / "c"], [tmp_path / "a", tmp_path / "bc"]
    assert file_digest(one) != file_digest(other)
    assert legacy_file_digest(one) == legacy_file_digest(other)  # why the digest changed


def _make_legacy(db: Path, run_id: str, scenario_hash: str, model_spec: dict | None = None) -> None:
    """Turn a stored run into one as an older version stored it: the old scenario digest, no
    configuration columns (dropped from the table, as a database made then never had them)."""
    with sqlite3.connect(db) as con:
        con.execute("UPDATE runs SET scenario_hash=? WHERE run_id=?", (scenario_hash, run_id))
        if model_spec is not None:
            con.execute("UPDATE runs SET model_spec=? WHERE run_id=?", (json.dumps(model_spec), run_id))
        con.execute("ALTER TABLE runs DROP COLUMN config")
        con.execute("ALTER TABLE runs DROP COLUMN config_hash")


def test_an_old_run_is_refused_because_its_passes_were_not_proven(tmp_path: Path) -> None:
    """A run stored before per-test proofs took exit statuses for passes: continuing it would
    mix two rules. Its old scenario digest is recognised, so the refusal names the real reason."""
    settings = replay_settings(tmp_path)
    store = Store(tmp_path / "runs.db")
    open_run(store, settings, [], "bubblewrap; tests: selected per task")
    store.close()
    _make_legacy(tmp_path / "runs.db", "r", legacy_file_digest(settings.scenarios))
    store = Store(tmp_path / "runs.db")  # the columns come back, NULL for the old run
    old = store.run("r")
    assert old.config is None and old.scenario_hash == legacy_file_digest(settings.scenarios)
    with pytest.raises(SimpilotError, match="how a pass is decided differs.*another --run"):
        open_run(store, replay_settings(tmp_path, resume=True), [], "bubblewrap; tests: selected per task")
    assert store.run("r").config is None  # nothing recorded for a refused resume
    store.close()


def test_an_old_run_with_other_settings_is_refused(tmp_path: Path) -> None:
    settings = replay_settings(tmp_path)
    store = Store(tmp_path / "runs.db")
    open_run(store, settings, [], "bubblewrap; tests: selected per task")
    store.close()
    _make_legacy(tmp_path / "runs.db", "r", legacy_file_digest(settings.scenarios), {**CHAT, "temperature": 0.2})
    store = Store(tmp_path / "runs.db")
    with pytest.raises(SimpilotError, match="temperature 0.2 → 0.0"):
        open_run(store, replay_settings(tmp_path, resume=True), [], "bubblewrap; tests: selected per task")
    assert store.run("r").config is None  # nothing recorded for a refused resume
    store.close()


def test_resume_with_other_scenarios_says_so(tmp_path: Path) -> None:
    store = Store(tmp_path / "runs.db")
    open_run(store, replay_settings(tmp_path), [], "bubblewrap")
    (tmp_path / "s.jsonl").write_text('{"a": 2}\n', encoding="utf-8")
    with pytest.raises(SimpilotError, match="other scenario files .*another --run"):
        open_run(store, replay_settings(tmp_path, resume=True), [], "bubblewrap")
    store.close()


def test_a_database_from_before_run_configurations_opens(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    with sqlite3.connect(db) as con:
        con.executescript("""
            CREATE TABLE runs (run_id TEXT PRIMARY KEY, created TEXT NOT NULL, tool_version TEXT NOT NULL, model TEXT NOT NULL,
                model_spec TEXT NOT NULL, presets TEXT NOT NULL, scenarios TEXT NOT NULL, scenario_hash TEXT NOT NULL,
                sandbox TEXT NOT NULL, finished TEXT);
        """)
        con.execute("INSERT INTO runs VALUES ('old','2026-01-01','0','m','{}','[\"none\"]','[]','h','bubblewrap',NULL)")
    store = Store(db)
    run = store.run("old")
    assert (run.run_id, run.model, run.presets, run.config, run.config_hash) == ("old", "m", ("none",), None, None)
    store.close()
    Store(db).close()  # a second opening changes nothing



def test_a_repositorys_test_environment_is_part_of_it(tmp_path: Path) -> None:
    """Only runs with an [environment] carry the key (others keep their configuration), and a
    resume with another venv (other dependencies) is refused."""
    assert "environments" not in config() and config() == config(environments={})
    store = Store(tmp_path / "runs.db")
    open_run(store, replay_settings(tmp_path, environments={"lib": "venv lib-aaaa"}), [], "bubblewrap")
    open_run(store, replay_settings(tmp_path, resume=True, environments={"lib": "venv lib-aaaa"}), [], "bubblewrap")
    with pytest.raises(SimpilotError, match="test environments differ: lib venv lib-aaaa → venv lib-bbbb"):
        open_run(store, replay_settings(tmp_path, resume=True, environments={"lib": "venv lib-bbbb"}), [], "bubblewrap")
    store.close()
