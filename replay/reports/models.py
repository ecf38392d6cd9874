"""Several models on the same tasks: which is ahead, by how much, and whether the order could be chance.

Runs are paired task by task. Only tasks that every run has, with the same number of samples, are
compared: a lead built on tasks another model never saw is no lead over it, and pass@k from
different sample counts are different estimates. Every task left out is counted per run, with its
reason, so a reader sees how much of each run the comparison rests on.

pass@1 and pass@k are the unbiased estimators of ``replay/scoring/passk.py``, averaged over
tasks; their intervals are bootstrapped over tasks rather than samples, because the samples of
one task are not independent draws and the tasks are what a reader wants to generalise over.
Every pair of models gets two paired tests: the exact McNemar test on sample 0 (one answer a
task, as an assistant gives it) and a paired bootstrap of per-task pass@1 (every sample). Models
next to each other in the ranking also get the share of bootstrap replicates in which their
order flips: a ranking is only as solid as its closest pair.

The line-0 exact match and the bag-of-words cosine are DevBench's metrics; they are labelled as
such everywhere, so that nobody reads them as a verdict of the tests.

Everything here is a pure function of its inputs and the seed: the same runs and seed give the
same numbers, bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from replay.core.missing_answers import SHOWN, how_to_answer, some
from replay.reports.html_text import esc, html_table
from replay.scoring.passk import best_at_k, bootstrap_interval, paired_bootstrap, rank_flips, task_pass_at_k
from replay.scoring.stats import mcnemar_exact

LEVEL = 0.95  # every interval and test here is at this level
UNKNOWN = "unknown"  # the stratum value of a task whose strata lack the key
LINE0_LABEL = "line-0 EM (DevBench)"
COSINE_LABEL = "cosine (DevBench)"
METRICS_NOTE = (
    "line-0 EM and cosine: DevBench's metrics as DevBench scores them (a task matches when any sample's first line does; "
    "the cosine of the first lines' bags of words, averaged over samples and tasks)"
)


# -- inputs ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SampleScore:
    passed: bool
    line0: int  # DevBench's line-0 exact match (0/1) of this sample
    cosine: float  # DevBench's bag-of-words cosine of this sample
    error: str = ""  # the model's error when this sample is a model error (no answer came), else ""


@dataclass(frozen=True, slots=True)
class ModelRun:
    model: str  # the name shown
    run_id: str
    samples: Mapping[str, Sequence[SampleScore]]  # task id -> its samples in sample order (sample 0 first)
    model_spec: str = ""  # the model as the run was given it (``recorded:FOLDER``, ...): what to do about its errors


# -- results ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StratumScore:
    key: str  # "language", "category", ...
    value: str
    tasks: int
    pass_at_1: float
    low: float  # bootstrap interval of pass@1 over the stratum's tasks
    high: float
    pass_at_n: float


@dataclass(frozen=True, slots=True)
class ModelScore:
    model: str  # the name shown, unique within the comparison
    run_id: str
    tasks: int
    n: int  # samples per task: the k of pass@n and best@n
    pass_at_1: float
    low: float  # bootstrap interval of pass@1 over tasks
    high: float
    pass_at_n: float
    best_at_1: float  # of DevBench's cosine
    best_at_n: float
    line0: float  # mean over every sample of the compared tasks
    cosine: float
    line0_any: float  # share of tasks with a sample matching: DevBench's own line-0 figure
    strata: tuple[StratumScore, ...]

    def stratum(self, key: str, value: str) -> StratumScore | None:
        return next((s for s in self.strata if s.key == key and s.value == value), None)


@dataclass(frozen=True, slots=True)
class Excluded:
    """The tasks of one run that the comparison left out, by reason."""

    model: str
    run_id: str
    missing: tuple[str, ...]  # another run lacks them
    mismatched: tuple[str, ...]  # every run has them, but not with the same number of samples
    empty: tuple[str, ...]  # every run has them with no sample at all
    why: tuple[tuple[str, str], ...] = ()  # (task id, why it is left out and what to do) for each of them

    @property
    def count(self) -> int:
        return len(self.missing) + len(self.mismatched) + len(self.empty)


@dataclass(frozen=True, slots=True)
class PairTest:
    """Two models paired task by task; ``first`` is the one ranked higher."""

    first: str
    second: str
    only_first: int  # tasks whose sample 0 passed for the first model only
    only_second: int
    mcnemar_p: float  # exact McNemar on sample 0, two-sided
    difference: float  # first's pass@1 minus second's
    low: float  # paired bootstrap interval of the difference
    high: float
    bootstrap_p: float
    # neighbours only: share of bootstrap replicates where the second beats the first (None too when
    # the two means differ by rounding alone and passk.rank_flips ordered them the other way)
    flips: float | None


@dataclass(frozen=True, slots=True)
class ModelComparison:
    models: tuple[ModelScore, ...]  # by pass@1, best first (ties by name)
    pairs: tuple[PairTest, ...]  # every pair, in ranking order
    excluded: tuple[Excluded, ...]  # one per run, in the order the runs were given
    tasks: tuple[str, ...]  # the compared task ids, sorted
    by: tuple[str, ...]  # the stratum keys
    resamples: int
    seed: int

    @property
    def n(self) -> int:
        return self.models[0].n if self.models else 0

    @property
    def neighbours(self) -> tuple[PairTest, ...]:
        """The pairs of models next to each other in the ranking."""
        names = [m.model for m in self.models]
        following = dict(zip(names, names[1:], strict=False))
        return tuple(p for p in self.pairs if following.get(p.first) == p.second)

    def values(self, key: str) -> tuple[str, ...]:
        """The values of stratum ``key``, in table order."""
        return tuple(dict.fromkeys(s.value for m in self.models for s in m.strata if s.key == key))


# -- the core (pure) -------------------------------------------------------------------------------


def shown_names(runs: Sequence[ModelRun]) -> list[str]:
    """Each run's name in the comparison: the model, with its run id when two runs share a model
    (comparing two runs of one model is a fair question: did anything but chance change?)."""
    seen: dict[str, int] = {}
    for r in runs:
        seen[r.model] = seen.get(r.model, 0) + 1
    names = [r.model if seen[r.model] == 1 else f"{r.model} ({r.run_id})" for r in runs]
    if len(set(names)) != len(names):
        twice = next(x for x in names if names.count(x) > 1)
        raise ValueError(f"two runs would both be shown as {twice!r}: give each run its own model name or run id")
    return names


def paired_tasks(runs: Sequence[ModelRun], names: Sequence[str]) -> tuple[list[str], list[Excluded]]:
    """The task ids every run has with the same number (≥ 1) of samples, sorted, and what each
    run loses."""
    common = set(runs[0].samples).intersection(*(r.samples for r in runs[1:]))
    mismatched, empty, kept = set(), set(), []
    for task_id in common:
        counts = {len(r.samples[task_id]) for r in runs}
        if len(counts) > 1:
            mismatched.add(task_id)
        elif counts == {0}:
            empty.add(task_id)
        else:
            kept.append(task_id)
    why = {task_id: _mismatch(task_id, runs, names) for task_id in mismatched} | {task_id: "no sample in any run" for task_id in empty}
    excluded = []
    for name, r in zip(names, runs, strict=True):
        missing = tuple(sorted(set(r.samples) - common))
        for task_id in missing:
            lacking = [n for n, other in zip(names, runs, strict=True) if task_id not in other.samples]
            why[task_id] = (
                f"not in {', '.join(lacking)} (a run of other tasks, or unfinished: 'simpilot replay … --run RUN --resume' finishes one)"
            )
        lost = (*missing, *sorted(mismatched), *sorted(empty))
        excluded.append(
            Excluded(name, r.run_id, missing, tuple(sorted(mismatched)), tuple(sorted(empty)), tuple((t, why[t]) for t in lost))
        )
    return sorted(kept), excluded


def _mismatch(task_id: str, runs: Sequence[ModelRun], names: Sequence[str]) -> str:
    """Why ``task_id`` has different numbers of samples in ``runs``: each run's count, and for a run
    whose answer is a model error, that error and what gives the task an answer."""
    parts = []
    for name, r in zip(names, runs, strict=True):
        samples = r.samples[task_id]
        errors = [s.error for s in samples if s.error]
        part = f"{name} has {len(samples)} sample(s)"
        if errors:
            part += f", a model error ({errors[0]}): {how_to_answer(r.model_spec or r.model, r.run_id)}"
        parts.append(part)
    return "; ".join(parts)


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else 0.0  # fsum: the same bits in any order


def stratum_value(strata: Mapping[str, Mapping[str, str]], task_id: str, key: str) -> str:
    return strata.get(task_id, {}).get(key) or UNKNOWN


def _ordered(values: set[str]) -> list[str]:
    return sorted(values - {UNKNOWN}) + ([UNKNOWN] if UNKNOWN in values else [])


def score_model(
    name: str,
    run: ModelRun,
    tasks: Sequence[str],
    k: int,
    strata: Mapping[str, Mapping[str, str]],
    by: Sequence[str],
    resamples: int,
    seed: int,
) -> tuple[ModelScore, list[float]]:
    """One model's scores over ``tasks``, and its per-task pass@1 (in task order) for the paired tests."""
    rows = [run.samples[t] for t in tasks]
    p1 = [task_pass_at_k([s.passed for s in r], 1) for r in rows]
    pn = [task_pass_at_k([s.passed for s in r], k) for r in rows]
    low, high = bootstrap_interval(p1, resamples=resamples, level=LEVEL, seed=seed)
    everything = [s for r in rows for s in r]
    per_stratum = []
    for key in by:
        groups: dict[str, list[int]] = {}
        for i, task_id in enumerate(tasks):
            groups.setdefault(stratum_value(strata, task_id, key), []).append(i)
        for value in _ordered(set(groups)):
            members = groups[value]
            sub = [p1[i] for i in members]
            s_low, s_high = bootstrap_interval(sub, resamples=resamples, level=LEVEL, seed=seed)
            per_stratum.append(StratumScore(key, value, len(members), _mean(sub), s_low, s_high, _mean([pn[i] for i in members])))
    score = ModelScore(
        model=name,
        run_id=run.run_id,
        tasks=len(tasks),
        n=k,
        pass_at_1=_mean(p1),
        low=low,
        high=high,
        pass_at_n=_mean(pn),
        best_at_1=_mean([best_at_k([s.cosine for s in r], 1) for r in rows]),
        best_at_n=_mean([best_at_k([s.cosine for s in r], k) for r in rows]),
        line0=_mean([float(s.line0) for s in everything]),
        cosine=_mean([s.cosine for s in everything]),
        line0_any=_mean([float(any(s.line0 for s in r)) for r in rows]),
        strata=tuple(per_stratum),
    )
    return score, p1


