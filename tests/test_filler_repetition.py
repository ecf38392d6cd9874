"""The repository gate's filler runs (``gate.py``), counted by ``repetition.py``'s rule: a filler
failing every run runs until the target or the budget, and one passing now and then is caught;
with a scripted evaluator (no runs)."""

from __future__ import annotations

import pytest

from replay.core.records import Kind, Position, Span, Status, Task
from replay.execution.judge import Verdict
from replay.validation import gate as gate_module
from replay.validation.drops import Drop, DropReason
from replay.validation.gate import gate
from replay.validation.repetition import MIN_RUNS, REPOSITORY_BUDGET, TARGET_RUNS, planned_runs

ORIGINAL = b"x = 1\ny = 2\n"
TASK = Task(
    "python-0", "repo", "python", "a.py", Kind.INFILL, "statements", True, Span(0, 5, Position(0, 0), Position(0, 5)), "", "x = 1", "", 1,
    tests=("tests/test_a.py::test_a",),
)  # fmt: skip


class References:
    def __init__(self, evaluator: object, tasks: object):
        pass

    def why_not(self, task: Task) -> str | None:
        return None

    def timeout(self, task: Task, slowdown: float, minimum: float) -> float:
        return 5.0


@pytest.fixture(autouse=True)
def references(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gate_module, "ReferenceRuns", References)


class Filler:
    """The filler's ``n``-th run gives ``statuses[n]`` (the last one past the end), each taking
    ``seconds`` (by default cheap enough for every run the target asks)."""

    full_suite = False
    sandbox = None

    def __init__(self, statuses: list[Status], seconds: float = REPOSITORY_BUDGET / (2 * TARGET_RUNS)):
        self.statuses, self.seconds, self.runs = statuses, seconds, 0

    def original(self, task: Task) -> bytes:
        return ORIGINAL

    def evaluate(self, task: Task, text: str, timeout: float | None = None, cpu: float | None = None) -> Verdict:
        assert text == "pass", f"unexpected run of {text!r}"
        status = self.statuses[min(self.runs, len(self.statuses) - 1)]
        self.runs += 1
        return Verdict(status, status.value, self.seconds, "", True)


def test_a_filler_failing_every_run_is_kept_after_the_target_runs() -> None:
    evaluator = Filler([Status.FAIL])
    report = gate(evaluator, [TASK], jobs=1)  # type: ignore[arg-type]
    assert [t.id for t in report.kept] == [TASK.id] and evaluator.runs == TARGET_RUNS == 45


@pytest.mark.parametrize("at", [3, 30, TARGET_RUNS])
def test_a_filler_passing_once_in_its_runs_drops_the_task_as_unstable(at: int) -> None:
    """A pass on the 30th run is caught (two runs, as before, would keep the task); the runs stop there."""
    evaluator = Filler([Status.FAIL] * (at - 1) + [Status.PASS])
    report = gate(evaluator, [TASK], jobs=1)  # type: ignore[arg-type]
    [only] = report.dropped
    dropped, why = only.task, only.why
    assert why == Drop(DropReason.UNSTABLE, f"unstable: the filler passed 1 of {at} runs") and evaluator.runs == at
    assert dropped.validation is not None and dropped.validation.stable is False and dropped.validation.filler_fails is False


def test_slow_tests_get_the_runs_the_budget_holds() -> None:
    seconds = REPOSITORY_BUDGET / 10
    evaluator = Filler([Status.FAIL] * 10 + [Status.PASS], seconds=seconds)  # the 11th run's pass is past the budget
    report = gate(evaluator, [TASK], jobs=1)  # type: ignore[arg-type]
    assert [t.id for t in report.kept] == [TASK.id] and evaluator.runs == planned_runs(seconds, REPOSITORY_BUDGET) == 10


def test_a_filler_the_compiler_rejects_is_not_run_again() -> None:
    """A syntax error is the same every run: the two runs, then the probe decides (here: it passes)."""

    class Rejected(Filler):
        def evaluate(self, task: Task, text: str, timeout: float | None = None, cpu: float | None = None) -> Verdict:
            if text == "pass":
                return super().evaluate(task, text, timeout, cpu)
            return Verdict(Status.PASS, "", 0.05, "", True)  # a probe

    evaluator = Rejected([Status.SYNTAX_ERROR])
    report = gate(evaluator, [TASK], jobs=1)  # type: ignore[arg-type]
    assert evaluator.runs == MIN_RUNS and not report.kept
