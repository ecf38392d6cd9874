"""Would the developer have seen the answer, and how much typing would it have saved?

Pass rates say whether a model's answers are right; they do not say whether an answer reaches the
screen in time. A developer types down a file and pauses at the cursor of each task (the start of
the hole). The editor sends a request once typing has paused for the debounce, and the answer
arrives ``latency`` after that. It is shown only if it arrives before the developer's next
keystroke, that is when ``debounce + latency <= pause``; if the developer types on first, the
editor cancels the request and shows nothing. When a latency budget is given instead, the rule is
simply ``latency <= budget`` (the budget is the team's own threshold, the debounce already inside it).

A shown answer is *accepted* when it passes its tests (the default: the developer keeps what works)
or, switchable, when its first line equals the ground truth's first line (what a developer judges
at a glance before pressing Tab). Keystrokes saved count only what was shown: the characters of
the answer that match the ground truth from the start, up to the first difference, since a
developer who takes a suggestion keeps its correct beginning and retypes from where it goes wrong.

:func:`budget_curve` answers "how fast must the model be": one summary per budget from a single
sort of the latencies, so a dense curve over thousands of tasks costs about as much as one
simulation. Everything here is pure and uses the standard library only.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

Acceptance = Literal["pass", "first_line"]
LatencyMeasure = Literal["total", "first_token"]

DEFAULT_BUDGETS_MS: tuple[float, ...] = (100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000)


@dataclass(frozen=True, slots=True)
class ClockSettings:
    """How the simulated developer types and judges.

    ``chars_per_second`` turns keystrokes saved into seconds saved (5 characters a second is a
    steady typist writing code, pauses for thought not included). ``budget_ms`` of None means the
    pause rule decides what is shown; a number replaces it with ``latency <= budget``.
    ``latency`` picks what the clock measures: the whole answer (``"total"``), or its first token
    (``"first_token"``), for editors that show a streamed answer as it arrives.
    """

    chars_per_second: float = 5.0
    debounce_ms: float = 75.0
    pause_ms: float = 500.0
    budget_ms: float | None = None
    acceptance: Acceptance = "pass"
    latency: LatencyMeasure = "total"

    def __post_init__(self) -> None:
        if not self.chars_per_second > 0:
            raise ValueError(f"the typing speed must be positive (chars_per_second = {self.chars_per_second})")
        for field, value in (("debounce_ms", self.debounce_ms), ("pause_ms", self.pause_ms), ("budget_ms", self.budget_ms)):
            if value is not None and not value >= 0:
                raise ValueError(f"{field} must be a non-negative number of milliseconds ({field} = {value})")
        if self.acceptance not in get_args(Acceptance):
            raise ValueError(f"acceptance must be one of {', '.join(get_args(Acceptance))} (acceptance = {self.acceptance!r})")
        if self.latency not in get_args(LatencyMeasure):
            raise ValueError(f"latency must be one of {', '.join(get_args(LatencyMeasure))} (latency = {self.latency!r})")


@dataclass(frozen=True, slots=True)
class TaskInput:
    """One task's answer and timing, as the store records them.

    ``answer`` is None when the request failed. ``first_token_ms`` is None when the endpoint did
    not report it (a non-streaming answer); the total latency then stands in for it, and the
    summary counts how often that happened so a first-token figure is not mistaken for a measured one.
    """

    task_id: str
    answer: str | None
    truth: str
    passed: bool
    latency_ms: float
    first_token_ms: float | None = None

    def __post_init__(self) -> None:
        for field, value in (("latency_ms", self.latency_ms), ("first_token_ms", self.first_token_ms)):
            if value is not None and not value >= 0:
                raise ValueError(f"task {self.task_id!r}: {field} must be a non-negative number of milliseconds ({field} = {value})")


@dataclass(frozen=True, slots=True)
class TaskResult:
    """What the developer saw of one task.

    ``cancelled`` and ``shown`` exclude each other; a task that is neither arrived in time with
    nothing to show (a failed request or an empty answer). ``latency_ms`` is the latency the clock
    used (first-token or total), ``first_token_missing`` whether a first-token clock had to fall
    back to the total. ``truth_chars`` is carried so a summary needs the results alone.
    """

    task_id: str
    shown: bool
    cancelled: bool
    accepted: bool
    chars_accepted: int
    keystrokes_saved: int
    truth_chars: int
    latency_ms: float
    first_token_missing: bool


@dataclass(frozen=True, slots=True)
class ClockSummary:
    """Counts and rates over a set of tasks under one timing rule.

    ``budget_ms`` is the budget the summary was computed under (None: the pause rule). Rates over
    all tasks are 0.0 for no tasks, a plain figure where NaN would travel silently into charts;
    ``accepted_per_shown`` is None when nothing was shown, since no share of nothing is meaningful.
    ``keystrokes_saved_share`` is keystrokes saved over the ground truths' characters: the share
    of the typing the assistant would have done.
    """

    budget_ms: float | None
    tasks: int
    shown: int
    cancelled: int
    unanswered: int
    accepted: int
    shown_rate: float
    acceptance_rate: float
    accepted_per_shown: float | None
    chars_accepted: int
    keystrokes_saved: int
    truth_chars: int
    keystrokes_saved_share: float
    seconds_saved: float
    first_token_missing: int


def first_line(text: str) -> str:
    """The text up to its first newline, trailing whitespace removed (a ``\\r`` of CRLF included)."""
    return text.split("\n", 1)[0].rstrip()


def common_prefix_length(answer: str, truth: str) -> int:
    """How many characters ``answer`` and ``truth`` share from the start (Python characters, i.e.
    code points, so an emoji counts as one keystroke, not two UTF-16 units)."""
    for i, (a, b) in enumerate(zip(answer, truth, strict=False)):
        if a != b:
            return i
    return min(len(answer), len(truth))


def clock_latency(task: TaskInput, settings: ClockSettings) -> tuple[float, bool]:
    """The latency the clock uses for ``task`` and whether a first-token time was asked for but
    missing (the total then stands in: an upper bound on the first token)."""
    if settings.latency == "first_token":
        if task.first_token_ms is None:
            return task.latency_ms, True
        return task.first_token_ms, False
    return task.latency_ms, False


def in_time(latency_ms: float, settings: ClockSettings) -> bool:
    """Whether an answer with this latency arrives before the developer types on (equality counts
    as in time: the answer is on screen at the instant of the keystroke)."""
    if settings.budget_ms is not None:
        return latency_ms <= settings.budget_ms
    return settings.debounce_ms + latency_ms <= settings.pause_ms


def _accepted(task: TaskInput, settings: ClockSettings) -> bool:
    """Whether a shown, non-empty answer is taken, under the settings' acceptance rule."""
    if settings.acceptance == "first_line":
        return task.answer is not None and first_line(task.answer) == first_line(task.truth)
    return task.passed


