"""Comparing runs that differ in how they asked: the context strategy, above all
(``simpilot compare RUN RUN…``).

``simpilot replay --context A --context B`` makes one run per strategy, each asking the same model
about the same tasks with a different prompt. Which strategy helps is the question presets ask of
post-processing, and it gets the same answer: per preset, each run's pass rate with a Wilson
interval, and the paired difference to the first run with the exact McNemar p-value — overall
and per stratum (reference distance says whether context that reaches further helps where the
answer needs far-away names). Beside it, what each run's prompts cost: the stored prompt records'
tokens and build times. Everything is read from the store; nothing is run again.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console

from replay.core.errors import SimpilotError
from replay.core.records import Outcome, Task
from replay.reports.comparison import Comparison, Series, compare, pair_tasks
from replay.reports.strata import cutoffs
from replay.reports.text_tables import Table
from replay.scoring.stats import wilson
from replay.store import RunInfo, Store


@dataclass(frozen=True, slots=True)
class RunRow:
    """One run under one preset."""

    run_id: str
    strategy: str  # the context strategy's name and budget, or how the run built its prompts
    tasks: int
    passed: int
    interval: tuple[float, float]
    prompt_tokens: float | None  # the median tokens of the stored prompt records (None: none stored)
    build_ms_p95: float | None

    @property
    def rate(self) -> float:
        return self.passed / self.tasks if self.tasks else 0.0


@dataclass(frozen=True, slots=True)
class PresetComparison:
    preset: str
    rows: tuple[RunRow, ...]
    against_first: tuple[Comparison, ...]  # each later run against the first, task by task


@dataclass(frozen=True, slots=True)
class RunsComparison:
    runs: tuple[str, ...]
    presets: tuple[PresetComparison, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "runs": list(self.runs),
            "presets": [
                {
                    "preset": p.preset,
                    "runs": [
                        {
                            "run": r.run_id,
                            "strategy": r.strategy,
                            "tasks": r.tasks,
                            "passed": r.passed,
                            "rate": r.rate,
                            "interval": list(r.interval),
                            "prompt_tokens_median": r.prompt_tokens,
                            "build_ms_p95": r.build_ms_p95,
                        }
                        for r in p.rows
                    ],
                    "against_first": [
                        {
                            "run": c.second.run_id,
                            "paired": c.paired,
                            "summary": c.summary,
                            "strata": [
                                {
                                    "dimension": s.dimension,
                                    "value": s.value,
                                    "n": s.n,
                                    "passed_first": s.passed_first,
                                    "passed_second": s.passed_second,
                                    "newly_pass": s.only_second,
                                    "newly_fail": s.only_first,
                                    "p_value": s.p_value,
                                    "small": s.small,
                                }
                                for s in c.strata
                            ],
                        }
                        for c in p.against_first
                    ],
                }
                for p in self.presets
            ],
        }


def strategy_of(info: RunInfo) -> str:
    """How a run built its prompts, in words: its context strategy and budget when it had one,
    else the adapter's own prompt (SimCopilot's for chat, the window for FIM)."""
    context = (info.config or {}).get("context")
    if not context:
        return "the adapter's own prompt"
    name, budget = str(context.get("name") or "?"), context.get("budget")
    return name if ":" in name or budget is None else f"{name}:{budget}"


def compare_runs(store: Store, run_ids: Sequence[str], presets: Sequence[str] = ()) -> RunsComparison:
    """The runs side by side under each preset (default: every preset all of them stored)."""
    infos = []
    for run_id in run_ids:
        info = store.run(run_id)
        if info is None:
            raise SimpilotError(f"no run {run_id!r} in the results database: 'simpilot report' lists the runs")
        infos.append(info)
    stored = [set(store.presets(r)) | set(info.presets) for r, info in zip(run_ids, infos, strict=True)]
    common = [p for p in infos[0].presets if all(p in s for s in stored)]
    chosen = list(presets) or common
    for preset in chosen:
        missing = [r for r, s in zip(run_ids, stored, strict=True) if preset not in s]
        if missing:
            raise SimpilotError(
                f"run {missing[0]!r} has no outcomes under preset {preset!r}: judge them first with "
                f"'simpilot compare {missing[0]} -p {preset}', or leave the preset out"
            )
    if not chosen:
        raise SimpilotError("the runs have no preset in common: give one with -p")
    tasks = {r: {t.id: t for t in store.tasks(r)} for r in run_ids}
    outcomes = {r: store.outcomes(r) for r in run_ids}
    prompts = {r: [c.prompt for c in store.completions(r).values() if c.prompt is not None] for r in run_ids}
    shared, differing = pair_tasks(tasks[run_ids[0]], tasks[run_ids[-1]])
    for other in run_ids[1:-1]:
        shared, more = pair_tasks({t.id: t for t in shared}, tasks[other])
        differing += more
    cut = cutoffs(shared)
    out = []
    for preset in chosen:
        by_run = {r: {o.task_id: o for o in outcomes[r] if o.postprocess == preset} for r in run_ids}
        rows = tuple(_row(r, info, shared, by_run[r], prompts[r]) for r, info in zip(run_ids, infos, strict=True))
        first = Series(run_ids[0], infos[0].model, preset)
        against = tuple(
            compare(first, Series(r, info.model, preset), shared, by_run[run_ids[0]], by_run[r], cut, differing)
            for r, info in zip(run_ids[1:], infos[1:], strict=True)
        )
        out.append(PresetComparison(preset, rows, against))
    return RunsComparison(tuple(run_ids), tuple(out))


def _row(run_id: str, info: RunInfo, tasks: Sequence[Task], outcomes: dict[str, Outcome], prompts: list[Any]) -> RunRow:
    judged = [outcomes[t.id] for t in tasks if t.id in outcomes]
    passed = sum(o.passed for o in judged)
    tokens = statistics.median(p.tokens for p in prompts) if prompts else None
    builds = sorted(p.build_ms for p in prompts)
    p95 = builds[min(len(builds) - 1, int(0.95 * len(builds)))] if builds else None
    return RunRow(run_id, strategy_of(info), len(judged), passed, wilson(passed, len(judged)), tokens, p95)


def render(result: RunsComparison, console: Console) -> None:
    """Per preset: the runs' pass rates and prompt costs, then each run against the first."""
    for p in result.presets:
        table = Table(title=f"preset {p.preset}: runs side by side", title_justify="left")
        for name, justify in (("run", "left"), ("strategy", "left"), ("pass", "right"), ("95% CI", "right"), ("tokens", "right")):
            table.add_column(name, justify=justify, overflow="fold")  # type: ignore[arg-type]
        for r in p.rows:
            low, high = r.interval
            tokens = "–" if r.prompt_tokens is None else f"{r.prompt_tokens:,.0f}"
            table.add_row(r.run_id, r.strategy, f"{r.passed}/{r.tasks}", f"{100 * low:.1f}–{100 * high:.1f}%", tokens)
        console.print(table)
        for c in p.against_first:
            console.print(c.summary, soft_wrap=False)
            reference = [s for s in c.strata if s.dimension == "reference distance" and s.n]
            if reference:
                console.print(
                    "  by reference distance: "
                    + "; ".join(
                        f"{s.value} {s.passed_first}→{s.passed_second}/{s.n} (p = {s.p_value:.3g}{', small' if s.small else ''})"
                        for s in reference
                    )
                )
        console.print()
