"""The error taxonomy, the paired comparison and the store's metric columns, on known inputs."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from replay.core.records import Kind, Outcome, Position, Span, Status, Task
from replay.reports.comparison import Series, compare
from replay.reports.strata import cutoffs
from replay.reports.taxonomy import CLASSES, taxonomy, undefined_source
from replay.scoring.similarity import similarity
from replay.scoring.stats import mcnemar_exact
from replay.store import METRIC_COLUMNS, RunInfo, Store


def task(i: int, repo: str = "r", truth: str = "total += x") -> Task:
    span = Span(0, 1, Position(i, 0), Position(i, 1))
    return Task(f"t{i}", repo, "python", "a.py", Kind.INFILL, "loop_body", True, span, "    ", truth, "0" * 64, 1, ("loop_body",), 3, 5)


def test_taxonomy_counts_and_shares() -> None:
    outcomes = [Outcome("a", "p", "x", Status.PASS), Outcome("b", "p", "x(", Status.SYNTAX_ERROR),
                Outcome("c", "p", "y", Status.UNDEFINED_NAME, "undefined: y"),
                Outcome("d", "p", "z", Status.UNDEFINED_NAME, "E   NameError: name 'z' is not defined"),
                Outcome("e", "p", None, Status.MODEL_ERROR)]
    t = taxonomy(outcomes)
    assert (t.total, t.passed, t.failures) == (5, 1, 4)
    by = {k.status: k for k in t.classes}
    assert [k.label for k in t.classes] == list(CLASSES.values())  # every class, in order, zeros included
    assert by["undefined_name"].count == 2 and by["undefined_name"].share == 0.4 and by["undefined_name"].share_of_failures == 0.5
    assert by["timeout"].count == 0
    assert t.undefined_sources == {"static analysis": 1, "NameError": 1}


def test_undefined_source_from_javac() -> None:
    o = Outcome("a", "p", "q", Status.UNDEFINED_NAME, "Foo.java:3: error: cannot find symbol")
    assert undefined_source(o) == "cannot find symbol"


def test_comparison_pairs_by_task_id_and_lists_flips() -> None:
    tasks = [task(i, repo="a" if i < 6 else "b") for i in range(10)]
    first = {t.id: Outcome(t.id, "none", "", Status.PASS if i < 3 else Status.INDENTATION_ERROR) for i, t in enumerate(tasks)}
    second = {t.id: Outcome(t.id, "simcopilot", "", Status.PASS if i < 8 and i != 1 else Status.FAIL) for i, t in enumerate(tasks)}
    del second["t9"]  # only the first series has it: counted, never compared
    c = compare(Series("r1", "m", "none"), Series("r1", "m", "simcopilot"), tasks, first, second, cutoffs(tasks))
    assert (c.paired, c.only_in_first, c.only_in_second) == (9, 1, 0)
    overall = c.strata[0]
    assert (overall.dimension, overall.n, overall.passed_first, overall.passed_second) == ("all", 9, 3, 7)
    assert (overall.only_first, overall.only_second) == (1, 5)
    assert overall.p_value == mcnemar_exact(1, 5) and overall.difference == pytest.approx(4 / 9)
    repo_a = next(s for s in c.strata if (s.dimension, s.value) == ("repository", "a"))
    assert (repo_a.n, repo_a.only_first, repo_a.only_second, repo_a.small) == (6, 1, 3, True)
    assert [f.task_id for f in c.flips] == ["t1", "t3", "t4", "t5", "t6", "t7"]
    assert ("indentation_error", "pass", 5) in c.status_changes and ("pass", "fail", 1) in c.status_changes
    assert "newly pass" in c.summary and "5 tasks newly pass, 1 newly fail" in c.summary


def _old_database(path: Path) -> None:
    """A results database as simpilot wrote it before outcomes had metric columns."""
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE runs (run_id TEXT PRIMARY KEY, created TEXT NOT NULL, tool_version TEXT NOT NULL, model TEXT NOT NULL,
            model_spec TEXT NOT NULL, presets TEXT NOT NULL, scenarios TEXT NOT NULL, scenario_hash TEXT NOT NULL,
            sandbox TEXT NOT NULL, finished TEXT);
        CREATE TABLE tasks (run_id TEXT NOT NULL, task_id TEXT NOT NULL, task TEXT NOT NULL, PRIMARY KEY (run_id, task_id));
        CREATE TABLE outcomes (run_id TEXT NOT NULL, task_id TEXT NOT NULL, postprocess TEXT NOT NULL, processed TEXT,
            status TEXT NOT NULL, detail TEXT NOT NULL, duration_s REAL NOT NULL, output_tail TEXT NOT NULL,
            steps TEXT NOT NULL, created TEXT NOT NULL, PRIMARY KEY (run_id, task_id, postprocess));
    """)
    con.execute("INSERT INTO runs VALUES ('old','2026-01-01','0','m','{}','[\"none\"]','[]','h','bwrap',NULL)")
    con.execute("INSERT INTO tasks VALUES ('old','t1',?)", (json.dumps(task(1).to_dict()),))
    con.execute("INSERT INTO outcomes VALUES ('old','t1','none','total += y','fail','',0.1,'','[]','2026-01-01')")
    con.commit()
    con.close()


def test_old_database_is_migrated_and_backfilled(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    _old_database(db)
    store = Store(db)
    columns = {r[1] for r in store.db.execute("PRAGMA table_info(outcomes)")}
    assert {name for name, _ in METRIC_COLUMNS} <= columns
    assert store.metrics("old") == {}
    assert store.backfill_metrics("old") == 1 and store.backfill_metrics("old") == 0
    assert store.metrics("old") == {("t1", "none"): similarity("total += y", "total += x", "python")}
    store.close()
    Store(db).close()  # opening a migrated database again changes nothing


def test_new_outcomes_are_stored_with_their_metrics(tmp_path: Path) -> None:
    store = Store(tmp_path / "new.db")
    store.create_run(RunInfo("r", "2026-01-01", "0", "m", {}, ("none",), (), "h", "bwrap", None), [task(1)])
    store.add_outcome("r", Outcome("t1", "none", "total += x", Status.PASS))
    store.add_outcome("r", Outcome("t9", "none", "zzz", Status.FAIL))  # its task is not stored: no metrics
    assert store.metrics("r") == {("t1", "none"): similarity("total += x", "total += x", "python")}
    assert len(store.outcomes("r")) == 2
    store.close()


def test_prompt_excerpt_marks_the_cursor_and_hides_what_a_completion_cannot_see() -> None:
    from replay.reports.report_source import CURSOR_MARK, prompt_excerpt

    original = b"def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n"
    start = original.index(b"total += x")
    end = start + len(b"total += x")
    span = Span(start, end, Position(3, 8), Position(3, 18))
    infill = Task("t", "r", "python", "a.py", Kind.INFILL, "loop_body", True, span, "        ", "total += x", "0" * 64, 1)
    assert prompt_excerpt(infill, original) == (
        f"def f(xs):\n    total = 0\n    for x in xs:\n        {CURSOR_MARK}\n    return total\n")
    completion = Task("t", "r", "python", "a.py", Kind.COMPLETION, "block_rest", True, span, "        ", "total += x", "0" * 64, 1)
    assert prompt_excerpt(completion, original) == f"def f(xs):\n    total = 0\n    for x in xs:\n        {CURSOR_MARK}"
    assert prompt_excerpt(infill, original, before=1, after=0) == f"    for x in xs:\n        {CURSOR_MARK}"
    assert prompt_excerpt(infill, None) is None
