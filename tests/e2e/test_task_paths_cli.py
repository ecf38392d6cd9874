"""From the command line: a scenario or a recording whose path leads out of the repository stops
``simpilot replay`` before anything is read or written there — exit status 2, one line naming the
file and its line, no traceback — and the host file it names is left exactly as it was.

The file outside holds the very bytes of the task's own file, so that nothing else (a changed
source, a missing file) would stop the run first: only the path check stands in the way.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path

import pytest

from replay.core.recordings import answer_for, write_recording_file
from replay.core.records import Completion, Task
from replay.core.scenarios import write_tasks

from ..conftest import DATA, tiny_scenario
from .conftest import simpilot
from .test_cli_errors import one_line_error

pytestmark = pytest.mark.e2e


@dataclasses.dataclass(frozen=True)
class Setup:
    repo: Path
    task: Task  # a real task of the repository
    victim: Path  # a file outside it, with the task's file's bytes

    def replay(self, scenario: Path, model: str = "oracle"):
        db = self.repo.parent / "runs.db"
        return simpilot(
            "--db", str(db), "replay", str(scenario), "--model", model, "--repo", str(self.repo), "--run", "x", "-p", "none", timeout=120
        )


@pytest.fixture(params=["tinyrepo", "tinyjava"])
def setup(request: pytest.FixtureRequest, tmp_path: Path) -> Setup:
    repo = tmp_path / "repos" / request.param
    shutil.copytree(DATA / request.param, repo, ignore=shutil.ignore_patterns("__pycache__"))
    tasks, _ = tiny_scenario(repo, tmp_path / "marked", per_kind=1)
    victim = tmp_path / "outside" / Path(tasks[0].path).name
    victim.parent.mkdir()
    victim.write_bytes((repo / tasks[0].path).read_bytes())
    os.utime(victim, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))  # an mtime no write keeps
    return Setup(repo, tasks[0], victim)


def untouched(victim: Path, before: tuple[bytes, int]) -> bool:
    return (victim.read_bytes(), victim.stat().st_mtime_ns) == before


def scenario_with_path(setup: Setup, path: str) -> Path:
    scenario = setup.repo.parent / "shared.jsonl"
    write_tasks(scenario, [dataclasses.replace(setup.task, path=path)])
    return scenario


@pytest.mark.parametrize("how", ["absolute", "climbing"])
def test_a_scenario_path_out_of_the_repository_is_refused(setup: Setup, how: str) -> None:
    path = str(setup.victim) if how == "absolute" else os.path.relpath(setup.victim, setup.repo)
    assert how == "absolute" or path.startswith("../")
    scenario = scenario_with_path(setup, path)
    before = (setup.victim.read_bytes(), setup.victim.stat().st_mtime_ns)
    r = setup.replay(scenario)
    assert r.returncode == 2, r.stderr
    message = one_line_error(r)
    assert f"{scenario}:1: not a task record: field 'path' is {path!r}" in message
    assert "outside the repository" in message and "relative to the repository root" in message
    assert untouched(setup.victim, before)
    assert not (setup.repo.parent / "runs.db").exists()  # refused before a run was opened


def test_a_symlink_out_of_the_repository_is_refused_where_it_is_resolved(setup: Setup) -> None:
    leak = str(Path(setup.task.path).with_name("Leak" + Path(setup.task.path).suffix))
    (setup.repo / leak).symlink_to(setup.victim)
    before = (setup.victim.read_bytes(), setup.victim.stat().st_mtime_ns)
    r = setup.replay(scenario_with_path(setup, leak))
    assert r.returncode == 2, r.stderr
    message = one_line_error(r)
    assert f"task {setup.task.id} of repository {setup.repo.name}: its file {leak!r} resolves to {str(setup.victim)!r}" in message
    assert "outside the repository" in message
    assert untouched(setup.victim, before)


def test_a_recording_path_out_of_the_repository_is_refused(setup: Setup, tmp_path: Path) -> None:
    task = setup.task
    original = (setup.repo / task.path).read_bytes()
    good = answer_for(task, Completion(task.id, task.ground_truth), original, "m", {})
    folder = tmp_path / "recording"
    recording = folder / f"{setup.repo.name}.jsonl"
    write_recording_file(recording, [dataclasses.replace(good, path=str(setup.victim))])
    before = (setup.victim.read_bytes(), setup.victim.stat().st_mtime_ns)
    r = setup.replay(scenario_with_path(setup, task.path), f"recorded:{folder}")
    assert r.returncode == 2, r.stderr
    message = one_line_error(r)
    assert f"{recording}:1: not a recorded answer: field 'path' is {str(setup.victim)!r}" in message
    assert "outside the repository" in message
    assert untouched(setup.victim, before)


@pytest.mark.parametrize(
    "change, expected",
    [
        ({"kind": "rewrite"}, "field 'kind' is 'rewrite'"),
        ({"tests": []}, "field 'tests' is an empty list"),
        (
            {"tests": ["tests/test_x.py::t\nother"]},
            "field 'tests' holds 'tests/test_x.py::t\\nother' at position 0: a test id is one non-empty line",
        ),
        ({"language": "cobol"}, "field 'language' is 'cobol'"),
        (
            {"span": {"start_byte": 20, "end_byte": 10, "start": {"line": 2, "character": 0}, "end": {"line": 1, "character": 0}}},
            "field 'span' is reversed",
        ),
    ],
    ids=["kind", "no-tests", "two-ids-in-one", "language", "reversed-span"],
)
def test_a_bad_scenario_record_stops_replay_in_one_line_before_anything_runs(setup: Setup, change: dict, expected: str) -> None:
    """Kinds, test ids and languages are checked when the scenario is read: the line is named,
    nothing runs and no run is opened."""
    import json

    scenario = setup.repo.parent / "bad.jsonl"
    scenario.write_text(json.dumps(setup.task.to_dict() | change) + "\n")
    r = setup.replay(scenario)
    assert r.returncode != 0
    message = one_line_error(r)
    assert f"{scenario}:1: not a task record: {expected}" in message and "simpilot mark" in message
    assert not (setup.repo.parent / "runs.db").exists()
