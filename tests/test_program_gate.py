"""The program gate's decisions, on verdicts given in order (no program runs)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from replay.core.records import Status
from replay.execution.evaluate import Verdict
from replay.marking.devbench import read_instances, task_for
from replay.validation.program_gate import judge_one

TASK = task_for(read_instances(Path(__file__).parent / "data" / "devbench", ["python"], ["low_context"], limit=1)[0])[1]


class Scripted:
    """Answers each evaluation with the next verdict for that answer (golden or empty)."""

    def __init__(self, golden: list[str], empty: list[str]):
        self.queues = {TASK.ground_truth: list(golden), "": list(empty)}
        self.calls: list[str] = []

    def evaluate(self, task, text, timeout=None, cpu=None) -> Verdict:
        self.calls.append("golden" if text else "empty")
        status = self.queues[text].pop(0)
        detail = "AssertionError: expected 3" if status == "fail" else ""
        return Verdict(Status(status), detail, 0.0, "line\nAssertionError: expected 3")


@pytest.mark.parametrize("waits", [False, True], ids=["two-rounds", "one-round"])
@pytest.mark.parametrize(
    ("golden", "empty", "reason", "calls"),
    [
        (["pass"] * 3, ["fail", "fail"], None, 5),
        (["pass", "pass", "fail"], ["fail", "fail"], "flaky", 5),  # a race that passes two runs in three
        (["fail", "fail", "fail"], ["fail", "fail"], "golden_fails", 3),
        (["fail", "pass", "fail"], ["fail", "fail"], "flaky", 3),
        (["pass"] * 3, ["pass", "pass"], "passes_empty", 3),
        (["pass"] * 3, ["fail", "pass"], "flaky", 5),
        (["fail"] * 3, ["pass", "pass"], "golden_fails", 3),  # the golden completion is judged first
    ],
)
def test_the_gate_keeps_only_golden_passing_thrice_and_empty_failing_twice(golden, empty, reason, calls, waits) -> None:
    evaluator = Scripted(golden, empty)
    result = judge_one(evaluator, TASK, waits=waits)  # type: ignore[arg-type]
    if reason is None:
        assert result.validation is not None and result.validation.ok and result.validation.filler_status == "fail"
    else:
        assert result.reason == reason
    assert len(evaluator.calls) == (5 if waits else calls)  # two rounds stop after the first when it decides


@pytest.mark.parametrize(("waits", "expected"), [(False, [["golden", "golden", "empty"], ["golden", "empty"]]), (True, [["golden"] * 3 + ["empty"] * 2])])
def test_the_runs_go_in_rounds_that_may_run_at_once(waits: bool, expected: list[list[str]]) -> None:
    evaluator = Scripted(["pass"] * 3, ["fail", "fail"])
    rounds: list[list[str]] = []

    def together(task, texts):
        rounds.append(["golden" if text else "empty" for text in texts])
        return [evaluator.evaluate(task, text) for text in texts]

    result = judge_one(evaluator, TASK, together, waits)  # type: ignore[arg-type]
    assert result.validation is not None and result.validation.ok
    assert rounds == expected


def test_a_failing_golden_completion_names_its_error_class_and_output() -> None:
    result = judge_one(Scripted(["fail"] * 3, ["fail", "fail"]), TASK)  # type: ignore[arg-type]
    assert result.reason == "golden_fails" and result.error == "AssertionError"
    assert "expected 3" in result.detail and "line" in result.detail


def test_a_golden_completion_of_whitespace_is_judged_as_golden() -> None:
    """Some of DevBench's golden completions are blank: their runs are still the golden ones."""
    blank = replace(TASK, ground_truth="\n")

    class Passing:
        def evaluate(self, task, text, timeout=None, cpu=None) -> Verdict:
            return Verdict(Status.PASS, "", 0.0, "")

    assert judge_one(Passing(), blank).reason == "passes_empty"  # type: ignore[arg-type,union-attr]
