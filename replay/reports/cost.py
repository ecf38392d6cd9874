"""What a model's answers cost, per task and per useful result.

Two kinds of price cover the ways teams pay for a completion model: a hosted API bills tokens
(``input_per_mtok`` and ``output_per_mtok``, currency units per million prompt and answer tokens),
and a self-hosted model costs its GPU's hourly price (``per_hour``) for as long as it is busy. The
hourly figure charges each request its own latency, as if the GPU served one request at a time:
an upper bound for a server that batches, and the honest figure for one that does not.

Cost per task alone favours a cheap model that is rarely right, so the summary also divides the
total by what the money bought: passing completions, and characters the developer accepted (from
replay/reports/editor_clock.py). Those are None when nothing was bought, not infinity or NaN.
Everything here is pure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from replay.config.price import Price, PriceKind


def _check_count(name: str, value: float) -> None:
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a non-negative number (got {value})")


def request_cost(
    price: Price, *, prompt_tokens: int | None = None, answer_tokens: int | None = None, seconds: float | None = None
) -> float:
    """The cost of one request: ``(prompt × input + answer × output) / 1e6`` under token prices,
    ``seconds × per_hour / 3600`` under an hourly price. The figure the price needs must be given
    (a token price cannot be guessed from a latency, nor the reverse); the other is ignored.
    """
    if price.per_hour is not None:
        if seconds is None:
            raise ValueError("an hourly price needs the request's busy seconds")
        _check_count("seconds", seconds)
        return seconds * price.per_hour / 3600.0
    if prompt_tokens is None or answer_tokens is None:
        raise ValueError("token prices need the request's prompt and answer token counts")
    _check_count("prompt_tokens", prompt_tokens)
    _check_count("answer_tokens", answer_tokens)
    assert price.input_per_mtok is not None and price.output_per_mtok is not None  # guaranteed by Price
    return (prompt_tokens * price.input_per_mtok + answer_tokens * price.output_per_mtok) / 1_000_000


@dataclass(frozen=True, slots=True)
class CostInput:
    """One task's request as the cost needs it: token counts (for token prices) or the busy time
    (for an hourly price), whether it passed, and the characters the developer accepted
    (``TaskResult.chars_accepted`` of replay/reports/editor_clock.py; 0 when not simulated)."""

    task_id: str
    prompt_tokens: int | None
    answer_tokens: int | None
    latency_ms: float | None
    passed: bool
    chars_accepted: int = 0


@dataclass(frozen=True, slots=True)
class CostSummary:
    """Total cost and what it bought. ``per_task`` is None for no tasks; ``per_passing`` when
    nothing passed; ``per_accepted_char`` when no character was accepted."""

    currency: str
    kind: PriceKind
    tasks: int
    total: float
    per_task: float | None
    passing: int
    per_passing: float | None
    chars_accepted: int
    per_accepted_char: float | None


def task_cost(price: Price, task: CostInput) -> float:
    """:func:`request_cost` of one task, with the task named in any error."""
    seconds = None if task.latency_ms is None else task.latency_ms / 1000.0
    try:
        return request_cost(price, prompt_tokens=task.prompt_tokens, answer_tokens=task.answer_tokens, seconds=seconds)
    except ValueError as exc:
        raise ValueError(f"task {task.task_id!r}: {exc}") from None


def summarise_cost(price: Price, tasks: Sequence[CostInput]) -> CostSummary:
    """The cost of every task's request, and that total divided by tasks, passing completions and
    accepted characters."""
    total = sum(task_cost(price, task) for task in tasks)
    passing = sum(1 for task in tasks if task.passed)
    chars = sum(task.chars_accepted for task in tasks)
    return CostSummary(
        currency=price.currency,
        kind=price.kind,
        tasks=len(tasks),
        total=total,
        per_task=total / len(tasks) if tasks else None,
        passing=passing,
        per_passing=total / passing if passing else None,
        chars_accepted=chars,
        per_accepted_char=total / chars if chars else None,
    )
