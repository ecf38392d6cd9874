"""``simpilot import lines`` for one repository: holes given as line ranges become tasks
(``marking/lines.py``), go through the same gate as marked holes, and are written as ``mark``
writes them (``mark.py``): ``out/<name>.jsonl``, only when a task is kept, and where the
repository is beside it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from replay.config.manifest import Manifest
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.importers.lines import LineHole, LinesResult, tasks_from_lines
from replay.jobs.mark import evaluator_for, write_kept
from replay.validation.gate import GateReport, validate


@dataclass(frozen=True)
class Imported:
    holes: LinesResult  # the candidate tasks, and the holes that could not become one (why)
    report: GateReport
    target: Path  # the scenario file, written only when ``report.kept``

    @property
    def written(self) -> bool:
        return bool(self.report.kept)


def import_lines_into(
    out: Path,
    manifest: Manifest,
    location: str | Path,
    sandbox: Sandbox,
    holes: list[LineHole],
    *,
    jobs: int,
    full_suite: bool = False,
    progress_total: Callable[[int], None] | None = None,
    progress: Callable[[], None] | None = None,
) -> Imported:
    """Turn ``holes`` of ``manifest``'s repository (found at ``location``) into tasks, validate them
    and write the kept ones into ``out/<name>.jsonl``. No test runs when no hole makes a task."""
    result = tasks_from_lines(manifest, holes)
    report = GateReport()
    if result.tasks:
        with evaluator_for(manifest, sandbox, jobs, full_suite) as evaluator:
            report = validate(evaluator, manifest, result.tasks, jobs, progress_total, progress)
    return Imported(result, report, write_kept(out, manifest, location, report.kept))