@dataclass(frozen=True, slots=True)
class _IfShown:
    """A task's outcome should its answer arrive in time: it depends on the text, not the clock,
    so the budget curve computes it once per task."""

    suggestion: bool
    accepted: bool
    chars_accepted: int
    keystrokes_saved: int


def _if_shown(task: TaskInput, settings: ClockSettings) -> _IfShown:
    if not task.answer:  # a failed request or an empty answer: nothing appears on screen
        return _IfShown(False, False, 0, 0)
    accepted = _accepted(task, settings)
    return _IfShown(True, accepted, len(task.answer) if accepted else 0, common_prefix_length(task.answer, task.truth))


def simulate_task(task: TaskInput, settings: ClockSettings) -> TaskResult:
    """What the developer saw of one task under ``settings``."""
    latency, missing = clock_latency(task, settings)
    arrived = in_time(latency, settings)
    outcome = _if_shown(task, settings) if arrived else _IfShown(False, False, 0, 0)
    return TaskResult(
        task_id=task.task_id,
        shown=outcome.suggestion,
        cancelled=not arrived,
        accepted=outcome.accepted,
        chars_accepted=outcome.chars_accepted,
        keystrokes_saved=outcome.keystrokes_saved,
        truth_chars=len(task.truth),
        latency_ms=latency,
        first_token_missing=missing,
    )


