"""The validation gate for single-program tasks (DevBench's instances).

A program task is kept when its golden completion passes three times (``GOLDEN_RUNS``) and the
empty answer fails every run: twice in the first rounds (``EMPTY_RUNS``), then, side by side, up
to 45 runs in all, as many as a budget of run time holds (``repetition.py``: enough to catch an
empty answer that passes one run in seven with probability 0.999, for programs of under 0.4 s).
The others are listed by reason, never counted in a result:

* ``toolchain_missing``: the machine cannot run the language (e.g. no .NET SDK for C#), or the
  program needs a package ``--provision`` leaves out on purpose (torch, tensorflow, jax: named);
* ``needs_network``: the golden completion failed every time because the program reaches for a
  host, and the sandbox has no network (``program_failures.py``: read from the run's output, also
  when the program swallows the error and then fails an assertion about the data it lacks);
* ``golden_fails``: the golden completion failed every time for a reason of its own (the error's
  class and the output's last lines say why: a package that is not installed, a wrong assertion);
* ``passes_empty``: the program passes with nothing in the hole, so the task measures nothing;
* ``flaky``: the golden completion or the empty answer gave different verdicts on different runs.

The golden runs get the manifest's timeout; the empty answer is judged under replay's limit,
derived from the golden runs' time as a repository's runs are from the untouched code's
(:func:`empty_timeout`), so the gate judges the empty answer as replay will, and an empty answer
that hangs costs ten times the golden run (at least 10 s) rather than the whole timeout. As in
replay, its runs go beside the golden ones with the rule's minimum (10 s), which every derived
limit reaches: a run that ends within it has its verdict, and only one stopped there runs again
under the golden runs' limit when that is longer.

As for marked tasks, every kept golden completion goes through every built-in preset, which must
return it unchanged (an alteration is reported, the task kept).
"""

from __future__ import annotations

import functools
import itertools
import queue
import re
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed, wait
from dataclasses import dataclass, field, replace

from replay.core.records import Status, Task, Validation
from replay.execution import programs
from replay.execution.judge import Evaluator, Verdict
from replay.execution.programs.runs import PROGRAM_TIMEOUT, waits_on_itself
from replay.execution.scheduling.references import REPLAY_MIN_TIMEOUT, REPLAY_SLOWDOWN
from replay.validation.drops import PROGRAM_REASONS, DropReason
from replay.validation.gate import Alteration, preset_alterations
from replay.validation.program_failures import machine_cause
from replay.validation.repetition import MIN_RUNS, PROGRAM_BUDGET, TARGET_RUNS, detection, planned_runs

_COMPILER_LINE = re.compile(r"^[\w./-]+:\d+(?::\d+)?: ")
# The golden completion runs three times: a C++ instance with a data race (it passes one run in
# three) passed two runs and then failed its replay; each run is cheap next to a wrong result.
GOLDEN_RUNS = 3
EMPTY_RUNS = MIN_RUNS  # the empty runs of the first rounds; the others follow (``repetition.py``)
REASONS = tuple(reason.value for reason in PROGRAM_REASONS)  # devbench-gate.json's keys, in the table's order
_TAIL_LINES = 6
# The rounds of a task's runs (True: the golden completion, False: the empty answer); the runs of
# a round may go at once. Every task needs two golden runs (three passes, or a second failure
# telling a program that always fails from a flaky one) and, unless the golden completion fails,
# an empty run: those are a quick program's first round, the third golden run and the second
# empty one its second. A program that waits on itself (a retry's back-off, a cache's expiry) has
# all five in one round: side by side they cost one run's time, and its runs cost time, not CPU.
QUICK_ROUNDS = ((True, True, False), (True, False))
WAITING_ROUNDS = ((True, True, True, False, False),)
TASKS_PER_RUN = 4  # tasks under way per run that may go at once: a task waits between its rounds
# A round's empty runs still going this long after its golden runs passed (and at least this many
# times the longest golden run) are not waited for before the next round is asked for
SPECULATE_AFTER = 1.0
SPECULATE_FACTOR = 2.0


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
    empty_runs: dict[str, int] = field(default_factory=dict)  # task id -> the empty answer's runs (when it ran)

    def short_runs(self) -> list[tuple[Task, int, float]]:
        """The kept tasks whose empty answer ran fewer than :data:`TARGET_RUNS` times (the budget
        held no more), with their runs and the chance those had of catching a one-in-seven pass."""
        runs = [(task, self.empty_runs[task.id]) for task in self.kept if task.id in self.empty_runs]
        return [(task, n, detection(n)) for task, n in runs if n < TARGET_RUNS]


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


