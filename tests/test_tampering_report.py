"""The tampering figures: the detail parser, the counts per model and preset, and the section in
the terminal, JSON and HTML reports, checked against a recomputation from the raw outcomes table."""

from __future__ import annotations

import json
import re
import sqlite3
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from rich.console import Console

from replay.core.records import Kind, Outcome, Position, Span, Status, Task
from replay.reports.comparison import Series
from replay.reports.html_report import render_html
from replay.reports.report_build import build_report
from replay.reports.report_json import to_json
from replay.reports.report_text import render
from replay.reports.tampering import Event, Example, parse_events, render_tampering, tampering
from replay.store import RunInfo, Store
from tests.test_report_recompute import Figures, cli

NEW = "the answer tampered with the harness: "
OLD = "the test framework was altered during the run: "


# -- the parser ------------------------------------------------------------------------------------


def test_new_style_details_give_one_event_each() -> None:
    detail = (
        NEW + "gc.get_objects at tiny/stats.py:14; open /proc/self/fd/5 at tiny/stats.py:14; records-out-of-order; "
        "forged-record 3 line(s) not written by the reporter; framework-replaced _pytest.reports.TestReport.from_item_and_call"
    )
    assert parse_events(detail) == (
        Event("gc.get_objects", "gc.get_objects at tiny/stats.py:14"),
        Event("open", "open /proc/self/fd/5 at tiny/stats.py:14"),
        Event("records-out-of-order", "records-out-of-order"),
        Event("forged-record", "forged-record 3 line(s) not written by the reporter"),
        Event("framework-replaced", "framework-replaced _pytest.reports.TestReport.from_item_and_call"),
    )
    assert parse_events(NEW + "reporter-called-from-answer pytest_runtest_logreport at stats.py:3") == (
        Event("reporter-called-from-answer", "reporter-called-from-answer pytest_runtest_logreport at stats.py:3"),
    )
    assert parse_events(NEW) == ()  # the prefix with no event names nothing


def test_old_style_and_unknown_details_are_one_framework_replaced_event() -> None:
    old = OLD + "_pytest.reports.TestReport.from_item_and_call, _pytest.python.Function.runtest"
    assert parse_events(old) == (
        Event("framework-replaced", "framework-replaced _pytest.reports.TestReport.from_item_and_call, _pytest.python.Function.runtest"),
    )
    assert parse_events("") == (Event("framework-replaced", "framework-replaced"),)
    assert parse_events("something else; entirely") == (Event("framework-replaced", "framework-replaced something else; entirely"),)


# -- the counts ------------------------------------------------------------------------------------

HONEST = (("t0", Status.PASS, ""), ("t1", Status.FAIL, "E assert 1 == 2"), ("t2", Status.PASS, ""))
SYNTHETIC: dict[Series, list[Outcome]] = {
    Series("r1", "m1", "none"): [
        Outcome("t0", "none", "x", Status.PASS),
        Outcome("t1", "none", "x", Status.TAMPERED, NEW + "gc.get_objects at tiny/stats.py:14; open /proc/self/fd/5 at tiny/stats.py:14"),
        Outcome("t2", "none", "x", Status.TAMPERED, OLD + "_pytest.reports.TestReport.from_item_and_call"),
        Outcome("t3", "none", "x", Status.FAIL, "E assert 1 == 2"),
        Outcome("t4", "none", "x", Status.TAMPERED, NEW + "forged-record 3 line(s) not written by the reporter; records-out-of-order"),
        Outcome("t5", "none", "x", Status.PASS),
    ],
    Series("r1", "m1", "simcopilot"): [
        Outcome("t0", "simcopilot", "x", Status.PASS),
        # the same event twice in one answer: one answer
        Outcome("t1", "simcopilot", "x", Status.TAMPERED, NEW + "gc.get_objects at tiny/stats.py:14; gc.get_objects at tiny/stats.py:20"),
        Outcome("t2", "simcopilot", "x", Status.PASS),
        Outcome("t3", "simcopilot", "x", Status.TAMPERED, NEW + "gc.get_objects at b.py:1; os.kill at b.py:2"),
    ],
    Series("r2", "m2", "none"): [Outcome(t, "none", "x", status, detail) for t, status, detail in HONEST],
    Series("r2", "m2", "simcopilot"): [
        *(Outcome(t, "simcopilot", "x", status, detail) for t, status, detail in HONEST),
        Outcome("t0", "simcopilot", "y", Status.TAMPERED, NEW + "sys._getframe at a.py:3", sample=1),  # a later sample counts
    ],
}


