"""Shared fixtures: the bundled scenarios and a tiny repository copied to a temp folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from replay.config.manifest import project_root
from replay.core.scenarios import read_tasks

DATA = Path(__file__).parent / "data"


def bundled_tasks():
    return [t for path in sorted((project_root() / "scenarios").glob("*.jsonl")) for t in read_tasks(path)]


def devbench_tasks():
    """The bundled DevBench sample's validated tasks (``scenarios/devbench/``)."""
    return [t for path in sorted((project_root() / "scenarios" / "devbench").glob("*.jsonl")) for t in read_tasks(path)]


@pytest.fixture
def tiny_repo(tmp_path: Path) -> Path:
    """A private copy of tests/data/tinyrepo that a test may change freely."""
    target = tmp_path / "tinyrepo"
    shutil.copytree(DATA / "tinyrepo", target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def tiny_scenario(repo: Path, folder: Path, per_kind: int):
    """Candidate tasks of a tiny repository (unvalidated, overlapping ones included) written to a
    scenario file in ``folder``: ``(tasks, path)``."""
    from replay.config.manifest import open_repository
    from replay.core.scenarios import write_tasks
    from replay.marking import mark_repository

    tasks = mark_repository(open_repository(repo), seed=0, per_kind=per_kind).tasks
    path = folder / f"{repo.name}.jsonl"
    write_tasks(path, tasks)
    return tasks, path
