"""Tables of the model-free context measures: identifier recall, tokens and build time per
strategy and budget, overall and by the report's strata (reference distance above all: a name
defined far from the hole is exactly what a window misses).

Recall is averaged over the tasks whose ground truth uses at least one repository name; the
others are counted (``no names``), never scored as 0 or 1. Build times are per request, the
repository's index already built (its one-off cost is shown apart).
"""

from __future__ import annotations

import html
import math
import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console

from replay.core.records import Task
from replay.reports.strata import SMALL_STRATUM, cutoffs, memberships, ordered_values
from replay.reports.text_tables import Table

TEXT_DIMENSIONS = ("headline", "reference distance")


@dataclass(frozen=True, slots=True)
class ContextRow:
    """One task's context under one strategy at one budget."""

    task: Task
    strategy: str
    budget: int
    tokenizer: str
    names: tuple[str, ...]  # repository names the ground truth uses
    found: tuple[str, ...]  # those whose definition is in the context
    tokens: int
    parts: dict[str, int]
    build_ms: float

    @property
    def recall(self) -> float | None:
        return len(self.found) / len(self.names) if self.names else None


@dataclass(frozen=True, slots=True)
class Cell:
    """The measures of one strategy at one budget over some tasks."""

    strategy: str
    budget: int
    tasks: int
    scored: int  # tasks with at least one repository name
    recall: float | None
    tokens: float
    median_ms: float
    p95_ms: float

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__slots__}


