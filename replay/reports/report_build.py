"""Reports computed from the store alone: for every (run, preset) series the paper's strata with
95% intervals, the error taxonomy, mean similarity metrics and the tasks worth a look; then the
comparisons between series. Building (:func:`build_report`, reading the store once) and rendering
(text in ``report_text.py``, JSON in ``report_json.py``, CSV in ``report_csv.py``, HTML in
``html_report.py``) are separate, and every renderer shows the same :class:`Report`, so the
numbers agree across formats."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from postprocess import is_ablation
from replay.core.records import Outcome, Task
from replay.reports.comparison import Comparison, Series, compare, pair_tasks, task_digest
from replay.reports.decision_figures import DecisionFigures, decision_figures
from replay.reports.scoreboard import Scoreboard, build_series
from replay.reports.strata import Cutoffs, IntervalMethod, MeanRow, StratumRow, cutoffs, stratify, stratum_means
from replay.reports.tampering import TamperingRow, tampering
from replay.reports.taxonomy import Taxonomy, taxonomy
from replay.scoring.passk import bootstrap_interval, task_pass_at_k
from replay.scoring.similarity import METRIC_LABELS
from replay.store import RunInfo, Store


@dataclass
class Notable:
    task_id: str
    status: str
    why: str


@dataclass(frozen=True, slots=True)
class OutcomeRow:
    """One outcome with everything an export or a drill-down needs (metrics are None when the
    task of the outcome is not stored with the run)."""

    run_id: str
    model: str
    preset: str
    task_id: str
    repo: str
    language: str
    kind: str
    construct: str
    status: str
    passed: bool
    detail: str
    duration_s: float
    processed: str | None
    raw: str | None
    model_error: str | None
    output_tail: str
    steps: tuple[str, ...]
    metrics: dict[str, float] | None


@dataclass
class Section:
    run_id: str
    model: str
    preset: str
    scenario_hash: str
    rows: list[StratumRow]
    statuses: dict[str, int]
    taxonomy: Taxonomy
    metrics: dict[str, float]  # mean of each metric over the outcomes that have them
    metrics_n: int
    similarity: list[MeanRow] = field(default_factory=list)  # mean indel similarity per stratum
    notable: list[Notable] = field(default_factory=list)
    samples: SampleSummary | None = None  # runs with several samples per task: pass@k over all of them
    decisions: DecisionFigures | None = None  # series with decision tasks: silence, precision, one line (decisions.py)

    @property
    def series(self) -> Series:
        return Series(self.run_id, self.model, self.preset)

    @property
    def label(self) -> str:
        return self.series.label

    def similarity_of(self, dimension: str, value: str) -> float | None:
        return next((m.mean for m in self.similarity if (m.dimension, m.value) == (dimension, value)), None)


@dataclass(frozen=True, slots=True)
class SampleSummary:
    """pass@k of a series whose tasks have several samples (the rest of its section, like every
    per-task table, is about sample 0: the first suggestion): the unbiased pass@1 over every
    sample with a task-level bootstrap interval, and pass@n."""

    n: int  # samples per task (the fewest any task has)
    tasks: int
    pass_at_1: float
    low: float
    high: float
    pass_at_n: float


def sample_summary(outcomes: list[Outcome], preset: str, tasks: Collection[str]) -> SampleSummary | None:
    """pass@1 and pass@n of ``preset`` over every sample of ``tasks``; None when no task has more than one."""
    passed: dict[str, list[bool]] = {}
    for o in outcomes:
        if o.postprocess == preset and o.task_id in tasks:
            passed.setdefault(o.task_id, []).append(o.passed)
    if not passed or max(len(v) for v in passed.values()) < 2:
        return None
    n = min(len(v) for v in passed.values())
    per_task = [task_pass_at_k(v, 1) for v in passed.values()]
    low, high = bootstrap_interval(per_task)
    return SampleSummary(
        n,
        len(per_task),
        math.fsum(per_task) / len(per_task),
        low,
        high,
        math.fsum(task_pass_at_k(v, n) for v in passed.values()) / len(passed),
    )


@dataclass
class Report:
    runs: list[RunInfo]
    interval: str
    cutoffs: Cutoffs
    sections: list[Section]
    comparisons: list[Comparison]
    outcomes: list[OutcomeRow]
    tasks: dict[str, Task]  # every task of the report by id (the first run's copy)
    requests: dict[tuple[str, str], dict[str, Any]]  # (run, task) → the stored request
    # (run, task id) → that run's task where it differs from the copy in ``tasks`` (re-marked)
    run_tasks: dict[tuple[str, str], Task] = field(default_factory=dict)
    board: Scoreboard | None = None  # latency, the editor clock and cost per series (scoreboard.py)
    # answers that touched the test harness, every series when any did (tampering.py); empty otherwise
    tampering: list[TamperingRow] = field(default_factory=list)

    def __iter__(self):  # a report reads as its sections, as it did before comparisons existed
        return iter(self.sections)

    def __len__(self) -> int:
        return len(self.sections)


def presets_of(run: RunInfo, outcomes: list[Outcome]) -> list[str]:
    """The distinct presets of a run's outcomes: the run's own order first, then any others
    (stored later, e.g. by comparing more presets under the same run) by name. The ablation
    variants ``simpilot compare`` stores (a preset without one step) are its business, not a
    report's."""
    stored = {o.postprocess for o in outcomes if not is_ablation(o.postprocess)}
    return [p for p in run.presets if p in stored] + sorted(stored - set(run.presets))


