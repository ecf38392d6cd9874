"""Bad input gets one clear line and a non-zero exit, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import simpilot

pytestmark = pytest.mark.e2e


def one_line_error(result) -> str:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines and lines[-1].startswith("error:"), result.stderr
    return " ".join(lines)


def test_missing_repository_path(tmp_path: Path) -> None:
    assert "does not exist" in one_line_error(simpilot("mark", str(tmp_path / "nope"), "--out", str(tmp_path)))


def test_missing_scenario_file(tmp_path: Path) -> None:
    r = simpilot("replay", str(tmp_path / "none.jsonl"), "--model", "oracle")
    assert r.returncode == 2 and "does not exist" in r.stderr and "Traceback" not in r.stderr


def test_unknown_model(tmp_path: Path) -> None:
    from tests.conftest import bundled_tasks  # noqa: F401  (import check only)

    scenario = tmp_path / "s.jsonl"
    scenario.write_text("")
    assert "no tasks" in one_line_error(simpilot("replay", str(scenario), "--model", "oracle"))


def test_corrupt_scenario_line(tmp_path: Path) -> None:
    scenario = tmp_path / "s.jsonl"
    scenario.write_text('{"id": 1}\n')
    assert "s.jsonl:1: not a task record" in one_line_error(simpilot("replay", str(scenario), "--model", "oracle"))


def test_report_without_database(tmp_path: Path) -> None:
    assert "no results database" in one_line_error(simpilot("--db", str(tmp_path / "x.db"), "report"))


def test_bad_files_are_skipped_with_a_reason(tiny_repo: Path, tmp_path: Path) -> None:
    (tiny_repo / "tiny" / "broken.py").write_text("def f(:\n    pass\n")
    (tiny_repo / "tiny" / "latin1.py").write_bytes("x = 'caf\xe9'\n".encode("latin-1"))
    r = simpilot("mark", str(tiny_repo), "--out", str(tmp_path), "--per-kind", "1")
    assert r.returncode == 0, r.stderr
    assert "skipped tiny/broken.py: syntax error near line 1" in r.stderr
    assert "skipped tiny/latin1.py: not UTF-8" in r.stderr


def test_failing_suite_on_untouched_code(tiny_repo: Path, tmp_path: Path) -> None:
    (tiny_repo / "tests" / "test_broken.py").write_text("def test_fails():\n    assert 1 == 2\n")
    msg = one_line_error(simpilot("mark", str(tiny_repo), "--out", str(tmp_path)))
    assert "tinyrepo: the tests fail on the untouched code" in msg


def test_repository_without_sources(tmp_path: Path) -> None:
    repo = tmp_path / "empty"
    (repo / "src").mkdir(parents=True)
    (repo / "simpilot.toml").write_text('[repository]\nname = "empty"\nsources = ["src"]\ntest_command = ["true"]\n')
    assert "no python source files" in one_line_error(simpilot("mark", str(repo), "--out", str(tmp_path)))


def test_hanging_test_on_untouched_code(tiny_repo: Path, tmp_path: Path) -> None:
    toml = tiny_repo / "simpilot.toml"
    toml.write_text(toml.read_text().replace("timeout = 30", "timeout = 3"))
    (tiny_repo / "tests" / "test_hangs.py").write_text("import time\n\ndef test_hangs():\n    time.sleep(3600)\n")
    msg = one_line_error(simpilot("mark", str(tiny_repo), "--out", str(tmp_path)))
    assert "tinyrepo: the test suite did not finish within 3 s" in msg and "hanging test" in msg and "timeout" in msg


def test_repository_without_tests(tiny_repo: Path, tmp_path: Path) -> None:
    (tiny_repo / "tests" / "test_stats.py").unlink()
    msg = one_line_error(simpilot("mark", str(tiny_repo), "--out", str(tmp_path)))
    assert "tinyrepo: the test command ran no tests" in msg and "add tests" in msg