def p95(values: Sequence[float]) -> float:
    """The 95th percentile, nearest rank (a p95 of 20 values is the 19th)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)] if ordered else 0.0


def cell(strategy: str, budget: int, rows: Sequence[ContextRow]) -> Cell:
    scored = [r.recall for r in rows if r.recall is not None]
    times = [r.build_ms for r in rows]
    return Cell(
        strategy,
        budget,
        len(rows),
        len(scored),
        statistics.fmean(scored) if scored else None,
        statistics.fmean(r.tokens for r in rows) if rows else 0.0,
        statistics.median(times) if times else 0.0,
        p95(times),
    )


def strategies_and_budgets(rows: Sequence[ContextRow]) -> tuple[list[str], list[int]]:
    return list(dict.fromkeys(r.strategy for r in rows)), sorted({r.budget for r in rows})


def overall(rows: Sequence[ContextRow]) -> list[Cell]:
    """One cell per (strategy, budget), in the order the strategies were given."""
    groups: dict[tuple[str, int], list[ContextRow]] = defaultdict(list)
    for r in rows:
        groups[r.strategy, r.budget].append(r)
    names, budgets = strategies_and_budgets(rows)
    return [cell(s, b, groups[s, b]) for s in names for b in budgets if groups[s, b]]


def by_stratum(rows: Sequence[ContextRow]) -> dict[str, dict[str, list[Cell]]]:
    """dimension -> value -> the cells of that stratum (strata as ``replay report`` cuts them)."""
    cut = cutoffs({r.task.id: r.task for r in rows}.values())
    groups: dict[tuple[str, str], list[ContextRow]] = defaultdict(list)
    for r in rows:
        for dimension, value in memberships(r.task, cut):
            groups[dimension, value].append(r)
    out: dict[str, dict[str, list[Cell]]] = {}
    for dimension in dict.fromkeys(d for d, _ in groups):
        values = ordered_values(dimension, [v for d, v in groups if d == dimension])
        out[dimension] = {v: overall(groups[dimension, v]) for v in values}
    return out


def index_note(index_ms: Mapping[str, float]) -> str:
    if not index_ms:
        return ""
    parts = ", ".join(f"{repo} {ms:.0f} ms" for repo, ms in sorted(index_ms.items()))
    return f"per-repository index, built once: {parts}"


def tokenizers(rows: Sequence[ContextRow]) -> list[str]:
    return list(dict.fromkeys(r.tokenizer for r in rows))


def to_json(rows: Sequence[ContextRow], index_ms: Mapping[str, float]) -> dict[str, Any]:
    return {
        "tokens_counted_by": tokenizers(rows),
        "index_ms": dict(index_ms),
        "overall": [c.to_json() for c in overall(rows)],
        "strata": {d: {v: [c.to_json() for c in cells] for v, cells in values.items()} for d, values in by_stratum(rows).items()},
        "tasks": [
            {
                "task": r.task.id,
                "strategy": r.strategy,
                "budget": r.budget,
                "names": list(r.names),
                "found": list(r.found),
                "recall": r.recall,
                "tokens": r.tokens,
                "parts": r.parts,
                "build_ms": round(r.build_ms, 3),
            }
            for r in rows
        ],
    }


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _budget(b: int) -> str:
    return f"{b // 1024}k" if b % 1024 == 0 else str(b)


def recall_markdown(rows: Sequence[ContextRow]) -> str:
    """The headline table: recall per strategy at each budget, and build time per request."""
    names, budgets = strategies_and_budgets(rows)
    cells = {(c.strategy, c.budget): c for c in overall(rows)}
    header = (
        "| strategy | "
        + " | ".join(f"recall @{_budget(b)}" for b in budgets)
        + " | tokens @"
        + _budget(budgets[-1])
        + " | build ms (median / p95) |"
    )
    lines = [header, "|---|" + "---:|" * (len(budgets) + 2)]
    for s in names:
        times = [r.build_ms for r in rows if r.strategy == s]
        recalls = " | ".join(_pct(cells[s, b].recall) if (s, b) in cells else "–" for b in budgets)
        last = cells.get((s, budgets[-1]))
        tokens = f"{last.tokens:.0f}" if last else "–"
        lines.append(f"| `{s}` | {recalls} | {tokens} | {statistics.median(times):.2f} / {p95(times):.2f} |")
    return "\n".join(lines)


def render(rows: Sequence[ContextRow], index_ms: Mapping[str, float], console: Console) -> None:
    names, budgets = strategies_and_budgets(rows)
    tasks = len({r.task.id for r in rows})
    scored = len({r.task.id for r in rows if r.names})
    console.print(
        f"{tasks} task(s), {scored} whose ground truth uses a repository name (recall is their mean); tokens: {'; '.join(tokenizers(rows))}"
    )
    table = Table(title="identifier recall, tokens spent and build time per request")
    for column in ("strategy", "budget", "recall", "tokens", "ms p50", "ms p95"):
        table.add_column(column, justify="left" if column == "strategy" else "right")
    for c in overall(rows):
        table.add_row(c.strategy, str(c.budget), _pct(c.recall), f"{c.tokens:.0f}", f"{c.median_ms:.2f}", f"{c.p95_ms:.2f}")
    console.print(table)
    strata = by_stratum(rows)
    for dimension in TEXT_DIMENSIONS:
        for budget in budgets:
            table = Table(title=f"identifier recall by {dimension}, budget {budget}")
            table.add_column(dimension)
            table.add_column("tasks", justify="right")
            for s in names:
                table.add_column(s, justify="right")
            for value, cells in strata.get(dimension, {}).items():
                mine = {c.strategy: c for c in cells if c.budget == budget}
                if not mine:
                    continue
                first = next(iter(mine.values()))
                flag = " (small)" if first.scored < SMALL_STRATUM else ""
                table.add_row(value, f"{first.scored}{flag}", *(_pct(mine[s].recall) if s in mine else "–" for s in names))
            console.print(table)
    if index_ms:
        console.print(index_note(index_ms))


_STYLE = "body{font:14px sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}.bar{background:#4a7;height:10px;display:inline-block}"


def page(rows: Sequence[ContextRow], index_ms: Mapping[str, float]) -> str:
    """A self-contained HTML page (no script, no request) with every table."""
    esc = html.escape
    names, budgets = strategies_and_budgets(rows)
    out = [
        "<!doctype html><meta charset=utf-8>",
        "<meta http-equiv=Content-Security-Policy content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>simpilot context strategies</title><style>{_STYLE}</style><h1>Context strategies</h1>",
        f"<p>{len({r.task.id for r in rows})} tasks; tokens: {esc('; '.join(tokenizers(rows)))}. {esc(index_note(index_ms))}</p>",
        "<h2>Identifier recall, tokens and build time</h2><table><tr><th>strategy<th>budget<th>recall<th><th>tokens<th>ms p50<th>ms p95",
    ]
    for c in overall(rows):
        width = int(100 * (c.recall or 0))
        out.append(
            f"<tr><td>{esc(c.strategy)}<td>{c.budget}<td>{_pct(c.recall)}<td><span class=bar style='width:{width}px'></span>"
            f"<td>{c.tokens:.0f}<td>{c.median_ms:.2f}<td>{c.p95_ms:.2f}"
        )
    out.append("</table>")
    for dimension, values in by_stratum(rows).items():
        if dimension == "all":
            continue
        for budget in budgets:
            out.append(f"<h3>Recall by {esc(dimension)}, budget {budget}</h3><table><tr><th>{esc(dimension)}<th>tasks")
            out.append("".join(f"<th>{esc(s)}" for s in names))
            for value, cells in values.items():
                mine = {c.strategy: c for c in cells if c.budget == budget}
                if mine:
                    first = next(iter(mine.values()))
                    flag = " (small)" if first.scored < SMALL_STRATUM else ""
                    out.append(
                        f"<tr><td>{esc(value)}<td>{first.scored}{flag}"
                        + "".join(f"<td>{_pct(mine[s].recall) if s in mine else '–'}" for s in names)
                    )
            out.append("</table>")
    return "\n".join(out)
