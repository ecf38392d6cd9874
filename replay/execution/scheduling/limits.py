"""The time-limit policy of replay: how long a task's test run may take.

A file's tests get ``REPLAY_SLOWDOWN`` times the wall-clock time and ``REPLAY_CPU_SLOWDOWN``
times the CPU time of its run on the untouched code (``references.py``), with minimums. The
untouched run is made only when a run reaches the minimums: every limit the rule gives is at
least these, so a run that ends within them gets the verdict it would get under the rule.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from replay.config.manifest import RepoCatalog
from replay.core.records import Status, Task
from replay.execution.judge import Evaluator, Verdict
from replay.execution.scheduling.executors import Executor
from replay.execution.scheduling.references import (
    REPLAY_CPU_SLOWDOWN,
    REPLAY_MIN_CPU,
    REPLAY_MIN_CPU_JVM,
    REPLAY_MIN_TIMEOUT,
    REPLAY_SLOWDOWN,
    ReferenceRuns,
    min_cpu,
)
from replay.execution.scheduling.workers import Worker

TIMEOUTS = (
    f"timeouts: {REPLAY_SLOWDOWN}x the untouched run of each file's tests, {REPLAY_MIN_TIMEOUT:g} s up to the manifest's; "
    f"CPU time {REPLAY_CPU_SLOWDOWN}x the untouched run's, at least {REPLAY_MIN_CPU:g} s ({REPLAY_MIN_CPU_JVM:g} s in a JVM) "
    f"(the untouched run is made when a run reaches {REPLAY_MIN_TIMEOUT:g} s or that least CPU time)"
)


@dataclass(frozen=True, slots=True)
class RunLimits:
    """How long one test run may take: wall-clock seconds, and CPU seconds (None: the sandbox's)."""

    wall: float
    cpu: float | None

    def covers(self, other: RunLimits) -> bool:
        """Whether every run ``other`` lets finish finishes under these limits too."""
        return self.wall >= other.wall and (self.cpu is None or (other.cpu is not None and self.cpu >= other.cpu))


def rule_limits(references: ReferenceRuns, task: Task) -> RunLimits:
    """The limits the rule gives ``task``'s tests, from its file's run on the untouched code."""
    return RunLimits(
        references.timeout(task, REPLAY_SLOWDOWN, REPLAY_MIN_TIMEOUT), references.cpu(task, REPLAY_CPU_SLOWDOWN, min_cpu(task))
    )


def reference_limits(worker: Worker, task: Task) -> RunLimits:
    """The limits of ``task``'s tests, from its file's run on the untouched code (on ``worker``)."""
    return rule_limits(worker.references, task)


def judge(worker: Worker, task: Task, text: str, limits: RunLimits) -> Verdict:
    """The verdict on ``text`` in ``task``'s hole, its tests stopped at ``limits``."""
    return worker.evaluator.evaluate(task, text, limits.wall, limits.cpu)


def first_limits(catalog: RepoCatalog, task: Task) -> RunLimits:
    """The limits of a task's first run, before its file's reference run is known: the rule's
    minimums. Every limit the rule gives is at least these, so a run that ends within them gets
    the verdict it would get under the rule; only a run that reaches them needs the reference
    (and a second run, when the rule allows more). Most files never need a reference run."""
    return RunLimits(min(catalog.get(task.repo).timeout, REPLAY_MIN_TIMEOUT), min_cpu(task))


def judge_here(evaluator: Evaluator, references: ReferenceRuns, task: Task, text: str) -> Verdict:
    """The verdict under the limits' rule, in this thread (``compare``; replay's runs go through
    :class:`Timeouts`, which shares each file's reference between workers)."""
    first = first_limits(evaluator.catalog, task)
    verdict = evaluator.evaluate(task, text, first.wall, first.cpu)
    if verdict.status is Status.TIMEOUT:
        full = rule_limits(references, task)
        if not first.covers(full):
            verdict = evaluator.evaluate(task, text, full.wall, full.cpu)
    return verdict


class Timeouts:
    """Each file's limits, asked of a worker once and shared by every task of the file, whichever
    worker judges it (so outcomes do not depend on which worker ran the reference)."""

    def __init__(self, executor: Executor):
        self.executor = executor
        self._known: dict[tuple[str, str], asyncio.Future[RunLimits]] = {}

    async def get(self, task: Task) -> RunLimits:
        key = (task.repo, task.path)
        if key not in self._known:
            self._known[key] = asyncio.ensure_future(self.executor.submit(reference_limits, task, key=task.repo))
        return await self._known[key]

    def _known_limits(self, task: Task) -> RunLimits | None:
        known = self._known.get((task.repo, task.path))
        return known.result() if known is not None and known.done() and known.exception() is None else None

    async def judge(self, catalog: RepoCatalog, task: Task, text: str) -> Verdict:
        """The verdict on ``text`` in ``task``'s hole under the limits' rule. Until its file's
        reference is known a run gets the rule's minimums and the reference is made only when a
        run reaches them; once it is known, runs get the full limits at once (the same verdict,
        without a run stopped at the minimums first)."""
        known = self._known_limits(task)
        first = known or first_limits(catalog, task)
        verdict = await self.executor.submit(judge, task, text, first, key=task.repo)
        if verdict.status is Status.TIMEOUT and known is None:
            full = await self.get(task)
            if not first.covers(full):
                verdict = await self.executor.submit(judge, task, text, full, key=task.repo)
        return verdict
