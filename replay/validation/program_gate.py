"""The validation gate for single-program tasks (DevBench's instances).

A program task is kept when its golden completion passes three times (``GOLDEN_RUNS``) and the
empty answer fails twice.
The others are listed by reason, never counted in a result:

* ``toolchain_missing``: the machine cannot run the language (e.g. no .NET SDK for C#);
* ``golden_fails``: the golden completion failed both times (the error's class and the output's
  last lines say why: a package that is not installed, a network call, a wrong assertion);
* ``passes_empty``: the program passes with nothing in the hole, so the task measures nothing;
* ``flaky``: the golden completion or the empty answer gave different verdicts on two runs.

As for marked tasks, every kept golden completion goes through every built-in preset, which must
return it unchanged (an alteration is reported, the task kept).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from replay.core.records import Status, Task, Validation
from replay.execution import programs
from replay.execution.evaluate import Evaluator, Verdict
from replay.validation.gate import Alteration, preset_alterations

_COMPILER_LINE = re.compile(r"^[\w./-]+:\d+(?::\d+)?: ")
# The golden completion runs three times: a C++ instance with a data race (it passes one run in
# three) passed two runs and then failed its replay; each run is cheap next to a wrong result.
GOLDEN_RUNS = 3
REASONS = ("toolchain_missing", "golden_fails", "passes_empty", "flaky")
_TAIL_LINES = 6


@dataclass(frozen=True, slots=True)
class Dropped:
    task: Task
    reason: str  # one of REASONS
    error: str  # the error's class (golden_fails), or ''
    detail: str  # the verdict's detail and the output's last lines

    def line(self) -> str:
        return f"{self.reason}" + (f" ({self.error})" if self.error else "") + f": {self.detail}"


@dataclass
class ProgramGateReport:
    kept: list[Task]
    dropped: list[Dropped]
    altered: list[Alteration] = field(default_factory=list)  # a built-in preset changed a golden completion: a preset's bug


def _tail(verdict: Verdict) -> str:
    lines = [line for line in verdict.output_tail.strip().splitlines() if line.strip()]
    return "\n".join(lines[-_TAIL_LINES:])


def _error(verdict: Verdict) -> str:
    if verdict.status == Status.TIMEOUT:
        return "Timeout"
    if verdict.status in (Status.COMPILE_ERROR, Status.SYNTAX_ERROR, Status.INDENTATION_ERROR) or _COMPILER_LINE.match(verdict.detail):
        return verdict.status.value  # the detail is the compiler's message (file:line: ...), not an error class
    found = programs.error_class(verdict.detail)
    return found or verdict.status.value


def judge_one(evaluator: Evaluator, task: Task) -> Task | Dropped:
    """Run ``task``'s golden completion (three times) and the empty answer (twice), as far as needed."""
    why = programs.missing(task.language)
    if why is not None:
        return Dropped(task, "toolchain_missing", "", why)
    golden = [evaluator.evaluate(task, task.ground_truth)]
    golden += [evaluator.evaluate(task, task.ground_truth) for _ in range(GOLDEN_RUNS - 1) if golden[0].status == Status.PASS]
    passed = [v.status == Status.PASS for v in golden]
    if not any(passed):  # failed once: a second run tells a program that always fails from a flaky one
        golden.append(evaluator.evaluate(task, task.ground_truth))
        passed.append(golden[-1].status == Status.PASS)
    if not any(passed):
        first = golden[0]
        return Dropped(task, "golden_fails", _error(first), f"{first.detail}\n{_tail(first)}".strip())
    if not all(passed):
        failed = golden[passed.index(False)]
        return Dropped(
            task, "flaky", "", f"the golden completion passed {sum(passed)} of {len(passed)} runs: {failed.status.value}: {failed.detail}"
        )
    empty = [evaluator.evaluate(task, "")]
    if empty[0].status == Status.PASS:
        return Dropped(task, "passes_empty", "", "the program passes with the hole left empty: its checks do not reach the hole")
    empty.append(evaluator.evaluate(task, ""))
    if empty[1].status == Status.PASS:
        return Dropped(task, "flaky", "", "the empty answer failed once and passed once")
    return replace(task, validation=Validation(True, "", True, True, filler_status=empty[0].status.value))


def validate_programs(
    evaluator: Evaluator,
    tasks: list[Task],
    jobs: int = 1,
    progress: Callable[[], None] | None = None,
) -> ProgramGateReport:
    """Gate ``tasks`` (in their order), ``jobs`` at a time."""

    def one(task: Task) -> Task | Dropped:
        try:
            return judge_one(evaluator, task)
        finally:
            if progress is not None:
                progress()

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        results = list(pool.map(one, tasks))
    kept = [r for r in results if isinstance(r, Task)]
    return ProgramGateReport(kept, [r for r in results if isinstance(r, Dropped)], preset_alterations(kept, evaluator.original))
