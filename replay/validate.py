"""The validation gate: only tasks that measure something are emitted.

A task is kept when (1) the repository's tests pass on the untouched code, twice, and also through
simpilot's own runner, which later runs the tasks (unless the whole suite runs); (2) putting the ground truth
back reproduces the original file byte for byte; (3) at least one test is selected for the hole
(unless the whole suite runs); (4) a neutral filler in the hole (``pass`` / ``{}`` for a block,
``True`` / ``true`` for a condition) makes those tests fail, twice; (5) when that filler does not
even compile, a compiling probe that throws must make them fail as well.

The gate also puts every kept task's ground truth through every built-in post-processing preset:
a preset must return it unchanged. An alteration is a bug of the preset, not of the task, so the
task is kept and the alteration is reported (``GateReport.altered``), never dropped silently.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from postprocess import BUILTIN_PRESETS, run_preset

from .errors import SimpilotError
from .execution import java_runner
from .execution.evaluate import Evaluator, apply
from .execution.proof import shortfall
from .execution.reference import ReferenceRuns
from .manifest import Manifest
from .marking import MarkResult, mark_repository
from .records import Kind, Status, Task, Validation
from .scenarios import hole_context
from .selection import build_selection

FILLERS = {"python": ("pass", "True"), "java": ("{}", "true")}
# A filler often turns a loop into an endless one. The gate stops such a run once it has taken
# far longer than the same tests did on the untouched code: a run that slow fails either way, and
# waiting for the manifest's whole timeout (meant for slow machines at replay time) would dominate
# marking. A filler that passes but only slowly would be counted as failing, so it must do so
# twice, each time three times slower than the untouched code, and never under a second.
GATE_SLOWDOWN = 3
GATE_MIN_TIMEOUT = 1.0
NO_TESTS = "no test executes the hole"
# A Java filler that does not compile (``{}`` where a value must be returned or a final field
# set) says nothing about whether any test runs the hole. Then a probe that compiles and throws
# must make the tests fail too; if it passes, no selected test reaches the hole.
PROBES = {
    "java": (
        'throw new IllegalStateException("simpilot: hole not filled");',
        'if (true) { throw new IllegalStateException("simpilot: hole not filled"); }',
    ),
}
_UNCOMPILED = (Status.COMPILE_ERROR, Status.UNDEFINED_NAME, Status.SYNTAX_ERROR, Status.INDENTATION_ERROR)


def filler(task: Task) -> str:
    block, expression = FILLERS[task.language]
    return block if task.block else expression


@dataclass(frozen=True, slots=True)
class Alteration:
    """A built-in preset that changed a task's ground truth (which steps did)."""

    task: Task
    preset: str
    steps: tuple[str, ...]
    text: str  # what the preset returned


@dataclass
class GateReport:
    kept: list[Task] = field(default_factory=list)
    dropped: list[tuple[Task, str]] = field(default_factory=list)
    altered: list[Alteration] = field(default_factory=list)


def preset_alterations(
    tasks: list[Task], original: Callable[[Task], bytes], presets: tuple[str, ...] = tuple(BUILTIN_PRESETS)
) -> list[Alteration]:
    """Every (task, preset) whose preset does not return the task's ground truth unchanged."""
    found = []
    for task in tasks:
        _, ctx = hole_context(task, original(task))
        for preset in presets:
            processed = run_preset(preset, task.ground_truth, ctx)
            if processed.text != task.ground_truth:
                found.append(Alteration(task, preset, processed.changed_by, processed.text))
    return found


def _last_line(text: str) -> str:
    return (text.strip().splitlines() or ["(no output)"])[-1]


def check_baseline(evaluator: Evaluator, manifest: Manifest) -> None:
    """The untouched repository's tests must pass, twice; otherwise nothing can be measured."""
    config = manifest.root / "simpilot.toml"
    for attempt in (1, 2):
        result = evaluator.run_tests(manifest, full_suite=True)
        last = _last_line(result.output_tail)
        if result.timed_out:
            raise SimpilotError(
                f"{manifest.name}: the test suite did not finish within {manifest.timeout:g} s on the untouched code "
                f"(a hanging test?): fix the test, or raise 'timeout' in {config}"
            )
        if result.returncode == 5 and manifest.is_pytest():
            raise SimpilotError(f"{manifest.name}: the test command ran no tests: add tests, or fix test_command in {config} ({last})")
        if result.returncode != 0:
            when = "" if attempt == 1 else " on a second run (the suite is flaky)"
            raise SimpilotError(f"{manifest.name}: the tests fail on the untouched code{when}: make them pass first ({last})")
    if evaluator.full_suite:
        if not manifest.reports_tests():
            raise SimpilotError(
                f"{manifest.name}: --full-suite needs each test's result, and test_command gives none: make it write JUnit XML "
                f"reports into $SIMPILOT_REPORTS and set junit_xml = true in {config} (see README), or mark without --full-suite"
            )
        result = evaluator.run_tests(manifest)
        gap = shortfall(result.proof, None)
        if gap is not None:
            raise SimpilotError(f"{manifest.name}: the suite's own per-test results do not show it passing on the untouched code ({gap.detail}): check test_command in {config}")
        return
    # Tasks run through simpilot's own runner (the warm servers, the one-file Java
    # recompilation): it must agree with the repository's command on the untouched code, test by test.
    result = evaluator.run_tests(manifest)
    if result.timed_out:
        raise SimpilotError(f"{manifest.name}: simpilot's test runner did not finish within {manifest.timeout:g} s: raise 'timeout' in {config}")
    if manifest.language == "java" and result.returncode == java_runner.EXIT_NO_TESTS:
        raise SimpilotError(f"{manifest.name}: no JUnit 5 tests found under {', '.join(manifest.tests)}: add tests, or fix 'tests' in {config}")
    gap = shortfall(result.proof, None)
    if gap is not None:
        found = java_runner.classify(result.output_tail) if manifest.language == "java" else None
        why = found[1] if found else gap.detail if gap.kind != "failed" or not result.output_tail.strip() else _last_line(result.output_tail)
        fix = "list the jars the tests need in [java] classpath" if manifest.language == "java" else "check 'env' and 'test_command'"
        raise SimpilotError(f"{manifest.name}: the suite passes with test_command but not when simpilot runs it ({why}): {fix} in {config}")


