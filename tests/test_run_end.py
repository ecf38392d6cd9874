"""What ended a run: the one rule (``replay/execution/run_end.py``) over a table of cases, and the
classifiers that apply it: a memory kill is its own class, never a timeout."""

from __future__ import annotations

import signal

import pytest

from replay.core.records import Outcome, Status
from replay.execution.classify import classify_failure, classify_output
from replay.execution.output import judge
from replay.execution.programs.runs import classify_program
from replay.execution.proof.check import Proof, Shortfall
from replay.execution.run_end import Ending, RunEnd, ended, how_it_ended, is_memory_error, oom_kill_message, stopped_by_limit
from replay.execution.sandbox.bubblewrap import ProcessResult, with_budget
from replay.reports.taxonomy import CLASSES, taxonomy

KILL, XCPU, SEGV = -signal.SIGKILL, -signal.SIGXCPU, -signal.SIGSEGV

# (case, returncode, facts, ending)
CASES = [
    ("SIGXCPU at the soft CPU limit", XCPU, {"cpu_budget": 2, "cpu_used": 1.9}, Ending.CPU_TIME),
    ("SIGXCPU, budget not known", XCPU, {}, Ending.CPU_TIME),
    ("SIGKILL at the hard CPU limit", KILL, {"cpu_budget": 2, "cpu_used": 3.0}, Ending.CPU_TIME),
    ("SIGKILL, the limit's clock ahead of the measured time", KILL, {"cpu_budget": 10, "cpu_used": 9.0}, Ending.CPU_TIME),
    ("SIGKILL after the wall-clock timeout", KILL, {"wall_timed_out": True, "cpu_budget": 2, "cpu_used": 0.1}, Ending.WALL_TIME),
    ("SIGKILL from the OOM killer", KILL, {"cpu_budget": 2, "cpu_used": 0.3, "oom_kills": 1}, Ending.MEMORY),
    ("SIGKILL from the OOM killer, CPU not measured", KILL, {"oom_kills": 1}, Ending.MEMORY),
    (
        "SIGKILL from the OOM killer of a run that also used its CPU",
        KILL,
        {"cpu_budget": 2, "cpu_used": 2.5, "oom_kills": 1},
        Ending.MEMORY,
    ),
    ("OOM kill, then the wall-clock timeout", KILL, {"wall_timed_out": True, "oom_kills": 2}, Ending.MEMORY),
    ("a child killed by the OOM killer, the run exits 1", 1, {"oom_kills": 1}, Ending.MEMORY),
    ("SIGKILL nothing explains (kill -9 of its own)", KILL, {"cpu_budget": 2, "cpu_used": 0.2}, Ending.SIGNAL),
    ("SIGKILL, CPU not measured: not taken for CPU time", KILL, {"cpu_budget": 2}, Ending.SIGNAL),
    ("SIGSEGV", SEGV, {"cpu_budget": 2, "cpu_used": 0.1}, Ending.SIGNAL),
    ("exit 1", 1, {"cpu_budget": 2, "cpu_used": 0.1}, Ending.EXITED),
    ("exit 1 with a MemoryError (RLIMIT_AS)", 1, {"errors": ["MemoryError"]}, Ending.MEMORY),
    ("exit 1 with Java's OutOfMemoryError", 1, {"errors": ["java.lang.OutOfMemoryError: Java heap space"]}, Ending.MEMORY),
    ("SIGABRT after std::bad_alloc", -signal.SIGABRT, {"errors": ["bad_alloc: std::bad_alloc (std::bad_alloc)"]}, Ending.MEMORY),
    ("exit 1 with an AssertionError", 1, {"errors": ["AssertionError"]}, Ending.EXITED),
    ("exit 0", 0, {"cpu_budget": 2, "cpu_used": 0.1}, Ending.EXITED),
    ("exit 0 though a child was OOM-killed: it succeeded", 0, {"oom_kills": 1}, Ending.EXITED),
    ("exit 0 with a MemoryError it caught", 0, {"errors": ["MemoryError"]}, Ending.EXITED),
]


