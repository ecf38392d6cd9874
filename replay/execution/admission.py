"""How many program runs go at once: ``jobs`` always, and more while the machine's cores sit idle.

Many single-program tasks spend most of their run waiting on themselves: DevBench's programs
call ``time.sleep`` or ``setTimeout`` to show off a cache's expiry or a retry's back-off, and some
wait for a timeout of their own. A run that waits holds one of the ``jobs`` slots but no core, so
with ``jobs`` runs at a time the gate of a few hundred such programs is mostly idle waiting.

:class:`Admission` lets ``jobs`` runs go at any time, and more while the cores the user left to
simpilot (all of them less those ``jobs`` does not use) sit idle: once every :data:`WINDOW`
seconds while more than ``jobs`` runs are asked for, the number of runs allowed grows by the
whole cores that were idle over the window, or falls half the way back to ``jobs`` when they were
busy, and never passes ``limit``. A run ending hands its slot to the next, so quick runs flow at
full speed beside runs that wait; runs that keep the cores busy let no more in, so busy runs
outnumber the cores only briefly (when waiting ones wake up together). Where the machine's CPU
time cannot be read (no ``/proc/stat``), ``jobs`` runs go at once, never more.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

WINDOW = 0.1  # seconds of CPU accounting an admission looks back on
IDLE_CORE = 0.5  # how much of one core must have been idle over a window to make room for a run
BUSY_CORE = 0.2  # less idle than this over a window: the runs keep the cores busy
WAITING_PER_JOB = 8  # at most this many runs per job in all: runs that wait still hold memory (a warm runner each)


@dataclass(frozen=True, slots=True)
class CpuTimes:
    """The machine's CPU time at one moment, summed over the cores this process may use (in ticks)."""

    total: int
    idle: int
    cores: int


def parse_proc_stat(text: str, allowed: set[int] | None = None) -> CpuTimes:
    """Sum ``/proc/stat``'s per-core lines (``cpuN user nice system idle iowait irq softirq
    steal ...``) over the ``allowed`` cores (None: all of them); idle is idle plus iowait."""
    total = idle = cores = 0
    for line in text.splitlines():
        name, _, rest = line.partition(" ")
        if not name.startswith("cpu") or not name[3:].isdigit():
            continue
        if allowed is not None and int(name[3:]) not in allowed:
            continue
        ticks = [int(word) for word in rest.split()]
        total += sum(ticks[:8])  # guest time is already counted in user and nice
        idle += ticks[3] + (ticks[4] if len(ticks) > 4 else 0)
        cores += 1
    return CpuTimes(total, idle, cores)


def idle_cores(before: CpuTimes, after: CpuTimes) -> float:
    """How many cores sat idle between two readings, on average (0 when no time passed)."""
    spent = after.total - before.total
    if spent <= 0 or after.cores == 0:
        return 0.0
    return after.cores * (after.idle - before.idle) / spent


def read_cpu_times() -> CpuTimes | None:
    """This machine's CPU times now, over the cores this process may run on (None: unknown)."""
    try:
        text = Path("/proc/stat").read_text()
    except OSError:
        return None
    try:
        allowed: set[int] | None = set(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        allowed = None
    times = parse_proc_stat(text, allowed)
    return times if times.cores else None


class Admission:
    """``jobs`` slots, and up to ``limit`` while cores sit idle (see the module's docstring)."""

    def __init__(
        self,
        jobs: int,
        limit: int | None = None,
        read: Callable[[], CpuTimes | None] = read_cpu_times,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.jobs = max(1, jobs)
        self.limit = max(self.jobs, limit if limit is not None else self.jobs * WAITING_PER_JOB)
        self._read, self._clock = read, clock
        self._changed = threading.Condition()
        self.running = 0
        self.allowed = self.jobs  # how many runs may go now: ``jobs`` and what idle cores made room for
        self.most = 0  # the most runs that went at once
        self._sample: tuple[float, CpuTimes] | None = None  # the reading the next window is measured from
        self._polling = False  # whether a waiter is watching the cores (the others sleep until woken)

    def adjust(self, now: float) -> None:
        """Once a window, move :attr:`allowed` with the cores the runs left idle: up by the
        idle cores (whole ones; the user's spare cores not counted), or, when the cores were
        busy, half the way back to ``jobs`` (runs that waited have woken up, or have ended and
        busy ones took their places)."""
        if self._sample is not None and now - self._sample[0] < WINDOW:
            return
        times = self._read()
        if times is None:
            return
        if self._sample is None or now - self._sample[0] > 4 * WINDOW:  # stale: a new window starts
            self._sample = (now, times)
            return
        before = self._sample[1]
        self._sample = (now, times)
        free = idle_cores(before, times) - max(0, times.cores - self.jobs)  # the cores the user kept for other work are not ours
        if free >= IDLE_CORE:
            self.allowed = min(self.limit, self.allowed + int(free + 1 - IDLE_CORE))
        elif free < BUSY_CORE:
            self.allowed = self.jobs + (self.allowed - self.jobs) // 2

    def acquire(self) -> None:
        with self._changed:
            while True:
                if self.running >= self.jobs:
                    allowed = self.allowed
                    self.adjust(self._clock())
                    if self.allowed > allowed + 1:
                        self._changed.notify(self.allowed - allowed - 1)  # this one takes one of the new slots
                if self.running < self.allowed:
                    self.running += 1
                    self.most = max(self.most, self.running)
                    return
                if self._polling or self.allowed >= self.limit:
                    self._changed.wait()  # a slot freed, or room made, wakes it
                    continue
                self._polling = True  # one waiter watches the cores for all of them
                try:
                    self._changed.wait(WINDOW / 2)
                finally:
                    self._polling = False
                    self._changed.notify()  # another waiter takes the watch over if this one gets a slot

    def release(self) -> None:
        with self._changed:
            self.running -= 1
            self._changed.notify()

    @contextmanager
    def slot(self) -> Iterator[None]:
        self.acquire()
        try:
            yield
        finally:
            self.release()
