"""Several answers per request in the results store: the sample number is part of the key of
completions and outcomes, and databases made before samples existed are migrated in place."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from replay.core.records import Completion, Outcome, Status
from replay.store import Store

OLD_SCHEMA = """
CREATE TABLE runs (run_id TEXT PRIMARY KEY, created TEXT NOT NULL, tool_version TEXT NOT NULL, model TEXT NOT NULL,
    model_spec TEXT NOT NULL, presets TEXT NOT NULL, scenarios TEXT NOT NULL, scenario_hash TEXT NOT NULL,
    sandbox TEXT NOT NULL, finished TEXT);
CREATE TABLE tasks (run_id TEXT NOT NULL, task_id TEXT NOT NULL, task TEXT NOT NULL, PRIMARY KEY (run_id, task_id));
CREATE TABLE completions (run_id TEXT NOT NULL, task_id TEXT NOT NULL, raw TEXT, error TEXT, latency_ms REAL NOT NULL,
    request TEXT NOT NULL, created TEXT NOT NULL, PRIMARY KEY (run_id, task_id));
CREATE TABLE outcomes (run_id TEXT NOT NULL, task_id TEXT NOT NULL, postprocess TEXT NOT NULL, processed TEXT,
    status TEXT NOT NULL, detail TEXT NOT NULL, duration_s REAL NOT NULL, output_tail TEXT NOT NULL,
    steps TEXT NOT NULL, created TEXT NOT NULL, PRIMARY KEY (run_id, task_id, postprocess));
INSERT INTO completions VALUES ('r', 't1', 'x = 1', NULL, 12.0, '{}', '2026-01-01');
INSERT INTO outcomes VALUES ('r', 't1', 'none', 'x = 1', 'pass', '', 0.5, '', '[]', '2026-01-01');
"""


def test_an_old_database_gets_samples_and_keeps_its_rows(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    with sqlite3.connect(db) as con:
        con.executescript(OLD_SCHEMA)
    store = Store(db)
    try:
        assert store.completions("r") == {"t1": Completion("t1", "x = 1", None, 12.0, {}, 0)}
        assert store.outcomes("r") == [Outcome("t1", "none", "x = 1", Status.PASS, "", 0.5, "", (), 0)]
        store.add_outcome("r", Outcome("t1", "none", "x = 2", Status.FAIL, sample=1))  # a second sample now has a place
        assert [o.sample for o in store.outcomes("r", sample=None)] == [0, 1]
        assert store.outcome_keys("r") == {("t1", "none", 0), ("t1", "none", 1)}
    finally:
        store.close()
    with sqlite3.connect(db) as con:
        keys = [row[1] for row in con.execute("PRAGMA table_info(outcomes)") if row[5]]
    assert keys == ["run_id", "task_id", "postprocess", "sample"]
    Store(db).close()  # a second open changes nothing


def test_the_answers_to_one_request_are_stored_together(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    try:
        store.add_completions("r", [Completion("t", f"a{i}", sample=i) for i in range(3)])
        assert [c.raw for c in store.samples("r")["t"]] == ["a0", "a1", "a2"]
        assert store.completions("r")["t"].raw == "a0"  # the first suggestion
        store.add_completions("r", [Completion("t", None, "model_error: timeout")])  # re-asked: fewer answers now
        assert [(c.sample, c.error) for c in store.samples("r")["t"]] == [(0, "model_error: timeout")]
    finally:
        store.close()


def test_pass_at_k_of_a_report_is_recomputed_from_every_sample() -> None:
    from replay.reports.report_build import sample_summary

    rows = [Outcome("a", "none", "x", Status.PASS if i < 2 else Status.FAIL, sample=i) for i in range(5)]
    rows += [Outcome("b", "none", "x", Status.FAIL, sample=i) for i in range(5)]
    rows += [Outcome("a", "other", "x", Status.PASS, sample=i) for i in range(5)]  # another preset: not counted
    summary = sample_summary(rows, "none", {"a", "b"})
    assert summary is not None and (summary.n, summary.tasks) == (5, 2)
    assert summary.pass_at_1 == (2 / 5 + 0) / 2 and summary.pass_at_n == (1 + 0) / 2
    assert summary.low <= summary.pass_at_1 <= summary.high
    assert sample_summary(rows[:1] + rows[5:6], "none", {"a", "b"}) is None  # one sample per task: nothing to add


def test_one_outcome_per_run_task_preset_and_sample_the_latest_kept(tmp_path: Path) -> None:
    """The store's uniqueness: a unit judged again (a re-asked model error, a resume) replaces its
    outcome instead of adding a second row that every figure would count twice."""
    store = Store(tmp_path / "s.db")
    try:
        store.add_outcome("r", Outcome("t", "none", None, Status.MODEL_ERROR, "model_error: timeout"))
        store.add_outcome("r", Outcome("t", "none", "x = 1", Status.PASS))  # the request asked again
        store.add_outcome("r", Outcome("t", "none", "x = 2", Status.FAIL, sample=1))
        store.add_outcome("r", Outcome("t", "ide", "x = 1", Status.PASS))
        store.add_outcome("r2", Outcome("t", "none", "x = 3", Status.FAIL))
        rows = sorted((o.postprocess, o.sample, o.processed, o.status) for o in store.outcomes("r", sample=None))
        assert rows == [("ide", 0, "x = 1", Status.PASS), ("none", 0, "x = 1", Status.PASS), ("none", 1, "x = 2", Status.FAIL)]
        assert [(o.processed, o.status) for o in store.outcomes("r2")] == [("x = 3", Status.FAIL)]
        assert store.db.execute("SELECT count(*) FROM outcomes").fetchone() == (4,)
    finally:
        store.close()