@pytest.mark.parametrize(("returncode", "facts", "ending"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_the_rule(returncode: int, facts: dict, ending: Ending) -> None:
    end = how_it_ended(returncode, **facts)
    assert end.ending is ending
    assert end.timed_out == (ending in (Ending.WALL_TIME, Ending.CPU_TIME))
    assert end.busy == (ending is Ending.CPU_TIME)
    assert end.out_of_memory == (ending is Ending.MEMORY)


def test_memory_errors_are_named_by_their_class_not_mentioned() -> None:
    assert is_memory_error("MemoryError") and is_memory_error("std::bad_alloc")
    assert is_memory_error("FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory")
    assert not is_memory_error("AssertionError: MemoryError")
    assert not is_memory_error("Failed: DID NOT RAISE <class 'MemoryError'>")


def test_the_descriptions_say_what_ended_the_run() -> None:
    assert how_it_ended(KILL, wall_timed_out=True).describe() == "the tests did not finish in time"
    assert how_it_ended(XCPU).describe() == "the tests used up their CPU time (a busy loop)"
    assert how_it_ended(XCPU).describe("the program") == "the program used up its CPU time (a busy loop)"
    assert "out-of-memory killer ended a process" in how_it_ended(KILL, oom_kills=1).describe()
    assert "address-space limit" in how_it_ended(1, errors=["MemoryError"]).describe()
    assert how_it_ended(SEGV).describe() == "the process was killed by SIGSEGV (signal 11)"


def _result(returncode: int, **facts) -> ProcessResult:
    end = how_it_ended(returncode, **facts)
    return ProcessResult(returncode, end.timed_out, 0.1, "", Proof(started=True), busy=end.busy, end=end)


def test_a_tighter_budget_decides_again() -> None:
    result = _result(KILL, cpu_budget=300, cpu_used=3.0)
    assert result.end is not None and result.end.ending is Ending.SIGNAL
    tighter = with_budget(result, 2)
    assert tighter.busy and tighter.timed_out and tighter.end is not None and tighter.end.ending is Ending.CPU_TIME


def test_a_result_made_by_hand_is_judged_by_its_flags() -> None:
    assert ended(ProcessResult(KILL, True, 1.0, "")).ending is Ending.WALL_TIME
    assert ended(ProcessResult(KILL, True, 1.0, "", busy=True)).ending is Ending.CPU_TIME
    assert ended(ProcessResult(KILL, False, 1.0, "")).ending is Ending.SIGNAL
    assert ended(ProcessResult(1, False, 1.0, ""), ["MemoryError"]).ending is Ending.MEMORY


class _Task:
    language = "python"


def test_the_test_classifier_gives_a_memory_kill_its_own_class_not_a_timeout() -> None:
    gap = Shortfall("not_run", "the selected tests did not all run")
    status, detail = classify_failure(_result(KILL, cpu_budget=2, cpu_used=0.4, oom_kills=1), "x = 1", _Task(), "x = 1\n", gap)  # type: ignore[arg-type]
    assert status is Status.OUT_OF_MEMORY and "out-of-memory killer" in detail
    tail = "E   MemoryError\nFAILED tests/test_a.py::test_a - MemoryError\n"
    result = ProcessResult(1, False, 0.1, tail, Proof({"tests/test_a.py::test_a": "failed"}, started=True, finished=True))
    status, detail = classify_failure(result, "x = 1", _Task(), "x = 1\n", Shortfall("failed", ""))  # type: ignore[arg-type]
    assert status is Status.OUT_OF_MEMORY and "FAILED tests/test_a.py::test_a - MemoryError" in detail
    assert classify_failure(_result(XCPU), "x = 1", _Task(), "x = 1\n", gap)[0] is Status.TIMEOUT  # type: ignore[arg-type]
    status, detail = classify_failure(_result(SEGV), "x = 1", _Task(), "x = 1\n", gap)  # type: ignore[arg-type]
    assert status is Status.RUNTIME_ERROR and "signal 11" in detail


def test_the_program_classifiers_give_a_memory_kill_its_own_class() -> None:
    gap = Shortfall("failed", "")
    oom = _result(KILL, cpu_budget=2, cpu_used=0.4, oom_kills=1)
    assert classify_program(oom, "x = 1", gap)[0] is Status.OUT_OF_MEMORY
    assert classify_output(oom, "x = 1", _Task(), "x = 1\n", gap)[0] is Status.OUT_OF_MEMORY  # type: ignore[arg-type]
    raised = ProcessResult(
        1, False, 0.1, "", Proof({"program": "failed"}, errors=("MemoryError: out of room",), started=True, finished=True)
    )
    assert classify_program(raised, "x = 1", gap) == (Status.OUT_OF_MEMORY, "MemoryError: out of room")
    assert classify_program(_result(XCPU), "x = 1", gap)[0] is Status.TIMEOUT
    proof = judge((), "", 0, KILL, False, None, oom.end)
    assert proof.errors and "ran out of memory" in proof.errors[0]


def test_only_a_limit_seen_by_simpilot_or_the_kernel_is_evidence() -> None:
    assert stopped_by_limit(_result(KILL, wall_timed_out=True))
    assert stopped_by_limit(_result(XCPU))
    assert stopped_by_limit(_result(KILL, oom_kills=1))
    assert not stopped_by_limit(_result(1, errors=["MemoryError"]))  # printed by the run: not evidence on its own
    assert not stopped_by_limit(_result(SEGV))


def test_the_report_counts_out_of_memory_apart_from_timeouts() -> None:
    assert CLASSES[Status.OUT_OF_MEMORY] == "out of memory"
    assert Status("out_of_memory") is Status.OUT_OF_MEMORY and Status("timeout") is Status.TIMEOUT  # stored strings read back
    counted = taxonomy([Outcome("a", "none", "x", Status.OUT_OF_MEMORY), Outcome("b", "none", "y", Status.TIMEOUT)])
    by_status = {c.status: c.count for c in counted.classes}
    assert by_status["out_of_memory"] == 1 and by_status["timeout"] == 1


def test_a_run_end_keeps_its_facts() -> None:
    end = how_it_ended(KILL, cpu_budget=2, cpu_used=0.4, oom_kills=1)
    assert end == RunEnd(Ending.MEMORY, KILL, False, 2, 0.4, 1)


def test_a_program_the_oom_killer_ended_fails_as_a_memory_error() -> None:
    """The C++ and C# runners' message for a run the out-of-memory killer ended: the class a
    runtime's own allocation failure has; nothing for a run that said so itself, or another end."""
    killed = how_it_ended(-9, oom_kills=1)
    assert (
        oom_kill_message(killed)
        == "MemoryError: the program ran out of memory: the out-of-memory killer ended a process at the sandbox's memory limit"
    )
    assert oom_kill_message(how_it_ended(1, errors=["MemoryError"])) is None  # its own message says it
    assert oom_kill_message(how_it_ended(-9, wall_timed_out=True)) is None and oom_kill_message(None) is None