def compare_models(
    runs: Sequence[ModelRun],
    strata: Mapping[str, Mapping[str, str]],
    *,
    by: Sequence[str] = ("language", "category"),
    resamples: int = 10_000,
    seed: int = 0,
) -> ModelComparison:
    """Compare ``runs`` on the tasks they share (see :func:`paired_tasks`).

    When the compared tasks do not all have the same number of samples, pass@n and best@n use the
    smallest: k must not exceed any task's n, and one k for all keeps the tasks comparable.
    """
    if not runs:
        raise ValueError("no run to compare")
    names = shown_names(runs)
    tasks, excluded = paired_tasks(runs, names)
    if not tasks:
        lost = "; ".join(f"{e.model}: {e.count} left out ({some(t for t, _ in e.why)})" for e in excluded)
        raise ValueError(
            f"the {len(runs)} runs have no task in common with the same number of samples (at least one): nothing to compare ({lost})"
        )
    k = min(len(runs[0].samples[t]) for t in tasks)
    scored = [score_model(name, r, tasks, k, strata, by, resamples, seed) + (r,) for name, r in zip(names, runs, strict=True)]
    scored.sort(key=lambda x: (-x[0].pass_at_1, x[0].model))
    per_task = {score.model: p1 for score, p1, _ in scored}
    flips = {(a, b): share for a, b, share in rank_flips(per_task, resamples=resamples, seed=seed)} if len(scored) > 1 else {}
    pairs = []
    for i, (first, p1_first, run_first) in enumerate(scored):
        for j, (second, p1_second, run_second) in enumerate(scored[i + 1 :], start=i + 1):
            zero_first = [run_first.samples[t][0].passed for t in tasks]
            zero_second = [run_second.samples[t][0].passed for t in tasks]
            only_first = sum(1 for a, b in zip(zero_first, zero_second, strict=True) if a and not b)
            only_second = sum(1 for a, b in zip(zero_first, zero_second, strict=True) if b and not a)
            paired = paired_bootstrap(p1_first, p1_second, resamples=resamples, level=LEVEL, seed=seed)
            pairs.append(
                PairTest(
                    first.model,
                    second.model,
                    only_first,
                    only_second,
                    mcnemar_exact(only_first, only_second),
                    paired.difference,
                    paired.low,
                    paired.high,
                    paired.p_value,
                    flips.get((first.model, second.model)) if j == i + 1 else None,
                )
            )
    return ModelComparison(
        models=tuple(s for s, _, _ in scored),
        pairs=tuple(pairs),
        excluded=tuple(excluded),
        tasks=tuple(tasks),
        by=tuple(by),
        resamples=resamples,
        seed=seed,
    )


