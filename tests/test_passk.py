"""pass@k and best@k against exhaustive enumeration, and the task-level bootstraps
(replay/scoring/passk.py) against their defining properties."""

from __future__ import annotations

import itertools
import math
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.scoring.passk import (
    PairedDifference,
    best_at_k,
    bootstrap_interval,
    paired_bootstrap,
    pass_at_k,
    rank_flips,
    task_pass_at_k,
)

# --- pass@k and best@k ------------------------------------------------------------------------


def enumerated_pass_at_k(n: int, c: int, k: int) -> float:
    """The share of k-subsets of n samples (the first c pass) that hold at least one pass."""
    subsets = list(itertools.combinations(range(n), k))
    return sum(1 for s in subsets if any(i < c for i in s)) / len(subsets)


def enumerated_best_at_k(scores: list[float], k: int) -> float:
    subsets = list(itertools.combinations(scores, k))
    return sum(max(s) for s in subsets) / len(subsets)


def test_pass_at_k_equals_enumeration_on_every_small_case() -> None:
    for n in range(1, 8):
        for c in range(n + 1):
            for k in range(1, n + 1):
                assert pass_at_k(n, c, k) == pytest.approx(enumerated_pass_at_k(n, c, k), abs=1e-12), (n, c, k)


@pytest.mark.parametrize("n", [1, 2, 5, 10, 200])
def test_pass_at_1_is_the_share_and_pass_at_n_is_any_pass(n: int) -> None:
    for c in range(n + 1):
        assert pass_at_k(n, c, 1) == pytest.approx(c / n, abs=1e-12)
        assert pass_at_k(n, c, n) == float(c > 0)


def test_pass_at_k_stays_finite_where_the_binomials_are_huge() -> None:
    # C(2000, 1000) overflows a float; the product form does not need it.
    expected = 1 - math.comb(1990, 1000) / math.comb(2000, 1000)
    assert pass_at_k(2000, 10, 1000) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    "n, c, k, message",
    [
        (0, 0, 1, "at least one sample"),
        (-1, 0, 1, "at least one sample"),
        (3, 1, 4, "k <= n"),
        (3, 1, 0, "k <= n"),
        (3, 4, 1, "c <= n"),
        (3, -1, 1, "c <= n"),
    ],
)
def test_pass_at_k_rejects_bad_arguments(n: int, c: int, k: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        pass_at_k(n, c, k)


def test_task_pass_at_k_counts_the_passing_samples() -> None:
    assert task_pass_at_k([True, False, False, True, False], 2) == pytest.approx(enumerated_pass_at_k(5, 2, 2))
    assert task_pass_at_k([False, False], 1) == 0.0
    with pytest.raises(ValueError):
        task_pass_at_k([], 1)


@pytest.mark.parametrize(
    "scores",
    [
        pytest.param([0.3], id="one"),
        pytest.param([0.1, 0.9, 0.5], id="distinct"),
        pytest.param([0.5, 0.5, 0.5, 0.5], id="all-tied"),
        pytest.param([1.0, 0.0, 1.0, 0.2, 0.0, 0.2, 0.7], id="duplicates"),
        pytest.param([0.9, 0.1, 0.4, 0.4, 0.8, 0.0], id="unsorted-with-a-tie"),
    ],
)
def test_best_at_k_equals_enumeration(scores: list[float]) -> None:
    for k in range(1, len(scores) + 1):
        assert best_at_k(scores, k) == pytest.approx(enumerated_best_at_k(scores, k), abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=7), st.data())
def test_best_at_k_equals_enumeration_on_random_scores(scores: list[float], data: st.DataObject) -> None:
    k = data.draw(st.integers(min_value=1, max_value=len(scores)))
    assert best_at_k(scores, k) == pytest.approx(enumerated_best_at_k(scores, k), abs=1e-12)


def test_best_at_k_of_verdicts_is_pass_at_k() -> None:
    # 0/1 scores: the best of k is 1 exactly when one of the k passes
    assert best_at_k([1, 0, 0, 1, 0, 0], 3) == pytest.approx(pass_at_k(6, 2, 3), abs=1e-12)


def test_best_at_k_rejects_bad_arguments() -> None:
    for scores, k in (([], 1), ([0.5, 0.6], 3), ([0.5], 0)):
        with pytest.raises(ValueError):
            best_at_k(scores, k)


# --- bootstrap_interval -----------------------------------------------------------------------

SCORES = [0.0, 0.2, 0.9, 0.4, 1.0, 0.3, 0.35, 0.8, 0.1, 0.6, 0.55, 0.7]


def test_bootstrap_interval_is_deterministic_for_a_seed() -> None:
    assert bootstrap_interval(SCORES, seed=7) == bootstrap_interval(SCORES, seed=7)
    assert bootstrap_interval(SCORES, seed=7) != bootstrap_interval(SCORES, seed=8)


def test_bootstrap_interval_contains_the_mean() -> None:
    low, high = bootstrap_interval(SCORES)
    assert low < sum(SCORES) / len(SCORES) < high
    assert 0.0 <= low and high <= 1.0


def test_bootstrap_interval_of_equal_values_and_of_none() -> None:
    assert bootstrap_interval([0.1] * 30) == (0.1, 0.1)
    assert bootstrap_interval([1.0]) == (1.0, 1.0)
    assert bootstrap_interval([]) == (0.0, 0.0)  # documented: an empty stratum, not NaN


