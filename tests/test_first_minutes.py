"""What a new user meets first, on reports built from a hand-made store (no test runs): the HTML
tasks table fits a page, a Python-only run has no Java rows anywhere, terminal tables keep every
preset name and number whole at 80 columns, the replay summary is short, and a malformed
scenario line says which field is wrong and what to do."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from replay.core.errors import SimpilotError
from replay.core.records import Kind, Outcome, Position, Span, Status, Task
from replay.core.scenarios import read_tasks
from replay.jobs.compare import render as render_comparison
from replay.jobs.compare import summarise, variants
from replay.reports.html_report import render_html
from replay.reports.html_tasks import TASK_COLUMNS
from replay.reports.report_build import build_report
from replay.reports.report_csv import write_csv
from replay.reports.report_json import to_json
from replay.reports.report_text import render, render_summary
from replay.store import RunInfo, Store

RUNS = {"fm-a": ("none", "simcopilot"), "fm-b": ("none", "simcopilot"), "fm-c": ("syntax", "ide")}
STATUSES = (Status.PASS, Status.FAIL, Status.SYNTAX_ERROR, Status.EMPTY, Status.RUNTIME_ERROR)
CONSTRUCTS = ("if_condition", "loop_body", "function_rest", "statements", "else_body", "block_rest", "if_body")


def python_task(i: int) -> Task:
    """A Python task; the constructs, kinds and labels vary so that every dimension has rows."""
    kind = Kind.INFILL if i % 2 else Kind.COMPLETION
    span = Span(10 * i, 10 * i + 9, Position(i, 4), Position(i, 13))
    labels = ("local_variable", "if_body") if i % 3 else ("loop_body",)
    return Task(f"pyrepo:pkg/mod.py:{kind.value}:{i}-{i}", "pyrepo", "python", "pkg/mod.py", kind, CONSTRUCTS[i % len(CONSTRUCTS)],
                True, span, "    ", f"total += {i}", "0" * 64, 1 + i % 4, labels, i % 7, None if i % 5 == 0 else i)


def python_only_store(path: Path, tasks: int = 24) -> Store:
    """Three runs of two presets each (six series) over the same Python-only tasks."""
    store = Store(path)
    chosen = [python_task(i) for i in range(tasks)]
    for n, (run_id, presets) in enumerate(RUNS.items()):
        store.create_run(RunInfo(run_id, f"2026-01-0{n + 1}", "0", f"model-{run_id}", {}, presets, (), "h", "bubblewrap", None), chosen)
        for t in chosen:
            for k, preset in enumerate(presets):
                status = STATUSES[(t.lines_removed + n + k) % len(STATUSES)]
                store.add_outcome(run_id, Outcome(t.id, preset, t.ground_truth if status is Status.PASS else "x = 1", status))
    return store


@pytest.fixture
def report(tmp_path: Path):
    store = python_only_store(tmp_path / "runs.db")
    try:
        yield build_report(store, list(RUNS))
    finally:
        store.close()


def tasks_table_html(page: str) -> str:
    start = page.index('<table class="sortable tasks">')
    return page[start: page.index("</table>", start)]


# -- 1. the HTML tasks table fits a page ----------------------------------------------------------


def test_html_tasks_table_has_few_columns_whatever_the_series(report) -> None:
    assert len(report.sections) == 6
    table = tasks_table_html(render_html(report))
    headers = re.findall(r"<th>(.*?)</th>", table)
    assert len(headers) == len(TASK_COLUMNS) <= 8  # was 6 + 2 per series: 18 here
    body = table[table.index("<tbody>"):]
    for row in re.findall(r"<tr>(.*?)</tr>", body, re.S):
        assert len(re.findall(r"<td[ >]", row)) == len(headers)


def test_html_tasks_table_keeps_every_outcome_and_similarity(report) -> None:
    table = tasks_table_html(render_html(report))
    badges = re.findall(r'data-kind="task-outcome" data-series="([^"]+)" data-status="([^"]+)" data-indel="([^"]*)"', table)
    by_key = {(s, o.task_id): (o.status, o.metrics["indel_similarity"]) for o in report.outcomes for s in [f"{o.run_id}|{o.preset}"]}
    assert len(badges) == len(by_key) == 6 * 24
    rows = table.split("<tr>")[2:]
    for row in rows:
        task_id = re.search(r'<a href="#task-\d+">([^<]+)</a>', row).group(1)
        for series, status, indel in re.findall(r'data-series="([^"]+)" data-status="([^"]+)" data-indel="([^"]*)"', row):
            want_status, want_indel = by_key[(series, task_id)]
            assert status == want_status and float(indel) == pytest.approx(want_indel)
            # and in words, for a reader: the series, the outcome and the similarity
            run, preset = series.split("|")
            assert re.search(rf"<li>[^<]*{preset} \({run}\): {status}, indel sim\. {want_indel:.2f}</li>", row), (series, task_id)


def test_html_tasks_table_counts_only_the_series_shown(tmp_path: Path) -> None:
    """The ablation variants 'simpilot compare' stores in a run are no series of the report."""
    from postprocess import ablation_name

    store = python_only_store(tmp_path / "runs.db", tasks=3)
    try:
        for i in range(3):
            task = python_task(i)
            store.add_outcome("fm-a", Outcome(task.id, ablation_name("simcopilot", "reindent"), task.ground_truth, Status.PASS))
        table = tasks_table_html(render_html(build_report(store, list(RUNS))))
    finally:
        store.close()
    assert "without" not in table and ablation_name("simcopilot", "reindent") not in table
    counts = re.findall(r'<td data-sort="\d+">(\d+/\d+)</td>', table)
    assert len(counts) == 3 and all(c.endswith("/6") for c in counts), counts


# -- 2. a Python-only run has no Java rows --------------------------------------------------------


def test_python_only_run_shows_no_java_rows_anywhere(report, tmp_path: Path) -> None:
    for s in report.sections:
        assert all(r.n > 0 for r in s.rows)
        assert not [r for r in s.rows if "java" in r.value]
    console = Console(record=True, width=120)
    render(report, console)
    assert "java" not in console.export_text()
    page = render_html(report)
    assert not re.search(r'data-value="java', page) and "java infill" not in page and "java completion" not in page
    data = to_json(report)
    assert not [r for s in data["sections"] for r in s["rows"] if "java" in r["value"] or r["n"] == 0]
    assert not [r for c in data["comparisons"] for r in c["strata"] if "java" in r["value"] or r["n"] == 0]
    write_csv(report, tmp_path / "csv")
    with (tmp_path / "csv" / "strata.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert rows and not [r for r in rows if "java" in r["value"] or r["n"] == "0"]


def test_empty_categories_are_left_out_too(report) -> None:
    categories = {r.value for r in report.sections[0].rows if r.dimension == "category"}
    assert categories == {"local_variable", "if_body", "loop_body"}


# -- 3. terminal tables at 80 columns --------------------------------------------------------------


def narrow(draw) -> str:
    console = Console(record=True, width=80)
    draw(console)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    return text


def whole_cells(text: str) -> list[str]:
    """Every table cell's text, stripped (cells are separated by the box's vertical bars)."""
    return [cell.strip() for line in text.splitlines() for cell in re.split(r"[│┃]", line)]


def test_report_tables_at_80_columns_keep_names_and_numbers(report) -> None:
    text = narrow(lambda console: render(report, console))
    cells = whole_cells(text)
    assert not [line for line in text.splitlines() if "│" in line and "…" in line]  # no cell cut short
    for s in report.sections:
        assert f"post-processing {s.preset}" in text
        for r in s.rows:
            assert any(c == r.value or c == f"{r.value} (n<10)" for c in cells), (r.dimension, r.value)
            assert f"{100 * r.low:5.1f} – {100 * r.high:5.1f}".strip() in text


def test_compare_tables_at_80_columns_keep_preset_names(tmp_path: Path) -> None:
    ids = [f"t{i}" for i in range(383)]
    presets = ("none", "simcopilot", "syntax", "ide")
    outcomes = [Outcome(t, p, "x", Status.PASS if (i + len(p)) % 3 == 0 else Status.FAIL) for i, t in enumerate(ids) for p in presets]
    outcomes += [Outcome(t, v.name, "x", Status.FAIL) for t in ids for v in variants(presets) if v.without]
    comparison = summarise("demo-smollm2", "recorded:/work/main/scenarios/recordings/smollm2", ids, presets, outcomes,
                           {(t, p): 0.5 for t in ids for p in presets})
    text = narrow(lambda console: render_comparison(comparison, console))
    cells = whole_cells(text)
    assert not [line for line in text.splitlines() if "│" in line and "…" in line]  # no cell cut short
    for row in comparison.rows:
        assert row.preset in cells
        assert f"{row.passed}/{row.n}" in cells and f"{100 * row.low:.1f} – {100 * row.high:.1f}" in cells
        if row.difference is not None:
            assert f"+{row.only_this} / −{row.only_first}" in cells
    for step in comparison.steps:
        assert step.step in cells


def test_replay_summary_is_short_and_fits_80_columns(tmp_path: Path) -> None:
    store = python_only_store(tmp_path / "runs.db")
    try:
        one = build_report(store, ["fm-c"])  # what replay summarises: its own run
    finally:
        store.close()
    text = narrow(lambda console: render_summary(one, console, "simpilot report fm-c"))
    lines = text.splitlines()
    assert len(lines) <= 15
    for s in one.sections:
        overall = s.rows[0]
        row = next(line for line in lines if line.startswith("│ " + s.preset + " "))
        assert f"{overall.passed}/{overall.n}" in row and re.search(rf"{100 * overall.low:.1f} –\s+{100 * overall.high:.1f}", row)
    assert "24 tasks · 0 model error(s)" in text and "ide vs syntax:" in text
    assert "simpilot report fm-c" in text and "simpilot report fm-c --html" in text


# -- 5. a malformed scenario line -------------------------------------------------------------------


def _good_line() -> dict:
    return python_task(1).to_dict()


def _without(field: str) -> dict:
    d = _good_line()
    del d[field]
    return d


def _with(**fields) -> dict:
    return {**_good_line(), **fields}


def _nested(path: tuple[str, ...], value) -> dict:
    d = json.loads(json.dumps(_good_line()))
    target = d
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return d


@pytest.mark.parametrize("line, expected", [
    (json.dumps(_without("repo")), "field 'repo' is missing (expected a string)"),
    (json.dumps(_without("span")), "field 'span' is missing (expected an object with start_byte, end_byte, start and end)"),
    (json.dumps(_with(lines_removed="3")), "field 'lines_removed' is a string, expected an integer"),
    (json.dumps(_with(block=1)), "field 'block' is an integer, expected true or false"),
    (json.dumps(_with(kind="fill")), "field 'kind' is 'fill', expected \"infill\" or \"completion\""),
    (json.dumps(_with(labels=["if_body", 3])), "field 'labels' holds an integer at position 1, expected a list of strings"),
    (json.dumps(_nested(("span", "start", "line"), None)), "field 'span.start.line' is null, expected an integer"),
    (json.dumps(_with(schema_version=1)), "has schema version 1, expected 2"),
    ('{"id": "x", "repo": ', "the line is not JSON ("),
    ("[1, 2, 3]", "the line holds a list, expected a JSON object"),
    ('"a task"', "the line holds a string, expected a JSON object"),
], ids=["missing", "missing-object", "wrong-type", "bool", "enum", "list-item", "nested", "version", "not-json", "list", "string"])
def test_a_malformed_scenario_line_says_where_what_and_what_to_do(tmp_path: Path, line: str, expected: str) -> None:
    scenario = tmp_path / "myrepo.jsonl"
    scenario.write_text(json.dumps(_good_line()) + "\n\n" + line + "\n", encoding="utf-8")
    with pytest.raises(SimpilotError) as caught:
        read_tasks(scenario)
    message = str(caught.value)
    assert message.startswith(f"{scenario}:3: not a task record: "), message  # the file and the line (blank lines count)
    assert expected in message
    assert "simpilot mark" in message and "\n" not in message


def test_a_well_formed_file_still_reads(tmp_path: Path) -> None:
    scenario = tmp_path / "ok.jsonl"
    tasks = [python_task(i) for i in range(5)]
    scenario.write_text("".join(json.dumps(t.to_dict()) + "\n" for t in tasks), encoding="utf-8")
    assert read_tasks(scenario) == tasks
