"""The decision scoreboard: is the model right, is it fast enough to be shown before the developer
types on, and what does it cost — per model and preset, side by side, from stored runs.

For each task the first answer (sample 0) after the preset counts, with its verdict and how its
request went: the bridge's measured timing (``records.Timing``: time to the first token of a
streamed answer, time to the last byte, token counts) or, for a model that does not time itself,
the client's round trip as the total and no first token. From that, per model and preset:

* pass@1, and the first-token and total latencies (p50, p90), also by the answer's line count
  (Cody reports latency by lines completed: a long answer takes longer and is worth more);
* the simulated editor clock (``editor_clock.py``): how many answers would be shown before the
  developer types on, how many accepted, the keystrokes they save, and the whole budget curve;
* the cost (``cost.py``) of a task, of a passing completion and of an accepted character, when
  ``models.toml`` gives the model a price (token prices need token counts: a run whose model did
  not time itself has none, and no cost);
* the Pareto front: the rows no other row beats on pass@1 without losing on latency (or, when
  every row has a price, cost per passing completion).

Every figure is recomputed here from the stored records; nothing is stored but what the run stored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from replay.config.price import Price
from replay.core.errors import SimpilotError
from replay.reports.cost import CostInput, CostSummary, summarise_cost
from replay.reports.editor_clock import DEFAULT_BUDGETS_MS, ClockSettings, ClockSummary, TaskInput, budget_curve, simulate, summarise
from replay.reports.html_text import esc, html_table
from replay.reports.model_runs import shown_model
from replay.store import Store

LINE_GROUPS = (("1 line", 1, 1), ("2-5 lines", 2, 5), ("6+ lines", 6, 10**9))


@dataclass(frozen=True, slots=True)
class Request:
    """One task's request in a run, as the scoreboard needs it."""

    task_id: str
    answer: str | None  # after the preset; None when the request failed
    truth: str
    passed: bool
    latency_ms: float  # the total wait: the bridge's timing, else the client's round trip
    first_token_ms: float | None
    prompt_tokens: int | None
    answer_tokens: int | None
    tokens: str  # where the counts come from: "usage", "estimate", "" (none)
    replayed: bool  # the timing is a recording's (or the raw-output store's), not measured now

    @property
    def lines(self) -> int:
        return len(self.answer.splitlines()) if self.answer else 0


@dataclass(frozen=True, slots=True)
class Latency:
    """p50 and p90 of some requests' latencies (None: no request had one)."""

    n: int
    p50: float | None
    p90: float | None


@dataclass(frozen=True, slots=True)
class ScoreRow:
    model: str
    run_id: str
    preset: str
    tasks: int
    pass_at_1: float
    first_token: Latency  # streamed answers only
    total: Latency
    by_lines: dict[str, Latency]  # LINE_GROUPS' names
    clock: ClockSummary
    curve: list[ClockSummary]
    cost: CostSummary | None
    tokens: str  # "usage", "estimate", "mixed" or "" over the run's requests
    replayed: bool  # every timing is a recording's
    front: bool = False


@dataclass(frozen=True, slots=True)
class Scoreboard:
    rows: list[ScoreRow]
    settings: ClockSettings
    budgets: list[float] = field(default_factory=list)


def latency(values: Sequence[float]) -> Latency:
    """p50 and p90, linear between the nearest ranks (numpy's default)."""
    if not values:
        return Latency(0, None, None)
    p50, p90 = np.percentile(np.asarray(values, dtype=float), [50, 90])
    return Latency(len(values), float(p50), float(p90))


def score_row(
    model: str,
    run_id: str,
    preset: str,
    requests: Sequence[Request],
    settings: ClockSettings,
    price: Price | None,
    budgets: Sequence[float],
) -> ScoreRow:
    """One model and preset's row (pure)."""
    inputs = [TaskInput(r.task_id, r.answer, r.truth, r.passed, r.latency_ms, r.first_token_ms) for r in requests]
    results = simulate(inputs, settings)
    cost = None
    answered = [r for r in requests if r.answer is not None]
    countable = all(r.prompt_tokens is not None and r.answer_tokens is not None for r in answered)
    if price is not None and (price.kind == "hourly" or countable):  # a failed request asked for nothing countable
        costs = [
            CostInput(r.task_id, r.prompt_tokens or 0, r.answer_tokens or 0, r.latency_ms, r.passed, result.chars_accepted)
            for r, result in zip(requests, results, strict=True)
        ]
        cost = summarise_cost(price, costs)
    sources = {r.tokens for r in requests if r.answer is not None}
    by_lines = {
        name: latency([r.latency_ms for r in requests if r.answer is not None and low <= r.lines <= high])
        for name, low, high in LINE_GROUPS
    }
    return ScoreRow(
        model=model,
        run_id=run_id,
        preset=preset,
        tasks=len(requests),
        pass_at_1=sum(r.passed for r in requests) / len(requests) if requests else 0.0,
        first_token=latency([r.first_token_ms for r in requests if r.first_token_ms is not None]),
        total=latency([r.latency_ms for r in requests if r.answer is not None]),
        by_lines=by_lines,
        clock=summarise(results, settings),
        curve=budget_curve(inputs, settings, budgets),
        cost=cost,
        tokens=sources.pop() if len(sources) == 1 else ("mixed" if sources else ""),
        replayed=bool(requests) and all(r.replayed for r in requests),
    )


