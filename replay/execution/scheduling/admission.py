"""How many program runs go at once: ``jobs`` always, and more while fewer than ``jobs`` of them need a core.

Many single-program tasks spend most of their run waiting on themselves: DevBench's programs
call ``time.sleep`` or ``setTimeout`` to show off a cache's expiry or a retry's back-off, and some
wait for a timeout of their own. A run that waits holds one of the ``jobs`` slots but no core, so
with ``jobs`` runs at a time the gate of a few hundred such programs is mostly idle waiting.

:class:`Admission` lets ``jobs`` runs go at any time, and more while fewer than ``jobs`` threads
of simpilot's processes (everything below this one: the runners, the sandboxes, the programs)
are runnable, running or waiting for a core (``R``, or ``D``: in the kernel, as the load average
counts them). Once every :data:`WINDOW` seconds while more than ``jobs`` runs are asked for, the
number of runs allowed grows by the whole cores of ``jobs`` that no thread of ours wanted, or
falls half the way back to ``jobs`` when they were all wanted, and never passes ``limit``. A run
ending hands its slot to the next, so quick runs flow at full speed beside runs that wait; runs
that keep ``jobs`` cores busy let no more in, so busy runs outnumber ``jobs`` only briefly (when
waiting ones wake up together). A run its caller expects to be quick (``waits=False``: its program
shows no sign of waiting on itself) may always go when fewer than ``jobs`` such runs are going,
however many runs that wait hold slots: otherwise, once runs that wait fill every slot up to the
limit, the cores sit idle while quick runs queue behind them. The cores of the ``jobs`` quick
slots are theirs (a thread for each quick run going, up to ``jobs``, is not counted against the
room for more): otherwise two quick runs keeping two cores busy would hold back every program that
waits, which needs a core for a moment and then sleeps for seconds, until the quick ones ran out;
started late, those seconds trail at the end of the gate instead of passing beside the quick runs.
Quick runs beyond ``jobs`` (let in as room was made) count like any other: discounting them too
let dozens of busy runs in, and runs then met their time limits for want of a core.

What is counted is what simpilot's own threads want, not what the machine leaves idle nor the
CPU time they got: on a machine shared with other work the cores are seldom idle, yet a run that
sleeps needs none of them (judged by idle cores, runs that wait would go ``jobs`` at a time as soon
as anything else ran); and runs that want a core but wait for one behind other work get less CPU
time than they want (judged by CPU time, ever more busy runs would be let in, taking cores from
the other work). The count is a sample, smoothed over windows. Where ``/proc`` cannot be read,
``jobs`` runs go at once, never more.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from replay.execution.inside import proctree

WINDOW = 0.1  # seconds between two counts of the threads that want a core
IDLE_CORE = 0.5  # how much of one core of ``jobs`` must be unwanted to make room for a run
BUSY_CORE = 0.2  # less unwanted than this: the runs keep their cores busy
# At most this many runs per job in all: enough for the runs that wait on themselves to overlap
# (DevBench's Python gate has about 300 s of them in runs over half a second: at 32 at once they
# took 17.5 s of its 300 instances' gate, at 48 16.4 s), and at most one per RUNNER_MEMORY of the
# memory available when the admission is made: a run that waits still holds a runner (a light
# forking server is about 30 MB, one with the programs' shared libraries about 160 MB, a JVM about 250 MB).
WAITING_PER_JOB = 24
RUNNER_MEMORY = 512 * 2**20
WANTING = frozenset("RD")  # the states of a thread that wants a core (or is in the kernel, as the load average counts it)
_THREADS = 17  # num_threads among ``/proc/PID/stat``'s fields after the command name


def default_limit(jobs: int, available: int | None) -> int:
    """The most runs at once: :data:`WAITING_PER_JOB` per job, and no more than ``available``
    bytes of memory hold runners of :data:`RUNNER_MEMORY` (None: unknown, not bounded)."""
    most = jobs * WAITING_PER_JOB
    return max(jobs, min(most, available // RUNNER_MEMORY)) if available is not None else most


def read_available_memory() -> int | None:
    """``MemAvailable`` of ``/proc/meminfo`` in bytes (None: unknown)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def wanting(processes: Iterable[tuple[int, list[str]]], threads_of: Callable[[int], Iterable[str]]) -> int:
    """How many threads of ``processes`` (pid, and ``/proc/PID/stat``'s fields after the command
    name) want a core: a single-threaded process by its own state, any other by each of its
    threads' states (``threads_of(pid)``; a JVM's main thread waits while others run the program)."""
    count = 0
    for pid, fields in processes:
        if int(fields[_THREADS]) > 1:
            count += sum(state in WANTING for state in threads_of(pid))
        else:
            count += fields[0] in WANTING
    return count


def read_wanting() -> int | None:
    """How many threads below this process want a core now (None: unknown): one pass over
    ``/proc``, as this runs every window while runs wait for a slot."""
    try:
        return wanting(proctree.below(os.getpid()), _thread_states)
    except OSError:
        return None


def _thread_states(pid: int) -> list[str]:
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    states = (proctree.state(f"{pid}/task/{tid}") for tid in tids)
    return [found for found in states if found is not None]


