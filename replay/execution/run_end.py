"""What ended a run: the one rule every runner and every classifier applies.

A run of model-written code ends in one of five ways, and each has its own evidence:

* ``wall_time``: simpilot stopped it at its wall-clock timeout (it was killed by simpilot);
* ``cpu_time``: the kernel stopped it at its CPU-time limit (``RLIMIT_CPU``): ``SIGXCPU`` at the
  soft limit, or ``SIGKILL`` at the hard limit, which only counts as such when the run is known
  to have used (nearly) its budget of CPU seconds (a ``SIGKILL`` alone proves nothing: the
  out-of-memory killer sends the same signal);
* ``memory``: it ran out of memory. Either the kernel's out-of-memory killer ended a process of
  the sandbox (its memory cgroup counts the kill: ``oom_kill`` in ``memory.events``, or in
  ``memory.oom_control`` on cgroup v1), or the runtime reported an allocation it could not make
  at the address-space limit (``RLIMIT_AS``): Python's ``MemoryError``, Java's
  ``OutOfMemoryError``, C++'s ``std::bad_alloc``;
* ``signal``: another signal killed it (a crash: ``SIGSEGV``, ``SIGABRT``, or a ``SIGKILL`` that
  nothing above explains);
* ``exited``: it ended by itself, with whatever exit status.

:func:`how_it_ended` is the rule, a pure function of those facts. The runners (``sandbox.py``, the
warm servers of ``warm.py``, the program runners of ``programs/``) apply it to what they saw of the
process; the classifiers (``classify.py``, ``programs/runs.py``) apply it again with the error
classes the run reported (:func:`ended`), so that a ``MemoryError`` in a test is the memory class
wherever it shows. A memory kill is never a timeout: it is :attr:`Status.OUT_OF_MEMORY`.
"""

from __future__ import annotations

import enum
import re
import signal
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from replay.execution.sandbox.bubblewrap import ProcessResult


class Ending(str, enum.Enum):
    EXITED = "exited"
    WALL_TIME = "wall_time"
    CPU_TIME = "cpu_time"
    MEMORY = "memory"
    SIGNAL = "signal"


# A SIGKILL at the hard CPU limit (a second past the budget, by the kernel's CPU clock) counts
# as CPU time when the run is measured to have used at least this share of its budget: the clock
# the limit follows runs ahead of what rusage and cgroups report (measured: the SIGXCPU of a 3 s
# budget came at 2.75 s of rusage). A SIGKILL of a run that used less is another's (the OOM
# killer's, counted apart, or a process of the run's own).
HARD_LIMIT_SHARE = 0.75
# The error classes a runtime raises when an allocation fails (at the address-space limit).
MEMORY_ERRORS = frozenset({"MemoryError", "OutOfMemoryError", "bad_alloc"})
# What a runtime prints when it dies for want of memory without an error class to catch.
_LEAD = re.compile(r"\s*([\w.$]+(?:::[\w$]+)*)")  # an error class leading a message: a.b.C, std::x
_MEMORY_CRASH = re.compile(r"JavaScript heap out of memory|Fatal JavaScript out of memory|fatal error: runtime: out of memory")


@dataclass(frozen=True, slots=True)
class RunEnd:
    """How a run ended (``ending``) and the facts the rule decided it from."""

    ending: Ending
    returncode: int
    wall_timed_out: bool = False
    cpu_budget: float | None = None  # the CPU seconds the run was allowed (None: not known)
    cpu_used: float | None = None  # the CPU seconds it used (None: not measured)
    oom_kills: int = 0  # processes of the run the out-of-memory killer ended

    @property
    def timed_out(self) -> bool:
        """Stopped for time (wall clock or CPU): the run did not finish."""
        return self.ending in (Ending.WALL_TIME, Ending.CPU_TIME)

    @property
    def busy(self) -> bool:
        """Stopped for using up its CPU time (a busy loop)."""
        return self.ending is Ending.CPU_TIME

    @property
    def out_of_memory(self) -> bool:
        return self.ending is Ending.MEMORY

    def describe(self, subject: str = "the tests") -> str:
        """What ended the run, in words (``subject``: what ran, "the tests" or "the program")."""
        if self.ending is Ending.WALL_TIME:
            return f"{subject} did not finish in time"
        if self.ending is Ending.CPU_TIME:
            return (
                f"{subject} used up their CPU time (a busy loop)"
                if subject.endswith("s")
                else f"{subject} used up its CPU time (a busy loop)"
            )
        if self.ending is Ending.MEMORY:
            if self.oom_kills:
                killed = "a process" if self.oom_kills == 1 else f"{self.oom_kills} processes"
                return f"{subject} ran out of memory: the out-of-memory killer ended {killed} at the sandbox's memory limit"
            return f"{subject} ran out of memory (an allocation failed at the sandbox's address-space limit)"
        if self.ending is Ending.SIGNAL:
            return f"the process was killed by {signal_name(-self.returncode)}"
        return f"exit status {self.returncode}"


