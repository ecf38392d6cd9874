"""``simpilot import lines`` for one repository: holes given as line ranges become tasks
(``marking/lines.py``), go through the same gate as marked holes, and are written as ``mark``
writes them (``mark.py``): ``out/<name>.jsonl``, only when a task is kept, and where the
repository is beside it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.markup import escape

from replay.config.manifest import Manifest, open_repository
from replay.core.errors import SimpilotError
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.importers.lines import LineHole, LinesResult, read_holes, tasks_from_lines
from replay.importers.simcopilot import read_checkpoints
from replay.jobs.gate_summary import kept, print_gate
from replay.jobs.mark import BEFORE_GATE, Written, estimate_line, evaluator_for, gate_starts, write_kept
from replay.jobs.output import err
from replay.run.progress import progress
from replay.validation.estimate import GateEstimate
from replay.validation.gate import GateReport, validate


@dataclass(frozen=True)
class Imported(Written):
    holes: LinesResult  # the candidate tasks, and the holes that could not become one (why)


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
    estimate: Callable[[GateEstimate], None] | None = None,
) -> Imported:
    """Turn ``holes`` of ``manifest``'s repository (found at ``location``) into tasks, validate them
    and write the kept ones into ``out/<name>.jsonl``. No test runs when no hole makes a task.
    ``estimate`` hears the gate's estimate (``validation/estimate.py``) before its runs, which
    ``import lines`` prints as ``mark`` does."""
    result = tasks_from_lines(manifest, holes)
    report = GateReport()
    if result.tasks:
        with evaluator_for(manifest, sandbox, jobs, full_suite) as evaluator:
            report = validate(evaluator, manifest, result.tasks, jobs, progress_total, progress, estimate=estimate)
    return Imported(report, write_kept(out, manifest, location, report.kept), result)


SHORTEN = "to shorten it, import fewer holes or run more at once (--jobs N)"


def import_lines(
    file: Path,
    repo: str,
    out: Path,
    *,
    jobs: int,
    unsafe_no_sandbox: bool = False,
    full_suite: bool = False,
    simcopilot: bool = False,
) -> None:
    """``simpilot import lines``: the holes of ``file`` (SimCopilot's checkpoint file with
    ``simcopilot``) into validated tasks of ``repo``, saying on stderr what was kept and skipped."""
    manifest = open_repository(repo)
    holes = read_checkpoints(file, manifest) if simcopilot else read_holes(file)
    sandbox = Sandbox.create(unsafe_no_sandbox)
    with progress(f"{manifest.name}: {BEFORE_GATE}") as (bar, tid):
        done = import_lines_into(
            out,
            manifest,
            repo,
            sandbox,
            holes,
            jobs=jobs,
            full_suite=full_suite,
            progress_total=gate_starts(bar, tid, manifest.name),
            progress=lambda: bar.advance(tid),
            estimate=lambda e: err.print(estimate_line(manifest.name, e, SHORTEN), markup=False, highlight=False),
        )
    result, report = done.holes, done.report
    for hole, why in result.rejected:
        err.print(f"  skipped {escape(hole.describe())}: {escape(why)}")
    err.print(
        f"{manifest.name}: {len(holes)} holes, {len(result.rejected)} skipped; {len(result.tasks)} candidates, {kept(report)}, "
        f"{len(report.dropped)} dropped → {done.target if done.written else 'nothing written'}"
    )
    print_gate(report)
    if not done.written:
        raise SimpilotError(f"{manifest.name}: no task kept from {file}, nothing written to {done.target}: see the reasons above")
