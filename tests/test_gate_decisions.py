"""Each condition of the validation gate (``replay/validation/gate.py``), for a Python and a Java
task alike, with a scripted evaluator: which verdicts keep a hole as a task, and which drop it and
why. The sandboxed runs behind those verdicts are tested in ``tests/e2e/test_java_gate.py``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from replay.core.errors import SimpilotError
from replay.core.records import Kind, Position, Span, Status, Task
from replay.execution.judge import Verdict
from replay.execution.proof.check import Proof
from replay.execution.sandbox.bubblewrap import ProcessResult
from replay.validation import gate as gate_module
from replay.validation.drops import Drop, DroppedTask, DropReason
from replay.validation.gate import FILLERS, NO_TESTS, check_baseline, gate, probe_texts, selected_command
from replay.validation.selection import Selection

ORIGINAL = b"x = 1\ny = 2\n"
TESTS = {"python": ("tests/test_a.py::test_a",), "java": ("pkg.FooTest#adds",)}
UNCOMPILED = {"python": Status.SYNTAX_ERROR, "java": Status.COMPILE_ERROR}


def task(language: str, ground_truth: str = "x = 1", tests: tuple[str, ...] | None = None, line: int = 0) -> Task:
    span = Span(6 * line, 6 * line + 5, Position(line, 0), Position(line, 5))
    path = "a.py" if language == "python" else "src/main/java/pkg/Foo.java"
    return Task(
        f"{language}-{line}",
        "repo",
        language,
        path,
        Kind.INFILL,
        "statements",
        True,
        span,
        "",
        ground_truth,
        "",
        1,
        tests=TESTS[language] if tests is None else tests,
    )


def verdict(status: Status, proven: bool = True, proof: Proof | None = None) -> Verdict:
    """A run's verdict. Its tests take 3 s: the gate's budget of run time (``repetition.py``)
    then holds only the two runs every filler gets, whose proof this file tests."""
    return Verdict(status, status.value, 3.0, "", proven, proof)


PASSED, FAILED = verdict(Status.PASS), verdict(Status.FAIL)


class Evaluator:
    """Answers each run from a script: ``respond(text, tests, n)`` is the verdict of the ``n``-th
    run of ``text``; every run is recorded as (text, tests)."""

    full_suite = False
    sandbox = None

    def __init__(self, respond: Callable[[str, tuple[str, ...] | None, int], Verdict]):
        self.respond = respond
        self.runs: list[tuple[str, tuple[str, ...] | None]] = []

    def original(self, task: Task) -> bytes:
        return ORIGINAL

    def evaluate(self, task: Task, text: str, timeout: float | None = None, cpu: float | None = None) -> Verdict:
        n = sum(ran == text for ran, _ in self.runs)
        self.runs.append((text, task.tests))
        return self.respond(text, task.tests, n)


class References:
    """The untouched code's runs: ``why`` is why they are not a proven pass (None: they are)."""

    why: str | None = None

    def __init__(self, evaluator: object, tasks: object):
        pass

    def why_not(self, task: Task) -> str | None:
        return self.why

    def timeout(self, task: Task, slowdown: float, minimum: float) -> float:
        return 5.0


@pytest.fixture(autouse=True)
def references(monkeypatch: pytest.MonkeyPatch) -> type[References]:
    monkeypatch.setattr(gate_module, "ReferenceRuns", References)
    monkeypatch.setattr(References, "why", None)
    return References


def filler_runs(language: str, *verdicts: Verdict, probe: Verdict | None = None) -> Evaluator:
    """The filler's runs give ``verdicts`` in turn (the last one again after them); any other text
    (a probe) gives ``probe``."""
    fill = FILLERS[language][0]

    def respond(text: str, tests: tuple[str, ...] | None, n: int) -> Verdict:
        if text == fill:
            return verdicts[min(n, len(verdicts) - 1)]
        assert probe is not None, f"unexpected run of {text!r}"
        return probe

    return Evaluator(respond)


def one(evaluator: Evaluator, candidate: Task) -> tuple[Task | None, Drop | None]:
    """The gate's result for one task: (the kept task, None) or (None, why it was dropped)."""
    report = gate(evaluator, [candidate], jobs=1)
    if report.kept:
        return report.kept[0], None
    [dropped] = report.dropped
    return None, dropped.why


LANGUAGES = pytest.mark.parametrize("language", ["python", "java"])


@LANGUAGES
def test_a_filler_that_fails_twice_with_proof_keeps_the_task(language: str) -> None:
    evaluator = filler_runs(language, FAILED, FAILED)
    kept, why = one(evaluator, task(language))
    assert why is None and kept is not None
    validation = kept.validation
    assert validation is not None and validation.ok and validation.filler == FILLERS[language][0]
    assert (validation.filler_fails, validation.stable, validation.filler_status) == (True, True, "fail")
    # two runs of the filler, each on the task's selected tests: one failure proves nothing twice
    assert evaluator.runs == [(FILLERS[language][0], TESTS[language])] * 2