def select_tests(evaluator: Evaluator, manifest: Manifest, tasks: list[Task]) -> tuple[list[Task], list[tuple[Task, str]]]:
    """Attach the selected tests to each task; a task no test reaches cannot be validated."""
    if evaluator.full_suite:
        return tasks, []
    selection = build_selection(manifest, evaluator.sandbox, sorted({t.path for t in tasks}))
    if selection is None:
        return tasks, []
    kept, dropped = [], []
    for task in tasks:
        tests = selection.tests_for(task)
        if tests:
            kept.append(replace(task, tests=tests))
        else:
            dropped.append((task, NO_TESTS))
    return kept, dropped


def gate(
    evaluator: Evaluator, tasks: list[Task], jobs: int, progress: Callable[[], None] | None = None, timeout: float | None = None
) -> GateReport:
    """Run the filler twice per task (in parallel) and keep the tasks that pass the gate.

    First the tests of each file's tasks run once on the untouched code (``ReferenceRuns``): they
    must pass, and their time sets how long a filler run may take (``timeout`` overrides it)."""
    references = ReferenceRuns(evaluator, tasks)

    def one(task: Task) -> tuple[Task, str | None]:
        original = evaluator.original(task)
        if apply(task, original, task.ground_truth) != original:
            return task, "ground truth does not reproduce the file"
        why_not = references.why_not(task)
        if why_not is not None:
            return task, "the selected tests fail on the untouched code: " + why_not
        limit = timeout if timeout is not None else references.timeout(task, GATE_SLOWDOWN, GATE_MIN_TIMEOUT)
        fill = filler(task)
        verdicts = [evaluator.evaluate(task, fill, limit) for _ in range(2)]
        if progress:
            progress()
        unproven = next((v for v in verdicts if v.status is not Status.PASS and not v.proven), None)
        if unproven is not None:  # the same proof as a pass: a failure no test result shows is not one
            return task, f"the filler's failure is not shown by any test's result ({unproven.status.value}: {unproven.detail})"
        failing = [v.status is not Status.PASS for v in verdicts]
        validation = Validation(
            ground_truth_passes=True, filler=fill, filler_fails=all(failing), stable=failing[0] == failing[1],
            filler_status=verdicts[0].status.value,
        )
        if not validation.ok:
            why = "tests pass with the hole filled by " + repr(fill) if not any(failing) else "unstable: the filler failed only once"
            return replace(task, validation=validation), why
        if task.block and verdicts[0].status in _UNCOMPILED:
            for probe in PROBES.get(task.language, ()):
                outcome = evaluator.evaluate(task, probe, limit)
                if outcome.status in _UNCOMPILED:
                    continue
                validation = replace(validation, probe_status=outcome.status.value)
                if outcome.status is Status.PASS:
                    return replace(task, validation=validation), NO_TESTS + " (a throwing probe passed)"
                break
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
    kinds: set[Kind],
    jobs: int,
    max_per_file: int | None = None,
    progress_total: Callable[[int], None] | None = None,
    progress: Callable[[], None] | None = None,
) -> tuple[MarkResult, GateReport]:
    """Mark ``manifest``'s repository and keep only the tasks that pass the gate."""
    marked = mark_repository(manifest, seed=seed, per_kind=per_kind, kinds=kinds, max_per_file=max_per_file, workers=jobs)
    if marked.files == 0:
        skipped = "; ".join(f"{p}: {why}" for p, why in marked.skipped[:3])
        raise SimpilotError(f"{manifest.name}: no {manifest.language} source files to mark under {', '.join(manifest.sources)}" + (f" ({skipped})" if skipped else ""))
    check_baseline(evaluator, manifest)
    selected, unreached = select_tests(evaluator, manifest, marked.tasks)
    if progress_total:
        progress_total(len(selected))
    report = gate(evaluator, selected, jobs, progress)
    report.dropped = unreached + report.dropped
    report.altered = preset_alterations(report.kept, evaluator.original)
    return marked, report
