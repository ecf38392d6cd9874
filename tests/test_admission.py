"""Admission of program runs: ``jobs`` at any time, more only while fewer than ``jobs`` threads of
simpilot's processes want a core, never past the limit; and the gate overlapping programs that
wait on themselves."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from replay.config.manifest import RepoCatalog
from replay.execution.judge import Evaluator
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.execution.scheduling.admission import RUNNER_MEMORY, WAITING_PER_JOB, WINDOW, Admission, default_limit, read_wanting, wanting
from replay.importers.devbench import Instance, task_for
from replay.jobs.import_devbench import write_repository
from replay.validation.program_gate import validate_programs


def stat_fields(state: str, threads: int = 1) -> list[str]:
    """``/proc/PID/stat``'s fields after the command name, with this state and thread count."""
    return [state, "1", *["0"] * 15, str(threads), "0"]


def test_threads_wanting_a_core_are_counted_per_thread() -> None:
    processes = [(1, stat_fields("R")), (2, stat_fields("S")), (3, stat_fields("D")), (4, stat_fields("S", threads=3))]
    threads = {4: ["S", "R", "R"]}  # a JVM: its main thread waits while two others run
    assert wanting(processes, lambda pid: threads[pid]) == 1 + 1 + 2
    assert wanting([(5, stat_fields("Z"))], lambda pid: []) == 0


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_busy_child_wants_a_core_and_a_sleeping_one_does_not() -> None:
    def counts(code: str) -> list[int]:
        child = subprocess.Popen([sys.executable, "-c", code])
        try:
            time.sleep(0.5)  # past the interpreter's start
            samples = []
            for _ in range(10):
                time.sleep(0.02)
                samples.append(read_wanting() or 0)
            return samples
        finally:
            child.kill()
            child.wait()

    assert max(counts("while True: pass")) >= 1
    assert min(counts("import time; time.sleep(30)")) == 0


class Count:
    """A fixed number of threads wanting a core."""

    def __init__(self, n: int):
        self.n = n

    def read(self) -> int:
        return self.n


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


def test_jobs_runs_always_go_and_busy_runs_admit_no_more() -> None:
    admission = Admission(2, 8, read=Count(2).read)
    assert started(admission, 3, wait=10 * WINDOW) == 2
    admission.release()  # a slot freed: the waiting run takes it
    time.sleep(WINDOW)
    assert admission.running == 2 and admission.most == 2