@LANGUAGES
def test_a_filler_that_passes_drops_the_task(language: str) -> None:
    kept, why = one(filler_runs(language, PASSED, PASSED), task(language))
    assert kept is None and why == Drop(DropReason.FILLER_PASSES, f"tests pass with the hole filled by {FILLERS[language][0]!r}")


@LANGUAGES
@pytest.mark.parametrize("runs", [(FAILED, PASSED), (PASSED, FAILED)], ids=["first-fails", "second-fails"])
def test_a_filler_that_fails_in_only_one_of_its_two_runs_drops_the_task(language: str, runs: tuple[Verdict, Verdict]) -> None:
    report = gate(filler_runs(language, *runs), [task(language)], jobs=1)
    assert report.kept == []
    [only] = report.dropped
    dropped, why = only.task, only.why
    assert why.reason is DropReason.UNSTABLE and why.message.startswith("unstable: the filler ")
    assert dropped.validation is not None and dropped.validation.stable is False and dropped.validation.filler_fails is False


@LANGUAGES
@pytest.mark.parametrize("which", [0, 1])
@pytest.mark.parametrize("status", [Status.FAIL, Status.TIMEOUT, Status.TESTS_NOT_RUN])
def test_a_filler_failure_no_test_result_shows_drops_the_task(language: str, which: int, status: Status) -> None:
    """Either run's failure must be proven (each test's own result, our compiler, our timeout):
    an exit status the answer can choose proves nothing."""
    runs = [FAILED, FAILED]
    runs[which] = verdict(status, proven=False)
    kept, why = one(filler_runs(language, *runs), task(language))
    assert kept is None and why == Drop(DropReason.UNPROVEN, f"the filler's failure is not shown by any test's result ({status.value}: {status.value})")


@LANGUAGES
def test_a_ground_truth_that_does_not_reproduce_the_file_drops_the_task_unrun(language: str) -> None:
    evaluator = filler_runs(language)
    kept, why = one(evaluator, task(language, ground_truth="x = 9"))
    assert kept is None and why == Drop(DropReason.HOLE_MISMATCH, "ground truth does not reproduce the file") and evaluator.runs == []


@LANGUAGES
def test_selected_tests_that_fail_on_the_untouched_code_drop_the_task_unrun(language: str, references: type[References]) -> None:
    references.why = "1 test(s) failed, 0 error(s): tests/test_a.py::test_a"
    evaluator = filler_runs(language)
    kept, why = one(evaluator, task(language))
    assert kept is None and why == Drop(DropReason.TESTS_FAIL, "the selected tests fail on the untouched code: " + references.why) and evaluator.runs == []


@LANGUAGES
def test_an_uncompiled_filler_needs_a_compiling_probe_that_fails_with_proof(language: str) -> None:
    uncompiled = verdict(UNCOMPILED[language])
    kept, why = one(filler_runs(language, uncompiled, uncompiled, probe=FAILED), task(language))
    assert why is None and kept is not None and kept.validation is not None
    assert (kept.validation.filler_status, kept.validation.probe_status) == (UNCOMPILED[language].value, "fail")


@LANGUAGES
def test_an_uncompiled_filler_whose_probe_passes_drops_the_task(language: str) -> None:
    """No selected test executes the hole: a probe that throws when reached passes."""
    uncompiled = verdict(UNCOMPILED[language])
    kept, why = one(filler_runs(language, uncompiled, uncompiled, probe=PASSED), task(language))
    assert kept is None and why == Drop(DropReason.NO_TESTS, NO_TESTS + " (a throwing probe passed)")


@LANGUAGES
def test_an_uncompiled_filler_whose_probe_fails_without_proof_drops_the_task(language: str) -> None:
    uncompiled = verdict(UNCOMPILED[language])
    kept, why = one(filler_runs(language, uncompiled, uncompiled, probe=verdict(Status.FAIL, proven=False)), task(language))
    assert kept is None and why == Drop(DropReason.UNPROVEN, "the throwing probe's failure is not shown by any test's result (fail: fail)")


@LANGUAGES
def test_an_uncompiled_filler_without_a_compiling_probe_drops_the_task(language: str) -> None:
    uncompiled = verdict(UNCOMPILED[language])
    evaluator = filler_runs(language, uncompiled, uncompiled, probe=uncompiled)
    kept, why = one(evaluator, task(language))
    assert kept is None and why == Drop(
        DropReason.NO_PROBE_COMPILES, "neither the filler nor a throwing probe compiles: no test can be shown to notice the hole"
    )
    assert [text for text, _ in evaluator.runs[2:]] == probe_texts(task(language))  # every probe was tried


