"""Strata, cut-offs and intervals (replay/reports/strata.py) on hand-made tasks with known answers."""

from __future__ import annotations

from replay.core.records import Kind, Position, Span, Task
from replay.reports.strata import (
    Cutoffs,
    IntervalMethod,
    bootstrap_interval,
    comment_group,
    cutoffs,
    lines_group,
    reference_group,
    stratify,
    tercile_cuts,
)
from replay.scoring.stats import wilson


def task(i: int, *, comment: int | None = None, reference: int | None = None, lines: int = 1, labels: tuple[str, ...] = (),
         language: str = "python", kind: Kind = Kind.INFILL, repo: str = "r", construct: str = "if_body") -> Task:
    span = Span(0, 1, Position(i, 0), Position(i, 1))
    return Task(f"t{i}", repo, language, "a.py", kind, construct, True, span, "", "x", "0" * 64, lines, labels, comment, reference)


def test_comment_split_at_the_median_with_ties_on_one_side() -> None:
    tasks = [task(i, comment=d) for i, d in enumerate([1, 2, 2, 2, 9])] + [task(9)]
    cut = cutoffs(tasks)
    assert cut.comment_median == 2
    groups = [comment_group(t.comment_distance, cut) for t in tasks]
    assert groups == ["short", "short", "short", "short", "long", "none"]  # every 2 stays short


def test_even_count_median_is_the_midpoint() -> None:
    assert cutoffs([task(i, comment=d) for i, d in enumerate([1, 3, 8, 10])]).comment_median == 5.5


def test_terciles_interpolate_and_ties_stay_together() -> None:
    assert tercile_cuts([0, 3, 6, 9]) == (3.0, 6.0)
    assert tercile_cuts([1, 2, 3, 4, 5, 6, 7]) == (3.0, 5.0)
    assert tercile_cuts([4]) == (4.0, 4.0) and tercile_cuts([]) is None
    cut = Cutoffs(None, (3.0, 3.0))  # many ties: short ≤ 3, nothing in between, long > 3
    assert [reference_group(d, cut) for d in (1, 3, 4, None)] == ["short", "short", "long", "none"]
    cut = Cutoffs(None, tercile_cuts([0, 3, 6, 9]))
    assert [reference_group(d, cut) for d in (0, 3, 4, 6, 7)] == ["short", "short", "medium", "medium", "long"]


def test_cutoffs_count_each_task_once() -> None:
    same = task(1, comment=100)
    assert cutoffs([same, same, same, task(2, comment=0)]).comment_median == 50


def test_lines_removed_buckets() -> None:
    assert [lines_group(n) for n in (0, 1, 2, 3, 4, 5, 8, 9, 40)] == ["0", "1", "2", "3–4", "3–4", "5–8", "5–8", "9+", "9+"]


def test_stratify_counts_every_task_and_flags_small_strata() -> None:
    tasks = [task(i, comment=i, reference=None if i % 4 == 0 else i, labels=("if_body", "local_variable"), repo="big")
             for i in range(12)] + [task(20, language="java", kind=Kind.COMPLETION, repo="tiny", construct="method_rest")]
    verdicts = {t.id: t.id in ("t1", "t2", "t20") for t in tasks}
    rows = {(r.dimension, r.value): r for r in stratify(tasks, verdicts.get, cutoffs(tasks))}
    everything = rows[("all", "all")]
    assert (everything.n, everything.passed, everything.small) == (13, 3, False)
    assert (everything.low, everything.high) == wilson(3, 13)
    # a stratum without tasks is no row: no Java infill task, no empty Java infill row
    assert ("headline", "java infill") not in rows and ("category", "class") not in rows
    assert all(r.n > 0 for r in rows.values())
    assert rows[("headline", "java completion")].small and rows[("headline", "java completion")].rate == 1.0
    assert rows[("repository", "tiny")].small and not rows[("repository", "big")].small
    # no task is dropped in a dimension that splits: the groups add up to every task
    for dimension in ("comment distance", "reference distance", "lines removed", "repository", "construct", "headline"):
        assert sum(r.n for (d, _), r in rows.items() if d == dimension) == 13, dimension
    assert rows[("reference distance", "none")].n == 4  # t0, t4, t8 and the Java task


def test_tasks_without_a_verdict_are_left_out() -> None:
    tasks = [task(1), task(2)]
    rows = stratify(tasks, {"t1": True}.get, cutoffs(tasks))
    assert rows[0].n == 1 and rows[0].passed == 1


def test_bootstrap_is_deterministic_and_brackets_the_rate() -> None:
    verdicts = [True] * 30 + [False] * 70
    first = bootstrap_interval(verdicts, 2000, "7|x")
    assert first == bootstrap_interval(verdicts, 2000, "7|x")
    assert first != bootstrap_interval(verdicts, 2000, "8|x")
    low, high = first
    assert 0.19 < low < 0.3 < high < 0.41  # close to Wilson's 0.219–0.396 for 30/100
    assert bootstrap_interval([True] * 5, 100, 0) == (1.0, 1.0)
    assert bootstrap_interval([], 100, 0) == (0.0, 1.0)


def test_bootstrap_intervals_in_strata_do_not_depend_on_the_rest_of_the_report() -> None:
    tasks = [task(i, repo="a" if i < 20 else "b") for i in range(40)]
    verdicts = {t.id: int(t.id[1:]) % 3 == 0 for t in tasks}
    method = IntervalMethod(500, 3)
    alone = {(r.dimension, r.value): r for r in stratify(tasks[:20], verdicts.get, cutoffs(tasks), method, "s")}
    both = {(r.dimension, r.value): r for r in stratify(tasks, verdicts.get, cutoffs(tasks), method, "s")}
    assert alone[("repository", "a")] == both[("repository", "a")]
    assert method.name == "bootstrap-95 (500 resamples, seed 3)" and IntervalMethod().name == "wilson-95"