def simulate(tasks: Iterable[TaskInput], settings: ClockSettings) -> list[TaskResult]:
    """:func:`simulate_task` for every task, in order."""
    return [simulate_task(task, settings) for task in tasks]


def _summary(
    settings: ClockSettings,
    *,
    budget_ms: float | None,
    tasks: int,
    shown: int,
    cancelled: int,
    accepted: int,
    chars_accepted: int,
    keystrokes_saved: int,
    truth_chars: int,
    first_token_missing: int,
) -> ClockSummary:
    """The one place rates are derived from counts, so a curve point and a direct summary agree."""
    return ClockSummary(
        budget_ms=budget_ms,
        tasks=tasks,
        shown=shown,
        cancelled=cancelled,
        unanswered=tasks - shown - cancelled,
        accepted=accepted,
        shown_rate=shown / tasks if tasks else 0.0,
        acceptance_rate=accepted / tasks if tasks else 0.0,
        accepted_per_shown=accepted / shown if shown else None,
        chars_accepted=chars_accepted,
        keystrokes_saved=keystrokes_saved,
        truth_chars=truth_chars,
        keystrokes_saved_share=keystrokes_saved / truth_chars if truth_chars else 0.0,
        seconds_saved=keystrokes_saved / settings.chars_per_second,
        first_token_missing=first_token_missing,
    )


def summarise(results: Sequence[TaskResult], settings: ClockSettings) -> ClockSummary:
    """Counts and rates over the results of :func:`simulate` under the same ``settings``."""
    return _summary(
        settings,
        budget_ms=settings.budget_ms,
        tasks=len(results),
        shown=sum(1 for r in results if r.shown),
        cancelled=sum(1 for r in results if r.cancelled),
        accepted=sum(1 for r in results if r.accepted),
        chars_accepted=sum(r.chars_accepted for r in results),
        keystrokes_saved=sum(r.keystrokes_saved for r in results),
        truth_chars=sum(r.truth_chars for r in results),
        first_token_missing=sum(1 for r in results if r.first_token_missing),
    )


def _running(values: Iterable[int]) -> list[int]:
    """Prefix sums with a leading 0: ``out[k]`` is the sum of the first ``k`` values."""
    return list(itertools.accumulate(values, initial=0))


def budget_curve(
    tasks: Sequence[TaskInput], settings: ClockSettings, budgets_ms: Sequence[float] = DEFAULT_BUDGETS_MS
) -> list[ClockSummary]:
    """One summary per budget, in the order given: how shown rate, acceptance, characters
    accepted and keystrokes saved grow as the team tolerates slower answers.

    Under a budget the tasks in time are exactly those whose latency is at most the budget, so
    after one sort by latency every budget is a binary search into prefix sums of the per-task
    outcomes. The settings' own ``budget_ms``, debounce and pause play no part; the acceptance
    rule, latency measure and typing speed do. Each point equals :func:`summarise` of
    :func:`simulate` with that budget.
    """
    for budget in budgets_ms:
        if not budget >= 0:
            raise ValueError(f"budgets must be non-negative numbers of milliseconds (got {budget})")
    timed = sorted(((*clock_latency(task, settings), _if_shown(task, settings)) for task in tasks), key=lambda t: t[0])
    latencies = [latency for latency, _, _ in timed]
    outcomes = [outcome for _, _, outcome in timed]
    shown = _running(int(o.suggestion) for o in outcomes)
    accepted = _running(int(o.accepted) for o in outcomes)
    chars = _running(o.chars_accepted for o in outcomes)
    saved = _running(o.keystrokes_saved for o in outcomes)
    truth_chars = sum(len(task.truth) for task in tasks)
    missing = sum(1 for _, lacks, _ in timed if lacks)
    curve = []
    for budget in budgets_ms:
        k = bisect.bisect_right(latencies, budget)  # tasks with latency <= budget
        curve.append(
            _summary(
                settings,
                budget_ms=budget,
                tasks=len(timed),
                shown=shown[k],
                cancelled=len(timed) - k,
                accepted=accepted[k],
                chars_accepted=chars[k],
                keystrokes_saved=saved[k],
                truth_chars=truth_chars,
                first_token_missing=missing,
            )
        )
    return curve