def notable(run: RunInfo, mine: list[Outcome], tasks: Mapping[str, Task] | None = None) -> list[Notable]:
    """Outcomes worth a look: the oracle failing, or an empty answer passing where code was needed
    (an empty answer is the right one at a ``no_suggestion`` place)."""
    found = []
    for o in mine:
        task = (tasks or {}).get(o.task_id)
        if run.model == "oracle" and not o.passed:
            found.append(Notable(o.task_id, o.status.value, o.detail or "the ground truth failed"))
        elif o.passed and not (o.processed or "").strip() and not (task is not None and task.nothing_needed):
            found.append(Notable(o.task_id, o.status.value, "passed with an empty answer: its tests do not exercise the hole"))
    return found


def build_section(
    run: RunInfo,
    preset: str,
    tasks: dict[str, Task],
    outcomes: list[Outcome],
    cut: Cutoffs,
    method: IntervalMethod,
    metrics: dict[tuple[str, str], Any],
) -> Section:
    mine = {o.task_id: o for o in outcomes if o.postprocess == preset and o.task_id in tasks}
    rows = stratify(list(tasks.values()), lambda i: mine[i].passed if i in mine else None, cut, method, key=f"{run.run_id}|{preset}")
    values = [metrics[(i, preset)].to_dict() for i in mine if (i, preset) in metrics]
    means = {name: math.fsum(v[name] for v in values) / len(values) for name in METRIC_LABELS} if values else {}
    listed = list(mine.values())
    indel = {i: metrics[(i, preset)].indel_similarity for i in mine if (i, preset) in metrics}
    return Section(
        run.run_id,
        run.model,
        preset,
        run.scenario_hash,
        rows,
        dict(Counter(o.status.value for o in listed)),
        taxonomy(listed),
        means,
        len(values),
        stratum_means(list(tasks.values()), indel.get, cut),
        notable(run, listed, tasks),
        decisions=decision_figures(list(tasks.values()), mine, cut, method, key=f"{run.run_id}|{preset}"),
    )


def default_pairs(series: list[Series]) -> list[tuple[Series, Series]]:
    """What a report compares: each run's first preset with its other presets, and the first
    run with every other run on each preset they share (or on their first presets)."""
    by_run: dict[str, list[Series]] = {}
    for s in series:
        by_run.setdefault(s.run_id, []).append(s)
    pairs = [(mine[0], other) for mine in by_run.values() for other in mine[1:]]
    runs = list(by_run.values())
    for other in runs[1:]:
        shared = [(x, y) for x in runs[0] for y in other if x.preset == y.preset]
        pairs += shared or [(runs[0][0], other[0])]
    return pairs


