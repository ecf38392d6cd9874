"""The validation gate: only tasks that measure something are emitted.

A task is kept when (1) the repository's tests pass on the untouched code, twice, and also through
simpilot's own runner, which later runs the tasks (unless the whole suite runs); (2) putting the ground truth
back reproduces the original file byte for byte; (3) at least one test is selected for the hole
(unless the whole suite runs); (4) a neutral filler in the hole (``pass`` / ``{}`` for a block,
``True`` / ``true`` for a condition) makes those tests fail, every run: twice, then up to 45 runs
as a budget of run time allows (``repetition.py``); (5) when that filler does not
even compile, a compiling probe that throws must make them fail as well: a filler that javac or
Python's compiler rejects says nothing about the tests, so a task whose probe does not compile
either, or passes, is dropped — no test can be shown to notice it.

For Java the probe also narrows the selection (``selection.py``): it runs once on the candidate
test classes, and the test methods it makes fail are the ones that reach the hole; the fillers
then run on exactly those methods, and so do replays.

The gate also puts every kept task's ground truth through every built-in post-processing preset:
a preset must return it unchanged. An alteration is a bug of the preset, not of the task, so the
task is kept and the alteration is reported (``GateReport.altered``), never dropped silently.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from postprocess import BUILTIN_PRESETS, run_preset
from replay.config.manifest import Manifest
from replay.core.errors import SimpilotError
from replay.core.records import Kind, Status, Task, Validation
from replay.core.scenarios import hole_context
from replay.execution.judge import Evaluator, Verdict, apply
from replay.execution.proof.check import shortfall
from replay.execution.runners import junit as java_runner
from replay.execution.scheduling.references import ReferenceRuns
from replay.marking import MarkResult, mark_repository
from replay.validation.drops import Drop, DroppedTask, DropReason
from replay.validation.estimate import GateEstimate, estimate_gate
from replay.validation.repetition import MIN_RUNS, REPOSITORY_BUDGET, planned_runs
from replay.validation.selection import build_selection, is_method_id, reaching_methods

FILLERS = {"python": ("pass", "True"), "java": ("{}", "true")}
# A filler often turns a loop into an endless one. The gate stops such a run once it has taken
# far longer than the same tests did on the untouched code: a run that slow fails either way, and
# waiting for the manifest's whole timeout (meant for slow machines at replay time) would dominate
# marking. A filler that passes but only slowly would be counted as failing, so it must do so
# twice, each time three times slower than the untouched code, and never under a second.
GATE_SLOWDOWN = 3
GATE_MIN_TIMEOUT = 1.0
# A probe cannot loop (it throws when reached, and the code runs as it is when not), but a run in
# which every test fails with a stack trace is slower than a passing one: it gets more time, so
# that a loaded machine does not turn what it learns into a timeout.
PROBE_SLOWDOWN = 10
PROBE_MIN_TIMEOUT = 5.0
NO_TESTS = "no test executes the hole"
TESTS_FAIL = "the selected tests fail on the untouched code: "  # then why (the reference run's failures)
NO_PROBE_COMPILES = "neither the filler nor a throwing probe compiles: no test can be shown to notice the hole"
PROBE_MESSAGE = "simpilot: hole not filled"
# Probes throw as soon as the hole is reached, tried in order until one compiles. A block probe
# first keeps the ground truth after a guard that throws: it compiles wherever the original does
# (a local the hole declares and later code reads, a final field it sets, a value it returns), and
# javac does not count code after ``if (true) { throw … }`` as unreachable. Java throws an
# ``Error``: tests ``assertThrows`` the exceptions the code under test throws, and code catches
# them, so an ``IllegalStateException`` probe can pass in a hole that tests reach. The generic
# ``requireNonNullElseGet`` takes its type from the context (a condition, an int, a reference).
_JAVA_THROW = f'throw new Error("{PROBE_MESSAGE}");'
_JAVA_GUARD = f"if (true) {{ {_JAVA_THROW} }}"
_JAVA_VALUE = f"java.util.Objects.requireNonNullElseGet(null, () -> {{ {_JAVA_THROW} }})"
_PYTHON_RAISE = f'raise RuntimeError("{PROBE_MESSAGE}")'
PROBES: dict[tuple[str, bool], tuple[str, ...]] = {  # (language, block hole) -> probes; "{hole}" is the ground truth
    ("java", True): (_JAVA_GUARD + " {hole}", _JAVA_THROW, _JAVA_GUARD),
    ("java", False): (_JAVA_VALUE, _JAVA_VALUE.replace("requireNonNullElseGet", "<Boolean>requireNonNullElseGet")),
    ("python", True): (_PYTHON_RAISE, _PYTHON_RAISE + "\n{indent}{hole}"),
    ("python", False): (f'(_ for _ in ()).throw(RuntimeError("{PROBE_MESSAGE}"))',),
}
# What says a text does not compile: javac's errors (an unknown symbol among them), or Python's
# compile check. A Python NameError is a test's own failure, not a compile error.
_UNCOMPILED = {
    "java": (Status.COMPILE_ERROR, Status.UNDEFINED_NAME),
    "python": (Status.SYNTAX_ERROR, Status.INDENTATION_ERROR),
}


JAVA_GUARD = _JAVA_GUARD  # a statement that throws when reached, and compiles wherever a statement does
UNCOMPILED = _UNCOMPILED


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
    dropped: list[DroppedTask] = field(default_factory=list)
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


def check_baseline(evaluator: Evaluator, manifest: Manifest) -> float:
    """The untouched repository's tests must pass, twice; otherwise nothing can be measured. A
    failure shows the command, its exit status and the end of its output, and what to do.
    Returns how long the last run took (the way a task's tests will run): what the gate's
    estimate counts a run at (``estimate.py``)."""
    from replay.environments.advice import failure_hint
    from replay.environments.hints import details

    config = manifest.root / "simpilot.toml"
    if manifest.runner_suite():
        return _check_runner_suite(evaluator, manifest)
    for attempt in (1, 2):
        result = evaluator.run_tests(manifest, full_suite=True)
        last = _last_line(result.output_tail)
        if result.timed_out:
            raise SimpilotError(
                f"{manifest.name}: the test suite did not finish within {manifest.timeout:g} s on the untouched code "
                f"(a hanging test?): fix the test, or raise 'timeout' in {config}"
            )
        ran = evaluator.command(manifest, None, None, full_suite=True)[0]
        if result.returncode == 5 and manifest.is_pytest():
            raise SimpilotError(
                f"{manifest.name}: the test command ran no tests: add tests, or fix test_command in {config} ({last})"
                + details(ran, result.output_tail)
            )
        if result.returncode != 0:
            when = "" if attempt == 1 else " on a second run (the suite is flaky)"
            raise SimpilotError(
                f"{manifest.name}: the tests fail on the untouched code{when} (exit status {result.returncode}): "
                f"{failure_hint(manifest, result.output_tail)}" + details(ran, result.output_tail)
            )
    if evaluator.full_suite:
        if not manifest.reports_tests():
            raise SimpilotError(
                f"{manifest.name}: --full-suite needs each test's result, and test_command gives none: make it write JUnit XML "
                f"reports into $SIMPILOT_REPORTS and set junit_xml = true in {config} (see README), or mark without --full-suite"
            )
        result = evaluator.run_tests(manifest)
        gap = shortfall(result.proof, None)
        if gap is not None:
            raise SimpilotError(
                f"{manifest.name}: the suite's own per-test results do not show it passing on the untouched code ({gap.detail}): check test_command in {config}"
            )
        return result.duration_s
    # Tasks run through simpilot's own runner (the warm servers, the one-file Java
    # recompilation): it must agree with the repository's command on the untouched code, test by test.
    result = evaluator.run_tests(manifest)
    if result.timed_out:
        raise SimpilotError(
            f"{manifest.name}: simpilot's test runner did not finish within {manifest.timeout:g} s: raise 'timeout' in {config}"
        )
    if manifest.language == "java" and result.returncode == java_runner.EXIT_NO_TESTS:
        raise SimpilotError(
            f"{manifest.name}: no JUnit 5 tests found under {', '.join(manifest.tests)}: add tests, or fix 'tests' in {config}"
        )
    gap = shortfall(result.proof, None)
    if gap is not None:
        found = java_runner.classify(result.output_tail) if manifest.language == "java" else None
        why = (
            found[1] if found else gap.detail if gap.kind != "failed" or not result.output_tail.strip() else _last_line(result.output_tail)
        )
        fix = "list the jars the tests need in [java] classpath" if manifest.language == "java" else "check 'env' and 'test_command'"
        raise SimpilotError(
            f"{manifest.name}: the suite passes with test_command but not when simpilot runs it ({why}): {fix} in {config}"
            + details(evaluator.command(manifest, None, None)[0], result.output_tail)
        )
    return result.duration_s


def _check_runner_suite(evaluator: Evaluator, manifest: Manifest) -> float:
    """A Java repository without a test command: every test class, through simpilot's runner, must
    pass twice, each test proven by its own result. Sources that do not compile stop the first run
    (the work copy's build names javac's first errors)."""
    config = manifest.root / "simpilot.toml"
    for attempt in (1, 2):
        result = evaluator.run_tests(manifest, tests=None, full_suite=False)
        if result.timed_out:
            raise SimpilotError(
                f"{manifest.name}: the JUnit tests did not finish within {manifest.timeout:g} s on the untouched code "
                f"(a hanging test?): fix the test, or raise 'timeout' in {config}"
            )
        if result.returncode == java_runner.EXIT_NO_TESTS:
            raise SimpilotError(
                f"{manifest.name}: no JUnit 5 tests found under {', '.join(manifest.tests)}: add @Test methods "
                f"(org.junit.jupiter.api.Test), or fix 'tests' in {config}"
            )
        gap = shortfall(result.proof, None)
        if gap is not None:
            why = _first_failure(result.proof.failed if result.proof else [], result.output_tail) or gap.detail
            when = "" if attempt == 1 else " on a second run (the suite is flaky)"
            raise SimpilotError(
                f"{manifest.name}: the tests fail on the untouched code{when} ({why}): make them pass first, "
                f"or list the jars they need in [java] classpath in {config}"
            )
    return result.duration_s


def _first_failure(failed: list[str], output: str) -> str | None:
    """The first failing test, named with its class, and the exception the runner printed for it."""
    found = java_runner.classify(output)
    exception = found[1].split(" => ", 1)[-1] if found else ""
    if not failed:
        return exception or None
    more = f" and {len(failed) - 1} more" if len(failed) > 1 else ""
    return f"{failed[0]}{more}" + (f": {exception}" if exception else "")


def selected_command(evaluator: Evaluator, manifest: Manifest, tasks: list[Task]) -> tuple[list[Task], list[DroppedTask]]:
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
            dropped.append(DroppedTask(task, Drop(DropReason.NO_TESTS, NO_TESTS)))
    return kept, dropped


@dataclass(frozen=True, slots=True)
class Probe:
    """A run with a compiling probe that throws in the hole (``verdict``; None: no probe compiled)
    and, for Java, the test methods it made fail (``methods``; None: nothing precise learned)."""

    verdict: Verdict | None
    methods: tuple[str, ...] | None = None

    def why_dropped(self) -> Drop | None:
        """Why a task is dropped on this probe's evidence, or None: a probe that does not compile
        or passes leaves no test that can be shown to notice the hole."""
        if self.verdict is None:
            return Drop(DropReason.NO_PROBE_COMPILES, NO_PROBE_COMPILES)
        if self.verdict.status is Status.PASS:
            return Drop(DropReason.NO_TESTS, NO_TESTS + " (a throwing probe passed)")
        if not self.verdict.proven:
            return Drop(
                DropReason.UNPROVEN,
                f"the throwing probe's failure is not shown by any test's result ({self.verdict.status.value}: {self.verdict.detail})",
            )
        return None


def probe_texts(task: Task) -> list[str]:
    """The probes for ``task``'s hole, in the order they are tried."""
    return [p.replace("{indent}", task.indent).replace("{hole}", task.ground_truth) for p in PROBES[(task.language, task.block)]]


def run_probe(evaluator: Evaluator, task: Task, limit: float) -> Probe:
    """Run ``task``'s tests with the first probe that compiles; for Java, learn the methods it
    made fail. Each probe that does not compile costs one compilation, not a test run."""
    for text in probe_texts(task):
        verdict = evaluator.evaluate(task, text, limit)
        if verdict.status not in _UNCOMPILED[task.language]:
            learned = reaching_methods(verdict.proof) if learns_methods(task) and verdict.status is not Status.PASS else None
            return Probe(verdict, learned)
    return Probe(None)


def learns_methods(task: Task) -> bool:
    """Whether the gate narrows ``task``'s selection to test methods: Java tasks whose tests are
    still the candidate classes (not the whole suite, not already methods)."""
    return task.language == "java" and bool(task.tests) and not any(is_method_id(t) for t in task.tests or ())


def gate(
    evaluator: Evaluator, tasks: list[Task], jobs: int, progress: Callable[[], None] | None = None, timeout: float | None = None
) -> GateReport:
    """Run the filler at least twice per task (tasks in parallel; ``repetition.py`` says how many
    times) and keep the tasks that pass the gate.

    First the tests of each file's tasks run once on the untouched code (``ReferenceRuns``): they
    must pass, and their time sets how long a filler run may take (``timeout`` overrides it). A
    Java task's probe runs once before its filler, to narrow its test classes to the methods that
    reach the hole; any task's probe runs when its filler does not compile."""
    references = ReferenceRuns(evaluator, tasks)

    def one(task: Task) -> tuple[Task, Drop | None]:
        original = evaluator.original(task)
        if apply(task, original, task.ground_truth) != original:
            return task, Drop(DropReason.HOLE_MISMATCH, "ground truth does not reproduce the file")
        why_not = references.why_not(task)
        if why_not is not None:
            return task, Drop(DropReason.TESTS_FAIL, TESTS_FAIL + why_not)
        limit = timeout if timeout is not None else references.timeout(task, GATE_SLOWDOWN, GATE_MIN_TIMEOUT)
        probe_limit = timeout if timeout is not None else references.timeout(task, PROBE_SLOWDOWN, PROBE_MIN_TIMEOUT)
        probe: Probe | None = None
        if learns_methods(task):  # one run on the candidate classes; the filler then runs on the methods it shows
            probe = run_probe(evaluator, task, probe_limit)
            task = replace(task, tests=probe.methods or task.tests)
        fill = filler(task)
        verdicts = [evaluator.evaluate(task, fill, limit) for _ in range(MIN_RUNS)]
        # a filler failing every run so far, with proof, runs again as many times as repetition.py gives
        # it at the cost of its runs so far, until a run decides otherwise; one the compiler rejects
        # fails alike every time
        runs = planned_runs(max(v.duration_s for v in verdicts), REPOSITORY_BUDGET)
        again = verdicts[0].status not in _UNCOMPILED[task.language]
        while again and len(verdicts) < runs and all(v.status is not Status.PASS and v.proven for v in verdicts):
            verdicts.append(evaluator.evaluate(task, fill, limit))
        if progress:
            progress()
        unproven = next((v for v in verdicts if v.status is not Status.PASS and not v.proven), None)
        if unproven is not None:  # the same proof as a pass: a failure no test result shows is not one
            return task, Drop(
                DropReason.UNPROVEN, f"the filler's failure is not shown by any test's result ({unproven.status.value}: {unproven.detail})"
            )
        failing = [v.status is not Status.PASS for v in verdicts]
        validation = Validation(
            ground_truth_passes=True,
            filler=fill,
            filler_fails=all(failing),
            stable=len(set(failing)) == 1,
            filler_status=verdicts[0].status.value,
        )
        if not validation.ok:
            why = (
                Drop(DropReason.FILLER_PASSES, "tests pass with the hole filled by " + repr(fill))
                if not any(failing)
                else Drop(DropReason.UNSTABLE, f"unstable: the filler passed {failing.count(False)} of {len(failing)} runs")
            )
            return replace(task, validation=validation), why
        if verdicts[0].status in _UNCOMPILED[task.language]:
            probe = probe if probe is not None else run_probe(evaluator, task, probe_limit)
            validation = replace(validation, probe_status=probe.verdict.status.value if probe.verdict else "")
            dropped = probe.why_dropped()
            if dropped is not None:
                return replace(task, validation=validation), dropped
        return replace(task, validation=validation), None

    report = GateReport()
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for task, why in pool.map(one, tasks):
            if why is None:
                report.kept.append(task)
            else:
                report.dropped.append(DroppedTask(task, why))
    return report


def mark_validated(
    manifest: Manifest,
    evaluator: Evaluator,
    *,
    seed: int,
    per_kind: int | None,
    kinds: set[Kind],
    jobs: int,
    max_per_file: int | None = None,
    progress_total: Callable[[int], None] | None = None,
    progress: Callable[[], None] | None = None,
    estimate: Callable[[GateEstimate], None] | None = None,
) -> tuple[MarkResult, GateReport]:
    """Mark ``manifest``'s repository and keep only the tasks that pass the gate."""
    marked = mark_repository(manifest, seed=seed, per_kind=per_kind, kinds=kinds, max_per_file=max_per_file, workers=jobs)
    if marked.files == 0:
        skipped = "; ".join(f"{p}: {why}" for p, why in marked.skipped[:3])
        raise SimpilotError(
            f"{manifest.name}: no {manifest.language} source files to mark under {', '.join(manifest.sources)}"
            + (f" ({skipped})" if skipped else "")
        )
    return marked, validate(evaluator, manifest, marked.tasks, jobs, progress_total, progress, estimate=estimate)


def validate(
    evaluator: Evaluator,
    manifest: Manifest,
    tasks: list[Task],
    jobs: int,
    progress_total: Callable[[int], None] | None = None,
    progress: Callable[[], None] | None = None,
    judge: Callable[[Evaluator, list[Task], int, Callable[[], None] | None], GateReport] | None = None,
    estimate: Callable[[GateEstimate], None] | None = None,
) -> GateReport:
    """Candidate ``tasks`` of ``manifest``'s repository through the whole gate: the untouched code's
        tests (:func:`check_baseline`), test selection, the fillers and probes (or another ``judge``
        of the selected tasks: decision places have their own), and the presets' alterations. Marked
        and imported holes (``lines.py``) go through it alike. ``estimate`` hears, before the gate's runs
    begin, how long they should take (``estimate.py``)."""
    run_seconds = check_baseline(evaluator, manifest)
    selected, unreached = selected_command(evaluator, manifest, tasks)
    if estimate is not None:
        estimate(estimate_gate(selected, run_seconds, jobs, evaluator.full_suite))
    if progress_total:
        progress_total(len(selected))
    report = (judge or gate)(evaluator, selected, jobs, progress)
    report.dropped = unreached + report.dropped
    report.altered = preset_alterations(report.kept, evaluator.original)
    return report
