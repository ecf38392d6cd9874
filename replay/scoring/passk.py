"""pass@k, best@k and bootstrap intervals whose resampling unit is the task.

With several samples per task, the share of passing samples is not the chance that a user who takes
``k`` of them finds one that passes: :func:`pass_at_k` is the unbiased estimator of that chance
(Chen et al. 2021, the Codex paper), and :func:`best_at_k` is its analogue for a similarity score,
the expected best of ``k`` samples.

The intervals come from a bootstrap over tasks, not over samples: the tasks are what a benchmark
draws from the population of holes a team would meet, and samples of one task are not independent of
each other. Comparisons are paired (every replicate resamples the same tasks for both sides), because
two models answer the same questions and most of the variation between tasks cancels in their
difference. The exact binomial intervals and tests for single verdicts are in
replay/scoring/stats.py; these are for means of per-task values that are not 0/1 counts (pass@k with
k > 1, similarities, rates over several samples).

Every function is pure and deterministic for a seed.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

# Index draws per chunk of replicates: 2**20 int64 indices (8 MB) plus the gathered values keep the
# memory small whatever the number of tasks and resamples, and the chunks are large enough that
# numpy's per-call overhead does not matter.
_CHUNK_ELEMENTS = 1 << 20

FloatArray = npt.NDArray[np.float64]


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that ``k`` of ``n`` samples, ``c`` of which pass, drawn without replacement, hold
    at least one pass: ``1 - C(n-c, k) / C(n, k)``.

    Computed as ``1 - prod_{i=n-c+1..n} (1 - k/i)``, the product form of the same ratio, which
    neither overflows nor loses precision to huge binomial coefficients.
    """
    if n < 1:
        raise ValueError(f"pass@k needs at least one sample (n = {n})")
    if not 1 <= k <= n:
        raise ValueError(f"pass@k needs 1 <= k <= n (k = {k}, n = {n})")
    if not 0 <= c <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n passing samples (c = {c}, n = {n})")
    if c == 0:
        return 0.0
    if n - c < k:  # every k-subset holds a pass
        return 1.0
    if k == 1:  # the share of passing samples, exactly (the headline figure, recomputed by hand)
        return c / n
    miss = 1.0
    for i in range(n - c + 1, n + 1):
        miss *= 1.0 - k / i
    return 1.0 - miss


def task_pass_at_k(passed: Sequence[bool], k: int) -> float:
    """pass@k of one task from the verdicts of its samples."""
    return pass_at_k(len(passed), sum(1 for p in passed if p), k)


def best_at_k(scores: Sequence[float], k: int) -> float:
    """The expected maximum of ``k`` of the ``scores`` drawn without replacement.

    Sorted ascending, the ``i``-th score (1-based) is the maximum of exactly ``C(i-1, k-1)`` of the
    ``C(n, k)`` subsets (those that take it and ``k-1`` of the ``i-1`` below it; ties are broken by
    position, which does not change the maximum), so ``E[max] = sum_{i=k..n} s_i C(i-1, k-1) / C(n, k)``.
    The weights are ratios of exact integers, so large ``n`` neither overflows nor cancels.
    """
    n = len(scores)
    if n == 0:
        raise ValueError("best@k needs at least one score")
    if not 1 <= k <= n:
        raise ValueError(f"best@k needs 1 <= k <= n (k = {k}, n = {n})")
    ordered = sorted(scores)
    total = math.comb(n, k)
    return sum(ordered[i - 1] * (math.comb(i - 1, k - 1) / total) for i in range(k, n + 1))


def _check(resamples: int, level: float) -> None:
    if resamples < 1:
        raise ValueError(f"the bootstrap needs at least one resample (resamples = {resamples})")
    if not 0.0 < level < 1.0:
        raise ValueError(f"the interval's level must lie strictly between 0 and 1 (level = {level})")


