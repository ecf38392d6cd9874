"""How much of each kind of model noise a preset undoes, measured on the ground truth itself.

Every task's ground truth is corrupted once (``postprocess.noise``: one type per task, each type
on an equal share of the tasks it applies to), every preset is applied, and a task counts as
*recovered* when the preset gives back the ground truth: exactly for Python, and for Java up to
the white space between tokens (which javac ignores). The same corrupted answers, replayed
through the bridge with ``--model noisy-oracle``, are judged by the tests instead.

A corruption that leaves the text as it was is no corruption: every preset would "recover" it.
Such tasks are left out of the counts and counted apart (``Recovery.unchanged``), so a caller
can refuse a measurement that holds any.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from postprocess import run_preset
from postprocess.noise import TYPES, applicable, assign, corrupt
from replay.core.records import Task
from replay.core.scenarios import hole_context
from replay.scoring.stats import wilson


@dataclass(frozen=True)
class Recovery:
    preset: str
    kind: str  # corruption type
    tasks: int
    recovered: int
    low: float
    high: float
    unchanged: int = 0  # corruptions of this type equal to the ground truth: not counted

    @property
    def rate(self) -> float:
        return self.recovered / self.tasks if self.tasks else 0.0


def recovered(processed: str, ground_truth: str, language: str) -> bool:
    if processed == ground_truth:
        return True
    return language == "java" and processed.split() == ground_truth.split()


def measure(tasks: Sequence[Task], presets: Iterable[str], seed: int = 0, root: Path | None = None) -> list[Recovery]:
    """Recovery per (preset, corruption type) over ``tasks`` (their files read under ``root``,
    by default each bundled repository); corruptions that changed nothing are not counted."""
    from replay.config.manifest import project_root

    base = root or project_root() / "repos"
    kinds = assign(seed, [(t.id, applicable(t.language, t.block)) for t in tasks])
    files: dict[tuple[str, str], bytes] = {}
    counts: dict[tuple[str, str], list[int]] = {}
    unchanged: dict[str, int] = {}
    presets = list(presets)
    for task in tasks:
        key = (task.repo, task.path)
        if key not in files:
            files[key] = (base / task.repo / task.path).read_bytes()
        _, ctx = hole_context(task, files[key])
        noisy = corrupt(kinds[task.id], task.ground_truth, ctx, seed, task.id)
        if recovered(noisy.text, task.ground_truth, task.language):
            unchanged[noisy.kind] = unchanged.get(noisy.kind, 0) + 1
            continue
        for preset in presets:
            got = run_preset(preset, noisy.text, ctx).text
            tally = counts.setdefault((preset, noisy.kind), [0, 0])
            tally[0] += recovered(got, task.ground_truth, task.language)
            tally[1] += 1
    rows = []
    for preset in presets:
        for kind in TYPES:
            k, n = counts.get((preset, kind), [0, 0])
            rows.append(Recovery(preset, kind, n, k, *wilson(k, n), unchanged.get(kind, 0)))
    return rows
