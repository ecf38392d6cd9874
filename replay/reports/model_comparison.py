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

from replay.core.missing_answers import how_to_answer, some
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
