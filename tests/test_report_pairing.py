"""Runs are paired task by task on the task itself, not its id alone: after re-marking, one id
(``repo:path:kind:lines``) can name another hole, and such pairs are reported, never compared."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from rich.console import Console

from replay.core.records import Kind, Outcome, Position, Span, Status, Task
from replay.reports.comparison import pair_tasks, task_digest
from replay.reports.html_tables import comparison_block
from replay.reports.html_tasks import task_detail
from replay.reports.report_build import build_report
from replay.reports.report_json import to_json
from replay.reports.report_text import render
from replay.reports.strata import cutoffs
from replay.store import RunInfo, Store


def task(i: int, truth: str = "total += x", file_sha256: str = "0" * 64, comment_distance: int = 3) -> Task:
    span = Span(0, 1, Position(i, 0), Position(i, 1))
    return Task(f"r:a.py:infill:{i}-{i}", "r", "python", "a.py", Kind.INFILL, "loop_body", True, span, "    ", truth, file_sha256, 1,
                ("loop_body",), comment_distance, 5)


def remarked(t: Task) -> Task:
    return dataclasses.replace(t, ground_truth="total -= x")


def test_pairs_need_the_same_ground_truth_and_file() -> None:
    first = {t.id: t for t in (task(0), task(1), task(2), task(3))}
    second = {t.id: t for t in (task(0), remarked(task(1)), task(2, file_sha256="1" * 64), task(4))}
    shared, differing = pair_tasks(first, second)
    assert [t.id for t in shared] == [task(0).id] and differing == [task(1).id, task(2).id]
    assert task_digest(task(0)) == task_digest(dataclasses.replace(task(0), labels=()))  # labels are no part of what a task is
    # the parts are separated: moving text from the ground truth to the file digest is another task
    assert task_digest(task(0, truth="ab", file_sha256="c")) != task_digest(task(0, truth="a", file_sha256="bc"))


def _store_runs(path: Path) -> Store:
    """Two runs of six tasks: the first fails them all, the second passes them all; in the second,
    two tasks were re-marked (another ground truth, another file) under the same ids."""
    store = Store(path)
    tasks = [task(i) for i in range(6)]
    second = [remarked(tasks[0]), dataclasses.replace(tasks[1], file_sha256="1" * 64), *tasks[2:]]
    for run_id, run_tasks, status in (("r1", tasks, Status.FAIL), ("r2", second, Status.PASS)):
        store.create_run(RunInfo(run_id, f"2026-01-0{run_id[1]}", "0", "m", {}, ("none",), (), "h", "bubblewrap", None), run_tasks)
        for t in run_tasks:
            store.add_outcome(run_id, Outcome(t.id, "none", "x", status))
    return store


def test_the_report_compares_only_the_same_tasks_and_lists_the_others(tmp_path: Path) -> None:
    store = _store_runs(tmp_path / "runs.db")
    report = build_report(store, ["r1", "r2"])
    store.close()
    (c,) = report.comparisons
    overall = c.strata[0]
    assert (c.paired, overall.n, overall.only_second, overall.only_first) == (4, 4, 4, 0)
    assert c.differing == (task(0).id, task(1).id) and c.only_in_first == c.only_in_second == 0
    assert {f.task_id for f in c.flips} == {task(i).id for i in range(2, 6)}
    note = "2 tasks share an id but differ between the runs (re-marked?): not compared."
    assert note in c.summary

    console = Console(record=True, width=300)
    render(report, console)
    text = console.export_text()
    assert note in text and f"not compared, different tasks under one id (2): {task(0).id}, {task(1).id}" in text
    assert json.loads(json.dumps(to_json(report)))["comparisons"][0]["differing"] == [task(0).id, task(1).id]
    html = comparison_block(c, 0, {})
    assert "not compared: 2 tasks share an id" in html and task(1).id in html


def test_the_drill_down_diffs_each_run_against_its_own_ground_truth(tmp_path: Path) -> None:
    store = _store_runs(tmp_path / "runs.db")
    report = build_report(store, ["r1", "r2"])
    store.close()
    assert report.tasks[task(0).id].ground_truth == "total += x"
    assert report.run_tasks == {("r2", task(0).id): remarked(task(0)), ("r2", task(1).id): dataclasses.replace(task(1), file_sha256="1" * 64)}
    rows = [o for o in report.outcomes if o.task_id == task(0).id]
    html = task_detail(report, task(0).id, "t0", rows, {})
    assert "ground truth in r2 (another task under the same id: re-marked?)" in html and "total -= x" in html


def test_a_remarked_task_counts_as_another_task_in_the_cut_offs() -> None:
    one, other = task(0, comment_distance=2), dataclasses.replace(task(0, comment_distance=10), ground_truth="total -= x")
    assert cutoffs([one, other]).comment_median == 6
    assert cutoffs([one, one]).comment_median == 2  # the same task in two runs counts once
