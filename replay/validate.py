"""The validation gate: only tasks that measure something are emitted (shared/REFERENCE.md §6).

A task is kept when (1) the repository's tests pass on the untouched code, twice; (2) putting the
ground truth back reproduces the original file byte for byte; (3) a neutral filler in the hole
(``pass`` for a block, ``True`` for a condition) makes the tests fail, twice.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from .errors import SimpilotError
from .execution.evaluate import Evaluator, apply
from .manifest import Manifest
from .marking import MarkResult, mark_repository
from .records import Status, Task, Validation

FILLERS = {"python": ("pass", "True")}


def filler(task: Task) -> str:
    block, expression = FILLERS[task.language]
    return block if task.block else expression


@dataclass
class GateReport:
    kept: list[Task] = field(default_factory=list)
    dropped: list[tuple[Task, str]] = field(default_factory=list)


def check_baseline(evaluator: Evaluator, manifest: Manifest) -> None:
    """The untouched repository's tests must pass, twice; otherwise nothing can be measured."""
    for attempt in (1, 2):
        result = evaluator.run_tests(manifest)
        last = (result.output_tail.strip().splitlines() or ["(no output)"])[-1]
        if result.timed_out:
            raise SimpilotError(
                f"{manifest.name}: the test suite did not finish within {manifest.timeout:g} s on the untouched code "
                f"(a hanging test?): fix it or raise 'timeout' in {manifest.root / 'simpilot.toml'}"
            )
        if result.returncode == 5 and "pytest" in " ".join(manifest.test_command):
            raise SimpilotError(f"{manifest.name}: the test command ran no tests: add tests or fix test_command in the manifest ({last})")
        if result.returncode != 0:
            when = "" if attempt == 1 else " on a second run (the suite is flaky)"
            raise SimpilotError(f"{manifest.name}: the tests fail on the untouched code{when}: make them pass first ({last})")


def gate(evaluator: Evaluator, tasks: list[Task], jobs: int, progress: Callable[[], None] | None = None) -> GateReport:
    """Run the filler twice per task (in parallel) and keep the tasks that pass the gate."""

    def one(task: Task) -> tuple[Task, str | None]:
        original = evaluator.original(task)
        if apply(task, original, task.ground_truth) != original:
            return task, "ground truth does not reproduce the file"
        fill = filler(task)
        verdicts = [evaluator.evaluate(task, fill) for _ in range(2)]
        if progress:
            progress()
        failing = [v.status is not Status.PASS for v in verdicts]
        validation = Validation(ground_truth_passes=True, filler=fill, filler_fails=all(failing), stable=failing[0] == failing[1])
        if not validation.ok:
            why = "tests pass with the hole filled by " + repr(fill) if not any(failing) else "unstable: the filler failed only once"
            return replace(task, validation=validation), why
        return replace(task, validation=validation), None

    report = GateReport()
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for task, why in pool.map(one, tasks):
            if why is None:
                report.kept.append(task)
            else:
                report.dropped.append((task, why))
    return report


def mark_validated(
    manifest: Manifest,
    evaluator: Evaluator,
    *,
    seed: int,
    per_kind: int,
    kinds: set,
    jobs: int,
    progress_total: Callable[[int], None] | None = None,
    progress: Callable[[], None] | None = None,
) -> tuple[MarkResult, GateReport]:
    """Mark ``manifest``'s repository and keep only the tasks that pass the gate."""
    marked = mark_repository(manifest, seed=seed, per_kind=per_kind, kinds=kinds)
    if marked.files == 0:
        skipped = "; ".join(f"{p}: {why}" for p, why in marked.skipped[:3])
        raise SimpilotError(f"{manifest.name}: no {manifest.language} source files to mark under {', '.join(manifest.sources)}" + (f" ({skipped})" if skipped else ""))
    check_baseline(evaluator, manifest)
    if progress_total:
        progress_total(len(marked.tasks))
    return marked, gate(evaluator, marked.tasks, jobs, progress)