Submit = Callable[[Task, str, float | None], "Future[Verdict]"]  # asks for one run of an answer under a limit (None: the manifest's)


def _at_once(evaluator: Evaluator) -> Submit:
    """Runs each answer when it is asked for, one after another (no threads)."""

    def submit(task: Task, text: str, timeout: float | None) -> Future[Verdict]:
        done: Future[Verdict] = Future()
        done.set_result(evaluator.evaluate(task, text, timeout))
        return done

    return submit


def empty_timeout(golden: list[Verdict], limit: float) -> float:
    """The empty answer's wall-clock limit: replay's rule (``reference.py``: ten times the untouched
    run, at least ``REPLAY_MIN_TIMEOUT``, at most the manifest's ``limit``), on the longest of the
    golden runs so far, the untouched program of a program task. Replay judges an answer under
    the same limit (its reference run is the golden program's), so the gate's verdict on the
    empty answer is replay's; the CPU-time limit is left to the sandbox, as replay's reference
    leaves it for programs (a warm runner's CPU time includes its own warming up)."""
    return min(limit, max(REPLAY_MIN_TIMEOUT, REPLAY_SLOWDOWN * max(v.duration_s for v in golden)))


def speculate_after(golden: list[Verdict]) -> float:
    """How long to wait for a round's empty runs, once its golden runs have all passed, before
    asking for the next round anyway: the next round is needed unless an empty run passes, and
    an empty answer that takes much longer than the golden program has usually made it hang."""
    return max(SPECULATE_AFTER, SPECULATE_FACTOR * max(v.duration_s for v in golden))


def judge_one(
    evaluator: Evaluator, task: Task, submit: Submit | None = None, waits: bool = False, limit: float = PROGRAM_TIMEOUT
) -> Task | Dropped:
    """:func:`judge`'s decision on ``task``, without the count of the empty answer's runs."""
    return judge(evaluator, task, submit, waits, limit)[0]


def judge(
    evaluator: Evaluator, task: Task, submit: Submit | None = None, waits: bool = False, limit: float = PROGRAM_TIMEOUT
) -> tuple[Task | Dropped, int]:
    """Run ``task``'s golden completion three times and the empty answer twice (then more:
    below), as far as needed, in rounds whose runs may go at once (``submit`` asks for a run;
    default: each run when asked, one after another): :data:`WAITING_ROUNDS` for a program that ``waits`` on
    itself (:func:`_waits`), else :data:`QUICK_ROUNDS`. ``limit`` is the manifest's timeout, the
    golden runs' limit; an empty run gets the rule's minimum, and one stopped there runs again
    under :func:`empty_timeout` when that is longer (as replay's ``Timeouts`` does). Returns the
    decision and how many times the empty answer ran.

    A round's golden runs are read first. When they all passed and its empty runs are still
    going after :func:`speculate_after`, the next round is asked for without waiting for them
    (an empty answer that hangs would otherwise put its whole limit between the rounds), and
    cancelled, or its verdicts left unread, if the round decides the task after all. Which runs
    are read, and the decision, are the same as one round after another.

    A task the rounds would keep then runs its empty answer again, up to the runs
    ``repetition.planned_runs`` gives it at the cost of its longest run so far: all asked for at
    once when ``submit`` is given (side by side, as a racing program shows its races more under
    load), else one after another; the first that passes drops the task as ``flaky``."""
    ask = submit or _at_once(evaluator)
    why = programs.missing(task.language)
    if why is not None:
        return Dropped(task, DropReason.TOOLCHAIN_MISSING.value, "", why), 0
    first = min(limit, REPLAY_MIN_TIMEOUT)
    rounds = WAITING_ROUNDS if waits else QUICK_ROUNDS

    def asked(n: int) -> list[Future[Verdict]]:
        return [ask(task, task.ground_truth, None) if g else ask(task, "", first) for g in rounds[n]]

    golden: list[Verdict] = []
    empty: list[Verdict] = []
    pending = asked(0)
    for n, is_golden in enumerate(rounds):
        futures, pending, later = pending, [], n + 1 < len(rounds)
        golden += [f.result() for g, f in zip(is_golden, futures, strict=True) if g]
        empty_futures = [f for g, f in zip(is_golden, futures, strict=True) if not g]
        if later and all(v.status is Status.PASS for v in golden):
            wait(empty_futures, timeout=speculate_after(golden))
            if not all(f.done() for f in empty_futures):
                pending = asked(n + 1)
        empties = [f.result() for f in empty_futures]
        stopped = [k for k, v in enumerate(empties) if v.status is Status.TIMEOUT]
        full = empty_timeout(golden, limit)
        if stopped and full > first and all(v.status is Status.PASS for v in golden):
            again = [ask(task, "", full) for _ in stopped]
            for k, future in zip(stopped, again, strict=True):
                empties[k] = future.result()
        empty += empties
        decided = _decide(task, golden, empty)
        if decided is not None:
            for future in pending:
                future.cancel()  # asked for ahead, not needed: dropped unless already going
            if isinstance(decided, Task):  # every run so far as it should be: the empty answer's other runs
                empty += _more_empty(ask, task, max(v.duration_s for v in [*golden, *empty]), (first, full), len(empty), submit is not None)
                decided = _decide(task, golden, empty)
                assert decided is not None  # the rounds' runs were enough to decide, and there are more
            return decided, len(empty)
        if later and not pending:
            pending = asked(n + 1)
    raise AssertionError("the gate's rounds always decide")  # pragma: no cover


