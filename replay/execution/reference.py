"""Reference runs: the tests of each file's tasks, run once on the untouched code.

They say two things before any hole is filled: the tests a task will be judged by pass on the
code as it is (on this machine, through the runner the tasks will use), and how long they take
here. That time, not a fixed number, bounds how long a run with a hole filled may take: a filler
or completion that turns a loop into an endless one is stopped after a multiple of it instead of
the manifest's whole timeout, which is meant for the slowest machine. One run per file covers the
union of its tasks' tests, so its time is an upper bound of each task's own.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from replay.core.records import Task
from replay.execution.evaluate import Evaluator
from replay.execution.sandbox import ProcessResult

Key = tuple[str, str]  # (repository, path)


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
        gap = self.evaluator.shortfall(manifest, result, None if tests is None else tuple(sorted(tests)))
        return None if gap is None else gap.detail

    def cpu(self, task: Task, slowdown: float, minimum: float) -> float | None:
        """``slowdown`` times the CPU time of the untouched run (its wall time where the CPU time
        was not measured), at least ``minimum``; None (the sandbox's limit) when it failed."""
        if not self.passed(task):
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