def test_counts_per_model_and_preset() -> None:
    rows = {(r.run_id, r.model, r.preset): r for r in tampering(SYNTHETIC.items())}
    assert list(rows) == [("r1", "m1", "none"), ("r1", "m1", "simcopilot"), ("r2", "m2", "none"), ("r2", "m2", "simcopilot")]

    first = rows[("r1", "m1", "none")]
    assert (first.judged, first.passed, first.tampered, first.rate, first.pass_rate) == (6, 2, 3, 0.5, 2 / 6)
    assert first.events == {"forged-record": 1, "framework-replaced": 1, "gc.get_objects": 1, "open": 1, "records-out-of-order": 1}
    assert first.examples == (
        Example("t1", 0, "gc.get_objects at tiny/stats.py:14"),
        Example("t1", 0, "open /proc/self/fd/5 at tiny/stats.py:14"),
        Example("t2", 0, "framework-replaced _pytest.reports.TestReport.from_item_and_call"),
    )

    second = rows[("r1", "m1", "simcopilot")]
    assert (second.judged, second.passed, second.tampered, second.rate) == (4, 2, 2, 0.5)
    assert list(second.events.items()) == [("gc.get_objects", 2), ("os.kill", 1)]  # the most frequent first
    # each event name once before a second example of any
    assert second.examples == (
        Example("t1", 0, "gc.get_objects at tiny/stats.py:14"),
        Example("t3", 0, "os.kill at b.py:2"),
        Example("t1", 0, "gc.get_objects at tiny/stats.py:20"),
    )

    honest = rows[("r2", "m2", "none")]  # shown beside the others as their baseline
    assert (honest.judged, honest.passed, honest.tampered, honest.rate, honest.events, honest.examples) == (3, 2, 0, 0.0, {}, ())

    sampled = rows[("r2", "m2", "simcopilot")]
    assert (sampled.judged, sampled.passed, sampled.tampered, sampled.rate) == (4, 2, 1, 0.25)
    assert sampled.events == {"sys._getframe": 1} and sampled.examples == (Example("t0", 1, "sys._getframe at a.py:3"),)


def test_nothing_tampered_means_no_rows() -> None:
    honest = {s: [o for o in outcomes if o.status is not Status.TAMPERED] for s, outcomes in SYNTHETIC.items()}
    assert tampering(honest.items()) == []
    assert tampering([]) == []
    # a detail naming the harness on an outcome not judged tampered is no tampering
    assert tampering([(Series("r", "m", "none"), [Outcome("t", "none", "x", Status.FAIL, NEW + "os.kill at a.py:1")])]) == []


def test_the_terminal_section_shows_each_series_and_examples() -> None:
    console = Console(record=True, width=160)
    render_tampering(tampering(SYNTHETIC.items()), console)
    text = console.export_text()
    lines = [" ".join(line.split()) for line in text.splitlines()]
    assert lines[0] == "Tampering: answers that touched the test harness (every sample)"
    assert "m1 · none (r1) 2/6 (33.3%) 3/6 (50.0%) forged-record 1, framework-replaced 1, gc.get_objects 1, open 1, records-out-of-order 1" in lines
    assert "m1 · simcopilot (r1) 2/4 (50.0%) 2/4 (50.0%) gc.get_objects 2, os.kill 1" in lines
    assert "m2 · none (r2) 2/3 (66.7%) 0/3 (0.0%) –" in lines
    assert "m2 · simcopilot (r2): t0 (sample 1): sys._getframe at a.py:3" in lines
    assert "m1 · simcopilot (r1): t3: os.kill at b.py:2" in lines
    assert sum(1 for line in lines if line.startswith("m1 · none (r1): ")) == 3  # at most three examples

    console = Console(record=True, width=160)
    render_tampering([], console)
    assert console.export_text() == ""


# -- through the store -----------------------------------------------------------------------------


def task(i: int) -> Task:
    span = Span(0, 1, Position(i, 0), Position(i, 1))
    return Task(f"t{i}", "r", "python", "a.py", Kind.INFILL, "loop_body", True, span, "    ", "total += x", "0" * 64, 1, ("loop_body",), 3, 5)


def stored(path: Path, series: dict[Series, list[Outcome]]) -> Path:
    """``series`` written through the store's API, one run per run id with its presets."""
    store = Store(path)
    runs: dict[str, list[Series]] = defaultdict(list)
    for s in series:
        runs[s.run_id].append(s)
    for run_id, mine in runs.items():
        presets = tuple(s.preset for s in mine)
        info = RunInfo(run_id, "2026-01-01", "0", mine[0].model, {}, presets, (), "h", "bubblewrap", None)
        store.create_run(info, [task(i) for i in range(6)])
        for s in mine:
            for o in series[s]:
                store.add_outcome(run_id, o)
    store.close()
    return path


def recomputed(db: Path) -> dict[tuple[str, str], dict]:
    """The figures from the raw tables, by other code than the report's: every outcome of a
    (run, preset), events named by the text before the first space of each ``; ``-separated part."""
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    models = {r["run_id"]: r["model"] for r in con.execute("SELECT run_id, model FROM runs")}
    out: dict[tuple[str, str], dict] = {}
    for r in con.execute("SELECT * FROM outcomes ORDER BY run_id, postprocess, task_id, sample"):
        fig = out.setdefault((r["run_id"], r["postprocess"]), {"model": models[r["run_id"]], "judged": 0, "passed": 0, "tampered": 0,
                                                                 "events": Counter(), "texts": set()})
        fig["judged"] += 1
        fig["passed"] += r["status"] == "pass"
        if r["status"] == "tampered":
            fig["tampered"] += 1
            new = re.fullmatch(r"the answer tampered with the harness: (.*)", r["detail"], re.S)
            if new:
                texts = [p.strip() for p in new.group(1).split(";") if p.strip()]
            else:
                texts = ["framework-replaced " + r["detail"].split(": ", 1)[1]]
            fig["events"].update({t.split(" ")[0] for t in texts})
            fig["texts"] |= {(r["task_id"], r["sample"], t) for t in texts}
    con.close()
    return out


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return stored(tmp_path / "runs.db", SYNTHETIC)