def test_runs_that_wait_admit_more_up_to_the_limit() -> None:
    admission = Admission(2, 5, read=Count(0).read)
    assert started(admission, 7, wait=30 * WINDOW) == 5
    assert admission.most == 5 and admission.allowed == 5


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_runs_allowed_grow_with_unwanted_cores_and_fall_back_when_busy() -> None:
    clock, count = Clock(), Count(0)
    admission = Admission(2, 9, read=count.read, clock=clock)
    tick = WINDOW * 1.01  # a window and a little: no rounding makes one look shorter

    def at(step: float) -> int:
        clock.now = step * tick
        admission.adjust(clock.now)
        return admission.allowed

    assert at(0) == 2  # the first count starts a series of windows
    clock.now = WINDOW / 2
    admission.adjust(clock.now)  # within the window: nothing yet
    assert admission.allowed == 2
    assert at(1) == 4  # no thread wanted a core: room for two more runs
    assert [at(step) for step in (2, 3, 4)] == [6, 8, 9]  # never past the limit
    count.n = 2  # both cores wanted: the smoothed count climbs, 1, 1.5, 1.75, 1.875, ...
    assert [at(step) for step in (5, 6, 7)] == [9, 9, 9]  # still room, then neither
    assert [at(step) for step in (8, 9, 10)] == [2 + 7 // 2, 2 + 3 // 2, 2]  # half the way back to jobs, each window
    count.n = 0
    assert at(20) == 2  # a stale count starts a new series rather than judge the gap
    assert at(21) == 4


def test_the_quick_slots_cores_are_theirs_and_quick_runs_beyond_them_count() -> None:
    """Two quick runs keeping the two cores busy leave room for runs that wait (a thread each is
    not counted); two more quick runs, let in beyond the quick slots, count like any run."""
    clock, count = Clock(), Count(2)
    admission = Admission(2, 9, read=count.read, clock=clock)
    admission.acquire(waits=False)
    admission.acquire(waits=False)

    def at(step: int) -> int:
        clock.now = step * WINDOW * 1.01
        admission.adjust(clock.now)
        return admission.allowed

    assert [at(0), at(1)] == [2, 4]  # the quick runs' two busy threads: the room is untouched
    admission.acquire(waits=False)
    admission.acquire(waits=False)  # two more quick runs, both busy: four threads want a core
    count.n = 4
    # the smoothed count climbs 3, 3.5, 3.75, 3.875 ...: room for one, one, none, then back towards jobs
    assert [at(step) for step in (2, 3, 4, 5, 6)] == [5, 6, 6, 4, 3]


def test_with_one_job_one_busy_thread_admits_no_more() -> None:
    """Other work on the machine is not counted: only what simpilot's own threads want."""
    assert started(Admission(1, 4, read=Count(1).read), 2, wait=10 * WINDOW) == 1
    assert started(Admission(1, 4, read=Count(0).read), 2, wait=10 * WINDOW) == 2


def test_quick_runs_always_have_jobs_slots_however_many_runs_wait() -> None:
    admission = Admission(1, 2, read=Count(0).read)
    assert started(admission, 2, wait=10 * WINDOW) == 2  # two runs that wait: the limit
    quick = threading.Semaphore(0)

    def go() -> None:
        admission.acquire(waits=False)
        quick.release()

    threading.Thread(target=go, daemon=True).start()
    threading.Thread(target=go, daemon=True).start()
    assert quick.acquire(timeout=5)  # one quick run goes past the limit
    assert not quick.acquire(timeout=5 * WINDOW)  # the other waits for the quick slot (jobs: 1)
    assert admission.running == 3 and admission.quick == 1
    admission.release(waits=False)
    assert quick.acquire(timeout=5)
    assert admission.running == 3 and admission.quick == 1


def test_runs_get_slots_in_the_order_they_asked_among_those_a_slot_fits() -> None:
    """A freed slot goes to the first run in line, not to whichever thread wakes first; a quick
    run behind waiting ones still takes a quick slot they cannot use."""
    admission = Admission(1, 1, read=Count(1).read)  # no room beyond jobs: one run at a time
    admission.acquire(waits=False)
    order: list[str] = []
    done = threading.Semaphore(0)

    def ask(name: str, waits: bool) -> None:
        admission.acquire(waits)
        order.append(name)
        done.release()

    asked = [("a", True), ("b", True), ("c", True), ("d", True)]
    for n, (name, waits) in enumerate(asked, 1):
        threading.Thread(target=ask, args=(name, waits), daemon=True).start()
        deadline = time.monotonic() + 5
        while len(admission._asking) < n and time.monotonic() < deadline:
            time.sleep(0.001)
    for expected in range(1, len(asked) + 1):
        admission.release(waits=False if expected == 1 else True)
        assert done.acquire(timeout=5)
        assert order == [name for name, _ in asked][:expected]
    threading.Thread(target=ask, args=("late", True), daemon=True).start()
    threading.Thread(target=ask, args=("quick", False), daemon=True).start()
    assert done.acquire(timeout=5) and order[-1] == "quick"  # the quick slot is free; the runs' one is not
    assert not done.acquire(timeout=5 * WINDOW)


def test_the_most_runs_at_once_are_bounded_per_job_and_by_memory() -> None:
    assert default_limit(2, None) == 2 * WAITING_PER_JOB
    assert default_limit(2, 1000 * RUNNER_MEMORY) == 2 * WAITING_PER_JOB
    assert default_limit(2, 5 * RUNNER_MEMORY + 1) == 5  # a runner each: what the memory holds
    assert default_limit(2, 0) == 2  # never fewer than jobs


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
    """Four programs sleeping a second each, one job: as they want no core (faked here, so that
    the runners' own start does not change what is tested) they run side by side, each in a
    runner of its own, and the gate's verdicts are those of running them one at a time."""
    instances = [sleeping(i, 1.0) for i in range(4)]
    manifest = write_repository(tmp_path / "devbench-python", "python", instances)
    tasks = [task_for(i)[1] for i in instances]
    with Evaluator(RepoCatalog([manifest]), Sandbox.create(), 1) as evaluator:
        evaluator.programs.admission = Admission(1, 6, read=Count(0).read)
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
        assert len(runners) == 1 and runners[0].compilations == 2  # the golden program and the empty one
    assert [t.id for t in report.kept] == [task.id] and not report.dropped


@pytest.mark.e2e
def test_quick_programs_go_to_prepared_runners_and_waiting_ones_to_light_ones(tmp_path: Path) -> None:
    """A prepared runner is told every program (a Python server preloads what five of them
    share); a run of a program that waits gets a light one, told none."""
    quick = [
        Instance("python", "low_context", str(i), "import json\n\ndef f():", "\nassert f() == 1", "    return 1", "", f"quick {i}")
        for i in range(5)
    ]
    instances = [*quick, sleeping(9, 0.1)]
    manifest = write_repository(tmp_path / "devbench-python", "python", instances)
    tasks = [task_for(i)[1] for i in instances]
    with Evaluator(RepoCatalog([manifest]), Sandbox.create(), 1) as evaluator:
        for task in tasks:
            assert evaluator.evaluate(task, task.ground_truth).status.value == "pass"
        runners = evaluator.programs._all
        prepared = [r for r in runners if getattr(r, "expected", frozenset())]
        light = [r for r in runners if getattr(r, "prepared", False) and not getattr(r, "expected", frozenset())]
        assert len(prepared) == 1 and "json" in prepared[0].expected
        assert len(light) == 1  # the sleeping program's