def test_bootstrap_interval_of_verdicts_matches_the_normal_approximation() -> None:
    n, passes = 400, 120  # p = 0.3
    values = [1.0] * passes + [0.0] * (n - passes)
    p = passes / n
    # 2 · 1.96 · sqrt(0.3 · 0.7 / 400) = 3.92 · 0.022913 = 0.0898
    normal_width = 2 * 1.96 * math.sqrt(p * (1 - p) / n)
    low, high = bootstrap_interval(values)
    assert high - low == pytest.approx(normal_width, rel=0.15)


def test_bootstrap_interval_rejects_bad_settings() -> None:
    with pytest.raises(ValueError):
        bootstrap_interval(SCORES, resamples=0)
    with pytest.raises(ValueError):
        bootstrap_interval(SCORES, level=1.0)


def test_bootstrap_interval_is_fast_on_a_large_benchmark() -> None:
    values = [(i * 7919 % 1000) / 1000 for i in range(1000)]
    start = time.perf_counter()
    bootstrap_interval(values, resamples=10_000)
    assert time.perf_counter() - start < 0.5


# --- paired_bootstrap -------------------------------------------------------------------------


def test_identical_sides_differ_by_nothing() -> None:
    assert paired_bootstrap(SCORES, list(SCORES)) == PairedDifference(0.0, 0.0, 0.0, 1.0)


def test_a_large_consistent_difference_is_significant() -> None:
    n = 200
    first = [1.0] * n
    second = [1.0 if i % 5 == 0 else 0.0 for i in range(n)]  # 1 on 20% of the tasks
    result = paired_bootstrap(first, second)
    assert result.difference == pytest.approx(0.8)
    assert result.p_value < 0.001
    assert 0.0 < result.low <= result.difference <= result.high


def test_swapping_the_sides_negates_the_difference_and_the_interval() -> None:
    first = [0.2, 0.9, 0.4, 0.8, 0.1, 0.7, 0.6, 0.3, 0.5, 1.0]
    second = [0.3, 0.6, 0.4, 0.5, 0.2, 0.9, 0.1, 0.35, 0.45, 0.6]
    forward, backward = paired_bootstrap(first, second), paired_bootstrap(second, first)
    assert backward.difference == pytest.approx(-forward.difference)
    assert backward.low == pytest.approx(-forward.high)
    assert backward.high == pytest.approx(-forward.low)
    assert backward.p_value == pytest.approx(forward.p_value)


def test_a_noisy_difference_is_not_significant() -> None:
    first = [float(i % 2) for i in range(60)]
    second = [float((i + 1) % 2) for i in range(60)]  # same mean, opposite tasks
    result = paired_bootstrap(first, second)
    assert result.difference == 0.0 and result.low < 0.0 < result.high and result.p_value > 0.5


def test_paired_bootstrap_needs_one_value_per_task_on_both_sides() -> None:
    with pytest.raises(ValueError, match="one value per task"):
        paired_bootstrap([0.1, 0.2], [0.1])
    assert paired_bootstrap([], []) == PairedDifference(0.0, 0.0, 0.0, 1.0)


# --- rank_flips -------------------------------------------------------------------------------


def test_identical_models_never_flip() -> None:
    # a flip must be strict: equal resampled means are not one
    values = [0.1, 0.5, 0.9, 0.3] * 10
    assert rank_flips({"b": values, "a": list(values)}) == [("a", "b", 0.0)]


def test_well_separated_models_hardly_flip() -> None:
    strong = [1.0 if i % 10 else 0.0 for i in range(100)]  # 0.9
    weak = [1.0 if i % 10 < 3 else 0.0 for i in range(100)]  # 0.3
    ((a, b, share),) = rank_flips({"weak": weak, "strong": strong})
    assert (a, b) == ("strong", "weak") and share < 0.01


def test_a_difference_of_one_task_often_flips() -> None:
    # a wins 5 tasks, b wins 4, they agree on the other 91: the means differ by one task in 100,
    # and a resample drawing more of b's wins than of a's reverses them.
    a = [1.0] * 5 + [0.0] * 4 + [1.0 if i % 2 else 0.0 for i in range(91)]
    b = [0.0] * 5 + [1.0] * 4 + a[9:]
    ((top, below, share),) = rank_flips({"b": b, "a": a})
    assert (top, below) == ("a", "b") and share > 0.2


def test_one_sided_differences_never_flip() -> None:
    # a is at least as good as b on every task: no paired resample can put b above a
    a = [1.0] + [0.5] * 99
    b = [0.0] + [0.5] * 99
    assert rank_flips({"a": a, "b": b}) == [("a", "b", 0.0)]


def test_rank_flips_follow_the_ranking() -> None:
    models = {
        "m-low": [0.2, 0.1, 0.3, 0.2] * 5,
        "m-high": [0.9, 0.8, 1.0, 0.9] * 5,
        "m-mid": [0.5, 0.6, 0.4, 0.5] * 5,
        "m-mid-too": [0.5, 0.6, 0.4, 0.5] * 5,  # ties with m-mid: by name, m-mid first
    }
    assert [(a, b) for a, b, _ in rank_flips(models)] == [("m-high", "m-mid"), ("m-mid", "m-mid-too"), ("m-mid-too", "m-low")]
    assert rank_flips(models, seed=3) == rank_flips(models, seed=3)


def test_rank_flips_needs_one_value_per_task_for_every_model() -> None:
    with pytest.raises(ValueError, match="one value per task"):
        rank_flips({"a": [0.1, 0.2], "b": [0.3]})
    assert rank_flips({"a": [0.1]}) == []
    assert rank_flips({}) == []