@LANGUAGES
def test_a_hole_no_selected_test_executes_is_dropped(language: str, monkeypatch: pytest.MonkeyPatch) -> None:
    reached, unreached = task(language, tests=(), line=0), task(language, tests=(), line=1)
    if language == "python":  # per-test coverage: line 1 (the hole on line 0, 0-based) ran in test_a
        selection = Selection("python", lines={"a.py": {1: frozenset(TESTS["python"]), 3: frozenset({"tests/test_b.py::test_b"})}})
    else:  # a hole in a file no test class reaches
        selection = Selection("java", by_file={reached.path: ("pkg.FooTest",)})
        unreached = replace(unreached, path="src/main/java/pkg/Bar.java")
    monkeypatch.setattr(gate_module, "build_selection", lambda manifest, sandbox, paths: selection)
    kept, dropped = selected_command(filler_runs(language), None, [reached, unreached])  # type: ignore[arg-type]
    assert [t.tests for t in kept] == [TESTS["python"] if language == "python" else ("pkg.FooTest",)]
    assert dropped == [DroppedTask(unreached, Drop(DropReason.NO_TESTS, NO_TESTS))]


def test_a_java_probe_narrows_the_selection_to_the_methods_that_reach_the_hole() -> None:
    """The filler, and later every replay, runs on the methods the probe made fail."""
    reach = Proof(
        {"pkg.FooTest#adds()": "failed", "pkg.FooTest#other()": "passed"},
        {"pkg.FooTest#adds()": "pkg.FooTest", "pkg.FooTest#other()": "pkg.FooTest"},
        started=True,
        finished=True,
    )
    probe = verdict(Status.FAIL, proof=reach)
    evaluator = filler_runs("java", FAILED, FAILED, probe=probe)
    kept, why = one(evaluator, task("java", tests=("pkg.FooTest",)))
    assert why is None and kept is not None and kept.tests == ("pkg.FooTest#adds",)
    assert evaluator.runs[1:] == [("{}", ("pkg.FooTest#adds",))] * 2


# -- the untouched code: its tests must pass, twice, and through simpilot's runner test by test ---


def passing_proof(*failed: str) -> Proof:
    outcomes = {"pkg.FooTest#adds()": "passed", **dict.fromkeys(failed, "failed")}
    return Proof(outcomes, {test: test.split("#", 1)[0] for test in outcomes}, started=True, finished=True)


class Baseline:
    """The untouched code's runs: the repository's command exits with ``codes`` in turn;
    simpilot's runner reports ``proofs`` in turn."""

    full_suite = False

    def __init__(self, codes: tuple[int, ...] = (), proofs: tuple[Proof, ...] = ()):
        self.codes, self.proofs = list(codes), list(proofs)

    def run_tests(self, manifest: object, path: str | None = None, tests: object = None, full_suite: bool | None = None) -> ProcessResult:
        if full_suite:
            return ProcessResult(self.codes.pop(0), False, 0.1, "tests ran")
        return ProcessResult(0, False, 0.1, "", self.proofs.pop(0))

    def command(
        self, manifest: object, path: str | None, tests: object, full_suite: bool | None = None
    ) -> tuple[list[str], dict[str, str]]:
        return ["run-tests"], {}


def manifest(language: str, runner_suite: bool = False) -> SimpleNamespace:
    return SimpleNamespace(
        name="repo",
        root=Path("/repo"),
        language=language,
        timeout=60.0,
        tests=("src/test/java",),
        runner_suite=lambda: runner_suite,
        is_pytest=lambda: language == "python",
        reports_tests=lambda: False,
    )


@LANGUAGES
def test_the_untouched_tests_must_pass_twice(language: str) -> None:
    with pytest.raises(SimpilotError, match=r"the tests fail on the untouched code on a second run \(the suite is flaky\)"):
        check_baseline(Baseline((0, 1), (passing_proof(),)), manifest(language))  # type: ignore[arg-type]
    check_baseline(Baseline((0, 0), (passing_proof(),)), manifest(language))  # type: ignore[arg-type]


@LANGUAGES
def test_the_untouched_tests_must_pass_through_simpilots_runner_test_by_test(language: str) -> None:
    """The repository's command passing is not enough: the runner that later runs the tasks must
    prove every test passed (a failed test, or no end record)."""
    for proof in (passing_proof("pkg.FooTest#subtracts()"), replace(passing_proof(), finished=False)):
        with pytest.raises(SimpilotError, match="the suite passes with test_command but not when simpilot runs it"):
            check_baseline(Baseline((0, 0), (proof,)), manifest(language))  # type: ignore[arg-type]


def test_a_java_suite_without_a_test_command_must_pass_twice_through_simpilots_runner() -> None:
    baseline = Baseline(proofs=(passing_proof(), passing_proof("pkg.FooTest#subtracts()")))
    with pytest.raises(SimpilotError, match=r"on a second run \(the suite is flaky\)"):
        check_baseline(baseline, manifest("java", runner_suite=True))  # type: ignore[arg-type]
    check_baseline(Baseline(proofs=(passing_proof(), passing_proof())), manifest("java", runner_suite=True))  # type: ignore[arg-type]
