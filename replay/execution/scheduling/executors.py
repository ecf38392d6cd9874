"""Where a replay's tests run: one small seam, an :class:`Executor`.

``submit(fn, *args)`` runs ``fn(worker, *args)`` on some :class:`Worker` and returns an awaitable
of its result. The local executor is a thread pool sharing one Worker in this process; the Ray
executor (``ray_executor.py``) keeps one Worker per Ray actor.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol, TypeVar

from replay.core.errors import SimpilotError
from replay.core.records import Task
from replay.execution.judge import Evaluator
from replay.execution.scheduling.references import ReferenceRuns
from replay.execution.scheduling.workers import Worker, WorkerRecipe

T = TypeVar("T")
EXECUTORS = ("local", "ray")


class Executor(Protocol):
    def submit(self, fn: Callable[..., T], *args: Any, key: str = "") -> Awaitable[T]:
        """Run ``fn(worker, *args)`` on a worker; ``key`` (a repository name) lets an executor
        prefer a worker that already holds a warm copy of that repository."""
        ...

    def close(self) -> None: ...


class LocalExecutor:
    """``jobs`` threads in this process sharing one Worker, whose Evaluator lends each concurrent
    call its own warm work copy."""

    def __init__(self, worker: Worker, jobs: int):
        self.worker = worker
        self._pool = ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="simpilot-test")

    def submit(self, fn: Callable[..., T], *args: Any, key: str = "") -> Awaitable[T]:
        return asyncio.get_running_loop().run_in_executor(self._pool, functools.partial(fn, self.worker, *args))

    def close(self) -> None:
        self._pool.shutdown(wait=True)  # the Evaluator belongs to the caller, who closes it


def executor_for(kind: str, address: str | None, evaluator: Evaluator, tasks: list[Task]) -> Executor:
    """The executor ``kind`` names (``local`` or ``ray``, at ``address``); the Ray one builds its
    workers like ``evaluator``."""
    if kind == "local":
        return LocalExecutor(Worker(evaluator, ReferenceRuns(evaluator, tasks)), evaluator.threads(tasks))
    if kind == "ray":
        from replay.execution.scheduling.ray_executor import RayExecutor

        recipe = WorkerRecipe(evaluator.catalog, evaluator.sandbox, evaluator.full_suite, evaluator.warm, tuple(tasks))
        return RayExecutor(recipe.build, jobs=evaluator.jobs, address=address)
    raise SimpilotError(f"unknown executor {kind!r} (choose from {', '.join(EXECUTORS)})")