def _more_empty(ask: Submit, task: Task, cost: float, limits: tuple[float, float], made: int, side_by_side: bool) -> list[Verdict]:
    """The empty answer's runs after the ``made`` ones of the rounds, up to ``planned_runs`` at
    ``cost`` seconds a run (the longest run so far, golden or empty: an empty answer that hangs
    costs its limit), until the first that passes; the runs asked for and not started by then are
    cancelled. ``limits``: a run's first limit, and the one a run stopped there gets again."""
    first, full = limits
    more = planned_runs(cost, PROGRAM_BUDGET) - made
    verdicts: list[Verdict] = []
    while len(verdicts) < more:
        batch = [ask(task, "", first) for _ in range(more - len(verdicts) if side_by_side else 1)]
        try:
            for future in as_completed(batch):
                verdict = future.result()
                if verdict.status is Status.TIMEOUT and full > first:
                    verdict = ask(task, "", full).result()
                verdicts.append(verdict)
                if verdict.status is Status.PASS:
                    return verdicts
        finally:
            for future in batch:
                future.cancel()  # after a pass: not needed
    return verdicts


def _decide(task: Task, golden: list[Verdict], empty: list[Verdict]) -> Task | Dropped | None:
    """The gate's decision on the runs so far (None: more runs are needed)."""
    passed = [v.status == Status.PASS for v in golden]
    if not any(passed):
        first = golden[0]
        detail = f"{first.detail}\n{_tail(first)}".strip()
        cause = machine_cause(f"{first.detail}\n{first.output_tail}")  # the whole tail: a swallowed error is printed early
        if cause is not None:
            return Dropped(task, cause.reason.value, _error(first), f"{cause.detail}\n{detail}")
        return Dropped(task, DropReason.GOLDEN_FAILS.value, _error(first), detail)
    if not all(passed):
        failed = golden[passed.index(False)]
        return Dropped(
            task,
            DropReason.FLAKY.value,
            "",
            f"the golden completion passed {sum(passed)} of {len(passed)} runs: {failed.status.value}: {failed.detail}",
        )
    empty_passed = sum(v.status == Status.PASS for v in empty)
    if empty and empty_passed == len(empty):
        return Dropped(
            task, DropReason.PASSES_EMPTY.value, "", "the program passes with the hole left empty: its checks do not reach the hole"
        )
    if empty_passed:
        return Dropped(task, DropReason.FLAKY.value, "", f"the empty answer passed {empty_passed} of {len(empty)} runs")
    if len(golden) < GOLDEN_RUNS or len(empty) < EMPTY_RUNS:
        return None
    return replace(task, validation=Validation(True, "", True, True, filler_status=empty[0].status.value))


