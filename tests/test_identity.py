"""The identity property: every preset returns the ground truth unchanged when given it, on every
bundled task — bare, and wrapped in a fence with a one-line preamble."""

from __future__ import annotations

import pytest

from postprocess import PRESETS, run_preset
from replay.config.manifest import project_root
from replay.core.scenarios import hole_context

from .conftest import bundled_tasks

TASKS = bundled_tasks()
_ORIGINALS: dict[tuple[str, str], bytes] = {}


def _original(task) -> bytes:
    key = (task.repo, task.path)
    if key not in _ORIGINALS:
        _ORIGINALS[key] = (project_root() / "repos" / task.repo / task.path).read_bytes()
    return _ORIGINALS[key]


def test_bundled_set_is_large_enough() -> None:
    assert len(TASKS) >= 150
    completion = sum(t.kind.value == "completion" for t in TASKS)
    assert completion / len(TASKS) >= 0.30


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_ground_truth_is_returned_unchanged(preset: str) -> None:
    broken = []
    for task in TASKS:
        _, ctx = hole_context(task, _original(task))
        for raw in (task.ground_truth, f"Here is the code:\n```{task.language}\n{task.ground_truth}\n```"):
            got = run_preset(preset, raw, ctx).text
            if got != task.ground_truth:
                broken.append((task.id, raw[:40], got[:80]))
    assert broken == []