def pareto(rows: Sequence[ScoreRow]) -> list[ScoreRow]:
    """``rows`` with ``front`` set on those no other row dominates: at least as good on pass@1,
    p50 total latency and (when every row has one) cost per passing completion, better on one."""
    with_cost = all(r.cost is not None and r.cost.per_passing is not None for r in rows)

    def goals(r: ScoreRow) -> tuple[float, ...]:  # all to be made larger
        speed = -(r.total.p50 if r.total.p50 is not None else float("inf"))
        cost = -(r.cost.per_passing or 0.0) if with_cost and r.cost is not None else 0.0
        return (r.pass_at_1, speed, cost)

    def dominated(r: ScoreRow) -> bool:
        mine = goals(r)
        for other in rows:
            theirs = goals(other)
            if other is not r and all(t >= m for t, m in zip(theirs, mine, strict=True)) and theirs != mine:
                return True
        return False

    return [_with_front(r, not dominated(r)) for r in rows]


def _with_front(row: ScoreRow, front: bool) -> ScoreRow:
    return ScoreRow(**{**{f: getattr(row, f) for f in ScoreRow.__dataclass_fields__}, "front": front})


# -- from the store ------------------------------------------------------------------------------


def load_requests(store: Store, run_id: str, preset: str) -> list[Request]:
    """Every task's first answer in ``run_id`` under ``preset``, with its verdict and timing."""
    outcomes = {o.task_id: o for o in store.outcomes(run_id, sample=0) if o.postprocess == preset}
    if not outcomes:
        have = sorted({o.postprocess for o in store.outcomes(run_id)})
        raise SimpilotError(f"run {run_id!r} has no outcomes under {preset!r} (it has: {', '.join(have) or 'none'})")
    completions = store.completions(run_id)
    requests = []
    for task in store.tasks(run_id):
        outcome, completion = outcomes.get(task.id), completions.get(task.id)
        if outcome is None or completion is None:
            continue
        timing = completion.timing
        answer = outcome.processed if completion.ok else None
        requests.append(
            Request(
                task.id,
                answer,
                task.ground_truth,
                outcome.passed,
                timing.total_ms if timing is not None and not timing.cancelled else completion.latency_ms,
                timing.first_token_ms if timing is not None else None,
                timing.prompt_tokens if timing is not None else None,
                timing.answer_tokens if timing is not None else None,
                timing.tokens if timing is not None else "",
                timing is not None and timing.replayed,
            )
        )
    return requests


def build(
    store: Store,
    run_ids: Sequence[str],
    presets: Sequence[str],
    settings: ClockSettings,
    prices: Callable[[str], Price | None],
    budgets: Sequence[float],
) -> Scoreboard:
    """The scoreboard of ``run_ids`` under each of ``presets``; ``prices`` gives a run's model's
    price (by the run's model name), or None."""
    return build_series(store, [(run_id, preset) for run_id in run_ids for preset in presets], settings, prices, budgets)


def build_series(
    store: Store,
    series: Sequence[tuple[str, str]],
    settings: ClockSettings | None = None,
    prices: Callable[[str], Price | None] = lambda model: None,
    budgets: Sequence[float] = DEFAULT_BUDGETS_MS,
) -> Scoreboard:
    """The scoreboard of each (run, preset) of ``series`` (a report's series: each run under
    the presets it was judged with)."""
    settings = settings or ClockSettings()
    rows = []
    for run_id, preset in series:
        info = store.run(run_id)
        if info is None:
            known = ", ".join(r.run_id for r in store.runs()[-8:]) or "none"
            raise SimpilotError(f"no run {run_id!r} in {store.path} (runs: {known})")
        requests = load_requests(store, run_id, preset)
        rows.append(score_row(shown_model(info.model), run_id, preset, requests, settings, prices(info.model), budgets))
    return Scoreboard(pareto(rows), settings, list(budgets))


