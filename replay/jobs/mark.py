"""``simpilot mark`` for one repository: mark, validate, and write what is kept.

The scenario file is written only when the gate keeps a task (an empty file would only fail later,
at replay), and an existing one is then left as it was; where the repository is gets recorded
beside it (``config/locations.py``) so that later commands find it without ``--repo``.

Before the gate's runs begin, ``mark`` says how many candidates there are, how many test runs
that means and about how long they will take (``validation/estimate.py``, from the untouched
suite's time in the baseline check), and, when that is long, which options shorten it. Its
progress row names the phase (:data:`BEFORE_GATE`, then :data:`GATE`), which a log file shows.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.progress import Progress, TaskID

from replay.config.locations import remember
from replay.config.manifest import Manifest, RepoCatalog, open_repository
from replay.core.errors import SimpilotError
from replay.core.records import Kind, Task
from replay.core.scenarios import write_tasks
from replay.execution.judge import Evaluator
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.jobs.gate_summary import kept, nothing_kept, print_gate
from replay.jobs.output import err
from replay.marking import MarkResult
from replay.marking.decision_places import mark_decisions
from replay.run.progress import duration, progress
from replay.validation.decision_gate import validate_decisions
from replay.validation.estimate import GateEstimate
from replay.validation.gate import GateReport, mark_validated


@dataclass(frozen=True)
class Written:
    """What the gate kept, and the scenario file it went to."""

    report: GateReport
    target: Path  # the scenario file, written only when ``report.kept``

    @property
    def written(self) -> bool:
        return bool(self.report.kept)


@dataclass(frozen=True)
class Marked(Written):
    marked: MarkResult


# the phases a progress row names: before the gate's total is known, and the gate (whose row then
# starts again, so that its rate and time left are the gate's own)
BEFORE_GATE = "marking, the untouched suite's runs, test selection"
GATE = "the gate's runs"
LONG = 60.0  # seconds: an estimate longer than this says how to shorten the gate
SHORTEN = "to shorten it, mark fewer candidates (--per-kind N, --max-per-file N, --kinds) or run more at once (--jobs N)"
MARK_SETTINGS = ("seed", "per_kind", "jobs", "max_per_file", "full_suite", "decisions")  # mark_into's, as the request names them


@dataclass(frozen=True, slots=True)
class MarkRequest:
    """The options of ``simpilot mark`` (no kinds: both; no languages: every one)."""

    repos: tuple[str, ...]
    out: Path
    jobs: int
    seed: int = 0
    per_kind: int | None = None
    max_per_file: int | None = None
    kinds: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    full_suite: bool = False
    decisions: bool = False
    unsafe_no_sandbox: bool = False


def mark(request: MarkRequest) -> None:
    """``simpilot mark``: mark and validate each repository, saying on stderr what was kept and
    dropped; a repository that kept no task is an error (after the others are done)."""
    sandbox = Sandbox.create(request.unsafe_no_sandbox)
    chosen = {Kind(k) for k in request.kinds} or {Kind.INFILL, Kind.COMPLETION}
    manifests = [(open_repository(location), location) for location in request.repos]
    languages = request.languages
    settings: dict[str, Any] = {name: getattr(request, name) for name in MARK_SETTINGS}
    empty: list[str] = []  # why each repository kept no task
    for manifest, location in manifests:
        if languages and manifest.language not in languages:
            err.print(f"{manifest.name}: skipped ({manifest.language} is not among --languages {', '.join(languages)})")
            continue
        with progress(f"{manifest.name}: {BEFORE_GATE}") as (bar, tid):
            done = mark_into(
                request.out,
                manifest,
                location,
                sandbox,
                kinds=chosen,
                progress_total=gate_starts(bar, tid, manifest.name),
                progress=lambda: bar.advance(tid),
                estimate=functools.partial(say_estimate, manifest.name),
                **settings,
            )
        marked, report, target = done.marked, done.report, done.target
        if not done.written:  # nothing written; an existing scenario file stays as it was
            empty.append(nothing_kept(manifest, marked, report.dropped, target))
        err.print(
            f"{manifest.name}: {marked.files} files, {marked.lines} lines; {len(marked.tasks)} candidates, {kept(report)}, "
            f"{len(report.dropped)} dropped → {target if report.kept else 'nothing written'}"
        )
        print_gate(report)
        for path, why in marked.skipped:
            err.print(f"  skipped {path}: {why}")
    if empty:
        raise SimpilotError("; ".join(empty))


def gate_starts(bar: Progress, row: TaskID, name: str) -> Callable[[int], None]:
    """What to do when the gate's total is known: start ``row`` again as the gate's, so that its
    rate and time left are the gate's own and not diluted by the marking and baseline before."""

    def start(total: int) -> None:
        bar.reset(row, total=total, description=f"{name}: {GATE}")

    return start


def say_estimate(name: str, estimate: GateEstimate) -> None:
    err.print(estimate_line(name, estimate, SHORTEN), markup=False, highlight=False)


def estimate_line(name: str, estimate: GateEstimate, shorten: str) -> str:
    """What the gate is about to do and about how long it will take (``shorten``: the options
    that cut it down, said when it is long)."""
    line = (
        f"{name}: {estimate.candidates} candidates × ~{estimate.runs_each} test runs × {estimate.run_seconds:.1f} s"
        f" + {estimate.reference_runs} reference run{'' if estimate.reference_runs == 1 else 's'}, {estimate.jobs} at a time: about {duration(estimate.seconds)}"
        " (a run counted at the untouched suite's time)"
    )
    return line + (f"; {shorten}" if estimate.seconds > LONG else "")


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
    estimate: Callable[[GateEstimate], None] | None = None,
) -> Marked:
    """Mark and validate ``manifest``'s repository (found at ``location``) into ``out/<name>.jsonl``.
    With ``decisions``, the tasks are decision places (``marking/decisions.py``) instead of holes,
    ``per_kind`` of each decision per file. ``estimate`` hears the gate's estimate before its runs."""
    if decisions:
        marked = mark_decisions(manifest, seed=seed, per_file=per_kind)
        with evaluator_for(manifest, sandbox, jobs, full_suite) as evaluator:
            report = validate_decisions(evaluator, manifest, marked.tasks, jobs, progress_total, progress, estimate=estimate)
        return Marked(report, write_kept(out, manifest, location, report.kept), marked)
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
            estimate=estimate,
        )
    return Marked(report, write_kept(out, manifest, location, report.kept), marked)


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
