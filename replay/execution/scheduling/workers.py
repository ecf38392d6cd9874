"""What runs tests for a replay: a :class:`Worker`, and how another process builds one.

A worker is an Evaluator with its warm work copies and the reference runs made on them. The local
executor shares one in this process; the Ray executor builds one per actor from a
:class:`WorkerRecipe`. Both run the same functions on it (``limits.judge``,
``limits.reference_limits``), so a run gives the same outcomes on either.
"""

from __future__ import annotations

from dataclasses import dataclass

from replay.config.manifest import RepoCatalog
from replay.core.errors import SimpilotError
from replay.core.records import Task
from replay.execution.judge import Evaluator
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.execution.scheduling.references import ReferenceRuns


@dataclass
class Worker:
    """What runs tests: an Evaluator with its warm work copies and the reference runs made on them."""

    evaluator: Evaluator
    references: ReferenceRuns

    def close(self) -> None:
        self.evaluator.close()


@dataclass(frozen=True)
class WorkerRecipe:
    """How to build a one-job :class:`Worker` in another process (a Ray actor); it pickles.

    The sandbox is looked up again where the worker runs: bubblewrap must be installed there too,
    and the repositories must be at the same paths (a shared or identical file system)."""

    catalog: RepoCatalog
    sandbox: Sandbox
    full_suite: bool
    warm: bool
    tasks: tuple[Task, ...]

    def build(self) -> Worker:
        sandbox = Sandbox.create(unsafe_no_sandbox=not self.sandbox.enabled, limits=self.sandbox.limits)
        for repo in sorted({t.repo for t in self.tasks}):
            root = self.catalog.get(repo).root
            if not root.is_dir():
                raise SimpilotError(f"{repo}: {root} does not exist on this Ray node: every node needs the repositories at the same paths")
        evaluator = Evaluator(self.catalog, sandbox, 1, full_suite=self.full_suite, warm=self.warm)
        return Worker(evaluator, ReferenceRuns(evaluator, self.tasks))