# -- rendering -----------------------------------------------------------------------------------


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f}"


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def _money(cost: CostSummary | None, value: float | None) -> str:
    if cost is None or value is None:
        return "—"
    return f"{value:.2g} {cost.currency}" if value < 0.01 else f"{value:.2f} {cost.currency}"  # fractions of a cent keep two figures


def table_rows(board: Scoreboard) -> list[list[str]]:
    """One line per model and preset: what the console, Markdown and HTML tables show."""
    out = []
    for r in board.rows:
        out.append(
            [
                ("* " if r.front else "  ") + r.model,
                r.preset,
                _pct(r.pass_at_1),
                f"{_ms(r.first_token.p50)}/{_ms(r.first_token.p90)}",
                f"{_ms(r.total.p50)}/{_ms(r.total.p90)}",
                _pct(r.clock.shown_rate),
                _pct(r.clock.acceptance_rate),
                _pct(r.clock.keystrokes_saved_share),
                _money(r.cost, r.cost.per_passing if r.cost else None),
            ]
        )
    return out


HEAD = ["model", "preset", "pass@1", "1st tok ms", "total ms", "shown", "accept", "saved", "cost/pass"]


def render(board: Scoreboard) -> str:
    """The console text: the table, the latency by answer length, and the notes that say how to read it."""
    s = board.settings
    rows = table_rows(board)
    widths = [max(len(HEAD[i]), *(len(row[i]) for row in rows)) for i in range(len(HEAD))]
    line = "  ".join(h.ljust(w) for h, w in zip(HEAD, widths, strict=True))
    lines = [line, "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))) for row in rows]
    lines.append("")
    lines.append("total latency p50/p90 (ms) by the answer's length:")
    for r in board.rows:
        parts = [f"{name}: {_ms(lat.p50)}/{_ms(lat.p90)} (n={lat.n})" for name, lat in r.by_lines.items()]
        lines.append(f"  {r.model} / {r.preset}: " + "; ".join(parts))
    priced = [r for r in board.rows if r.cost is not None]
    if priced:
        lines.append("")
        lines.append("cost per task (and per passing completion, per accepted character):")
        for r in priced:
            assert r.cost is not None
            figures = [_money(r.cost, r.cost.per_task), _money(r.cost, r.cost.per_passing), _money(r.cost, r.cost.per_accepted_char)]
            lines.append(f"  {r.model} / {r.preset}: {figures[0]} ({figures[1]}, {figures[2]}; {r.cost.kind} price)")
    lines.append("")
    when = (
        f"answers within {s.budget_ms:g} ms"
        if s.budget_ms is not None
        else f"{s.debounce_ms:g} ms debounce + latency <= {s.pause_ms:g} ms pause"
    )
    accept = "it passes its tests" if s.acceptance == "pass" else "its first line is the ground truth's"
    lines.append(f"shown: {when} ({s.latency} latency); accepted: shown and {accept}; saved: keystrokes saved / ground-truth characters.")
    lines.append("* on the Pareto front (pass@1 against p50 latency" + (", and cost" if _all_priced(board) else "") + ").")
    notes = sorted({_tokens_note(r) for r in board.rows if _tokens_note(r)})
    lines += notes
    if any(r.replayed for r in board.rows):
        lines.append("Timings of recorded runs are the recordings' own (measured when the answers were recorded).")
    return "\n".join(lines)


def _all_priced(board: Scoreboard) -> bool:
    return bool(board.rows) and all(r.cost is not None and r.cost.per_passing is not None for r in board.rows)


def _tokens_note(row: ScoreRow) -> str:
    if row.cost is None or row.cost.kind != "tokens" or row.tokens in ("usage", ""):
        return ""
    return f"{row.model}: token counts are estimates (a token per four characters) where the endpoint reported none."


def markdown(board: Scoreboard) -> str:
    rows = table_rows(board)
    out = ["| " + " | ".join(HEAD) + " |", "|" + "|".join("---" for _ in HEAD) + "|"]
    out += ["| " + " | ".join(c.strip() for c in row) + " |" for row in rows]
    return "\n".join(out)


def to_json(board: Scoreboard) -> dict[str, Any]:
    return {"settings": asdict(board.settings), "budgets_ms": board.budgets, "rows": [asdict(r) for r in board.rows]}


def curve_table(board: Scoreboard) -> tuple[list[str], list[list[str]]]:
    """Shown and accepted rates by latency budget (``shown / accepted``), one row per model and preset."""
    head = ["model / preset"] + [f"{b:g} ms" for b in board.budgets]
    rows = [
        [f"{r.model} / {r.preset}"] + [f"{_pct(point.shown_rate)} / {_pct(point.acceptance_rate)}" for point in r.curve] for r in board.rows
    ]
    return head, rows


# -- HTML ----------------------------------------------------------------------------------------

CSS = (
    ".scoreboard svg text{font:11px sans-serif}.scoreboard .grid{stroke:#ddd}.scoreboard .front{fill:none;stroke:#333;"
    "stroke-dasharray:4 3}.scoreboard table{border-collapse:collapse}.scoreboard td,.scoreboard th{padding:2px 8px;"
    "border-bottom:1px solid #eee;text-align:right}.scoreboard td:first-child,.scoreboard th:first-child{text-align:left}"
)
PALETTE = ("#4269d0", "#efb118", "#ff725c", "#6cc5b0", "#3ca951", "#ff8ab7", "#a463f2", "#97bbf5", "#9c6b4e", "#9498a0")


def _scale(values: Sequence[float], size: float, log: bool) -> Callable[[float], float]:
    """Map values onto 0..size (a log scale for latencies, which span orders of magnitude)."""
    shown = [np.log10(max(v, 1.0)) if log else v for v in values] or [0.0]
    low, high = min(shown), max(shown)
    span = (high - low) or 1.0
    return lambda v: (((np.log10(max(v, 1.0)) if log else v) - low) / span) * size


def _legend(board: Scoreboard, x: float, top: float) -> list[str]:
    """One line per model and preset at the right of a chart: its colour and its name."""
    parts = []
    for i, r in enumerate(board.rows):
        y = top + 8 + i * 16
        parts.append(f'<rect x="{x:.1f}" y="{y - 8:.1f}" width="10" height="10" fill="{PALETTE[i % len(PALETTE)]}"/>')
        parts.append(f'<text x="{x + 14:.1f}" y="{y + 1:.1f}">{esc(r.model)} / {esc(r.preset)}{" *" if r.front else ""}</text>')
    return parts


def scatter(board: Scoreboard, width: int = 760, height: int = 320) -> str:
    """pass@1 against p50 total latency (log scale), one point per model and preset (colours as
    in the legend); the points on the Pareto front joined by a dashed line. A point's title gives
    every figure."""
    left, bottom, top, legend_w = 50, 34, 14, 300
    plot_w, plot_h = width - left - legend_w - 20, height - top - bottom
    rows = [(i, r) for i, r in enumerate(board.rows) if r.total.p50 is not None]
    latencies = [r.total.p50 or 0.0 for _, r in rows]
    x_of = _scale(latencies, plot_w, log=True)
    parts = [f'<svg role="img" width="{width}" height="{height}" viewBox="0 0 {width} {height}" aria-label="pass@1 against latency">']
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = top + plot_h * (1 - tick)
        parts.append(f'<line class="grid" x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{int(tick * 100)}%</text>')
    for value in sorted(set(latencies)) if len(set(latencies)) <= 6 else (min(latencies), max(latencies)):
        parts.append(f'<text x="{left + x_of(value):.1f}" y="{top + plot_h + 14}" text-anchor="middle">{_ms(value)}</text>')
    parts.append(f'<text x="{left + plot_w / 2}" y="{height - 4}" text-anchor="middle">p50 latency (ms, log scale)</text>')
    front = sorted((r for _, r in rows if r.front), key=lambda r: r.total.p50 or 0.0)
    if len(front) > 1:
        path = " ".join(f"{left + x_of(r.total.p50 or 0.0):.1f},{top + plot_h * (1 - r.pass_at_1):.1f}" for r in front)
        parts.append(f'<polyline class="front" points="{path}"/>')
    for i, r in rows:
        x, y = left + x_of(r.total.p50 or 0.0), top + plot_h * (1 - r.pass_at_1)
        tip = f"{r.model} / {r.preset}: pass@1 {_pct(r.pass_at_1)}, p50 {_ms(r.total.p50)} ms, shown {_pct(r.clock.shown_rate)}"
        tip += f", cost/pass {_money(r.cost, r.cost.per_passing)}" if r.cost else ""
        data = f'data-model="{esc(r.model)}" data-preset="{esc(r.preset)}" data-front="{str(r.front).lower()}"'
        parts.append(
            f'<g><title>{esc(tip)}</title><circle class="point" {data} cx="{x:.1f}" cy="{y:.1f}" r="{6 if r.front else 4}" '
            f'fill="{PALETTE[i % len(PALETTE)]}" fill-opacity="0.8"/></g>'
        )
    parts += _legend(board, left + plot_w + 30, top)
    parts.append("</svg>")
    return "".join(parts)


def curve_chart(board: Scoreboard, width: int = 760, height: int = 240) -> str:
    """The shown rate (dashed) and the acceptance rate (solid) as the latency budget grows, one
    colour per model and preset."""
    left, bottom, top, right = 50, 30, 14, 150
    plot_w, plot_h = width - left - right, height - top - bottom
    x_of = _scale(board.budgets, plot_w, log=True)
    parts = [
        f'<svg role="img" width="{width}" height="{height}" viewBox="0 0 {width} {height}" aria-label="shown and accepted by latency budget">'
    ]
    for budget in board.budgets:
        x = left + x_of(budget)
        parts.append(f'<line class="grid" x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + plot_h}"/>')
        parts.append(f'<text x="{x:.1f}" y="{height - 14}" text-anchor="middle">{budget:g}</text>')
    parts.append(f'<text x="{left + plot_w / 2}" y="{height - 2}" text-anchor="middle">latency budget (ms)</text>')
    for i, r in enumerate(board.rows):
        colour = PALETTE[i % len(PALETTE)]
        for rate, dash in ((lambda p: p.shown_rate, ' stroke-dasharray="4 3"'), (lambda p: p.acceptance_rate, "")):
            points = " ".join(
                f"{left + x_of(b):.1f},{top + plot_h * (1 - rate(p)):.1f}" for b, p in zip(board.budgets, r.curve, strict=True)
            )
            parts.append(
                f"<g><title>{esc(r.model)} / {esc(r.preset)}</title>"
                f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"{dash}/></g>'
            )
    parts += _legend(board, left + plot_w + 30, top)
    parts.append(f'<text x="{left - 6}" y="{top + 4}" text-anchor="end">100%</text>')
    parts.append(f'<text x="{left - 6}" y="{top + plot_h}" text-anchor="end">0%</text></svg>')
    return "".join(parts)


def _cost_table(board: Scoreboard) -> list[str]:
    priced = [r for r in board.rows if r.cost is not None]
    if not priced:
        return []
    rows = [
        [
            f"{r.model} / {r.preset}",
            r.cost.kind,
            _money(r.cost, r.cost.per_task),
            _money(r.cost, r.cost.per_passing),
            _money(r.cost, r.cost.per_accepted_char),
        ]
        for r in priced
        if r.cost is not None
    ]
    return [html_table(["model / preset", "price", "per task", "per passing completion", "per accepted character"], rows, caption="cost")]


def section(board: Scoreboard) -> str:
    """The scoreboard as a part of another page (``simpilot report --html``): the scatter, the
    table, the notes, the cost and the budget curve."""
    head, rows = curve_table(board)
    notes = render(board).split("\n\n")[-1].splitlines()
    return "\n".join(
        [
            f'<section class="scoreboard"><style>{CSS}</style>',
            f"<figure><figcaption>pass@1 against latency; the dashed line joins the Pareto front</figcaption>{scatter(board)}</figure>",
            html_table(HEAD, [[c.strip() for c in row] for row in table_rows(board)]),
            "<ul>" + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>",
            *_cost_table(board),
            f"<figure><figcaption>answers shown (dashed) and accepted (solid) as the latency budget grows</figcaption>{curve_chart(board)}</figure>",
            html_table(head, rows, caption="shown / accepted by latency budget"),
            html_table(
                ["model / preset", *(name for name, _, _ in LINE_GROUPS)],
                [[f"{r.model} / {r.preset}", *(f"{_ms(v.p50)}/{_ms(v.p90)} (n={v.n})" for v in r.by_lines.values())] for r in board.rows],
                caption="total latency p50/p90 (ms) by the answer's length",
            ),
            "</section>",
        ]
    )


def page(board: Scoreboard) -> str:
    """A self-contained HTML page of :func:`section`."""
    return f"<!doctype html><meta charset=utf-8><title>simpilot: scoreboard</title><h1>simpilot: the scoreboard</h1>{section(board)}"