def test_json_html_and_text_equal_the_recomputation_from_the_store(db: Path, tmp_path: Path) -> None:
    want = recomputed(db)
    cli("--db", str(db), "report", "r1", "r2", "--json", str(tmp_path / "r.json"), "--html", str(tmp_path / "r.html"))
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert [(r["run_id"], r["preset"]) for r in data["tampering"]] == list(want)
    for r in data["tampering"]:
        w = want[(r["run_id"], r["preset"])]
        assert (r["model"], r["judged"], r["passed"], r["tampered"]) == (w["model"], w["judged"], w["passed"], w["tampered"])
        assert (r["rate"], r["pass_rate"]) == (pytest.approx(w["tampered"] / w["judged"]), pytest.approx(w["passed"] / w["judged"]))
        assert r["events"] == dict(w["events"])
        assert len(r["examples"]) == min(3, len(w["texts"]))
        assert {(e["task_id"], e["sample"], e["event"]) for e in r["examples"]} <= w["texts"]  # each example is a stored event
    # the pass rate beside the tampering is the report's own where every series has one sample
    overall = {(s["run_id"], s["preset"]): s["rows"][0] for s in data["sections"]}
    assert overall[("r1", "none")]["rate"] == pytest.approx(data["tampering"][0]["pass_rate"])

    parser = Figures()
    parser.feed((tmp_path / "r.html").read_text(encoding="utf-8"))
    rows = [a for a in parser.found if a["data-kind"] == "tampering"]
    assert [tuple(a["data-series"].split("|")) for a in rows] == list(want)
    for a in rows:
        w = want[tuple(a["data-series"].split("|"))]
        assert (int(a["data-judged"]), int(a["data-passed"]), int(a["data-tampered"])) == (w["judged"], w["passed"], w["tampered"])
        assert float(a["data-rate"]) == pytest.approx(w["tampered"] / w["judged"])
        assert [c.strip() for c in a["_cells"][1:4]] == [
            str(w["judged"]),
            f"{w['passed']} ({100 * w['passed'] / w['judged']:.1f}%)",
            f"{w['tampered']} ({100 * w['tampered'] / w['judged']:.1f}%)",
        ]
    events = {(a["data-series"], a["data-event"]): int(a["data-count"]) for a in parser.found if a["data-kind"] == "tampering-event"}
    assert events == {(f"{run}|{preset}", name): n for (run, preset), w in want.items() for name, n in w["events"].items()}

    text = cli("--db", str(db), "report", "r1", "r2").stdout
    assert "Tampering" in text and "gc.get_objects 2, os.kill 1" in " ".join(text.split())


def test_an_honest_report_has_no_section_and_an_empty_key(tmp_path: Path) -> None:
    honest = {s: [o for o in outcomes if o.status is not Status.TAMPERED] for s, outcomes in SYNTHETIC.items()}
    db = stored(tmp_path / "honest.db", honest)
    store = Store(db)
    report = build_report(store, ["r1", "r2"])
    store.close()
    assert report.tampering == [] and to_json(report)["tampering"] == []
    console = Console(record=True, width=160)
    render(report, console)
    assert "Tampering" not in console.export_text()
    page = render_html(report)
    assert 'id="tampering"' not in page and 'href="#tampering"' not in page and 'data-kind="tampering' not in page


def test_a_tampered_report_has_the_section_in_every_format(db: Path) -> None:
    store = Store(db)
    report = build_report(store, ["r1", "r2"])
    store.close()
    assert [(r.run_id, r.preset, r.tampered, r.judged) for r in report.tampering] == [
        ("r1", "none", 3, 6), ("r1", "simcopilot", 2, 4), ("r2", "none", 0, 3), ("r2", "simcopilot", 1, 4)]  # fmt: skip
    data = json.loads(json.dumps(to_json(report)))
    assert data["tampering"][1]["events"] == {"gc.get_objects": 2, "os.kill": 1}
    assert data["tampering"][1]["examples"][1] == {"task_id": "t3", "sample": 0, "event": "os.kill at b.py:2"}
    console = Console(record=True, width=160)
    render(report, console)
    text = console.export_text()
    assert text.index("Tampering:") < text.index("comparison")  # after the series, before the comparisons
    page = render_html(report)
    assert page.count('data-kind="tampering"') == 4 and 'href="#tampering"' in page
    assert '<a href="#task-3">t3</a>: <code>os.kill at b.py:2</code>' in page  # an example links to its task
