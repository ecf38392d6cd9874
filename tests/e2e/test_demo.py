"""``simpilot demo``, the README's first command, end to end on the bundled set."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from replay.config.manifest import project_root
from replay.core.recordings import read_recordings
from tests.conftest import bundled_tasks, devbench_tasks
from tests.test_log_files import logs_are_safe, new_files

from .conftest import simpilot

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.mark.timeout(1800)  # the demo takes minutes, more on a shared machine
def test_demo_measures_the_bundled_set_and_says_how_long_it_takes(tmp_path: Path) -> None:
    """The demo as a user runs it (no --db: ``runs/`` in the current folder); then a replay in the
    same folder: neither leaves any file outside ``runs/``, and their logs have safe names."""
    db = tmp_path / "runs" / "simpilot.db"
    result = simpilot("demo", cwd=tmp_path, timeout=1200)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "verdicts in all" in result.stderr and "left" in result.stderr  # an estimate of the time left
    assert (db.parent / "demo-report.html").is_file()
    assert len(result.stdout.splitlines()) <= 80 and "full report" in result.stdout  # a summary; the tables with --verbose
    tasks = bundled_tasks()
    recorded = {a.task_id for a in read_recordings(project_root() / "scenarios" / "recordings" / "smollm2")}
    with sqlite3.connect(db) as con:

        def statuses(run: str) -> list[str]:
            return [s for (s,) in con.execute("SELECT status FROM outcomes WHERE run_id=?", (run,))]

        oracle, empty, smollm2 = statuses("demo-oracle"), statuses("demo-empty"), statuses("demo-smollm2")
        devbench_oracle, devbench_empty = statuses("demo-devbench-oracle"), statuses("demo-devbench-empty")
        repositories = {
            task.split(":", 1)[0] for (task,) in con.execute("SELECT task_id FROM outcomes WHERE run_id='demo-devbench-oracle'")
        }
        finished = {r for (r,) in con.execute("SELECT run_id FROM runs WHERE finished IS NOT NULL")}
        models = dict(
            con.execute(
                "SELECT run_id, AVG(status = 'pass') FROM outcomes WHERE run_id LIKE 'demo-devbench-%' AND postprocess = 'none' GROUP BY run_id"
            )
        )
        samples = {r for (r,) in con.execute("SELECT DISTINCT sample FROM outcomes WHERE run_id = 'demo-devbench-claude-4-sonnet'")}
    assert len(oracle) == len(tasks) and set(oracle) == {"pass"}
    assert len(empty) == len(tasks) and "pass" not in empty
    assert len(smollm2) == 4 * len(recorded & {t.id for t in tasks})
    # the bundled DevBench sample: single programs in five languages, validated like the rest
    programs = devbench_tasks()
    assert len(devbench_oracle) == len(programs) and set(devbench_oracle) == {"pass"}
    assert len(devbench_empty) == len(programs) and "pass" not in devbench_empty
    assert repositories == {f"devbench-{language}" for language in ("python", "java", "javascript", "typescript", "cpp")}
    recorded_models = {f"demo-devbench-{m}" for m in ("claude-4-sonnet", "gpt-4.1-mini", "Ministral-3B")}
    assert finished == {"demo-oracle", "demo-empty", "demo-smollm2", "demo-devbench-oracle", "demo-devbench-empty"} | recorded_models
    # real models that pass, every sample judged, next to SmolLM2 that does not
    assert samples == {0, 1, 2, 3, 4}
    assert all(models[m] > 0.3 for m in recorded_models) and models["demo-devbench-claude-4-sonnet"] > models["demo-devbench-Ministral-3B"]
    assert "DevBench sample, models DevBench recorded" in result.stdout and (db.parent / "demo-models.html").is_file()
    replayed = simpilot("replay", str(project_root() / "scenarios" / "textindex.jsonl"), "--model", "empty", cwd=tmp_path, timeout=600)
    assert replayed.returncode == 0, replayed.stderr[-3000:]
    assert new_files(tmp_path, set()) == []
    logs_are_safe(tmp_path / "runs")
