"""Comparing two series of outcomes — two runs (models), or two presets of one run — task by task.

A series is a (run, preset) pair, so the same function compares models, post-processors, or
both. Pairs are matched by task id and by what the task is (:func:`task_digest`: its ground truth
and the digest of its file): after a repository is re-marked, one id (``repo:path:kind:lines``)
can name another hole, and pairing those would compare answers to different questions. Tasks
only one side has, and tasks that share an id but differ, are counted and listed, not compared. Each
stratum gets both pass rates, their difference and the exact McNemar p-value of the paired
verdicts (replay/scoring/stats.py): only tasks that flipped carry information, which is why the test is
paired rather than a comparison of two independent rates.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from replay.core.records import Outcome, Task
from replay.reports.strata import DIMENSIONS, SMALL_STRATUM, Cutoffs, memberships, ordered_values
from replay.scoring.stats import mcnemar_exact


@dataclass(frozen=True, slots=True)
class Series:
    run_id: str
    model: str
    preset: str

    @property
    def label(self) -> str:
        return f"{short_model(self.model)} · {self.preset} ({self.run_id})"


def short_model(model: str) -> str:
    """A model name short enough for a chart label: a recording by its folder's name, a long
    endpoint spec cut (the run table shows it whole)."""
    kind, _, rest = model.partition(":")
    if kind == "recorded" and rest:
        return f"recorded:{rest.rstrip('/').rsplit('/', 1)[-1]}"
    return model if len(model) <= 48 else model[:47] + "…"


@dataclass(frozen=True, slots=True)
class StratumDiff:
    dimension: str
    value: str
    n: int  # tasks both sides have
    passed_first: int
    passed_second: int
    only_first: int  # passed under the first series only
    only_second: int
    p_value: float  # exact McNemar, two-sided
    small: bool

    @property
    def difference(self) -> float:
        """Second minus first, as a share of the paired tasks."""
        return (self.passed_second - self.passed_first) / self.n if self.n else 0.0


@dataclass(frozen=True, slots=True)
class Flip:
    task_id: str
    first_status: str
    second_status: str


@dataclass(frozen=True, slots=True)
class Comparison:
    first: Series
    second: Series
    paired: int
    only_in_first: int
    only_in_second: int
    strata: tuple[StratumDiff, ...]
    flips: tuple[Flip, ...]  # tasks whose pass/fail verdict changed
    status_changes: tuple[tuple[str, str, int], ...]  # (from, to, count) of every changed status
    summary: str
    differing: tuple[str, ...] = ()  # ids both runs have for different tasks (re-marked): not compared


def task_digest(task: Task) -> str:
    """What a task is, beyond its id: its ground truth and the file it was cut from."""
    h = hashlib.sha256()
    for part in (task.ground_truth, task.file_sha256):
        data = part.encode("utf-8")
        h.update(len(data).to_bytes(8, "big") + data)
    return h.hexdigest()


def pair_tasks(first: Mapping[str, Task], second: Mapping[str, Task]) -> tuple[list[Task], list[str]]:
    """The tasks both sides have (in the first side's order), and the ids both have for tasks
    that differ (another ground truth or file: the repository was re-marked)."""
    shared, differing = [], []
    for task_id, task in first.items():
        other = second.get(task_id)
        if other is None:
            continue
        if other is task or task_digest(other) == task_digest(task):
            shared.append(task)
        else:
            differing.append(task_id)
    return shared, differing


def compare(
    first: Series,
    second: Series,
    tasks: Sequence[Task],
    a: Mapping[str, Outcome],
    b: Mapping[str, Outcome],
    cut: Cutoffs,
    differing: Sequence[str] = (),
) -> Comparison:
    """Compare ``b`` (the second series' outcomes by task id) with ``a`` over ``tasks`` (those
    both sides have, see :func:`pair_tasks`); ``differing`` are the ids left out because the two
    sides' tasks differ, reported with the comparison."""
    both = [t for t in tasks if t.id in a and t.id in b]
    cells: dict[tuple[str, str], list[tuple[bool, bool]]] = {}
    for task in both:
        pair = (a[task.id].passed, b[task.id].passed)
        for member in memberships(task, cut):
            cells.setdefault(member, []).append(pair)
    strata = []
    for dimension in DIMENSIONS:
        present = [v for d, v in cells if d == dimension]
        for value in ordered_values(dimension, present):
            pairs = cells[(dimension, value)]
            only_a = sum(1 for x, y in pairs if x and not y)
            only_b = sum(1 for x, y in pairs if y and not x)
            strata.append(
                StratumDiff(
                    dimension,
                    value,
                    len(pairs),
                    sum(x for x, _ in pairs),
                    sum(y for _, y in pairs),
                    only_a,
                    only_b,
                    mcnemar_exact(only_a, only_b),
                    len(pairs) < SMALL_STRATUM,
                )
            )
    flips = tuple(Flip(t.id, a[t.id].status.value, b[t.id].status.value) for t in both if a[t.id].passed != b[t.id].passed)
    changes = Counter((a[t.id].status.value, b[t.id].status.value) for t in both if a[t.id].status != b[t.id].status)
    status_changes = tuple((x, y, n) for (x, y), n in sorted(changes.items(), key=lambda kv: (-kv[1], kv[0])))
    ids = {t.id for t in tasks}
    only_first = len({i for i in a if i in ids} - {i for i in b})
    only_second = len({i for i in b if i in ids} - {i for i in a})
    result = Comparison(
        first, second, len(both), only_first, only_second, tuple(strata), flips, status_changes, "", tuple(sorted(differing))
    )
    return dataclasses.replace(result, summary=summarise(result))


def differing_note(n: int) -> str:
    """The sentence every output gives for tasks that share an id but differ between the runs."""
    return (
        f"{n} task{'s share' if n != 1 else ' shares'} an id but differ{'' if n != 1 else 's'} between the runs (re-marked?): not compared."
    )


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def summarise(c: Comparison) -> str:
    """A few plain sentences: the overall change, its test, where it moved most, what changed."""
    overall = next((s for s in c.strata if s.dimension == "all"), None)
    lines = [
        f"{c.second.label} against {c.first.label}: {c.paired} tasks paired by id and ground truth"
        + (f" ({c.only_in_first} only in the first, {c.only_in_second} only in the second)" if c.only_in_first or c.only_in_second else "")
        + "."
    ]
    if c.differing:
        lines.append(differing_note(len(c.differing)))
    if overall is None or overall.n == 0:
        lines.append("No task has an outcome on both sides: nothing to compare.")
        return "\n".join(lines)
    change = overall.difference
    lines.append(
        f"Pass rate {_pct(overall.passed_first / overall.n)} → {_pct(overall.passed_second / overall.n)} "
        f"({'+' if change >= 0 else ''}{100 * change:.1f} points); {overall.only_second} tasks newly pass, "
        f"{overall.only_first} newly fail (exact McNemar p = {overall.p_value:.3g})."
    )
    moved = sorted(
        (s for s in c.strata if s.dimension != "all" and s.n and (s.only_first or s.only_second)),
        key=lambda s: (-abs(s.difference), s.dimension, s.value),
    )[:3]
    if moved:
        lines.append(
            "Largest moves: "
            + "; ".join(
                f"{s.dimension} {s.value} {'+' if s.difference >= 0 else ''}{100 * s.difference:.1f} points (n={s.n}{', small' if s.small else ''})"
                for s in moved
            )
            + "."
        )
    if c.status_changes:
        lines.append(
            "Outcomes that changed: "
            + ", ".join(f"{x} → {y} ×{n}" for x, y, n in c.status_changes[:6])
            + (f", and {len(c.status_changes) - 6} more kinds" if len(c.status_changes) > 6 else "")
            + "."
        )
    else:
        lines.append("No task changed its outcome.")
    return "\n".join(lines)
