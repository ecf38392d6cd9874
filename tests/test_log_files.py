"""Logs go under ``<runs folder>/logs/`` with safe names, and none is left when empty
(``replay/core/paths.py``, ``replay/run/client.py``): after a replay, and after the demo, the
current folder holds nothing new outside ``runs/``."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest

from replay.core.paths import log_file, remove_if_empty, safe_name
from replay.run.client import BridgeClient
from tests.conftest import DATA, tiny_scenario
from tests.e2e.conftest import simpilot

SAFE = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")


def test_safe_names_keep_letters_digits_dash_underscore_and_dot_only():
    assert safe_name("openai:gpt-4o@https_//host/v1-20261128-161955.bridge") == "openai_gpt-4o_https__host_v1-20261128-161955.bridge"
    assert safe_name("recorded:runs/../x y") == "recorded_runs_.._x_y"
    assert safe_name("..hidden") == "hidden"
    assert safe_name("///") == "_"
    assert set(safe_name("a:b\\c/d e\u00e9*?<>|\"'")) <= SAFE


def test_a_log_lives_in_the_logs_folder_beside_the_database():
    assert log_file(Path("runs/simpilot.db"), "oracle:x-1.bridge") == Path("runs/logs/oracle_x-1.bridge.log")
    assert log_file(Path("/tmp/a/b.db"), "trace-replay.bridge") == Path("/tmp/a/logs/trace-replay.bridge.log")


def test_an_empty_log_and_its_empty_folder_are_removed_a_written_one_stays(tmp_path: Path):
    empty = tmp_path / "logs" / "a.log"
    empty.parent.mkdir()
    empty.touch()
    remove_if_empty(empty)
    assert not empty.parent.exists()
    written = tmp_path / "logs" / "b.log"
    written.parent.mkdir()
    written.write_text("bridge said something\n")
    remove_if_empty(written)
    remove_if_empty(tmp_path / "logs" / "never-made.log")
    remove_if_empty(None)
    assert written.read_text() == "bridge said something\n"


def _drain(log: Path, chunks: list[bytes]) -> None:
    """What the client does with the bridge's standard error, fed ``chunks``."""

    async def main() -> None:
        stream = asyncio.StreamReader()
        for chunk in chunks:
            stream.feed_data(chunk)
        stream.feed_eof()
        await BridgeClient(["true"], {}, [], log)._drain_stderr(stream)

    asyncio.run(main())


def test_the_client_writes_its_log_only_when_the_bridge_says_something(tmp_path: Path):
    quiet = tmp_path / "runs" / "logs" / "quiet.bridge.log"
    _drain(quiet, [])
    assert not quiet.exists() and not quiet.parent.exists()
    said = tmp_path / "runs" / "logs" / "said.bridge.log"
    _drain(said, [b"warning: one\n", b"warning: two\n"])
    assert said.read_bytes() == b"warning: one\nwarning: two\n"


def new_files(cwd: Path, before: set[Path]) -> list[str]:
    """Files under ``cwd`` that were not there ``before``, outside ``runs/``."""
    now = {Path(d, f) for d, _, files in os.walk(cwd) for f in files}
    return sorted(str(p.relative_to(cwd)) for p in now - before if p.relative_to(cwd).parts[0] != "runs")


def logs_are_safe(runs: Path) -> None:
    logs = runs / "logs"
    assert not any(p.suffix == ".log" for p in runs.iterdir() if p.is_file())  # none beside the database
    if logs.exists():
        assert all(set(p.name) <= SAFE and p.stat().st_size > 0 for p in logs.iterdir())


@pytest.mark.e2e
def test_a_replay_leaves_nothing_in_the_current_folder_outside_runs(tmp_path: Path):
    work = tmp_path / "work"
    work.mkdir()
    repo = tmp_path / "tinyrepo"
    shutil.copytree(DATA / "tinyrepo", repo, ignore=shutil.ignore_patterns("__pycache__"))
    _, scenario = tiny_scenario(repo, tmp_path, per_kind=2)
    before = {Path(d, f) for d, _, files in os.walk(work) for f in files}
    result = simpilot("replay", str(scenario), "--model", "oracle", "--run", "oracle:tiny/1", "--repo", str(repo), "--jobs", "2", cwd=work)
    assert result.returncode == 0, result.stderr[-3000:]
    assert new_files(work, before) == []
    assert (work / "runs" / "simpilot.db").is_file()
    logs_are_safe(work / "runs")
