"""Test selection for Python (per-test coverage contexts) and the mark options around it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay.config.manifest import open_repository
from replay.core.records import Kind, Position, Span, Task
from replay.environments.commands import selected_command, suite_env
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.validation.selection import coverage_command, python_selection

from .conftest import simpilot

pytestmark = pytest.mark.e2e


def _lines_task(first: int, last: int) -> Task:
    span = Span(0, 1, Position(first - 1, 0), Position(last - 1, 1))
    return Task("t", "tinyrepo", "python", "tiny/stats.py", Kind.INFILL, "statements", True, span, "", "x", "", 1)


def test_coverage_selects_the_tests_that_execute_a_hole(tiny_repo: Path) -> None:
    manifest = open_repository(tiny_repo)
    selection = python_selection(manifest, Sandbox.create())
    source = (tiny_repo / "tiny/stats.py").read_text().splitlines()
    line = source.index("        total += v") + 1
    chosen = selection.tests_for(_lines_task(line, line))
    # mean() runs for test_mean and, through spread(), for test_spread; never for test_histogram
    assert "tests/test_stats.py::test_mean" in chosen and "tests/test_stats.py::test_spread" in chosen
    assert not any("histogram" in t for t in chosen)
    assert selection.tests_for(_lines_task(1, 1)) == ()  # the docstring line runs at import, in no test


def test_a_parametrized_id_with_a_pipe_is_selected_whole(tiny_repo: Path) -> None:
    """Coverage names a line's contexts ``NODEID|PHASE``: the node id is everything before the
    last ``|``, which a parametrized id may contain."""
    (tiny_repo / "tests/test_pipes.py").write_text(
        "import pytest\n\nfrom tiny.stats import mean\n\n\n"
        '@pytest.mark.parametrize("values", [[1, 2]], ids=["a|b"])\n'
        "def test_piped(values):\n    assert mean(values) == 1.5\n"
    )
    selection = python_selection(open_repository(tiny_repo), Sandbox.create())
    line = (tiny_repo / "tiny/stats.py").read_text().splitlines().index("        total += v") + 1
    chosen = selection.tests_for(_lines_task(line, line))
    assert "tests/test_pipes.py::test_piped[a|b]" in chosen and not any(t.endswith("[a") for t in chosen)


def test_coverage_command_drops_exitfirst_and_adds_contexts(tiny_repo: Path) -> None:
    argv = coverage_command(open_repository(tiny_repo))
    assert "-x" not in argv and "--cov-context=test" in argv and "--cov=tiny" in argv
    assert argv[argv.index("pytest") + 1 : argv.index("pytest") + 3] == ["-p", "pytest_cov"]


def test_select_runs_the_files_of_the_selected_tests_and_deselects_the_rest(tiny_repo: Path) -> None:
    import subprocess

    manifest = open_repository(tiny_repo)
    selected = selected_command(manifest, ("tests/test_stats.py::test_mean", "tests/test_stats.py::test_spread"))
    assert selected is not None
    argv, env = selected
    assert argv[-1] == "tests/test_stats.py" and "tests" not in argv and "replay.execution.inside.pytest_select" in argv
    r = subprocess.run(argv, cwd=tiny_repo, env={**__import__("os").environ, **suite_env(manifest), **env}, capture_output=True, text=True)
    assert r.returncode == 0 and "2 passed" in r.stdout and "deselected" in r.stdout, r.stdout


def _mark(repo: Path, out: Path, *extra: str) -> list[dict]:
    r = simpilot("mark", str(repo), "--out", str(out), "--jobs", "2", *extra)
    assert r.returncode == 0, r.stderr
    return [json.loads(line) for line in (out / "tinyrepo.jsonl").read_text().splitlines()]


T = "tests/test_stats.py::test_"
# The six holes seed 7 picks in tiny/stats.py, by (construct, first line, last line), with the tests
# that execute them and their labels, worked out by hand from the source: mean() runs in test_mean,
# test_mean_empty and (through spread) test_spread, its raise only in test_mean_empty, and
# clamp_scores only in test_clamp.
SEED_7_TASKS = {
    ("if_condition", 10, 10): ([T + "mean", T + "mean_empty", T + "spread"], ["if_condition", "local_variable"]),  # not values
    ("if_body", 11, 11): ([T + "mean_empty"], ["if_body"]),  # raise ValueError(…): a builtin is no library
    ("block_rest", 11, 11): ([T + "mean_empty"], ["if_body"]),
    ("function_rest", 20, 27): ([T + "clamp"], ["if_body", "if_condition", "local_variable", "loop_body"]),  # the whole for loop
    ("block_rest", 22, 22): ([T + "clamp"], ["if_body", "local_variable"]),  # result.append(low)
    ("else_body", 26, 26): ([T + "clamp"], ["if_body", "local_variable"]),  # result.append(v): v is the loop's
}


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_mark_is_byte_identical_for_a_seed_and_stores_selected_tests(tiny_repo: Path, tmp_path: Path) -> None:
    first = _mark(tiny_repo, tmp_path / "a", "--seed", "7", "--per-kind", "3")
    _mark(tiny_repo, tmp_path / "b", "--seed", "7", "--per-kind", "3")
    assert (tmp_path / "a" / "tinyrepo.jsonl").read_bytes() == (tmp_path / "b" / "tinyrepo.jsonl").read_bytes()
    found = {(t["construct"], t["span"]["start"]["line"] + 1, t["span"]["end"]["line"] + 1): (t["tests"], t["labels"]) for t in first}
    assert found == SEED_7_TASKS
    assert all(t["validation"]["filler_fails"] for t in first)


@pytest.mark.slow
def test_mark_options_kinds_cap_and_full_suite(tiny_repo: Path, tmp_path: Path) -> None:
    only = _mark(tiny_repo, tmp_path / "k", "--kinds", "completion", "--max-per-file", "2", "--full-suite")
    assert only and {t["kind"] for t in only} == {"completion"}
    assert len(only) <= 2 * 2  # two source files at most two each
    assert all(t["tests"] is None for t in only)
    r = simpilot("mark", str(tiny_repo), "--out", str(tmp_path / "j"), "--languages", "java")
    assert r.returncode == 0 and "skipped (python is not among --languages java)" in r.stderr
    assert not (tmp_path / "j" / "tinyrepo.jsonl").exists()
