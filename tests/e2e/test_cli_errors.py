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
    # the error is one line; only indented details (the command, its output's tail) may follow
    at = max((i for i, line in enumerate(lines) if line.startswith("error:")), default=-1)
    assert at >= 0 and all(line.startswith("  ") for line in lines[at + 1:]), result.stderr
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


# -- the first ten minutes ----------------------------------------------------------------------


def _tiny(tmp_path: Path, tiny_repo: Path) -> Path:
    from tests.conftest import tiny_scenario

    tasks, path = tiny_scenario(tiny_repo, tmp_path / "scenarios", per_kind=1)
    return path


def test_resume_of_a_run_that_does_not_exist_is_refused(tmp_path: Path, tiny_repo: Path) -> None:
    scenario = _tiny(tmp_path, tiny_repo)
    db = str(tmp_path / "runs.db")
    base = ("--db", db, "replay", str(scenario), "--model", "oracle", "--repo", str(tiny_repo), "-p", "none")
    assert "no run 'nope'" in one_line_error(simpilot(*base, "--run", "nope", "--resume"))
    assert "name it with --run" in one_line_error(simpilot(*base, "--resume"))


def test_a_replay_whose_every_request_failed_exits_non_zero(tmp_path: Path, tiny_repo: Path) -> None:
    import socket

    with socket.socket() as s:  # a port where nothing listens: every request is refused at once
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    models = tmp_path / "models.toml"
    models.write_text(f'[models.down]\nkind = "openai-chat"\nbase_url = "http://127.0.0.1:{port}/v1"\nmodel = "m"\nretries = 0\n')
    scenario = _tiny(tmp_path, tiny_repo)
    r = simpilot("--db", str(tmp_path / "runs.db"), "replay", str(scenario), "--model", "down", "--models", str(models),
                 "--repo", str(tiny_repo), "-p", "none", "--run", "down")
    assert "every model request of run 'down' failed" in one_line_error(r)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("models = 3\n", "models.toml: models: expected tables, one per model: [models.NAME]"),
        ('[models]\nqwen = "openai-chat"\n', "models.toml: models.qwen: expected a table of settings, got 'openai-chat'; write [models.qwen] then kind"),
    ],
    ids=["models-not-a-table", "model-not-a-table"],
)
def test_models_file_of_the_wrong_shape(tmp_path: Path, text: str, expected: str) -> None:
    models = tmp_path / "models.toml"
    models.write_text(text)
    scenario = tmp_path / "s.jsonl"
    scenario.write_text("")
    from lsp_bridge.models.resolve import resolve_model
    from replay.core.errors import SimpilotError

    with pytest.raises(SimpilotError, match=expected.replace("[", r"\[").replace("]", r"\]")):
        resolve_model("qwen", models, [])


def test_reports_go_into_folders_that_do_not_exist_yet(tmp_path: Path, tiny_repo: Path) -> None:
    scenario = _tiny(tmp_path, tiny_repo)
    db = str(tmp_path / "runs.db")
    r = simpilot("--db", db, "replay", str(scenario), "--model", "oracle", "--repo", str(tiny_repo), "-p", "none", "--run", "r")
    assert r.returncode == 0, r.stderr
    html, js = tmp_path / "new" / "deeper" / "r.html", tmp_path / "other" / "r.json"
    r = simpilot("--db", db, "report", "r", "--html", str(html), "--json", str(js))
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert html.stat().st_size > 0 and js.stat().st_size > 0
