"""``simpilot mark`` for one repository: mark, validate, and write what is kept.

The scenario file is written only when the gate keeps a task (an empty file would only fail later,
at replay), and an existing one is then left as it was; where the repository is gets recorded
beside it (``config/locations.py``) so that later commands find it without ``--repo``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from replay.config.locations import remember
from replay.config.manifest import Manifest, RepoCatalog
from replay.core.records import Kind, Task
from replay.core.scenarios import write_tasks
from replay.execution.judge import Evaluator
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.marking import MarkResult
from replay.marking.decision_places import mark_decisions
from replay.validation.decision_gate import validate_decisions
from replay.validation.gate import GateReport, mark_validated


@dataclass(frozen=True)
class Marked:
    marked: MarkResult
    report: GateReport
    target: Path  # the scenario file, written only when ``report.kept``

    @property
    def written(self) -> bool:
        return bool(self.report.kept)


def mark_into(
    out: Path,
    manifest: Manifest,
    location: str | Path,
    sandbox: Sandbox,
    *,
    seed: int,
    per_kind: int | None,
    kinds: set[Kind],
    jobs: int,
    max_per_file: int | None = None,
    full_suite: bool = False,
    decisions: bool = False,
    progress_total: Callable[[int], None] | None = None,
    progress: Callable[[], None] | None = None,
) -> Marked:
    """Mark and validate ``manifest``'s repository (found at ``location``) into ``out/<name>.jsonl``.
    With ``decisions``, the tasks are decision places (``marking/decisions.py``) instead of holes,
    ``per_kind`` of each decision per file."""
    if decisions:
        marked = mark_decisions(manifest, seed=seed, per_file=per_kind)
        with evaluator_for(manifest, sandbox, jobs, full_suite) as evaluator:
            report = validate_decisions(evaluator, manifest, marked.tasks, jobs, progress_total, progress)
        return Marked(marked, report, write_kept(out, manifest, location, report.kept))
    with evaluator_for(manifest, sandbox, jobs, full_suite) as evaluator:
        marked, report = mark_validated(
            manifest,
            evaluator,
            seed=seed,
            per_kind=per_kind,
            kinds=kinds,
            jobs=jobs,
            max_per_file=max_per_file,
            progress_total=progress_total,
            progress=progress,
        )
    return Marked(marked, report, write_kept(out, manifest, location, report.kept))


def evaluator_for(manifest: Manifest, sandbox: Sandbox, jobs: int, full_suite: bool = False) -> Evaluator:
    """The evaluator that validates ``manifest``'s tasks (a context manager)."""
    return Evaluator(RepoCatalog([manifest]), sandbox, jobs, full_suite=full_suite)


def write_kept(out: Path, manifest: Manifest, location: str | Path, kept: list[Task]) -> Path:
    """Write ``kept`` to ``out/<name>.jsonl`` and remember where the repository is, unless nothing
    was kept (an existing scenario file then stays as it was). Returns the scenario file."""
    target = out / f"{manifest.name}.jsonl"
    if kept:
        write_tasks(target, kept)
        remember(out, manifest.name, location)
    return target