WILSON = IntervalMethod()  # the default interval (a frozen record: one instance serves every call)


def build_report(
    store: Store, run_ids: list[str], method: IntervalMethod = WILSON, pairs: list[tuple[tuple[str, str], tuple[str, str]]] | None = None
) -> Report:
    """Read ``run_ids`` from the store (filling in missing metrics first) and compute everything.
    ``pairs`` of ((run, preset), (run, preset)) replace the default comparisons."""
    runs = [r for r in (store.run(i) for i in run_ids) if r is not None]
    loaded = []
    every_sample: dict[str, list[Outcome]] = {}
    for run in runs:
        store.backfill_metrics(run.run_id)
        every_sample[run.run_id] = store.outcomes(run.run_id, sample=None)
        loaded.append(
            (
                run,
                {t.id: t for t in store.tasks(run.run_id)},
                [o for o in every_sample[run.run_id] if o.sample == 0],  # the per-task tables: the first suggestion
                store.metrics(run.run_id),
                store.completions(run.run_id),
            )
        )
    all_tasks: dict[str, Task] = {}
    run_tasks: dict[tuple[str, str], Task] = {}
    for run, tasks, _, _, _ in loaded:
        for t in tasks.values():
            known = all_tasks.setdefault(t.id, t)
            if known is not t and task_digest(known) != task_digest(t):
                run_tasks[(run.run_id, t.id)] = t
    cut = cutoffs([*all_tasks.values(), *run_tasks.values()])  # a re-marked task counts as the task it is
    sections, rows, requests = [], [], {}
    by_series: dict[tuple[str, str], tuple[Series, dict[str, Outcome], dict[str, Task]]] = {}
    for run, tasks, outcomes, metrics, completions in loaded:
        for preset in presets_of(run, outcomes):
            section = build_section(run, preset, tasks, outcomes, cut, method, metrics)
            section.samples = sample_summary(every_sample[run.run_id], preset, tasks)
            sections.append(section)
            by_series[(run.run_id, preset)] = (section.series, {o.task_id: o for o in outcomes if o.postprocess == preset}, tasks)
        for o in outcomes:
            task = tasks.get(o.task_id)
            c = completions.get(o.task_id)
            m = metrics.get((o.task_id, o.postprocess))
            rows.append(
                OutcomeRow(
                    run.run_id,
                    run.model,
                    o.postprocess,
                    o.task_id,
                    task.repo if task else "",
                    task.language if task else "",
                    task.kind.value if task else "",
                    task.construct if task else "",
                    o.status.value,
                    o.passed,
                    o.detail,
                    o.duration_s,
                    o.processed,
                    c.raw if c else None,
                    c.error if c else None,
                    o.output_tail,
                    o.steps,
                    m.to_dict() if m else None,
                )
            )
        requests.update({(run.run_id, i): c.request for i, c in completions.items()})
    if pairs is None:
        chosen = [((x.run_id, x.preset), (y.run_id, y.preset)) for x, y in default_pairs([s.series for s in sections])]
    else:
        chosen = [p for p in pairs if p[0] in by_series and p[1] in by_series]
    comparisons = []
    for first, second in chosen:
        s1, a, tasks1 = by_series[first]
        s2, b, tasks2 = by_series[second]
        shared, differing = pair_tasks(tasks1, tasks2)
        comparisons.append(compare(s1, s2, shared, a, b, cut, differing))
    board = build_series(store, [(s.series.run_id, s.series.preset) for s in sections]) if sections else None
    tampered = tampering([(s.series, [o for o in every_sample[s.run_id] if o.postprocess == s.preset]) for s in sections])
    return Report(runs, method.name, cut, sections, comparisons, rows, all_tasks, requests, run_tasks, board, tampered)
