"""Editor traces: writing and reading them, rebuilding documents, replaying against the bridge."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

import pytest
from rich.console import Console

from lsp_bridge.trace import (
    TRACE_VERSION,
    TextChange,
    TraceError,
    TraceProblem,
    TraceWriter,
    json_changes,
    parse_event,
    read_trace,
    snapshots,
)
from replay.config.manifest import open_repository
from replay.core.records import Kind
from replay.core.scenarios import write_tasks
from replay.marking import mark_repository
from replay.run.session import hole_removal, hole_restoration
from replay.run.trace_replay import accepted_requests, count_events, normalize, render, replay_trace, similarity

URI = "file:///work/demo.py"


def _change(start: tuple[int, int], end: tuple[int, int], text: str) -> dict:
    return {"range": {"start": {"line": start[0], "character": start[1]}, "end": {"line": end[0], "character": end[1]}}, "text": text}


def test_writer_and_reader_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    writer = TraceWriter(path)
    writer.record("open", uri=URI, language_id="python", version=1, text="x = 'café 🙂'\n")
    writer.record("complete", request_id=7, uri=URI, line=0, character=3, trigger_kind=2, items=["1", "2"], latency_ms=12.5)
    writer.record("accept", uri=URI, text="1")
    writer.close()
    writer = TraceWriter(path)  # appending: a second session in the same file
    writer.record("cancel", request_id="abc")
    writer.close()

    events = read_trace(path)
    assert [e.event for e in events] == ["open", "complete", "accept", "cancel"]
    assert events[0].text == "x = 'café 🙂'\n" and events[0].language_id == "python" and events[0].version == 1
    complete = events[1]
    assert (complete.request_id, complete.line, complete.character, complete.trigger_kind) == (7, 0, 3, 2)
    assert complete.items == ("1", "2") and complete.latency_ms == 12.5
    assert events[3].request_id == "abc" and events[3].lineno == 4
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert all(line["v"] == TRACE_VERSION for line in lines)
    assert lines[0]["t"] <= lines[1]["t"] <= lines[2]["t"]
    assert "café 🙂" in path.read_text(encoding="utf-8")  # written as UTF-8, not escaped


def test_writer_is_thread_safe(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    writer = TraceWriter(path)
    long_text = "y" * 20000

    def work(n: int) -> None:
        for i in range(50):
            writer.record("shown", uri=f"{URI}?{n}", text=f"{n}-{i}-{long_text}")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    writer.close()
    events = read_trace(path, on_problem=lambda p: pytest.fail(str(p)))
    assert len(events) == 200
    assert sorted(e.text.split("-")[1] for e in events if e.uri == f"{URI}?2") == sorted(str(i) for i in range(50))
    assert [e.t for e in events] == sorted(e.t for e in events)


def test_writer_refuses_what_it_cannot_write(tmp_path: Path) -> None:
    writer = TraceWriter(tmp_path / "trace.jsonl")
    with pytest.raises(ValueError, match="unknown trace event 'typed'"):
        writer.record("typed", uri=URI)
    with pytest.raises(ValueError, match="needs text"):
        writer.record("accept", uri=URI)
    with pytest.raises(ValueError, match="may not be named t"):
        writer.record("close", uri=URI, t=3)
    writer.close()
    with pytest.raises(ValueError, match="closed"):
        writer.record("close", uri=URI)
    (tmp_path / "dir").mkdir()
    with pytest.raises(TraceError, match="cannot write the trace"):
        TraceWriter(tmp_path / "dir")


def test_bad_lines_are_reported_and_skipped(tmp_path: Path) -> None:
    good = {"v": 1, "t": 0.0, "event": "close", "uri": URI}
    lines = [
        json.dumps(good),
        "{not json",
        json.dumps({**good, "event": "typed"}),
        json.dumps({**good, "v": 2}),
        json.dumps({"v": 1, "t": 1.0, "event": "accept", "uri": URI}),
        json.dumps({"v": 1, "t": 1.0, "event": "complete", "request_id": 1, "uri": URI, "line": "3", "character": 0,
                    "trigger_kind": 1, "items": [], "latency_ms": 1}),
        json.dumps({"v": 1, "t": 1.0, "event": "change", "uri": URI, "version": 2, "changes": [{"range": {"start": {"line": 0}}, "text": ""}]}),
        "[1, 2]",
        "",
        json.dumps(good),
    ]
    path = tmp_path / "trace.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    problems: list[TraceProblem] = []
    events = read_trace(path, problems.append)
    assert [e.lineno for e in events] == [1, 10]
    assert [(p.lineno, p.message) for p in problems] == [
        (2, "not JSON (Expecting property name enclosed in double quotes at column 2)"),
        (3, "unknown event 'typed'"),
        (4, "format version 2, this reader knows 1"),
        (5, "accept: 'text' is missing"),
        (6, "complete: 'line' is not an integer"),
        (7, "changes[0].range.start.character is not a non-negative integer"),
        (8, "not a JSON object"),
    ]
    assert str(problems[0]).startswith("line 2: not JSON")


def test_nothing_readable_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_text("garbage\n", encoding="utf-8")
    with pytest.raises(TraceError, match=r"no readable event \(first problem: line 1: not JSON"):
        read_trace(path, lambda p: None)
    with pytest.raises(TraceError, match="does not exist"):
        read_trace(tmp_path / "missing.jsonl")


def test_documents_are_rebuilt_from_incremental_and_full_changes(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    writer = TraceWriter(path)
    writer.record("open", uri=URI, language_id="python", version=1, text="s = '🙂x'\nt = 1\n")
    # The emoji is two UTF-16 units: characters 7–8 are the x after it (code points 6–7).
    writer.record("change", uri=URI, version=2, changes=[_change((0, 7), (0, 8), "π"), _change((1, 4), (1, 5), "22")])
    writer.record("complete", request_id=1, uri=URI, line=1, character=6, trigger_kind=2, items=[""], latency_ms=1)
    writer.record("change", uri=URI, version=3, changes=[_change((0, 9), (1, 0), "\n# note\n")])  # a multi-line edit
    writer.record("complete", request_id=2, uri=URI, line=2, character=0, trigger_kind=1, items=[], latency_ms=1)
    writer.record("change", uri=URI, version=4, changes=[{"range": None, "text": "whole = 'new'\n"}])
    writer.record("complete", request_id=3, uri=URI, line=0, character=5, trigger_kind=1, items=[], latency_ms=1)
    writer.record("close", uri=URI)
    writer.record("complete", request_id=4, uri=URI, line=0, character=0, trigger_kind=1, items=[], latency_ms=1)
    writer.record("change", uri=URI, version=5, changes=[{"range": None, "text": ""}])
    writer.close()
    problems: list[TraceProblem] = []
    found = snapshots(read_trace(path), problems.append)
    assert [s.text for s in found] == ["s = '🙂π'\nt = 22\n", "s = '🙂π'\n# note\nt = 22\n", "whole = 'new'\n"]
    assert [s.event.request_id for s in found] == [1, 2, 3] and {s.language_id for s in found} == {"python"}
    assert [str(p) for p in problems] == [f"line 9: complete on {URI}, which is not open", f"line 10: change to {URI}, which is not open"]


def test_lsp_changes_survive_the_trace() -> None:
    changes = [TextChange(((0, 7), (1, 2)), "π\n"), TextChange(None, "whole\n")]
    line = json.dumps({"v": 1, "t": 0, "event": "change", "uri": URI, "version": 3, "changes": json_changes(c.to_lsp() for c in changes)})
    assert parse_event(line, 1).changes == tuple(changes)


def test_scoring_is_whitespace_tolerant() -> None:
    assert normalize("a  \n  b\t\n\n") == "a\n  b"
    assert similarity("return x \n", "return x") == 1.0
    assert similarity("abcd", "abce") == pytest.approx(0.75)
    assert similarity("", "") == 1.0 and similarity("abc", "") == 0.0


def test_accepts_pair_with_the_latest_complete_on_their_document(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    writer = TraceWriter(path)
    other = URI + "2"
    for uri in (URI, other):
        writer.record("open", uri=uri, language_id="python", version=1, text="x\n")
    writer.record("complete", request_id=1, uri=URI, line=0, character=1, trigger_kind=2, items=["a"], latency_ms=1)
    writer.record("complete", request_id=2, uri=URI, line=0, character=1, trigger_kind=2, items=["b"], latency_ms=1)
    writer.record("accept", uri=other, text="elsewhere")  # no complete on that document: nothing to pair
    writer.record("shown", uri=URI, text="b")
    writer.record("accept", uri=URI, text="b")  # pairs with request 2, the latest
    writer.record("accept", uri=URI, text="again")  # already paired
    writer.record("complete", request_id=3, uri=other, line=0, character=0, trigger_kind=1, items=[], latency_ms=1)
    writer.record("cancel", request_id=3)
    writer.record("complete", request_id=4, uri=URI, line=0, character=0, trigger_kind=1, items=["c"], latency_ms=1)
    writer.record("reject", uri=URI, text="c")
    writer.close()
    events = read_trace(path)
    pairs = accepted_requests(events, snapshots(events))
    assert [(p.snapshot.event.request_id, p.accepted) for p in pairs] == [(2, "b")]
    counts = count_events(events)
    assert (counts.completes, counts.answered, counts.shown, counts.accepted, counts.rejected, counts.cancelled) == (4, 3, 1, 3, 1, 1)


def _lsp_change(change) -> dict:
    r = change.range
    return _change((r.start.line, r.start.character), (r.end.line, r.end.character), change.text)


@pytest.mark.e2e
async def test_replay_against_the_oracle(tiny_repo: Path, tmp_path: Path) -> None:
    """An editing session over tiny/stats.py, replayed with the oracle: an accepted ground truth
    (with trailing spaces) is an exact match, an accepted edit of it scores its similarity, a
    request on a document matching no task is a model error, a rejected one is not replayed."""
    tasks = mark_repository(open_repository(tiny_repo), seed=0, per_kind=20).tasks
    scenario = tmp_path / "tiny.jsonl"
    write_tasks(scenario, tasks)
    infill = next(t for t in tasks if t.kind is Kind.INFILL and t.construct == "if_body")
    completion = next(t for t in tasks if t.kind is Kind.COMPLETION and t.path == infill.path and t.span.start_byte > infill.span.end_byte)
    data = (tiny_repo / infill.path).read_bytes()
    original = data.decode()
    uri = (tiny_repo / infill.path).as_uri()

    path = tmp_path / "trace.jsonl"
    w = TraceWriter(path)
    w.record("open", uri=uri, language_id="python", version=1, text=original)
    w.record("change", uri=uri, version=2, changes=[_lsp_change(hole_removal(infill, original))])
    w.record("complete", request_id=1, uri=uri, line=infill.cursor.line, character=infill.cursor.character, trigger_kind=2,
             items=["pass"], latency_ms=40)
    w.record("shown", uri=uri, text="pass")
    w.record("accept", uri=uri, text=infill.ground_truth.replace("\n", "   \n") + "  ")
    w.record("change", uri=uri, version=3, changes=[_lsp_change(hole_restoration(infill, data))])
    w.record("change", uri=uri, version=4, changes=[_lsp_change(hole_removal(completion, original))])
    w.record("complete", request_id=2, uri=uri, line=completion.cursor.line, character=completion.cursor.character,
             trigger_kind=1, items=["x"], latency_ms=40)
    w.record("shown", uri=uri, text="x")
    w.record("accept", uri=uri, text="#" + completion.ground_truth)
    w.record("change", uri=uri, version=5, changes=[_lsp_change(hole_restoration(completion, data))])
    w.record("complete", request_id=3, uri=uri, line=infill.cursor.line, character=infill.cursor.character, trigger_kind=1,
             items=[], latency_ms=40)  # the whole file is open: no task's document, the oracle refuses
    w.record("shown", uri=uri, text="anything")
    w.record("accept", uri=uri, text="anything")
    w.record("complete", request_id=4, uri=uri, line=0, character=0, trigger_kind=2, items=["y"], latency_ms=40)
    w.record("shown", uri=uri, text="y")
    w.record("reject", uri=uri, text="y")
    w.close()

    spec = {"kind": "oracle", "scenarios": [str(scenario)]}
    report = await replay_trace(path, [sys.executable, "-m", "lsp_bridge"], {"model": spec, "postprocess": None}, [tiny_repo])

    edited = 1 - 1 / (len(normalize(completion.ground_truth)) + 1)  # one inserted character
    assert report.n == 3 and report.exact == 1 and report.errors == 1
    assert [r.exact for r in report.rows] == [True, False, False]
    assert [r.answer for r in report.rows[:2]] == [infill.ground_truth, completion.ground_truth]
    assert report.rows[0].original == "pass" and report.rows[2].answer is None and "no task" in (report.rows[2].error or "")
    assert [r.similarity for r in report.rows] == [1.0, pytest.approx(edited), 0.0]
    assert report.mean_similarity == pytest.approx((1 + edited) / 3) and report.median_similarity == pytest.approx(edited)
    assert report.exact_interval == pytest.approx((0.0615, 0.7923), abs=1e-4)
    assert report.problems == ()
    data_json = report.to_json()
    assert data_json["original"]["shown"] == 4 and data_json["original"]["accepted"] == 3 and data_json["original"]["rejected"] == 1
    assert data_json["original"]["acceptance_rate"] == 0.75 and data_json["exact_rate"] == pytest.approx(1 / 3)
    json.dumps(data_json)  # JSON-able as it is

    console = Console(record=True, width=150)
    render(report, console)
    out = console.export_text()
    assert "error: " in out and "1 (33.3%)" in out and "4 requests (3 answered, 0 cancelled), 4 shown, 3 accepted, 1 rejected; acceptance 75.0%" in out
