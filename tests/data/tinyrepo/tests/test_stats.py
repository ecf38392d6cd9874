import pytest
from tiny.stats import clamp_scores, histogram, mean, spread


def test_mean():
    assert mean([1, 2, 3, 4]) == 2.5


def test_mean_empty():
    with pytest.raises(ValueError):
        mean([])


def test_clamp():
    assert clamp_scores([-5, 3, 12], 0, 10) == [0, 3, 10]


def test_spread():
    assert spread([2, 4, 4, 4, 5, 5, 7, 9]) == 40.0


def test_histogram():
    assert histogram([0.5, 1.5, 1.7, 3.2], 1) == [1, 2, 0, 1]