# -- words shared by every form --------------------------------------------------------------------


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _interval(x: float, low: float, high: float) -> str:
    return f"{_pct(x)} [{_pct(low)}–{_pct(high)}]"


def _delta(p: PairTest) -> str:
    return f"{100 * p.difference:+.1f} [{100 * p.low:+.1f}, {100 * p.high:+.1f}]"  # a dash between signed numbers misreads


def _flips(p: PairTest) -> str:
    return "–" if p.flips is None else f"{100 * p.flips:.1f}%"


def header(c: ModelComparison) -> str:
    """What was compared and how, in one sentence."""
    return (
        f"{len(c.models)} models on the same {len(c.tasks)} tasks, {c.n} samples each · pass@1 intervals: "
        f"{100 * LEVEL:.0f}% percentile bootstrap over tasks ({c.resamples} resamples, seed {c.seed}) · figures in %"
    )


def _p(value: float, resamples: int) -> str:
    """A bootstrap p-value; 0 means no replicate reached the other side: below 1/resamples."""
    return f"< {1 / resamples:.0e}" if value == 0 else f"{value:.3g}"


def exclusion_notes(c: ModelComparison) -> list[str]:
    """One sentence per group of runs that lost the same tasks for the same reasons (the
    comparison pairs tasks, so one run's missing task is left out of every run)."""
    groups: dict[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]], list[str]] = {}
    for e in c.excluded:
        if e.count:
            groups.setdefault((tuple(e.missing), tuple(e.mismatched), tuple(e.empty)), []).append(e.model)
    why = {task_id: reason for e in c.excluded for task_id, reason in e.why}
    notes = []
    for (missing, mismatched, empty), models in groups.items():
        reasons = [
            f"{len(missing)} missing in another run ({some(missing)})" if missing else "",
            f"{len(mismatched)} with another run's number of samples ({some(mismatched)})" if mismatched else "",
            f"{len(empty)} with no sample ({some(empty)})" if empty else "",
        ]
        who = "every model" if len(models) == len(c.excluded) > 1 else ", ".join(models)
        lost = [*missing, *mismatched, *empty]
        named = "; ".join(f"{task_id}: {why[task_id]}" for task_id in lost[:SHOWN] if task_id in why)
        more = f" (and {len(lost) - SHOWN} more)" if len(lost) > SHOWN else ""
        reasons_text = ", ".join(r for r in reasons if r)
        notes.append(f"{who}: {len(lost)} task(s) left out — {reasons_text}." + (f" Why: {named}{more}." if named else ""))
    return notes