class Admission:
    """``jobs`` slots, and up to ``limit`` while fewer than ``jobs`` threads of ours want a core (see the module's docstring)."""

    def __init__(
        self,
        jobs: int,
        limit: int | None = None,
        read: Callable[[], int | None] = read_wanting,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.jobs = max(1, jobs)
        self.limit = max(self.jobs, limit if limit is not None else default_limit(self.jobs, read_available_memory()))
        self._read, self._clock = read, clock
        self._lock = threading.Lock()
        self.running = 0
        self.allowed = self.jobs  # how many runs may go now: ``jobs`` and what unwanted cores made room for
        self.most = 0  # the most runs that went at once
        self.quick = 0  # how many of the runs going were expected to be quick
        # ticket -> (waits, its condition), of the runs waiting for a slot, in the order they asked
        self._asking: dict[int, tuple[bool, threading.Condition]] = {}
        self._tickets = itertools.count()
        self._counted: float | None = None  # when the threads wanting a core were last counted
        self._wanting: float | None = None  # how many want one, smoothed over windows
        self._polling = False  # whether a waiter is watching the cores (the others sleep until woken)

    def adjust(self, now: float) -> None:
        """Once a window, count the threads that want a core and move :attr:`allowed`: up by the
        cores of ``jobs`` none wanted (whole ones), or, when they were all wanted, half the way
        back to ``jobs`` (runs that waited have woken up, or have ended and busy ones took their
        places). The count is averaged with the previous window's (a sample is an instant)."""
        if self._counted is not None and now - self._counted < WINDOW:
            return
        count = self._read()
        if count is None:
            return
        stale = self._counted is None or now - self._counted > 4 * WINDOW
        self._counted = now
        if stale or self._wanting is None:  # a new series of windows: nothing to average with yet
            self._wanting = float(count)
            return
        self._wanting = (self._wanting + count) / 2
        free = self.jobs - max(0.0, self._wanting - min(self.quick, self.jobs))  # a quick slot's core is its own
        if free >= IDLE_CORE:
            self.allowed = min(self.limit, self.allowed + int(free + 1 - IDLE_CORE))
        elif free < BUSY_CORE:
            self.allowed = self.jobs + (self.allowed - self.jobs) // 2

    def acquire(self, waits: bool = True) -> None:
        """Wait for a slot; ``waits=False``: the run is expected to be quick, and one of ``jobs``
        slots kept for such runs will do. Runs get slots in the order they asked for them (among
        those a slot fits): the gate asks in the order its tasks should go (``program_gate.py``).
        Each waiter sleeps on a condition of its own, woken only when a slot fits it or it is to
        watch the cores (dozens wait at once: waking them all at every change costs a core)."""
        with self._lock:
            ticket = next(self._tickets)
            self._asking[ticket] = (waits, threading.Condition(self._lock))
            try:
                self._acquire(ticket, waits)
            finally:
                del self._asking[ticket]
                self._wake()  # the next in line may fit too (room was made for several), or watch

    def _fitting(self) -> list[int]:
        """The tickets of the runs asking that the free slots fit, in the order asked, as if each
        took its slot in turn: any run while fewer than :attr:`allowed` go, else a quick one while
        fewer than ``jobs`` quick ones go."""
        running, quick, found = self.running, self.quick, []
        for ticket, (waits, _) in self._asking.items():  # in the order asked
            if running < self.allowed or (quick < self.jobs and not waits):
                found.append(ticket)
                running, quick = running + 1, quick + (not waits)
            elif quick >= self.jobs:
                break  # no slot for anyone behind
        return found

    def _wake(self) -> None:
        """Wake the runs a free slot fits and, while nobody watches the cores, the first of the
        others (it watches)."""
        fitting = self._fitting()
        for ticket in fitting:
            self._asking[ticket][1].notify()
        if not self._polling:
            watcher = next((t for t in self._asking if t not in fitting), None)
            if watcher is not None:
                self._asking[watcher][1].notify()

    def _acquire(self, ticket: int, waits: bool) -> None:
        wake = self._asking[ticket][1]
        while True:
            if self.running >= self.jobs:
                allowed = self.allowed
                self.adjust(self._clock())
                if self.allowed > allowed:
                    self._wake()  # the first in line takes a new slot, whoever counted
            fitting = self._fitting()
            if fitting and fitting[0] == ticket:
                self._take(waits)
                return
            if self._polling or self.allowed >= self.limit:
                wake.wait()  # a slot fits it now, or it is to watch the cores
                continue
            self._polling = True  # one waiter watches the cores for all of them
            try:
                wake.wait(WINDOW / 2)
            finally:
                self._polling = False

    def _take(self, waits: bool) -> None:
        self.running += 1
        self.quick += not waits
        self.most = max(self.most, self.running)

    def release(self, waits: bool = True) -> None:
        with self._lock:
            self.running -= 1
            self.quick -= not waits
            self._wake()  # the first in line that the freed slot fits

    @contextmanager
    def slot(self, waits: bool = True) -> Iterator[None]:
        self.acquire(waits)
        try:
            yield
        finally:
            self.release(waits)
