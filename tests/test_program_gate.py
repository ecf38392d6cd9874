"""The program gate's decisions, on verdicts given in order (no program runs); the empty
answer's limit derived from the golden runs, in the gate and in replay's reference run."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest

from replay.core.manifest import RepoCatalog
from replay.core.records import Status
from replay.execution.evaluate import Evaluator, Verdict
from replay.execution.reference import ReferenceRuns
from replay.execution.sandbox import Sandbox
from replay.marking.devbench import Instance, read_instances, task_for
from replay.validation import program_gate
from replay.validation.devbench import write_repository
from replay.validation.program_gate import _Runs, empty_timeout, judge_one

TASK = task_for(read_instances(Path(__file__).parent / "data" / "devbench", ["python"], ["low_context"], limit=1)[0])[1]


class Scripted:
    """Answers each evaluation with the next verdict for that answer (golden or empty)."""

    def __init__(self, golden: list[str], empty: list[str], seconds: list[float] | None = None):
        self.queues = {TASK.ground_truth: list(golden), "": list(empty)}
        self.seconds = list(seconds or [0.0] * len(golden))  # each golden run's time
        self.calls: list[str] = []
        self.timeouts: list[float | None] = []

    def evaluate(self, task, text, timeout=None, cpu=None) -> Verdict:
        self.calls.append("golden" if text else "empty")
        self.timeouts.append(timeout)
        status = self.queues[text].pop(0)
        detail = "AssertionError: expected 3" if status == "fail" else ""
        return Verdict(Status(status), detail, self.seconds.pop(0) if text else 0.0, "line\nAssertionError: expected 3")


@pytest.mark.parametrize("waits", [False, True], ids=["quick", "waiting"])
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


@pytest.mark.parametrize(
    ("waits", "expected"),
    [(False, [["golden", "golden", "empty"], ["golden", "empty"]]), (True, [["golden"] * 3 + ["empty"] * 2])],
)
def test_the_runs_go_in_rounds_that_may_run_at_once(waits: bool, expected: list[list[str]]) -> None:
    """The runs are asked for a round at a time (here each ends when asked: nothing to ask for ahead)."""
    evaluator = Scripted(["pass"] * 3, ["fail", "fail"])
    asked: list[str] = []

    def submit(task, text, timeout):
        asked.append("golden" if text else "empty")
        done: Future[Verdict] = Future()
        done.set_result(evaluator.evaluate(task, text, timeout))
        return done

    result = judge_one(evaluator, TASK, submit, waits)  # type: ignore[arg-type]
    assert result.validation is not None and result.validation.ok
    assert asked == [kind for round_ in expected for kind in round_]


class Blocking:
    """Golden runs pass at once; the first empty run ends (``first_empty``) only when the test
    says so, the others fail at once. Runs go on threads, as in the gate."""

    def __init__(self, first_empty: str):
        self.first_empty, self.release = first_empty, threading.Event()
        self.asked: list[str] = []
        self.pool = ThreadPoolExecutor(4)

    def submit(self, task, text, timeout) -> Future[Verdict]:
        kind = "golden" if text else "empty"
        self.asked.append(kind)
        if kind == "empty" and self.asked.count("empty") == 1:
            return self.pool.submit(lambda: self.release.wait(5) and Verdict(Status(self.first_empty), "", 0.0, ""))
        return self.pool.submit(lambda: Verdict(Status.PASS if text else Status.FAIL, "", 0.01, ""))


def test_a_slow_empty_run_does_not_hold_back_the_next_round(monkeypatch: pytest.MonkeyPatch) -> None:
    """Golden runs passed and the empty run still going: the next round is asked for before the
    empty run ends, and the task is judged on the same runs as one round after another."""
    monkeypatch.setattr(program_gate, "SPECULATE_AFTER", 0.05)
    runs = Blocking("fail")
    judged: list = []
    thread = threading.Thread(target=lambda: judged.append(judge_one(None, TASK, runs.submit)))  # type: ignore[arg-type]
    thread.start()
    deadline = time.monotonic() + 5
    while len(runs.asked) < 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert runs.asked == ["golden", "golden", "empty", "golden", "empty"] and not judged  # the first empty run still going
    runs.release.set()
    thread.join(5)
    assert judged[0].validation is not None and judged[0].validation.ok
    runs.pool.shutdown()


def test_a_round_asked_for_ahead_is_dropped_when_the_empty_run_passes_after_all(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(program_gate, "SPECULATE_AFTER", 0.05)
    runs = Blocking("pass")
    threading.Timer(0.3, runs.release.set).start()
    result = judge_one(None, TASK, runs.submit)  # type: ignore[arg-type]
    assert result.reason == "passes_empty"  # type: ignore[union-attr]
    assert runs.asked == ["golden", "golden", "empty", "golden", "empty"]  # asked for, never read
    runs.pool.shutdown()


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


def test_the_empty_limit_is_replays_rule_on_the_longest_golden_run() -> None:
    def runs(*seconds: float) -> list[Verdict]:
        return [Verdict(Status.PASS, "", s, "") for s in seconds]

    assert empty_timeout(runs(0.01, 0.2), 30.0) == 10.0  # at least 10 s
    assert empty_timeout(runs(1.5, 0.2), 30.0) == pytest.approx(15.0)  # ten times the longest
    assert empty_timeout(runs(4.0, 3.9), 30.0) == 30.0  # at most the manifest's timeout


@pytest.mark.parametrize("waits", [False, True], ids=["quick", "waiting"])
@pytest.mark.parametrize(
    ("golden_seconds", "empty", "again"),
    [  # again: the second runs' limits (quick, waiting)
        ([0.5, 0.3, 0.4], ["fail", "fail"], ([], [])),  # ended within the rule's minimum: their verdicts stand
        ([0.5, 0.3, 0.4], ["timeout", "timeout"], ([], [])),  # the golden runs' limit is the minimum: no second run
        # stopped at 10 s: again under ten times 1.8 s (waiting: both empty runs in one round, the first stopped)
        ([0.5, 1.8, 0.4], ["timeout", "fail", "timeout", "fail"], ([18.0, 18.0], [18.0])),
    ],
)
def test_empty_runs_get_the_rules_minimum_then_the_golden_runs_limit(waits: bool, golden_seconds, empty, again) -> None:
    evaluator = Scripted(["pass"] * 3, empty, seconds=golden_seconds)
    result = judge_one(evaluator, TASK, waits=waits, limit=25.0)  # type: ignore[arg-type]
    assert result.validation is not None and result.validation.ok  # type: ignore[union-attr]
    limits = {kind: [t for k, t in zip(evaluator.calls, evaluator.timeouts, strict=True) if k == kind] for kind in ("golden", "empty")}
    assert limits["golden"] == [None] * 3  # the manifest's
    assert limits["empty"][:2] == [10.0, 10.0] if waits else limits["empty"][0] == 10.0
    assert [t for t in limits["empty"] if t != 10.0] == [pytest.approx(t) for t in again[waits]]


def test_an_empty_run_that_passes_under_the_longer_limit_passes() -> None:
    """Stopped at 10 s and passing in 15: the program passes with nothing in its hole."""
    evaluator = Scripted(["pass"] * 3, ["timeout", "pass", "pass"], seconds=[2.0, 2.0, 2.0])
    assert judge_one(evaluator, TASK, waits=True).reason == "passes_empty"  # type: ignore[arg-type,union-attr]


def test_runs_go_in_the_order_of_their_tasks_rank_not_of_their_asking() -> None:
    runs = _Runs(1)
    busy, order = threading.Event(), []
    try:
        first = runs.submit(9, lambda: busy.wait(5) and Verdict(Status.PASS, "", 0.0, ""))  # type: ignore[arg-type,return-value]
        asked = [runs.submit(rank, lambda rank=rank: order.append(rank) or Verdict(Status.PASS, "", 0.0, "")) for rank in (7, 2, 5, 2)]
        busy.set()
        first.result(5)
        assert all(future.result(5).status is Status.PASS for future in asked)
    finally:
        runs.close()
    assert order == [2, 2, 5, 7]


@pytest.mark.e2e
def test_replays_reference_for_a_program_is_its_golden_run(tmp_path: Path) -> None:
    """Replay's limits for a program task come from a run of the golden program (ten times its
    time, at least 10 s): the same rule as the gate's empty runs; the CPU limit is the sandbox's."""
    instance = Instance(
        "python", "low_context", "1", "import time\n\ndef wait():", "\nwait()", "    time.sleep(1.2)", "assert True\n", "hand-made"
    )
    manifest = write_repository(tmp_path / "devbench-python", "python", [instance])
    task = task_for(instance)[1]
    with Evaluator(RepoCatalog([manifest]), Sandbox.create(), 1) as evaluator:
        references = ReferenceRuns(evaluator, [task])
        assert references.why_not(task) is None
        took = references.get(task).duration_s
        assert took >= 1.2
        assert references.timeout(task, 10, 10.0) == pytest.approx(min(manifest.timeout, 10 * took))
        assert references.cpu(task, 3, 1.0) is None
