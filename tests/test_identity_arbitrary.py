"""The identity property on holes cut by someone else: every preset returns the cut text
unchanged, bare and fenced with a preamble, whatever the hole's shape (``tests/holes.py``).

Hypothesis chooses the cuts: over every bundled source file in the slow run, over a few files in
the default run; DevBench's 600 Python and Java golden completions are all checked in both.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .holes import PROPERTY_SETTINGS, alterations, bundled_sources, cut, devbench_holes, one_per_repository

SOURCES = bundled_sources()
# The default run's share: one file per bundled repository
SAMPLE = one_per_repository(SOURCES)
_SETTINGS = PROPERTY_SETTINGS


def _check(data: st.DataObject, source: tuple[str, str, str]) -> None:
    hole = data.draw(cut(*source))
    assert alterations(hole) == [], hole.where


@pytest.mark.parametrize("source", SAMPLE, ids=[s[0] for s in SAMPLE])
@settings(max_examples=60, **_SETTINGS)
@given(data=st.data())
def test_every_preset_returns_an_arbitrary_cut_unchanged(source: tuple[str, str, str], data: st.DataObject) -> None:
    _check(data, source)


@pytest.mark.slow
@pytest.mark.parametrize("source", SOURCES, ids=[s[0] for s in SOURCES])
@settings(max_examples=300, **_SETTINGS)
@given(data=st.data())
def test_every_preset_returns_an_arbitrary_cut_of_every_bundled_file_unchanged(source: tuple[str, str, str], data: st.DataObject) -> None:
    _check(data, source)


@pytest.mark.parametrize("language", ["python", "java"])
def test_every_preset_returns_devbench_golden_completions_unchanged(language: str) -> None:
    holes = list(devbench_holes(language))
    assert len(holes) == 300
    broken = {hole.where: found for hole in holes if (found := alterations(hole))}
    assert broken == {}, f"{len(broken)} of 300 altered; first: {next(iter(broken.items()), None)}"
