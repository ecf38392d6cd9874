"""docs/guides/your-repository.md, followed to the letter: its ``simpilot.toml`` and ``models.toml``
blocks are written as they stand into a fresh repository and work folder, and its command blocks
run as written, through a ``simpilot`` on ``PATH`` that is this checkout's. The only change is the
endpoint's URL, which becomes that of simpilot's real local model server (SmolLM2, on the CPU).

The repository is ``tests/data/fixtures/yourlib``'s code and tests (its own ``simpilot.toml`` left
out: the page's is used), put where the page's ``mark`` command looks for it. Its tests use
pytest-benchmark, which the page's ``[environment] setup`` installs from PyPI, and its conftest
stops any run that loads a plugin of simpilot's own environment.

What the page promises is checked: the oracle passes every task ``mark`` kept, the model's replay
has an outcome for every task, and the report commands work. When the page changes, this follows:
the file names, the repository's folder, the run ids and the models all come from the page.
"""

from __future__ import annotations

import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from replay.config.manifest import load_manifest, project_root
from replay.config.models import model_spec
from replay.config.strict import read_toml
from replay.core.scenarios import read_tasks
from tests.conftest import DATA
from tests.local_model_server import local_model_server, needs_model

pytestmark = pytest.mark.e2e
PAGE = project_root() / "docs" / "guides" / "your-repository.md"
REPOSITORY = DATA / "fixtures" / "yourlib"
FENCE = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```\s*$", re.DOTALL | re.MULTILINE)
BUILTIN_MODELS = ("oracle", "empty")
COMMAND_TIMEOUT = 1800  # one command: mark builds the venv (PyPI) the first time; the model runs on 2 CPU threads


@dataclass(frozen=True)
class Block:
    language: str
    title: str | None
    text: str


def blocks() -> list[Block]:
    """The page's fenced code blocks, in order, with their language and ``title="..."``."""
    found = []
    for match in FENCE.finditer(PAGE.read_text(encoding="utf-8")):
        title = re.search(r'title="([^"]+)"', match.group(2))
        found.append(Block(match.group(1), title.group(1) if title else None, match.group(3)))
    return found


def titled(name: str) -> Block:
    """The one block titled ``name``."""
    matching = [b for b in blocks() if b.title == name]
    assert len(matching) == 1, f"{PAGE} must have one code block titled {name!r}, has {len(matching)}"
    return matching[0]


def commands() -> list[str]:
    """Every command of the page's bash blocks, in order (continued lines joined, comments left out)."""
    found = []
    for block in (b for b in blocks() if b.language == "bash"):
        for line in block.text.replace("\\\n", " ").splitlines():
            line = line.split(" #", 1)[0].strip()
            if line and not line.startswith("#"):
                found.append(line)
    assert found, f"{PAGE} shows no command"
    return found


def option(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv and argv.index(name) + 1 < len(argv) else None


def mark_target(lines: list[str]) -> str:
    """The repository folder the page's ``simpilot mark`` is given."""
    for line in lines:
        argv = shlex.split(line)
        if argv[:2] == ["simpilot", "mark"]:
            return next(a for a in argv[2:] if not a.startswith("-"))
    raise AssertionError(f"{PAGE} never runs simpilot mark")


def build(root: Path) -> tuple[Path, Path]:
    """The work folder and the repository, as the page lays them out: the page's files written as
    they stand, the repository where its ``mark`` command looks."""
    work = root / "work"
    work.mkdir()
    repo = (work / mark_target(commands())).resolve()
    shutil.copytree(REPOSITORY, repo, ignore=shutil.ignore_patterns("simpilot.toml", "__pycache__", "*.egg-info"))
    (repo / "simpilot.toml").write_text(titled("simpilot.toml").text)
    (work / "models.toml").write_text(titled("models.toml").text)
    return work, repo


def test_the_pages_files_are_valid_as_they_stand(tmp_path: Path) -> None:
    """What the page shows loads as simpilot loads it, sets no plugin loading by hand, and every
    model its commands name is a built-in one or in its models.toml."""
    work, repo = build(tmp_path)
    manifest = load_manifest(repo / "simpilot.toml")
    assert manifest.name == repo.name and manifest.language == "python"
    assert all((repo / s).is_dir() for s in manifest.sources) and all((repo / t).is_dir() for t in manifest.tests)
    assert manifest.env == () and not any(part.startswith("-p") for part in manifest.test_command), "the page says no plugin settings are needed"
    assert manifest.environment is not None and manifest.environment.setup
    assert len(titled("simpilot.toml").text.splitlines()) <= 12, "the page promises a short simpilot.toml"
    named = {option(shlex.split(line), "--model") for line in commands()} - {None}
    assert named - set(BUILTIN_MODELS), "the page must replay a model of its own"
    for name in named:
        model_spec(str(name), work / "models.toml")
    tables = read_toml(work / "models.toml")["models"]
    assert all(table["base_url"].startswith("http") for table in tables.values())


# -- the page, run ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def model_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """simpilot's local model server on a free port (its URL, ending in /v1)."""
    with local_model_server(tmp_path_factory.mktemp("local_model")) as url:
        yield url


def shim(folder: Path) -> Path:
    """A folder holding ``simpilot``: this checkout's, run by this interpreter, as the page's
    commands call it."""
    folder.mkdir()
    script = folder / "simpilot"
    script.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m replay "$@"\n')
    script.chmod(0o755)
    return folder


def outcomes(db: Path, run: str) -> dict[str, set[str]]:
    """Each task's statuses in ``run`` (one per preset)."""
    with sqlite3.connect(db) as con:
        found: dict[str, set[str]] = {}
        for task, status in con.execute("SELECT task_id, status FROM outcomes WHERE run_id = ?", (run,)):
            found.setdefault(task, set()).add(status)
        return found


@pytest.mark.slow
@pytest.mark.local_model
@pytest.mark.timeout(3000)  # the model answers every task the page's mark keeps, on two CPU threads
@needs_model
def test_the_page_followed_to_the_letter(tmp_path: Path, model_url: str) -> None:
    work, repo = build(tmp_path)
    page_urls = {table["base_url"] for table in read_toml(work / "models.toml")["models"].values()}
    text = (work / "models.toml").read_text()
    for url in page_urls:
        text = text.replace(url, model_url)
    (work / "models.toml").write_text(text)
    env = {
        "PATH": f"{shim(tmp_path / 'bin')}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(Path.home()),
        "LANG": "C.UTF-8",
        "SIMPILOT_CACHE": str(tmp_path / "cache"),  # the venv the page's setup builds, made afresh
    }
    cwd = work
    ran: list[tuple[list[str], subprocess.CompletedProcess]] = []
    for line in commands():
        argv = shlex.split(line)
        if argv[0] == "cd":
            cwd = (cwd / argv[1]).resolve()
            continue
        result = subprocess.run(["bash", "-c", line], cwd=cwd, env=env, capture_output=True, text=True, timeout=COMMAND_TIMEOUT)
        if argv[:2] == ["simpilot", "doctor"]:
            if result.returncode == 2 and "No such command 'doctor'" in result.stderr:
                warnings.warn("this build has no 'simpilot doctor' yet: the page's doctor line was not checked", stacklevel=1)
                continue
            # doctor reports what this machine lacks: its status depends on the machine, its report may not be empty
            assert result.returncode in (0, 1) and (result.stdout + result.stderr).strip(), f"{line}\n{result.stderr}"
            continue
        assert result.returncode == 0, f"{line} (in {cwd}) exited {result.returncode}\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}"
        ran.append((argv, result))

    marks = [argv for argv, _ in ran if argv[1] == "mark"]
    assert marks, "the page marks the repository"
    replays = [(argv, result) for argv, result in ran if argv[1] == "replay"]
    scenario = work / next(a for a in replays[0][0][2:] if a.endswith(".jsonl"))
    tasks = read_tasks(scenario)
    assert tasks and all(t.validation and t.validation.ok and t.tests for t in tasks), "mark keeps only validated tasks"
    ids = {t.id for t in tasks}
    db = work / "runs" / "simpilot.db"
    models = set()
    for argv, _ in replays:
        model, run = option(argv, "--model"), option(argv, "--run")
        assert model and run, f"the page's replay names its model and run: {argv}"
        models.add(model)
        found = outcomes(db, run)
        assert set(found) == ids, f"run {run}: an outcome for every task"
        if model == "oracle":
            assert all(statuses == {"pass"} for statuses in found.values()), f"the oracle fails some of yourlib's tasks: {found}"
    assert models - set(BUILTIN_MODELS), "the page's own model was replayed"
    with sqlite3.connect(db) as con:  # the real model answered (an empty answer is an answer; an error is not)
        own_run = next(option(a, "--run") for a, _ in replays if option(a, "--model") not in BUILTIN_MODELS)
        errors = con.execute("SELECT COUNT(*) FROM completions WHERE run_id = ? AND error IS NOT NULL", (own_run,)).fetchone()[0]
        answered = con.execute("SELECT COUNT(*) FROM completions WHERE run_id = ? AND error IS NULL", (own_run,)).fetchone()[0]
    assert errors == 0 and answered == len(ids)

    reports = [(argv, result) for argv, result in ran if argv[1] == "report"]
    assert reports, "the page shows a report"
    for argv, result in reports:
        html = option(argv, "--html")
        if html:
            page = (work / html).read_text()
            assert page.startswith("<!DOCTYPE html>") or page.lstrip().lower().startswith("<!doctype html")
        else:
            assert any(run in result.stdout for run in argv[2:] if not run.startswith("-")), result.stdout[-2000:]