def model_rows(c: ModelComparison) -> tuple[list[str], list[list[str]]]:
    head = ["model", "pass@1 [95% CI]", f"pass@{c.n}", f"line-0 EM, any of {c.n}", "cosine"]
    rows = [[m.model, _interval(m.pass_at_1, m.low, m.high), _pct(m.pass_at_n), _pct(m.line0_any), f"{m.cosine:.3f}"] for m in c.models]
    return head, rows


def stratum_rows(c: ModelComparison, key: str) -> tuple[list[str], list[list[str]]]:
    values = c.values(key)
    counts = {v: next(s.tasks for s in c.models[0].strata if s.key == key and s.value == v) for v in values}
    head = ["model", *(f"{v} (n={counts[v]})" for v in values)]
    rows = []
    for m in c.models:
        cells = []
        for v in values:
            s = m.stratum(key, v)
            cells.append("–" if s is None else _interval(s.pass_at_1, s.low, s.high))
        rows.append([m.model, *cells])
    return head, rows


def neighbour_rows(c: ModelComparison) -> tuple[list[str], list[list[str]]]:
    head = ["model", "next model", "Δ pass@1 [95% CI]", "McNemar p (sample 0)", "bootstrap p", "flips"]
    rows = [
        [p.first, p.second, _delta(p), f"{p.mcnemar_p:.3g} (+{p.only_first}/−{p.only_second})", _p(p.bootstrap_p, c.resamples), _flips(p)]
        for p in c.neighbours
    ]
    return head, rows


