"""The program gate's decisions, on verdicts given in order (no program runs); the empty
answer's limit derived from the golden runs, in the gate and in replay's reference run."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest

from replay.config.manifest import RepoCatalog
from replay.core.records import Status
from replay.execution.judge import Evaluator, Verdict
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.execution.scheduling.references import ReferenceRuns
from replay.importers.devbench import Instance, read_instances, task_for
from replay.jobs.import_devbench import write_repository
from replay.validation import program_gate
from replay.validation.program_gate import Dropped, ProgramGateReport, _Runs, empty_timeout, judge, judge_one
from replay.validation.repetition import (
    CATCH_PROBABILITY,
    CATCH_RATE,
    MIN_RUNS,
    PROGRAM_BUDGET,
    TARGET_RUNS,
    detection,
    planned_runs,
    runs_to_catch,
)

TASK = task_for(read_instances(Path(__file__).parent / "data" / "devbench", ["python"], ["low_context"], limit=1)[0])[1]


class Scripted:
    """Answers each evaluation with the next verdict for that answer (golden or empty); past the
    end of its list, the empty answer keeps its last verdict."""

    def __init__(self, golden: list[str], empty: list[str], seconds: list[float] | None = None):
        self.queues = {TASK.ground_truth: list(golden), "": list(empty)}
        self.seconds = list(seconds or [0.0] * len(golden))  # each golden run's time
        self.calls: list[str] = []
        self.timeouts: list[float | None] = []

    def evaluate(self, task, text, timeout=None, cpu=None) -> Verdict:
        self.calls.append("golden" if text else "empty")
        self.timeouts.append(timeout)
        queue = self.queues[text]
        status = queue.pop(0) if len(queue) > 1 or text else queue[0]
        detail = "AssertionError: expected 3" if status == "fail" else ""
        return Verdict(Status(status), detail, self.seconds.pop(0) if text else 0.0, "line\nAssertionError: expected 3")


@pytest.mark.parametrize("waits", [False, True], ids=["quick", "waiting"])
@pytest.mark.parametrize(
    ("golden", "empty", "reason", "calls"),
    [
        (["pass"] * 3, ["fail", "fail"], None, 3 + TARGET_RUNS),  # the empty answer then runs to the target
        (["pass", "pass", "fail"], ["fail", "fail"], "flaky", 5),  # a race that passes two runs in three
        (["fail", "fail", "fail"], ["fail", "fail"], "golden_fails", 3),
        (["fail", "pass", "fail"], ["fail", "fail"], "flaky", 3),
        (["pass"] * 3, ["pass", "pass"], "passes_empty", 3),
        (["pass"] * 3, ["fail", "pass"], "flaky", 5),
        (["fail"] * 3, ["pass", "pass"], "golden_fails", 3),  # the golden completion is judged first
    ],
)
def test_the_gate_keeps_only_golden_passing_thrice_and_empty_failing_every_run(golden, empty, reason, calls, waits) -> None:
    evaluator = Scripted(golden, empty)
    result = judge_one(evaluator, TASK, waits=waits)  # type: ignore[arg-type]
    if reason is None:
        assert result.validation is not None and result.validation.ok and result.validation.filler_status == "fail"
    else:
        assert result.reason == reason
    assert len(evaluator.calls) == (max(5, calls) if waits else calls)  # two rounds stop after the first when it decides


def test_the_empty_runs_come_from_the_target_not_a_chosen_number() -> None:
    """45 runs catch an empty answer passing one run in seven with probability 0.999; two miss it
    three times in four."""
    assert (CATCH_RATE, CATCH_PROBABILITY) == (1 / 7, 0.999)
    assert TARGET_RUNS == runs_to_catch(1 / 7, 0.999) == 45
    assert (6 / 7) ** 45 <= 0.001 < (6 / 7) ** 44
    assert runs_to_catch(0.5, 0.75) == 2 and runs_to_catch(0.5, 0.76) == 3  # an exact power needs no extra run
    assert detection(TARGET_RUNS) >= 0.999 and detection(MIN_RUNS) == pytest.approx(1 - (6 / 7) ** 2)


def test_the_budget_bounds_the_runs_of_slow_programs_only() -> None:
    assert planned_runs(0.0, PROGRAM_BUDGET) == planned_runs(0.05, PROGRAM_BUDGET) == TARGET_RUNS  # cheap: all of them
    assert planned_runs(PROGRAM_BUDGET / TARGET_RUNS, PROGRAM_BUDGET) == TARGET_RUNS
    assert planned_runs(PROGRAM_BUDGET / 10, PROGRAM_BUDGET) == 10  # as many as the budget holds
    assert planned_runs(PROGRAM_BUDGET, PROGRAM_BUDGET) == planned_runs(1000.0, PROGRAM_BUDGET) == MIN_RUNS == 2  # never fewer


@pytest.mark.parametrize("waits", [False, True], ids=["quick", "waiting"])
@pytest.mark.parametrize("at", [3, 30, TARGET_RUNS])
def test_an_empty_answer_passing_once_in_its_runs_is_caught(waits: bool, at: int) -> None:
    """A pass on the 30th empty run (or the 45th: the last) drops the task as flaky; the runs stop there."""
    evaluator = Scripted(["pass"] * 3, ["fail"] * (at - 1) + ["pass"])
    result, runs = judge(evaluator, TASK, waits=waits)  # type: ignore[arg-type]
    assert isinstance(result, Dropped) and result.reason == "flaky"
    assert result.detail == f"the empty answer passed 1 of {at} runs"
    assert runs == at and evaluator.calls.count("empty") == at


@pytest.mark.parametrize("waits", [False, True], ids=["quick", "waiting"])
def test_an_empty_answer_failing_every_run_is_kept_after_the_target_runs(waits: bool) -> None:
    evaluator = Scripted(["pass"] * 3, ["fail"])
    result, runs = judge(evaluator, TASK, waits=waits)  # type: ignore[arg-type]
    assert not isinstance(result, Dropped) and result.validation is not None and result.validation.ok
    assert runs == evaluator.calls.count("empty") == TARGET_RUNS


def test_a_slow_program_gets_the_runs_its_budget_holds_and_the_cut_is_reported() -> None:
    """Golden runs of a tenth of the budget: ten empty runs, not 45; a pass on the 11th goes
    unseen, and the report gives the runs and their chance of catching a one-in-seven pass."""
    seconds = PROGRAM_BUDGET / 10
    evaluator = Scripted(["pass"] * 3, ["fail"] * 10 + ["pass"], seconds=[seconds] * 3)
    result, runs = judge(evaluator, TASK)  # type: ignore[arg-type]
    assert not isinstance(result, Dropped) and runs == evaluator.calls.count("empty") == 10
    cheap = replace(TASK, id=TASK.id + "-cheap")
    report = ProgramGateReport([result, cheap], [], empty_runs={TASK.id: 10, cheap.id: TARGET_RUNS})
    assert report.short_runs() == [(result, 10, pytest.approx(1 - (6 / 7) ** 10))]


def test_an_empty_answer_that_hangs_costs_its_limit_and_gets_few_runs() -> None:
    """Golden runs of 50 ms, empty runs stopped at 10 s: each costs 10 s, so two of them are all
    the budget holds (a hang is a failure; its runs are not repeated 45 times)."""

    class Hanging(Scripted):
        def evaluate(self, task, text, timeout=None, cpu=None) -> Verdict:
            verdict = super().evaluate(task, text, timeout, cpu)
            return verdict if text else replace(verdict, duration_s=timeout or 0.0)

    evaluator = Hanging(["pass"] * 3, ["timeout"], seconds=[0.05] * 3)
    result, runs = judge(evaluator, TASK, limit=30.0)  # type: ignore[arg-type]
    assert not isinstance(result, Dropped) and runs == planned_runs(10.0, PROGRAM_BUDGET) == 2


@pytest.mark.parametrize("golden", [["pass", "pass", "fail"], ["fail", "pass", "pass"]])
def test_a_flaky_golden_completion_is_dropped_before_the_empty_answers_runs(golden: list[str]) -> None:
    evaluator = Scripted(golden, ["fail"])
    result, runs = judge(evaluator, TASK)  # type: ignore[arg-type]
    assert isinstance(result, Dropped) and result.reason == "flaky" and result.detail.startswith("the golden completion passed")
    assert runs <= MIN_RUNS and evaluator.calls.count("empty") == runs


def test_the_other_empty_runs_go_side_by_side_and_stop_at_the_first_pass() -> None:
    """With runs on threads the empty answer's other runs are asked for at once; after the first
    that passes, those not yet started are cancelled."""
    pool = ThreadPoolExecutor(1)  # one at a time: the others are still queued when the pass comes
    asked: list[str] = []
    ran: list[str] = []
    release = threading.Event()

    def run(text: str) -> Verdict:
        ran.append(text)
        if ran.count("") > 5:
            release.wait(5)  # the run after the pass holds the thread until the gate has decided
        passes = bool(text) or ran.count("") == 5
        return Verdict(Status.PASS if passes else Status.FAIL, "", 0.01, "")

    def submit(task, text, timeout) -> Future[Verdict]:
        asked.append("golden" if text else "empty")
        return pool.submit(run, text)

    try:
        result, runs = judge(None, TASK, submit)  # type: ignore[arg-type]
    finally:
        release.set()
        pool.shutdown()
    assert isinstance(result, Dropped) and result.reason == "flaky" and runs == 5
    assert asked.count("empty") == TARGET_RUNS  # all asked for at once
    assert ran.count("") in (5, 6)  # the pass, and the one run perhaps already going: the others cancelled


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
    assert asked == [kind for round_ in expected for kind in round_] + ["empty"] * (TARGET_RUNS - 2)  # then the others, at once


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
