"""Reference runs: the tests of each file's tasks, run once on the untouched code.

They say two things before any hole is filled: the tests a task will be judged by pass on the
code as it is (on this machine, through the runner the tasks will use), and how long they take
here. That time, not a fixed number, bounds how long a run with a hole filled may take: a filler
or completion that turns a loop into an endless one is stopped after a multiple of it instead of
the manifest's whole timeout, which is meant for the slowest machine. One run per file covers the
union of its tasks' tests, so its time is an upper bound of each task's own.

A single program (a ``[programs]`` repository: DevBench's instances) has no tests: its untouched
code is the program with its golden completion, run whole with its checks, and its CPU limit is
the sandbox's (a warm runner's CPU time includes its own warming up, which one run may pay and
another not).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from replay.core.records import Task
from replay.execution.judge import Evaluator
from replay.execution.programs.runs import program_shortfall
from replay.execution.sandbox.bubblewrap import ProcessResult

Key = tuple[str, str]  # (repository, path)

# How long an answer's tests may run, from the same tests' run on the untouched code here (the
# file's reference run). Two limits: wall-clock time, ten times the reference (at least 10 s, at
# most the manifest's timeout), generous to slow but correct code on a loaded machine, for answers
# that hang; and CPU time, three times the reference's (at least 1 s), for answers that loop. A
# busy loop uses CPU time as fast as the wall clock runs, while correct code needs about what the
# untouched code did, however loaded the machine is: so the CPU limit can be tight, and an endless
# loop costs a second or two instead of the wall-clock limit.
REPLAY_SLOWDOWN = 10
REPLAY_MIN_TIMEOUT = 10.0
REPLAY_CPU_SLOWDOWN = 3
REPLAY_MIN_CPU = 1.0
# A JVM's CPU time is more than its tests': the in-memory compilation of the edited file, the JIT
# compiler's and the garbage collector's threads. On a cold JVM (a fresh server) or one whose JIT
# thread is starved by a loaded machine, they alone can pass a second while the untouched run, on a
# warm JVM, measured a fraction of it; so the ground truth itself was stopped at 1 s. A busy loop
# still ends within seconds, far before the wall-clock limit.
REPLAY_MIN_CPU_JVM = 5.0


def min_cpu(task: Task) -> float:
    """The least CPU time a run of ``task``'s tests gets: more for a JVM (``REPLAY_MIN_CPU_JVM``)."""
    return REPLAY_MIN_CPU_JVM if task.language == "java" else REPLAY_MIN_CPU


class ReferenceRuns:
    """Runs each file's tests once, lazily and thread-safely (the first task of a file waits)."""

    def __init__(self, evaluator: Evaluator, tasks: Iterable[Task]):
        self.evaluator = evaluator
        self._tests: dict[Key, set[str] | None] = {}
        for task in tasks:
            key = (task.repo, task.path)
            known = self._tests.setdefault(key, set())
            self._tests[key] = None if known is None or task.tests is None else known | set(task.tests)
        self._results: dict[Key, ProcessResult] = {}
        self._locks: dict[Key, threading.Lock] = {key: threading.Lock() for key in self._tests}

    def get(self, task: Task) -> ProcessResult:
        """The untouched run covering ``task``'s tests (all tests when any task has none)."""
        key = (task.repo, task.path)
        with self._locks[key]:
            if key not in self._results:
                tests = self._tests[key]
                manifest = self.evaluator.catalog.get(task.repo)
                if manifest.programs is not None:  # one program per file: the golden completion's run
                    self._results[key] = self.evaluator.programs.run(manifest, task, self.evaluator.original(task).decode("utf-8"))
                else:
                    self._results[key] = self.evaluator.run_tests(manifest, tests=None if tests is None else tuple(sorted(tests)))
            return self._results[key]

    def passed(self, task: Task) -> bool:
        """Whether the untouched run proves every test it ran passed (each test's own result)."""
        return self.why_not(task) is None

    def why_not(self, task: Task) -> str | None:
        """Why the untouched run is not a proven pass, or None."""
        key = (task.repo, task.path)
        tests = self._tests[key]
        result = self.get(task)
        manifest = self.evaluator.catalog.get(task.repo)
        if manifest.programs is not None:
            gap = program_shortfall(result)
        else:
            gap = self.evaluator.shortfall(manifest, result, None if tests is None else tuple(sorted(tests)))
        return None if gap is None else gap.detail

    def cpu(self, task: Task, slowdown: float, minimum: float) -> float | None:
        """``slowdown`` times the CPU time of the untouched run (its wall time where the CPU time
        was not measured), at least ``minimum``; None (the sandbox's limit) when it failed."""
        if not self.passed(task) or self.evaluator.catalog.get(task.repo).programs is not None:
            return None
        result = self.get(task)
        used = result.cpu_s if result.cpu_s is not None else result.duration_s
        return min(float(self.evaluator.sandbox.limits.cpu_seconds), max(minimum, slowdown * used))

    def timeout(self, task: Task, slowdown: float, minimum: float) -> float:
        """``slowdown`` times the untouched run, at least ``minimum``, at most the manifest's
        timeout (which is also what a failed reference run gets)."""
        limit = self.evaluator.catalog.get(task.repo).timeout
        if not self.passed(task):
            return limit
        return min(limit, max(minimum, slowdown * self.get(task).duration_s))