NEIGHBOUR_NOTE = (
    "Δ: the model's pass@1 minus the next model's, in points · McNemar: exact, on sample 0 (+ tasks only the model passed / − only the next) · "
    "bootstrap p: paired bootstrap of per-task pass@1 · flips: share of bootstrap replicates in which the next model comes out ahead"
)


# -- the terminal ----------------------------------------------------------------------------------


def _table(title: str | None, head: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> Table:
    """A table whose name columns (the first ``left``) fold rather than being cut, and whose
    numbers never wrap."""
    table = Table(title=None if title is None else escape(title), title_justify="left")
    for i, col in enumerate(head):
        # a header's qualifier goes under it: the column is as narrow as its figures
        label = escape(col.replace(" (", "\n(").replace(" [", "\n["))
        if i < left:
            widest = max((len(row[i]) for row in rows), default=0)
            table.add_column(label, justify="left", overflow="fold", min_width=min(10, max(widest, 4)))
        else:
            table.add_column(label, justify="right", no_wrap=True)
    for row in rows:
        table.add_row(*(escape(cell) for cell in row))
    return table


def _fold(rows: Sequence[Sequence[str]], left: int = 1) -> list[list[str]]:
    """Each figure's interval or counts under it: a table of many columns stays within 80."""
    return [[*row[:left], *(cell.replace(" [", "\n[").replace(" (", "\n(") for cell in row[left:])] for row in rows]


def render(c: ModelComparison, console: Console, *, brief: bool = False) -> None:
    """The models, then (unless ``brief``) pass@1 by each stratum key and the neighbours in the ranking."""
    console.print(header(c), markup=False, highlight=False)
    for note in exclusion_notes(c):
        console.print(f"  {note}", markup=False, highlight=False)
    console.print(_table(None, *model_rows(c)))
    console.print(f"  {METRICS_NOTE}", markup=False, highlight=False)
    if brief:
        return
    for key in c.by:
        head, rows = stratum_rows(c, key)
        console.print(_table(f"pass@1 by {key}", head, _fold(rows)))
    if c.neighbours:
        head, rows = neighbour_rows(c)
        console.print(_table("neighbours in the ranking", head, _fold(rows, left=2), left=2))
        console.print(f"  {NEIGHBOUR_NOTE}", markup=False, highlight=False)


# -- markdown --------------------------------------------------------------------------------------


def _md_cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _md_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(_md_cell(h) for h in head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(_md_cell(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def markdown(c: ModelComparison) -> str:
    """The same tables as :func:`render`, in GitHub markdown (for a README)."""
    parts = [_md_cell(header(c)) + "."]
    notes = exclusion_notes(c)
    if notes:
        parts.append("\n".join(f"- {_md_cell(n)}" for n in notes))
    parts.append(_md_table(*model_rows(c)) + "\n\n" + _md_cell(METRICS_NOTE) + ".")
    for key in c.by:
        parts.append(f"**pass@1 by {_md_cell(key)}**\n\n" + _md_table(*stratum_rows(c, key)))
    if c.neighbours:
        parts.append("**neighbours in the ranking**\n\n" + _md_table(*neighbour_rows(c)) + "\n\n" + _md_cell(NEIGHBOUR_NOTE) + ".")
    return "\n\n".join(parts) + "\n"


# -- JSON ------------------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def _record(obj: Any) -> dict[str, Any]:
    return {name: _plain(getattr(obj, name)) for name in obj.__dataclass_fields__}


def to_json(c: ModelComparison) -> dict[str, Any]:
    """Everything, every pair included (not only the neighbours)."""
    return {
        "tasks": len(c.tasks),
        "task_ids": list(c.tasks),
        "samples_per_task": c.n,
        "by": list(c.by),
        "interval": f"percentile bootstrap over tasks, {100 * LEVEL:.0f}%",
        "resamples": c.resamples,
        "seed": c.seed,
        "tests": {
            "mcnemar": "exact, two-sided, on sample 0",
            "bootstrap": "paired percentile bootstrap of per-task pass@1",
            "flips": "share of bootstrap replicates in which the lower-ranked neighbour comes out ahead",
        },
        "devbench_metrics": {
            "line0": LINE0_LABEL,
            "cosine": COSINE_LABEL,
            "best_at_1": "best@1 of the cosine",
            "best_at_n": "best@n of the cosine",
        },
        "models": [{**_record(m), "strata": [_record(s) for s in m.strata]} for m in c.models],
        "pairs": [_record(p) for p in c.pairs],
        "neighbours": [[p.first, p.second] for p in c.neighbours],
        "excluded": [{**_record(e), "count": e.count} for e in c.excluded],
    }


# -- HTML ------------------------------------------------------------------------------------------

PALETTE = ("#3b6fb6", "#d9822b", "#2e9e6a", "#b8475b", "#7a5cb8", "#8c6d31", "#3aa1b5", "#6b6b6b")
CSS = (
    ".model-comparison svg{font:12px sans-serif;display:block}"
    ".model-comparison .grid{stroke:#ddd}.model-comparison .tick{fill:#777;font-size:10px}"
    ".model-comparison .whisker{stroke:#222;stroke-width:1.2}.model-comparison .marker{stroke:#222;stroke-width:1}"
    ".model-comparison .multiples{display:flex;flex-wrap:wrap;gap:12px}"
    ".model-comparison figure{margin:8px 0}.model-comparison figcaption{font-weight:bold}"
    ".model-comparison table{border-collapse:collapse;margin:8px 0}"
    ".model-comparison th,.model-comparison td{border:1px solid #ccc;padding:2px 6px;text-align:right}"
    ".model-comparison td:first-child,.model-comparison th:first-child{text-align:left}"
)


def _fit(label: str, width: int) -> str:
    """A label cut to about ``width`` pixels at 12px (the tooltip and the tables keep it whole)."""
    most = max(4, width // 7)
    return label if len(label) <= most else label[: most - 1] + "…"


@dataclass(frozen=True, slots=True)
class _Bar:
    label: str
    colour: str
    pass_at_1: float
    low: float
    high: float
    pass_at_n: float
    tasks: int


def bar_chart(
    bars: Sequence[_Bar], n: int, *, label_w: int = 190, plot_w: int = 380, text_w: int = 200, caption: str = "", compact: bool = False
) -> str:
    """One horizontal bar per model for pass@1 with its interval as a whisker, and pass@n as a
    diamond: the gap between them is what more samples would buy. A ``compact`` chart (a small
    multiple) writes the figures without the interval, which its whisker and the tables show."""
    bar_h, gap = 14, 8
    height = 22 + len(bars) * (bar_h + gap)
    width = label_w + plot_w + text_w
    parts = [
        f'<svg role="img" width="{width}" height="{height}" viewBox="0 0 {width} {height}" aria-label="{esc(caption or "pass@1 by model")}">'
    ]
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        x = label_w + tick * plot_w
        parts.append(
            f'<line class="grid" x1="{x:.1f}" y1="14" x2="{x:.1f}" y2="{height}"/><text class="tick" x="{x:.1f}" y="10" text-anchor="middle">{int(tick * 100)}%</text>'
        )
    for i, b in enumerate(bars):
        y = 18 + i * (bar_h + gap)
        mid = y + bar_h / 2
        lo, hi, xn = (label_w + v * plot_w for v in (b.low, b.high, b.pass_at_n))
        figures = f"{_pct(b.pass_at_1) if compact else _interval(b.pass_at_1, b.low, b.high)} · ◇ {_pct(b.pass_at_n)}"
        tip = f"{b.label}: pass@1 {_interval(b.pass_at_1, b.low, b.high)}%, pass@{n} {_pct(b.pass_at_n)}%, {b.tasks} tasks"
        data = (
            f'data-model="{esc(b.label)}" data-pass-at-1="{b.pass_at_1!r}" data-low="{b.low!r}" data-high="{b.high!r}" '
            f'data-pass-at-n="{b.pass_at_n!r}" data-tasks="{b.tasks}"'
        )
        parts.append(
            f"<g><title>{esc(tip)}</title>"
            f'<text x="{label_w - 8}" y="{y + bar_h - 3}" text-anchor="end">{esc(_fit(b.label, label_w - 10))}</text>'
            f'<rect class="bar" {data} x="{label_w}" y="{y}" width="{b.pass_at_1 * plot_w:.2f}" height="{bar_h}" fill="{b.colour}"/>'
            f'<line class="whisker" x1="{lo:.2f}" y1="{mid}" x2="{hi:.2f}" y2="{mid}"/>'
            f'<line class="whisker" x1="{lo:.2f}" y1="{y + 2}" x2="{lo:.2f}" y2="{y + bar_h - 2}"/>'
            f'<line class="whisker" x1="{hi:.2f}" y1="{y + 2}" x2="{hi:.2f}" y2="{y + bar_h - 2}"/>'
            f'<path class="marker" d="M{xn:.2f} {y - 1} l5 {bar_h / 2 + 1} l-5 {bar_h / 2 + 1} l-5 {-(bar_h / 2 + 1)} z" fill="#fff"/>'
            f'<text x="{label_w + plot_w + 12}" y="{y + bar_h - 3}">{esc(figures)}</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)


def html(c: ModelComparison) -> str:
    """A self-contained HTML fragment (inline SVG and a scoped style; no script, nothing fetched):
    the chart of every model, small multiples per language, then the tables."""
    colours = {m.model: PALETTE[i % len(PALETTE)] for i, m in enumerate(c.models)}
    overall = [_Bar(m.model, colours[m.model], m.pass_at_1, m.low, m.high, m.pass_at_n, m.tasks) for m in c.models]
    out = [
        f'<section class="model-comparison"><style>{CSS}</style>',
        f"<p>{esc(header(c))}. The bar is pass@1 with its interval; the diamond ◇ is pass@{c.n}.</p>",
    ]
    notes = exclusion_notes(c)
    if notes:
        out.append("<ul>" + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>")
    out.append(f"<figure><figcaption>pass@1 and pass@{c.n} by model</figcaption>{bar_chart(overall, c.n)}</figure>")
    if "language" in c.by:
        out.append('<div class="multiples">')
        for value in c.values("language"):
            bars = [
                _Bar(m.model, colours[m.model], s.pass_at_1, s.low, s.high, s.pass_at_n, s.tasks)
                for m in c.models
                if (s := m.stratum("language", value)) is not None
            ]
            caption = f"{value} ({bars[0].tasks} tasks)" if bars else value
            chart = bar_chart(bars, c.n, label_w=120, plot_w=170, text_w=100, caption=f"pass@1 by model, {caption}", compact=True)
            out.append(f'<figure data-language="{esc(value)}"><figcaption>{esc(caption)}</figcaption>{chart}</figure>')
        out.append("</div>")
    out.append(html_table(*model_rows(c)))
    out.append(f"<p>{esc(METRICS_NOTE)}.</p>")
    for key in c.by:
        out.append(html_table(*stratum_rows(c, key), caption=f"pass@1 by {key}"))
    if c.neighbours:
        out.append(html_table(*neighbour_rows(c), caption="neighbours in the ranking"))
        out.append(f"<p>{esc(NEIGHBOUR_NOTE)}.</p>")
    out.append("</section>")
    return "\n".join(out)


def page(c: ModelComparison) -> str:
    """:func:`html` as a whole HTML document."""
    return f"<!doctype html><meta charset=utf-8><title>simpilot: models compared</title>{html(c)}"
