"""Model output the results store must keep exactly: lone surrogates (which some model servers put
in their JSON) cannot be SQLite text, yet every answer is stored and read back as the same ``str``,
and databases written before hold plain text that still reads as it is."""

from __future__ import annotations

import json
import sqlite3
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from replay.core.records import Completion, Outcome, Status
from replay.store import Store

ODD = "a\ud800b\udfff c \U0001f600 d\x00e \udfff\ud800 \ud83d\ude00"  # lone and reversed surrogates, an emoji, NUL


def test_lone_surrogates_are_stored_and_read_back(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    try:
        store.add_completions("r", [Completion("t", ODD, sample=0), Completion("t", None, "model_error: " + ODD, sample=1)])
        outcome = Outcome("t", "none", ODD + "!", Status.FAIL, "detail " + ODD, 0.5, "tail " + ODD, ("s",))
        store.add_outcome("r", outcome)
        assert [(c.raw, c.error) for c in store.samples("r")["t"]] == [(ODD, None), (None, "model_error: " + ODD)]
        assert store.outcomes("r") == [outcome]
    finally:
        store.close()
    reopened = Store(tmp_path / "s.db")  # what --resume does
    try:
        assert reopened.completions("r")["t"].raw == ODD
        assert reopened.outcomes("r") == [outcome]
        assert reopened.outcome_keys("r") == {("t", "none", 0)}
    finally:
        reopened.close()


def test_valid_text_stays_plain_sqlite_text(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    try:
        store.add_completion("r", Completion("t", "x = '\U0001f600'\x00"))
        store.add_outcome("r", Outcome("t", "none", "x = 1", Status.PASS, "ok", output_tail="tail"))
    finally:
        store.close()
    with sqlite3.connect(tmp_path / "s.db") as con:
        assert con.execute("SELECT typeof(raw) FROM completions").fetchone() == ("text",)
        assert con.execute("SELECT typeof(processed), typeof(detail), typeof(output_tail) FROM outcomes").fetchone() == ("text",) * 3


def test_a_database_written_before_still_reads(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    Store(db).close()
    with sqlite3.connect(db) as con:  # rows as earlier versions wrote them: plain text
        con.execute(
            "INSERT INTO completions (run_id, task_id, raw, error, latency_ms, request, created) VALUES (?,?,?,?,?,?,?)",
            ("r", "t", "x = '\U0001f600'", None, 3.0, "{}", "2026-01-01"),
        )
        con.execute(
            "INSERT INTO outcomes (run_id, task_id, postprocess, processed, status, detail, duration_s, output_tail, steps, created)"
            " VALUES (?,?,?,?,?,?,?,?,?,?)",
            ("r", "t", "none", "x = 1", "pass", "é", 0.5, "ok", "[]", "2026-01-01"),
        )
    store = Store(db)
    try:
        assert store.completions("r") == {"t": Completion("t", "x = '\U0001f600'", None, 3.0, {}, 0)}
        assert store.outcomes("r") == [Outcome("t", "none", "x = 1", Status.PASS, "é", 0.5, "ok", (), 0)]
    finally:
        store.close()


def test_metrics_are_filled_in_from_a_stored_answer_with_surrogates(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    try:
        store.add_outcome("r", Outcome("t", "none", ODD, Status.FAIL))  # before its task is stored: no metrics
        store.db.execute("INSERT INTO tasks VALUES (?,?,?)", ("r", "t", json.dumps({"ground_truth": "x = 1", "language": "python"})))
        assert store.backfill_metrics("r") == 1
        assert ("t", "none") in store.metrics("r")
        assert store.outcomes("r")[0].processed == ODD
    finally:
        store.close()


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec=None)), st.text(alphabet=st.characters(codec=None)))
def test_any_python_text_round_trips(raw: str, processed: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "s.db")
        try:
            store.add_completion("r", Completion("t", raw, raw))
            outcome = Outcome("t", "none", processed, Status.FAIL, raw, 0.0, processed)
            store.add_outcome("r", outcome)
            got = store.completions("r")["t"]
            assert (got.raw, got.error) == (raw, raw)
            assert store.outcomes("r") == [outcome]
        finally:
            store.close()
