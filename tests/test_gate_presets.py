"""The gate puts every ground truth through every built-in preset and reports alterations."""

from __future__ import annotations

import pytest

from postprocess.presets import PRESETS, STEPS
from replay.config.manifest import project_root
from replay.validation.gate import preset_alterations

from .conftest import bundled_tasks


def _original(task) -> bytes:
    return (project_root() / "repos" / task.repo / task.path).read_bytes()


def test_built_in_presets_leave_the_bundled_ground_truths_alone() -> None:
    tasks = bundled_tasks()[::7]
    assert preset_alterations(tasks, _original) == []


def test_an_altering_preset_is_reported_per_task_with_its_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(STEPS, "shout", lambda text, ctx: text.upper())
    monkeypatch.setitem(PRESETS, "shouting", ("strip_noncode", "shout"))
    tasks = [t for t in bundled_tasks()[:10] if t.ground_truth != t.ground_truth.upper()]
    found = preset_alterations(tasks, _original, ("none", "shouting"))
    assert [(a.task.id, a.preset, a.steps) for a in found] == [(t.id, "shouting", ("shout",)) for t in tasks]
    assert all(a.text == a.task.ground_truth.upper() for a in found)
