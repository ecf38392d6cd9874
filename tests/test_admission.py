"""Admission of program runs: ``jobs`` at any time, more only while cores sit idle, never past
the limit; and the gate overlapping programs that wait on themselves."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import pytest

from replay.core.manifest import RepoCatalog
from replay.execution.admission import WINDOW, Admission, CpuTimes, idle_cores, parse_proc_stat
from replay.execution.evaluate import Evaluator
from replay.execution.sandbox import Sandbox
from replay.marking.devbench import Instance, task_for
from replay.validation.devbench import write_repository
from replay.validation.program_gate import validate_programs

PROC_STAT = """cpu  400 0 100 1500 0 0 0 0 0 0
cpu0 100 0 50 800 50 0 0 0 0 0
cpu1 300 0 50 700 0 0 0 0 0 0
intr 12345
ctxt 678
"""


def test_proc_stat_is_summed_over_the_allowed_cores() -> None:
    assert parse_proc_stat(PROC_STAT) == CpuTimes(total=100 + 50 + 800 + 50 + 300 + 50 + 700, idle=800 + 50 + 700, cores=2)
    assert parse_proc_stat(PROC_STAT, {1}) == CpuTimes(total=1050, idle=700, cores=1)


def test_idle_cores_is_the_idle_share_of_the_time_spent_times_the_cores() -> None:
    # 200 ticks passed over 2 cores, 150 of them idle: 1.5 cores idle on average
    assert idle_cores(CpuTimes(1000, 500, 2), CpuTimes(1200, 650, 2)) == pytest.approx(1.5)
    assert idle_cores(CpuTimes(1000, 500, 2), CpuTimes(1000, 500, 2)) == 0.0  # no time passed: nothing to go on


class Machine:
    """CPU times that advance 100 ticks per reading, ``idle`` of them idle per core."""

    def __init__(self, cores: int, idle: float):
        self.cores, self.idle, self.total, self.idle_ticks = cores, idle, 0, 0

    def read(self) -> CpuTimes:
        self.total += 100 * self.cores
        self.idle_ticks += int(100 * self.cores * self.idle)
        return CpuTimes(self.total, self.idle_ticks, self.cores)


def started(admission: Admission, count: int, wait: float) -> int:
    """How many of ``count`` threads asking for a slot got one within ``wait`` seconds (the
    others are released afterwards)."""
    got = threading.Semaphore(0)
    threads = [threading.Thread(target=lambda: (admission.acquire(), got.release()), daemon=True) for _ in range(count)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + wait
    taken = 0
    while taken < count and got.acquire(timeout=max(0.0, deadline - time.monotonic())):
        taken += 1
    return taken


def test_jobs_runs_always_go_and_a_busy_machine_admits_no_more() -> None:
    admission = Admission(2, 8, read=Machine(2, idle=0.0).read)
    assert started(admission, 3, wait=10 * WINDOW) == 2
    admission.release()  # a slot freed: the waiting run takes it
    time.sleep(WINDOW)
    assert admission.running == 2 and admission.most == 2


def test_an_idle_machine_admits_more_up_to_the_limit() -> None:
    admission = Admission(2, 5, read=Machine(2, idle=1.0).read)
    assert started(admission, 7, wait=30 * WINDOW) == 5
    assert admission.most == 5 and admission.allowed == 5


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_runs_allowed_grow_with_idle_cores_and_fall_back_when_busy() -> None:
    machine, clock = Machine(2, idle=1.0), Clock()
    admission = Admission(2, 9, read=machine.read, clock=clock)
    tick = WINDOW * 1.01  # a window and a little: no rounding makes one look shorter
    admission.adjust(0.0)  # the first reading starts a window
    assert admission.allowed == 2
    admission.adjust(WINDOW / 2)  # within the window: nothing yet
    assert admission.allowed == 2
    admission.adjust(tick)  # two cores idle over the window: room for two more runs
    assert admission.allowed == 4
    for step in (2, 3, 4):
        admission.adjust(step * tick)
    assert admission.allowed == 9  # never past the limit
    machine.idle = 0.5  # one core idle: one more; but there is no more room
    admission.adjust(5 * tick)
    assert admission.allowed == 9
    machine.idle = 0.0  # the cores are busy: half the way back to jobs, each window
    admission.adjust(6 * tick)
    assert admission.allowed == 2 + 7 // 2
    admission.adjust(7 * tick)
    admission.adjust(8 * tick)
    admission.adjust(9 * tick)
    assert admission.allowed == 2
    machine.idle = 1.0
    admission.adjust(20 * tick)  # a stale reading starts a new window rather than judge the gap
    assert admission.allowed == 2


def test_cores_the_user_kept_for_other_work_are_not_filled() -> None:
    """With ``--jobs 1`` on two cores, one idle core is the user's: a second run needs both idle."""
    half = Admission(1, 4, read=Machine(2, idle=0.5).read)
    assert started(half, 2, wait=10 * WINDOW) == 1
    whole = Admission(1, 4, read=Machine(2, idle=1.0).read)
    assert started(whole, 2, wait=10 * WINDOW) == 2


def test_without_cpu_accounting_only_jobs_runs_go() -> None:
    assert started(Admission(2, 8, read=lambda: None), 4, wait=10 * WINDOW) == 2


def sleeping(index: int, seconds: float) -> Instance:
    return Instance(
        "python",
        "low_context",
        str(index),
        "import time\n\ndef wait():",  # DevBench's parts: joined with newlines
        "\nwait()",
        f"    time.sleep({seconds})",
        "assert True\n",
        f"hand-made {index}",
    )


@pytest.mark.e2e
def test_the_gate_overlaps_programs_that_wait_on_themselves(tmp_path: Path) -> None:
    """Four programs sleeping a second each, one job: with idle cores (faked here, so that other
    work on the machine does not change what is tested) they run side by side, each in a runner
    of its own, and the gate's verdicts are those of running them one at a time."""
    instances = [sleeping(i, 1.0) for i in range(4)]
    manifest = write_repository(tmp_path / "devbench-python", "python", instances)
    tasks = [task_for(i)[1] for i in instances]
    with Evaluator(RepoCatalog([manifest]), Sandbox.create(), 1) as evaluator:
        evaluator.programs.admission = Admission(1, 6, read=Machine(2, idle=1.0).read)
        assert evaluator.threads(tasks) == 6
        report = validate_programs(evaluator, tasks, 1)
        most = evaluator.programs.admission.most
    assert sorted(t.id for t in report.kept) == sorted(t.id for t in tasks) and not report.dropped
    assert most >= 3  # several programs waited at once


@pytest.mark.e2e
def test_a_concurrent_runner_is_shared_and_compiles_each_program_once(tmp_path: Path) -> None:
    if shutil.which("g++") is None:
        pytest.skip("no g++")
    instance = Instance(
        "cpp", "low_context", "1", "#include <cassert>\nint main() {\n    int x = ", ";\n    assert(x == 3);\n}\n", "3", "", "hand-made"
    )
    manifest = write_repository(tmp_path / "devbench-cpp", "cpp", [instance])
    task = task_for(instance)[1]
    with Evaluator(RepoCatalog([manifest]), Sandbox.create(), 2) as evaluator:
        report = validate_programs(evaluator, [task], 2)
        runners = evaluator.programs._all
        assert len(runners) == 1 and getattr(runners[0], "compilations") == 2  # the golden program and the empty one
    assert [t.id for t in report.kept] == [task.id] and not report.dropped