def _waits(evaluator: Evaluator, task: Task) -> bool:
    """Whether ``task``'s program or its checks look as if they wait on themselves."""
    checks = evaluator.programs.checks(evaluator.catalog.get(task.repo), task.path)
    return waits_on_itself(evaluator.original(task).decode("utf-8", "replace")) or waits_on_itself(checks)


class _Runs:
    """Threads running the gate's runs in the order of their task's rank (the order the tasks
    should start in), not of their asking: a task's later rounds go before the first rounds of
    the tasks ranked after it, so the programs that wait, started first, also end first instead
    of trailing behind the quick ones."""

    def __init__(self, threads: int):
        self._queue: queue.PriorityQueue[tuple[int, int, Callable[[], Verdict] | None, Future[Verdict] | None]] = queue.PriorityQueue()
        self._order = itertools.count()  # ties go first come, first served (and never compare the calls)
        self._threads = [threading.Thread(target=self._work, name=f"simpilot-gate-run-{n}", daemon=True) for n in range(threads)]
        for thread in self._threads:
            thread.start()

    def submit(self, rank: int, call: Callable[[], Verdict]) -> Future[Verdict]:
        future: Future[Verdict] = Future()
        self._queue.put((rank, next(self._order), call, future))
        return future

    def _work(self) -> None:
        while True:
            _, _, call, future = self._queue.get()
            if call is None or future is None:
                return
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(call())
                except BaseException as exc:  # handed to the task waiting on it
                    future.set_exception(exc)

    def close(self) -> None:
        for _ in self._threads:
            self._queue.put((2**62, next(self._order), None, None))  # after every run asked for
        for thread in self._threads:
            thread.join()


def validate_programs(
    evaluator: Evaluator,
    tasks: list[Task],
    jobs: int = 1,
    progress: Callable[[], None] | None = None,
) -> ProgramGateReport:
    """Gate ``tasks``, as many at once as the evaluator's program runs allow (``jobs`` busy ones,
    more while they wait on themselves). Programs that look as if they wait start first, so that
    their waiting overlaps the quick ones' runs rather than trailing after them, and their runs
    go before those of tasks started later (:class:`_Runs`); the results keep the tasks' order.
    The two kinds of program have threads of their own (a lane each): runs of programs that wait,
    queued for slots that only idle cores open, would otherwise hold every thread while the slots
    kept for quick runs (``admission.py``) stood empty."""
    threads = max(1, jobs, evaluator.threads(tasks))
    waiting = {id(task): _waits(evaluator, task) for task in tasks}
    first = sorted(tasks, key=lambda task: not waiting[id(task)])  # stable: the others keep their order
    rank = {id(task): n for n, task in enumerate(first)}
    lanes = {True: _Runs(threads), False: _Runs(threads)}

    def submit(task: Task, text: str, timeout: float | None) -> Future[Verdict]:
        return lanes[waiting[id(task)]].submit(rank[id(task)], functools.partial(evaluator.evaluate, task, text, timeout))

    def one(task: Task) -> tuple[Task | Dropped, int]:
        try:
            return judge(evaluator, task, submit, waiting[id(task)], evaluator.catalog.get(task.repo).timeout)
        finally:
            if progress is not None:
                progress()

    try:
        with ThreadPoolExecutor(max(1, min(len(tasks), TASKS_PER_RUN * threads)), thread_name_prefix="simpilot-gate") as pool:
            done = dict(zip((id(task) for task in first), pool.map(one, first), strict=True))
    finally:
        for lane in lanes.values():
            lane.close()
    results = [done[id(task)][0] for task in tasks]
    kept = [r for r in results if isinstance(r, Task)]
    runs = {task.id: done[id(task)][1] for task in tasks if done[id(task)][1]}
    return ProgramGateReport(kept, [r for r in results if isinstance(r, Dropped)], preset_alterations(kept, evaluator.original), runs)
