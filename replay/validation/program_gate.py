"""The validation gate for single-program tasks (DevBench's instances).

A program task is kept when its golden completion passes three times (``GOLDEN_RUNS``) and the
empty answer fails twice (``EMPTY_RUNS``).
The others are listed by reason, never counted in a result:

* ``toolchain_missing``: the machine cannot run the language (e.g. no .NET SDK for C#);
* ``golden_fails``: the golden completion failed every time (the error's class and the output's
  last lines say why: a package that is not installed, a network call, a wrong assertion);
* ``passes_empty``: the program passes with nothing in the hole, so the task measures nothing;
* ``flaky``: the golden completion or the empty answer gave different verdicts on different runs.

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

# What a program that waits on itself (or its checks) says: ``time.sleep``, ``setTimeout``, ...
_WAITING = re.compile(rb"\b(?:sleep|setTimeout|setInterval|timeout|Timer|wait)\b|\bsleep_for\b|\bThread\.sleep\b")
_COMPILER_LINE = re.compile(r"^[\w./-]+:\d+(?::\d+)?: ")
# The golden completion runs three times: a C++ instance with a data race (it passes one run in
# three) passed two runs and then failed its replay; each run is cheap next to a wrong result.
GOLDEN_RUNS = 3
EMPTY_RUNS = 2
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


Together = Callable[[Task, list[str]], list[Verdict]]  # runs answers to one task, perhaps at once


def judge_one(evaluator: Evaluator, task: Task, together: Together | None = None, waits: bool = False) -> Task | Dropped:
    """Run ``task``'s golden completion three times and the empty answer twice, as far as
    needed, in rounds whose runs may go at once (``together``; default: one after another).

    Every task needs two golden runs (three passes, or a second failure telling a program that
    always fails from a flaky one) and, unless the golden completion fails, an empty run: those
    are the first round, the third golden run and the second empty one the second. A program
    that ``waits`` on itself (a retry's back-off, a cache's expiry: :func:`_waits`) has all five
    in one round: side by side they cost one run's time, and its runs cost time, not CPU."""
    run = together or (lambda t, texts: [evaluator.evaluate(t, text) for text in texts])
    why = programs.missing(task.language)
    if why is not None:
        return Dropped(task, "toolchain_missing", "", why)
    rounds = [[True] * GOLDEN_RUNS + [False] * EMPTY_RUNS] if waits else [[True, True, False], [True, False]]
    golden: list[Verdict] = []
    empty: list[Verdict] = []
    for is_golden in rounds:
        answers = [task.ground_truth if g else "" for g in is_golden]
        for g, verdict in zip(is_golden, run(task, answers), strict=True):
            (golden if g else empty).append(verdict)
        decided = _decide(task, golden, empty)
        if decided is not None:
            return decided
    raise AssertionError("the gate's rounds always decide")  # pragma: no cover


def _decide(task: Task, golden: list[Verdict], empty: list[Verdict]) -> Task | Dropped | None:
    """The gate's decision on the runs so far (None: more runs are needed)."""
    passed = [v.status == Status.PASS for v in golden]
    if not any(passed):
        first = golden[0]
        return Dropped(task, "golden_fails", _error(first), f"{first.detail}\n{_tail(first)}".strip())
    if not all(passed):
        failed = golden[passed.index(False)]
        return Dropped(
            task, "flaky", "", f"the golden completion passed {sum(passed)} of {len(passed)} runs: {failed.status.value}: {failed.detail}"
        )
    empty_passed = sum(v.status == Status.PASS for v in empty)
    if empty and empty_passed == len(empty):
        return Dropped(task, "passes_empty", "", "the program passes with the hole left empty: its checks do not reach the hole")
    if empty_passed:
        return Dropped(task, "flaky", "", f"the empty answer passed {empty_passed} of {len(empty)} runs")
    if len(golden) < GOLDEN_RUNS or len(empty) < EMPTY_RUNS:
        return None
    return replace(task, validation=Validation(True, "", True, True, filler_status=empty[0].status.value))


def _waits(evaluator: Evaluator, task: Task) -> bool:
    """Whether ``task``'s program or its checks look as if they wait on themselves."""
    checks = evaluator.programs.checks(evaluator.catalog.get(task.repo), task.path)
    return _WAITING.search(evaluator.original(task)) is not None or _WAITING.search(checks.encode()) is not None


def validate_programs(
    evaluator: Evaluator,
    tasks: list[Task],
    jobs: int = 1,
    progress: Callable[[], None] | None = None,
) -> ProgramGateReport:
    """Gate ``tasks``, as many at once as the evaluator's program runs allow (``jobs`` busy ones,
    more while they wait on themselves). Programs that look as if they wait start first, so that
    their waiting overlaps the quick ones' runs rather than trailing after them; the results keep
    the tasks' order."""
    threads = max(1, jobs, evaluator.threads(tasks))
    waiting = {id(task): _waits(evaluator, task) for task in tasks}

    with ThreadPoolExecutor(threads, thread_name_prefix="simpilot-gate-run") as runs:

        def together(task: Task, texts: list[str]) -> list[Verdict]:
            return list(runs.map(lambda text: evaluator.evaluate(task, text), texts))

        def one(task: Task) -> Task | Dropped:
            try:
                return judge_one(evaluator, task, together, waiting[id(task)])
            finally:
                if progress is not None:
                    progress()

        with ThreadPoolExecutor(threads, thread_name_prefix="simpilot-gate") as pool:
            first = sorted(tasks, key=lambda task: not waiting[id(task)])  # stable: the others keep their order
            done = dict(zip((id(task) for task in first), pool.map(one, first), strict=True))
            results = [done[id(task)] for task in tasks]
    kept = [r for r in results if isinstance(r, Task)]
    return ProgramGateReport(kept, [r for r in results if isinstance(r, Dropped)], preset_alterations(kept, evaluator.original))
