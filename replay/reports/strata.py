"""The paper's stratified pass rates, as pure functions of tasks and verdicts.

A stratum is a (dimension, value) pair, e.g. ("category", "if_condition"). A task falls into
exactly one value of every dimension except ``category`` (the eight categories overlap: a task
counts in each one it has). Cut-offs that depend on the data are computed once per report from
the union of its tasks, so every run and preset in a report is cut the same way, and printed:

- comment distance: short (≤ the median) / long (> the median), as the paper splits it;
- reference distance: terciles (short ≤ the first cut-off < medium ≤ the second < long);
- lines removed: fixed buckets 1, 2, 3–4, 5–8, 9+.

Equal values always land in the same group, so with many ties the groups are unequal in size
rather than split arbitrarily. Tasks without a distance form their own ``none`` group; no task
is ever dropped, and a stratum with fewer than :data:`SMALL_STRATUM` tasks is flagged, not hidden.
A stratum with no task at all (Java rows of a Python-only run) is not a row.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from replay.core.records import Task
from replay.scoring.stats import wilson

SMALL_STRATUM = 10
CATEGORIES = ("local_variable", "global_variable", "function", "class", "library", "if_condition", "if_body", "loop_body")
HEADLINE = ("python infill", "python completion", "java infill", "java completion")
# "0": a place where nothing was to be written (a ``no_suggestion`` decision); a hole always removes a line
LINE_BUCKETS = ((0, 0, "0"), (1, 1, "1"), (2, 2, "2"), (3, 4, "3–4"), (5, 8, "5–8"), (9, None, "9+"))
# "decision" has rows only when the tasks include decision tasks (``no_suggestion``, ``one_line``)
DIMENSIONS = (
    "all",
    "headline",
    "category",
    "comment distance",
    "reference distance",
    "lines removed",
    "repository",
    "construct",
    "decision",
)
# Ordered dimensions keep their natural order (and are the ones a trend is drawn over).
ORDER = {
    "headline": HEADLINE,
    "category": CATEGORIES,
    "comment distance": ("short", "long", "none"),
    "reference distance": ("short", "medium", "long", "none"),
    "lines removed": tuple(label for _, _, label in LINE_BUCKETS),
}


@dataclass(frozen=True, slots=True)
class Cutoffs:
    """Data-dependent cut-offs of one report; ``None`` when no task has that distance."""

    comment_median: float | None
    reference_terciles: tuple[float, float] | None

    def describe(self) -> dict[str, str]:
        """One line per cut dimension, in words, for every output to print."""
        c, r = self.comment_median, self.reference_terciles
        return {
            "comment distance": f"median {_g(c)} lines: short ≤ {_g(c)} < long; tasks without a comment above: none"
            if c is not None
            else "no task has a comment distance: all are 'none'",
            "reference distance": f"terciles {_g(r[0])} and {_g(r[1])} lines: short ≤ {_g(r[0])} < medium ≤ {_g(r[1])} < long; "
            "tasks that use no repository name defined in their file: none"
            if r is not None
            else "no task has a reference distance: all are 'none'",
            "lines removed": "fixed buckets: " + ", ".join(label for _, _, label in LINE_BUCKETS),
        }


def median_cut(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def tercile_cuts(values: Sequence[float]) -> tuple[float, float] | None:
    """The 1/3 and 2/3 quantiles, linear interpolation between order statistics (Python's
    ``statistics.quantiles(method="inclusive")``, numpy's default)."""
    if not values:
        return None
    if len(values) == 1:
        return float(values[0]), float(values[0])
    low, high = statistics.quantiles(values, n=3, method="inclusive")
    return low, high


def _g(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


def cutoffs(tasks: Iterable[Task]) -> Cutoffs:
    """The cut-offs of ``tasks``, each task counted once however many runs hold it; a task
    re-marked under the same id (another ground truth or file) is another task and counts too."""
    unique = {(t.id, t.ground_truth, t.file_sha256): t for t in tasks}.values()
    comments = [t.comment_distance for t in unique if t.comment_distance is not None]
    references = [t.reference_distance for t in unique if t.reference_distance is not None]
    return Cutoffs(median_cut(comments), tercile_cuts(references))


def comment_group(distance: int | None, cut: Cutoffs) -> str:
    if distance is None or cut.comment_median is None:
        return "none"
    return "short" if distance <= cut.comment_median else "long"


def reference_group(distance: int | None, cut: Cutoffs) -> str:
    if distance is None or cut.reference_terciles is None:
        return "none"
    low, high = cut.reference_terciles
    return "short" if distance <= low else "medium" if distance <= high else "long"


def lines_group(lines: int) -> str:
    for low, high, label in LINE_BUCKETS:
        if lines >= low and (high is None or lines <= high):
            return label
    return LINE_BUCKETS[0][2]  # pragma: no cover (the buckets cover every count from 0)


def memberships(task: Task, cut: Cutoffs) -> list[tuple[str, str]]:
    """Every (dimension, value) stratum ``task`` belongs to."""
    return [
        ("all", "all"),
        ("headline", f"{task.language} {task.kind.value}"),
        *(("category", label) for label in task.labels if label in CATEGORIES),
        ("comment distance", comment_group(task.comment_distance, cut)),
        ("reference distance", reference_group(task.reference_distance, cut)),
        ("lines removed", lines_group(task.lines_removed)),
        ("repository", task.repo),
        ("construct", task.construct),
        *((("decision", task.decision.value),) if task.decision is not None else ()),
    ]


@dataclass(frozen=True, slots=True)
class IntervalMethod:
    """Wilson 95% (the default), or a task-level percentile bootstrap with ``resamples`` draws
    from a generator seeded by ``seed`` and the stratum's name (so each stratum's interval is
    reproducible on its own, whatever else the report holds)."""

    resamples: int = 0
    seed: int = 0

    @property
    def name(self) -> str:
        return f"bootstrap-95 ({self.resamples} resamples, seed {self.seed})" if self.resamples else "wilson-95"


def bootstrap_interval(passed: Sequence[bool], resamples: int, seed: int | str) -> tuple[float, float]:
    """Percentile bootstrap 95% interval of the pass rate: resample the tasks with replacement
    ``resamples`` times; the 2.5th and 97.5th percentiles (nearest rank) of the resampled rates."""
    n = len(passed)
    if n == 0:
        return 0.0, 1.0
    rng = random.Random(seed)
    values = [1 if p else 0 for p in passed]
    rates = sorted(sum(rng.choices(values, k=n)) / n for _ in range(resamples))
    return rates[max(0, _rank(0.025, resamples))], rates[min(resamples - 1, _rank(0.975, resamples))]


def _rank(q: float, count: int) -> int:
    """0-based nearest-rank index of quantile ``q`` among ``count`` sorted values."""
    return math.ceil(q * count - 1e-9) - 1


@dataclass(frozen=True, slots=True)
class StratumRow:
    """The pass rate of one stratum, with its interval (``IntervalMethod``)."""

    dimension: str
    value: str
    n: int
    passed: int
    rate: float | None  # None when the stratum is empty
    low: float
    high: float
    small: bool  # fewer than SMALL_STRATUM tasks: the interval is wide, read with care


@dataclass(frozen=True, slots=True)
class MeanRow:
    """The mean of a per-task number (a similarity metric) over one stratum."""

    dimension: str
    value: str
    n: int
    mean: float | None  # None when no task of the stratum has the number


def stratum_row(dimension: str, value: str, verdicts: Sequence[bool], method: IntervalMethod, key: str = "") -> StratumRow:
    n, k = len(verdicts), sum(verdicts)
    if method.resamples:
        low, high = bootstrap_interval(verdicts, method.resamples, f"{method.seed}|{key}|{dimension}|{value}")
    else:
        low, high = wilson(k, n)
    return StratumRow(dimension, value, n, k, k / n if n else None, low, high, n < SMALL_STRATUM)


def ordered_values(dimension: str, seen: Iterable[str]) -> list[str]:
    """The values of a dimension that have tasks, in reading order. A stratum without tasks is
    not shown: a Python-only run has no Java rows (they would read as measured and empty)."""
    fixed = ORDER.get(dimension, ())
    present = set(seen)
    return [v for v in fixed if v in present] + sorted(present - set(fixed))


V = TypeVar("V")


def _group(tasks: Sequence[Task], value: Callable[[str], V | None], cut: Cutoffs) -> dict[tuple[str, str], list[V]]:
    """``value(task_id)`` of every task, gathered under each (dimension, value) it belongs to;
    tasks whose value is None are left out."""
    groups: dict[tuple[str, str], list[V]] = {}
    for task in tasks:
        x = value(task.id)
        if x is None:
            continue
        for member in memberships(task, cut):
            groups.setdefault(member, []).append(x)
    return groups


def stratify(
    tasks: Sequence[Task], passed: Callable[[str], bool | None], cut: Cutoffs, method: IntervalMethod = IntervalMethod(), key: str = ""
) -> list[StratumRow]:
    """Pass rates of every stratum. ``passed(task_id)`` is the verdict, ``None`` for a task with
    no outcome (left out). ``key`` names the series (run and preset) for bootstrap seeding."""
    groups = _group(tasks, passed, cut)
    rows = []
    for dimension in DIMENSIONS:
        values = [v for d, v in groups if d == dimension]
        for value in ordered_values(dimension, values):
            rows.append(stratum_row(dimension, value, groups.get((dimension, value), []), method, key))
    return rows


def stratum_means(tasks: Sequence[Task], value: Callable[[str], float | None], cut: Cutoffs) -> list[MeanRow]:
    """Means of ``value(task_id)`` per stratum (tasks without a value are left out), in the
    order of :func:`stratify`."""
    groups = _group(tasks, value, cut)
    rows = []
    for dimension in DIMENSIONS:
        for v in ordered_values(dimension, [v for d, v in groups if d == dimension]):
            xs = groups.get((dimension, v), [])
            rows.append(MeanRow(dimension, v, len(xs), math.fsum(xs) / len(xs) if xs else None))
    return rows