def _resampled_means(rows: FloatArray, resamples: int, seed: int) -> Iterator[FloatArray]:
    """The means of every row of ``rows`` (series × tasks) under bootstrap replicates, a chunk of
    replicates at a time (shape series × replicates in the chunk).

    One draw of task indices per replicate serves every row, which is what makes the replicates
    paired. Chunking bounds the index matrix (and the gathered values) to about ``_CHUNK_ELEMENTS``
    entries.
    """
    series, tasks = rows.shape
    rng = np.random.default_rng(seed)
    per_chunk = max(1, _CHUNK_ELEMENTS // (tasks * series))
    done = 0
    while done < resamples:
        size = min(per_chunk, resamples - done)
        picks = rng.integers(0, tasks, size=(size, tasks))
        yield rows[:, picks].mean(axis=2)
        done += size


def _bootstrap_means(rows: FloatArray, resamples: int, seed: int) -> FloatArray:
    return np.concatenate(list(_resampled_means(rows, resamples, seed)), axis=1)


def _percentiles(values: FloatArray, level: float) -> tuple[float, float]:
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(values, [tail, 1.0 - tail])
    return float(low), float(high)


def bootstrap_interval(values: Sequence[float], *, resamples: int = 10_000, level: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of per-task values (tasks are resampled).

    No tasks give ``(0.0, 0.0)``: a degenerate interval an empty stratum shows plainly, where NaN
    would travel silently into sums and charts. Equal values give ``(v, v)`` exactly (every replicate
    has the same mean, up to rounding that is not reported).
    """
    _check(resamples, level)
    data = np.asarray(values, dtype=np.float64)
    if data.size == 0:
        return 0.0, 0.0
    if np.all(data == data[0]):
        return float(data[0]), float(data[0])
    return _percentiles(_bootstrap_means(data[np.newaxis, :], resamples, seed)[0], level)


@dataclass(frozen=True, slots=True)
class PairedDifference:
    """``mean(first) - mean(second)`` with its paired bootstrap interval and p-value."""

    difference: float
    low: float
    high: float
    p_value: float  # two-sided; 0.0 means no replicate reached 0, i.e. below 1/resamples


def paired_bootstrap(
    first: Sequence[float], second: Sequence[float], *, resamples: int = 10_000, level: float = 0.95, seed: int = 0
) -> PairedDifference:
    """The difference of two means over the same tasks, ``first[i]`` and ``second[i]`` being one
    task's values under two conditions.

    Each replicate resamples task indices once for both sides, so the resampled difference is the
    mean of the resampled per-task differences. The p-value is two-sided: twice the smaller share of
    replicates on either side of 0 (``<= 0`` and ``>= 0``, so replicates at exactly 0 count against
    both sides), capped at 1; when every difference is 0 both shares are 1 and so is the p-value. No
    tasks give a difference of 0 with the interval ``(0, 0)`` and a p-value of 1.
    """
    if len(first) != len(second):
        raise ValueError(f"paired values need one value per task on both sides ({len(first)} != {len(second)})")
    _check(resamples, level)
    a = np.asarray(first, dtype=np.float64)
    b = np.asarray(second, dtype=np.float64)
    if a.size == 0:
        return PairedDifference(0.0, 0.0, 0.0, 1.0)
    per_task = a - b
    difference = float(a.mean() - b.mean())
    if not np.any(per_task):
        return PairedDifference(difference, 0.0, 0.0, 1.0)
    replicates = _bootstrap_means(per_task[np.newaxis, :], resamples, seed)[0]
    low, high = _percentiles(replicates, level)
    at_most = float(np.mean(replicates <= 0.0))
    at_least = float(np.mean(replicates >= 0.0))
    return PairedDifference(difference, low, high, min(1.0, 2.0 * min(at_most, at_least)))


def rank_flips(per_model: Mapping[str, Sequence[float]], *, resamples: int = 2_000, seed: int = 0) -> list[tuple[str, str, float]]:
    """How stable a leaderboard is: for each model ``a`` ranked just above ``b`` (by mean,
    descending, ties by name), the share of bootstrap replicates in which ``b``'s mean is strictly
    greater than ``a``'s.

    Every replicate resamples the same tasks for every model (the models answered the same
    questions), so the values must have one entry per task for every model. Since a flip must be
    strict, two models with identical values never flip (share 0), and neither do two models where
    one is at least as good on every task: in a paired resample only tasks on which the two disagree
    in both directions can reorder them. With no tasks, no replicate can order anything and every
    share is 0.
    """
    names = list(per_model)
    lengths = {len(per_model[name]) for name in names}
    if len(lengths) > 1:
        raise ValueError(f"every model needs one value per task; lengths differ: {sorted(lengths)}")
    if len(names) < 2:
        return []
    rows = np.array([np.asarray(per_model[name], dtype=np.float64) for name in names])
    tasks = rows.shape[1]
    means = rows.mean(axis=1) if tasks else np.zeros(len(names))
    order = sorted(range(len(names)), key=lambda i: (-float(means[i]), names[i]))
    if tasks == 0:
        return [(names[a], names[b], 0.0) for a, b in zip(order, order[1:], strict=False)]
    flips = np.zeros(len(names) - 1, dtype=np.int64)
    above, below = np.array(order[:-1]), np.array(order[1:])
    for chunk in _resampled_means(rows, resamples, seed):
        flips += np.count_nonzero(chunk[below] > chunk[above], axis=1)
    return [(names[a], names[b], float(f) / resamples) for a, b, f in zip(order, order[1:], flips, strict=False)]
