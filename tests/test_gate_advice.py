"""The advice ``mark`` prints for a repository that kept nothing follows the kind of the most
common reason (``DropReason``), not its message's words: two reasons whose messages share words
each get their own advice, and a reworded message keeps its kind's."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from replay.config.manifest import Manifest
from replay.jobs.gate_summary import ADVICE, NO_ADVICE, nothing_kept
from replay.marking import MarkResult
from replay.validation.drops import Drop, DroppedTask, DropReason

MANIFEST = Manifest("tiny", "python", Path("/repo"), ("tiny",), ("tests",), ("pytest",))
NO_TESTS_ADVICE = "check that the tests in tests import and call the code in tiny (a hole needs a test that runs it)"
TASKS: list[Any] = [SimpleNamespace(id=f"t{i}") for i in range(3)]


def line(*whys: Drop) -> str:
    dropped = [DroppedTask(task, why) for task, why in zip(TASKS, whys, strict=False)]
    return nothing_kept(MANIFEST, MarkResult(tasks=TASKS[: len(whys)], files=1, lines=9), dropped, Path("out/tiny.jsonl"))


def advice_of(why: Drop) -> str:
    said = line(why)
    return said.split("nothing written to out/tiny.jsonl: ", 1)[1].removesuffix(", or try more candidates with --per-kind N")


@pytest.mark.parametrize(
    ("why", "expected"),
    [
        # the messages share "tests pass", "the hole filled", "untouched code": the kinds differ
        (Drop(DropReason.FILLER_PASSES, "tests pass with the hole filled by 'pass'"), ADVICE[DropReason.FILLER_PASSES]),
        (Drop(DropReason.TESTS_FAIL, "tests pass with the hole filled by 'pass'"), ADVICE[DropReason.TESTS_FAIL]),
        (Drop(DropReason.UNSTABLE, "tests pass with the hole filled by 'pass' in 1 of 2 runs"), NO_ADVICE),
        (Drop(DropReason.FILLER_PASSES, "the selected tests fail on the untouched code: no"), ADVICE[DropReason.FILLER_PASSES]),
        (Drop(DropReason.NO_TESTS, "the selected tests fail on the untouched code: no"), NO_TESTS_ADVICE),
        (Drop(DropReason.HOLE_MISMATCH, "no test executes the hole"), NO_ADVICE),
    ],
)
def test_the_advice_follows_the_kind_not_the_message(why: Drop, expected: str) -> None:
    assert advice_of(why) == expected


def test_every_kind_has_advice_or_the_default_and_the_two_advised_kinds_differ() -> None:
    said = {kind: advice_of(Drop(kind, "same words")) for kind in DropReason}
    assert said[DropReason.NO_TESTS] == NO_TESTS_ADVICE
    assert said[DropReason.FILLER_PASSES] != said[DropReason.TESTS_FAIL]
    assert all(said[kind] == NO_ADVICE for kind in DropReason if kind not in (DropReason.NO_TESTS, *ADVICE))


def test_the_most_common_reason_decides_and_the_line_lists_the_counted_messages() -> None:
    untested = Drop(DropReason.NO_TESTS, "no test executes the hole")
    passing = Drop(DropReason.FILLER_PASSES, "tests pass with the hole filled by 'pass'")
    assert line(passing, untested, untested) == (
        "tiny: no task kept, all 3 candidates dropped (2 no test executes the hole, 1 tests pass with the hole filled by 'pass'); "
        f"nothing written to out/tiny.jsonl: {NO_TESTS_ADVICE}, or try more candidates with --per-kind N"
    )
