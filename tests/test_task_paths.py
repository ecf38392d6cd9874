"""A task's or a recorded answer's ``path`` never leads outside its repository.

Scenario and recording files are shared data, and the path is joined to a checkout to read the
task's file and to write answers into a work copy. A path spelled to leave the repository is
refused when the file is read, naming the file and the line; a path that leaves it once resolved
(a symlink), or names something other than a regular file, is refused where it is resolved.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replay.config.manifest import RepoCatalog, open_repository, project_root
from replay.core.errors import SimpilotError
from replay.core.recordings import RecordedAnswer, read_recording_file, write_recording_file
from replay.core.records import Kind, Position, Span, Task
from replay.core.repo_paths import PathRefused, UnsafePath, file_in_repo, relative_path, task_file
from replay.core.scenarios import read_tasks, write_tasks
from replay.execution.judge import Evaluator
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.run.resume import check_sources

# each refused spelling, and words its message must hold
BAD = {
    "absolute": ("/etc/passwd", "an absolute path (outside the repository)"),
    "climbing": ("a/../../x", "climbs with '..'"),
    "dot": ("./x", "write it as 'x'"),
    "empty part": ("a//b", "write it as 'a/b'"),
    "trailing slash": ("a/", "write it as 'a'"),
    "backslash": ("a\\b.py", "backslash"),
    "empty": ("", "empty"),
    "nul": ("a\0b.py", "NUL"),
    "home": ("~/x", "home folder"),
    "lone surrogate": ("a\ud800.py", "no file name can have"),
}
GOOD = ["pkg/mod.py", "src/main/java/a/B.java", "docs été/mod ü.py", "x.py", "a/.hidden/b.py", "a/..b/c...py", "a/~b.py"]


def task(path: str, task_id: str = "t-1", repo: str = "tinyrepo") -> Task:
    span = Span(0, 1, Position(0, 0), Position(0, 1))
    return Task(task_id, repo, "python", path, Kind.INFILL, "expression", False, span, "", "x", "0" * 64, 1)


def answer(path: str) -> RecordedAnswer:
    return RecordedAnswer("t-1", "tinyrepo", path, "infill", 0, 0, "0" * 64, "0" * 64, "x", 1.0, "m")


def write(path: Path, records: list[dict[str, Any]]) -> None:
    """JSON lines with non-ASCII escaped, so that any string (a lone surrogate too) can be written."""
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="ascii")


# -- the spelling, when a file is read -------------------------------------------------------------


@pytest.mark.parametrize("path, reason", BAD.values(), ids=BAD.keys())
def test_a_task_path_that_may_leave_the_repository_is_refused_with_its_file_and_line(tmp_path: Path, path: str, reason: str) -> None:
    scenario = tmp_path / "s.jsonl"
    write(scenario, [task("pkg/ok.py").to_dict(), task(path, "t-2").to_dict()])
    with pytest.raises(PathRefused) as refused:
        read_tasks(scenario)
    message = str(refused.value)
    assert message.startswith(f"{scenario}:2: not a task record: field 'path' is {path!r}, "), message
    assert reason in message and "relative to the repository root" in message and "simpilot mark" in message
    assert "\n" not in message and refused.value.exit_status == 2


@pytest.mark.parametrize("path, reason", BAD.values(), ids=BAD.keys())
def test_a_recorded_answer_path_that_may_leave_the_repository_is_refused_with_its_file_and_line(
    tmp_path: Path, path: str, reason: str
) -> None:
    recording = tmp_path / "tinyrepo.jsonl"
    write(recording, [answer(path).to_dict()])
    with pytest.raises(PathRefused) as refused:
        read_recording_file(recording)
    message = str(refused.value)
    assert message.startswith(f"{recording}:1: not a recorded answer: field 'path' is {path!r}, "), message
    assert reason in message and "relative to the repository root" in message and refused.value.exit_status == 2


@pytest.mark.parametrize("path", GOOD)
def test_plain_relative_paths_are_read_back_as_written(tmp_path: Path, path: str) -> None:
    assert relative_path(path) == path
    write_tasks(tmp_path / "s.jsonl", [task(path)])
    assert [t.path for t in read_tasks(tmp_path / "s.jsonl")] == [path]
    write_recording_file(tmp_path / "r.jsonl", [answer(path)])
    assert [a.path for a in read_recording_file(tmp_path / "r.jsonl")] == [path]


def test_other_bad_fields_keep_their_exit_status(tmp_path: Path) -> None:
    """Only a path that may leave the repository is a refusal (2); a broken record stays an error (1)."""
    scenario = tmp_path / "s.jsonl"
    scenario.write_text('{"id": 1}\n')
    with pytest.raises(SimpilotError) as failed:
        read_tasks(scenario)
    assert not isinstance(failed.value, PathRefused) and failed.value.exit_status == 1


# -- where a path lands, in a checkout ---------------------------------------------------------------


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A repository with one file, a secret beside it outside, and links in and out."""
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("x = 1\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("secret = 1\n")
    (root / "pkg" / "leak.py").symlink_to(outside / "secret.py")
    (root / "lib").symlink_to(outside, target_is_directory=True)
    (root / "pkg" / "gone.py").symlink_to(outside / "missing.py")
    (root / "pkg" / "alias.py").symlink_to(Path("mod.py"))
    return root


@pytest.mark.parametrize("path", ["pkg/leak.py", "lib/secret.py", "pkg/gone.py"], ids=["file link", "folder link", "dangling link"])
def test_a_symlink_leading_out_of_the_repository_is_refused(checkout: Path, path: str) -> None:
    with pytest.raises(PathRefused) as refused:
        task_file(checkout, task(path, "t-9"))
    message = str(refused.value)
    assert message.startswith(f"task t-9 of repository tinyrepo: its file {path!r} resolves to ")
    assert f"outside the repository at {checkout}" in message and "replace the symlink" in message


def test_a_symlink_inside_the_repository_resolves_to_its_target(checkout: Path) -> None:
    assert task_file(checkout, task("pkg/alias.py")) == checkout / "pkg" / "mod.py"
    assert task_file(checkout, task("pkg/mod.py")).read_text() == "x = 1\n"


def test_a_folder_or_a_fifo_is_not_a_task_file(checkout: Path) -> None:
    with pytest.raises(PathRefused, match=r"task t-1 of repository tinyrepo: its file 'pkg' in .* is a folder, not a regular file"):
        task_file(checkout, task("pkg"))
    os.mkfifo(checkout / "pkg" / "pipe.py")
    with pytest.raises(PathRefused, match="is a special file, not a regular file"):
        task_file(checkout, task("pkg/pipe.py"))


@pytest.mark.parametrize("path", ["pkg/none.py", "pkg/mod.py/x.py"], ids=["missing", "under a file"])
def test_a_missing_file_points_at_the_checkout_not_at_the_record(checkout: Path, path: str) -> None:
    with pytest.raises(SimpilotError, match=f"'{path}' does not exist in .*: is --repo pointing at the right checkout") as failed:
        task_file(checkout, task(path))
    assert not isinstance(failed.value, PathRefused) and failed.value.exit_status == 1


def test_a_record_made_in_code_is_checked_where_it_is_resolved(checkout: Path) -> None:
    """A task not read from a file (built in code, stored) gets the spelling check too."""
    with pytest.raises(PathRefused, match=r"^where: field 'path' is '\.\./outside/secret\.py', a path that climbs"):
        file_in_repo(checkout, "../outside/secret.py", "where")


def test_the_evaluator_and_the_source_check_refuse_a_file_that_leaves_the_repository(tiny_repo: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.py"
    secret.write_text("secret = 1\n")
    (tiny_repo / "tiny" / "leak.py").symlink_to(secret)
    catalog = RepoCatalog([open_repository(tiny_repo)])
    leak = task("tiny/leak.py")
    with pytest.raises(PathRefused, match="task t-1 of repository tinyrepo: its file 'tiny/leak.py' resolves to"):
        check_sources([leak], catalog)
    with Evaluator(catalog, Sandbox.create(unsafe_no_sandbox=True)) as evaluator:
        with pytest.raises(PathRefused, match="outside the repository"):
            evaluator.original(leak)
        assert evaluator.original(task("tiny/stats.py")) == (tiny_repo / "tiny" / "stats.py").read_bytes()


# -- every accepted spelling stays inside ------------------------------------------------------------

PARTS = st.sampled_from(["a", "b c", "é", "..", ".", "", "~", "x.py", "...", "a\\b", "/"])
SPELLINGS = st.one_of(st.text(max_size=30), st.lists(PARTS, max_size=6).map("/".join))


@pytest.fixture(scope="module")
def empty_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("root")


@given(SPELLINGS)
def test_every_accepted_path_resolves_inside_the_root(empty_root: Path, path: str) -> None:
    try:
        relative_path(path)
    except UnsafePath:
        return
    base = os.path.realpath(empty_root)
    real = os.path.realpath(empty_root / path)
    assert real != base and os.path.commonpath([base, real]) == base
    with pytest.raises(SimpilotError) as failed:  # nothing is there: missing, never refused
        file_in_repo(empty_root, path, "t")
    assert not isinstance(failed.value, PathRefused)


def test_the_bundled_scenarios_and_recordings_are_all_accepted() -> None:
    """Every shipped scenario and recording names its files plainly (reading would refuse one
    that did not)."""
    folder = project_root() / "scenarios"
    files = sorted(folder.rglob("*.jsonl"))
    assert [t for p in files if "recordings" not in p.parts for t in read_tasks(p)]
    assert [a for p in files if "recordings" in p.parts for a in read_recording_file(p)]
