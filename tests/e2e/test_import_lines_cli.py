"""``simpilot import lines`` end to end: holes given by the lines of bundled minisql tasks go through
the real command line and gate, and come out as the same validated tasks (selected tests and
validation included); a hole that cannot be one is reported and skipped."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from replay.config.manifest import project_root
from replay.core.scenarios import read_tasks

from .conftest import simpilot

pytestmark = pytest.mark.e2e


@pytest.mark.slow
def test_import_lines_validates_like_mark(tmp_path: Path) -> None:
    root = project_root()
    marked = read_tasks(root / "scenarios" / "minisql.jsonl")
    chosen = [
        next(t for t in marked if t.construct == "if_condition"),
        next(t for t in marked if t.construct == "if_body"),
        next(t for t in marked if t.kind.value == "completion"),
    ]
    holes = [
        {"file": t.path, "kind": t.kind.value, "first_line": t.span.start.line + 1, "last_line": t.span.end.line + 1} for t in chosen
    ]
    holes.append({"file": "tests/test_queries.py", "kind": "infill", "first_line": 1, "last_line": 2})
    holes_file = tmp_path / "holes.json"
    holes_file.write_text(json.dumps(holes))
    out = tmp_path / "scenarios"
    done = simpilot("import", "lines", str(holes_file), "--repo", str(root / "repos" / "minisql"), "--out", str(out), "--jobs", "2", timeout=120)
    assert done.returncode == 0, done.stderr
    assert "tests/test_queries.py is a test file" in done.stderr
    assert "4 holes, 1 skipped; 3 candidates, 3 kept" in done.stderr
    assert read_tasks(out / "minisql.jsonl") == chosen
    assert "minisql" in json.loads((out / "repositories.json").read_text())


def test_import_lines_with_nothing_to_keep_is_an_error(tmp_path: Path) -> None:
    holes_file = tmp_path / "holes.jsonl"
    holes_file.write_text(json.dumps({"file": "minisql/engine.py", "kind": "infill", "first_line": 9000, "last_line": 9000}) + "\n")
    repo = project_root() / "repos" / "minisql"
    done = simpilot("import", "lines", str(holes_file), "--repo", str(repo), "--out", str(tmp_path / "out"), timeout=120)
    assert done.returncode == 1
    assert "out of it" in done.stderr and "no task kept" in done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_import_lines_on_a_program_tested_by_its_output(tmp_path: Path) -> None:
    """A repository without tests, whose program's output is compared: a hole whose filler still
    prints the same output is dropped by the gate, the others are kept, and the oracle passes
    them while the empty answer fails them."""
    program = project_root() / "tests" / "data" / "fixtures" / "outputprog"
    holes = [
        {"file": "main.py", "kind": "infill", "first_line": 54, "last_line": 54, "id": "neutral-strip"},  # word = word.strip()
        {"file": "main.py", "kind": "infill", "first_line": 39, "last_line": 41, "id": "gcd-body"},
        {"file": "main.py", "kind": "completion", "first_line": 47, "last_line": 47, "id": "lcm-return"},
    ]
    holes_file = tmp_path / "holes.jsonl"
    holes_file.write_text("".join(json.dumps(h) + "\n" for h in holes))
    out = tmp_path / "scenarios"
    done = simpilot("import", "lines", str(holes_file), "--repo", str(program), "--out", str(out), "--jobs", "2", timeout=120)
    assert done.returncode == 0, done.stderr
    assert "tests pass with the hole filled by 'pass'" in done.stderr
    kept = read_tasks(out / "outputprog.jsonl")
    assert {t.id for t in kept} == {"gcd-body", "lcm-return"}
    db = tmp_path / "runs.db"
    for model in ("oracle", "empty"):
        r = simpilot("--db", str(db), "replay", str(out / "outputprog.jsonl"), "--model", model, "--run", model, "-p", "none", timeout=120)
        assert r.returncode == 0, r.stderr
    with sqlite3.connect(db) as con:
        outcomes = dict(con.execute("SELECT run_id, COUNT(*) || '/' || SUM(status = 'pass') FROM outcomes GROUP BY run_id"))
    assert outcomes == {"oracle": "2/2", "empty": "2/0"}  # outcomes / passes
