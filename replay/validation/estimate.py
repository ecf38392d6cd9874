"""How long the gate will take, said before it starts: a ``mark`` of a real repository can run
for many minutes, and a user who knows it in advance can cut it down (fewer candidates, more
runs at once) instead of waiting for a silent terminal.

The estimate counts test runs, not tasks: each candidate's filler runs as many times as
``repetition.py`` gives it at the cost of one run (:func:`~replay.validation.repetition.planned_runs`:
at least twice, up to 45 for tests that take hundredths of a second), a Java candidate first runs
its throwing probe once, and each file's tests run once on the untouched code
(``ReferenceRuns``). A run is taken to cost what the untouched suite took in the gate's own
baseline check (``gate.check_baseline``): the tests selected for one hole are usually fewer, so
the estimate leans long rather than short, and runs go ``jobs`` at a time.
"""

from __future__ import annotations

from dataclasses import dataclass

from replay.core.records import Task
from replay.validation.repetition import REPOSITORY_BUDGET, planned_runs

__all__ = ["GateEstimate", "estimate_gate"]


@dataclass(frozen=True, slots=True)
class GateEstimate:
    """What the gate is about to do: ``candidates`` tasks, ``runs_each`` runs of a task's filler
    (and probe), ``reference_runs`` runs of the untouched code, ``run_seconds`` a run, ``jobs``
    runs at once."""

    candidates: int
    runs_each: int
    reference_runs: int
    run_seconds: float
    jobs: int

    @property
    def test_runs(self) -> int:
        return self.candidates * self.runs_each + self.reference_runs

    @property
    def seconds(self) -> float:
        """The estimated wall-clock time: every run, ``jobs`` at a time."""
        return self.test_runs * self.run_seconds / max(1, self.jobs)


def estimate_gate(tasks: list[Task], run_seconds: float, jobs: int, full_suite: bool = False) -> GateEstimate:
    """The gate's work on ``tasks`` when one run of their tests takes ``run_seconds``."""
    probes = 1 if any(t.language == "java" for t in tasks) and not full_suite else 0  # a Java task's probe narrows its tests first
    return GateEstimate(
        candidates=len(tasks),
        runs_each=planned_runs(run_seconds, REPOSITORY_BUDGET) + probes,
        reference_runs=0 if full_suite else len({t.path for t in tasks}),
        run_seconds=run_seconds,
        jobs=jobs,
    )