def oom_kill_message(end: RunEnd | None, subject: str = "the program") -> str | None:
    """``MemoryError: …`` for a run the out-of-memory killer ended (its runtime had no chance to
    say so itself), led by the class a runtime's own allocation failure has; else None."""
    if end is not None and end.oom_kills and end.out_of_memory:
        return "MemoryError: " + end.describe(subject)
    return None


def signal_name(number: int) -> str:
    """``SIGSEGV (signal 11)``, or ``signal N`` for a number no signal has."""
    try:
        return f"{signal.Signals(number).name} (signal {number})"
    except ValueError:
        return f"signal {number}"


def is_memory_error(error: str) -> bool:
    """Whether ``error`` (an error class, or a message led by one: ``MemoryError``,
    ``java.lang.OutOfMemoryError: Java heap space``, ``std::bad_alloc``) says an allocation
    failed, or is a runtime's crash for want of memory."""
    lead = _LEAD.match(error)
    name = lead.group(1).rsplit(".", 1)[-1].rsplit("::", 1)[-1] if lead else ""
    return name in MEMORY_ERRORS or _MEMORY_CRASH.search(error) is not None


def how_it_ended(
    returncode: int,
    *,
    wall_timed_out: bool = False,
    cpu_budget: float | None = None,
    cpu_used: float | None = None,
    oom_kills: int = 0,
    errors: Iterable[str] = (),
) -> RunEnd:
    """The rule. ``returncode`` as :mod:`subprocess` gives it (``-N``: killed by signal N);
    ``wall_timed_out``: simpilot killed the run at its wall-clock timeout; ``cpu_budget`` and
    ``cpu_used``: the CPU seconds allowed and used (None: not known); ``oom_kills``: how many
    processes of the run the out-of-memory killer ended; ``errors``: the error classes (or
    messages) the run reported. In order, the first that holds:

    1. a process was killed by the out-of-memory killer and the run did not succeed: memory;
    2. the wall-clock timeout: wall time;
    3. ``SIGXCPU``, or ``SIGKILL`` with (nearly: :data:`HARD_LIMIT_SHARE`) the budget of CPU
       seconds used: CPU time;
    4. it failed and reported an allocation that failed: memory;
    5. any other signal: signal;
    6. otherwise it exited by itself."""

    def end(ending: Ending) -> RunEnd:
        return RunEnd(ending, returncode, wall_timed_out, cpu_budget, cpu_used, oom_kills)

    if oom_kills > 0 and returncode != 0:
        return end(Ending.MEMORY)
    if wall_timed_out:
        return end(Ending.WALL_TIME)
    if returncode == -signal.SIGXCPU:
        return end(Ending.CPU_TIME)
    if returncode == -signal.SIGKILL and cpu_budget is not None and cpu_used is not None and cpu_used >= HARD_LIMIT_SHARE * cpu_budget:
        return end(Ending.CPU_TIME)
    if returncode != 0 and any(is_memory_error(e) for e in errors):
        return end(Ending.MEMORY)
    if returncode < 0:
        return end(Ending.SIGNAL)
    return end(Ending.EXITED)


def ended(result: ProcessResult, errors: Iterable[str] = ()) -> RunEnd:
    """The rule applied to a run's result, with the ``errors`` its output or proof shows: the
    facts its runner recorded (``result.end``), else (a result made by hand) its flags."""
    end = result.end
    if end is None:
        if result.busy:  # a result made by hand as stopped by the CPU limit
            return RunEnd(Ending.CPU_TIME, result.returncode, cpu_used=result.cpu_s)
        end = RunEnd(Ending.EXITED, result.returncode, wall_timed_out=result.timed_out)
    return how_it_ended(
        end.returncode,
        wall_timed_out=end.wall_timed_out,
        cpu_budget=end.cpu_budget,
        cpu_used=end.cpu_used,
        oom_kills=end.oom_kills,
        errors=errors,
    )


def stopped_by_limit(result: ProcessResult) -> bool:
    """Whether one of the sandbox's limits stopped the run, as simpilot or the kernel saw it (its
    time, or the out-of-memory killer): evidence the run's own output cannot fake, so a failure
    the gate may count like one the tests' results show."""
    end = ended(result)
    return end.timed_out or (end.out_of_memory and end.oom_kills > 0)
