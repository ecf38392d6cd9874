"""A model comparison as HTML: tables and inline SVG bar charts, as a fragment or a whole page."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from replay.reports.html_text import esc, html_table
from replay.reports.model_comparison import METRICS_NOTE, ModelComparison
from replay.reports.model_text import NEIGHBOUR_NOTE, exclusion_notes, header, interval, model_rows, neighbour_rows, pct, stratum_rows

# -- HTML ------------------------------------------------------------------------------------------

PALETTE = ("#3b6fb6", "#d9822b", "#2e9e6a", "#b8475b", "#7a5cb8", "#8c6d31", "#3aa1b5", "#6b6b6b")
CSS = (
    ".model-comparison svg{font:12px sans-serif;display:block}"
    ".model-comparison .grid{stroke:#ddd}.model-comparison .tick{fill:#777;font-size:10px}"
    ".model-comparison .whisker{stroke:#222;stroke-width:1.2}.model-comparison .marker{stroke:#222;stroke-width:1}"
    ".model-comparison .multiples{display:flex;flex-wrap:wrap;gap:12px}"
    ".model-comparison figure{margin:8px 0}.model-comparison figcaption{font-weight:bold}"
    ".model-comparison table{border-collapse:collapse;margin:8px 0}"
    ".model-comparison th,.model-comparison td{border:1px solid #ccc;padding:2px 6px;text-align:right}"
    ".model-comparison td:first-child,.model-comparison th:first-child{text-align:left}"
)


def _fit(label: str, width: int) -> str:
    """A label cut to about ``width`` pixels at 12px (the tooltip and the tables keep it whole)."""
    most = max(4, width // 7)
    return label if len(label) <= most else label[: most - 1] + "…"


@dataclass(frozen=True, slots=True)
class _Bar:
    label: str
    colour: str
    pass_at_1: float
    low: float
    high: float
    pass_at_n: float
    tasks: int


def bar_chart(
    bars: Sequence[_Bar], n: int, *, label_w: int = 190, plot_w: int = 380, text_w: int = 200, caption: str = "", compact: bool = False
) -> str:
    """One horizontal bar per model for pass@1 with its interval as a whisker, and pass@n as a
    diamond: the gap between them is what more samples would buy. A ``compact`` chart (a small
    multiple) writes the figures without the interval, which its whisker and the tables show."""
    bar_h, gap = 14, 8
    height = 22 + len(bars) * (bar_h + gap)
    width = label_w + plot_w + text_w
    parts = [
        f'<svg role="img" width="{width}" height="{height}" viewBox="0 0 {width} {height}" aria-label="{esc(caption or "pass@1 by model")}">'
    ]
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        x = label_w + tick * plot_w
        parts.append(
            f'<line class="grid" x1="{x:.1f}" y1="14" x2="{x:.1f}" y2="{height}"/><text class="tick" x="{x:.1f}" y="10" text-anchor="middle">{int(tick * 100)}%</text>'
        )
    for i, b in enumerate(bars):
        y = 18 + i * (bar_h + gap)
        mid = y + bar_h / 2
        lo, hi, xn = (label_w + v * plot_w for v in (b.low, b.high, b.pass_at_n))
        figures = f"{pct(b.pass_at_1) if compact else interval(b.pass_at_1, b.low, b.high)} · ◇ {pct(b.pass_at_n)}"
        tip = f"{b.label}: pass@1 {interval(b.pass_at_1, b.low, b.high)}%, pass@{n} {pct(b.pass_at_n)}%, {b.tasks} tasks"
        data = (
            f'data-model="{esc(b.label)}" data-pass-at-1="{b.pass_at_1!r}" data-low="{b.low!r}" data-high="{b.high!r}" '
            f'data-pass-at-n="{b.pass_at_n!r}" data-tasks="{b.tasks}"'
        )
        parts.append(
            f"<g><title>{esc(tip)}</title>"
            f'<text x="{label_w - 8}" y="{y + bar_h - 3}" text-anchor="end">{esc(_fit(b.label, label_w - 10))}</text>'
            f'<rect class="bar" {data} x="{label_w}" y="{y}" width="{b.pass_at_1 * plot_w:.2f}" height="{bar_h}" fill="{b.colour}"/>'
            f'<line class="whisker" x1="{lo:.2f}" y1="{mid}" x2="{hi:.2f}" y2="{mid}"/>'
            f'<line class="whisker" x1="{lo:.2f}" y1="{y + 2}" x2="{lo:.2f}" y2="{y + bar_h - 2}"/>'
            f'<line class="whisker" x1="{hi:.2f}" y1="{y + 2}" x2="{hi:.2f}" y2="{y + bar_h - 2}"/>'
            f'<path class="marker" d="M{xn:.2f} {y - 1} l5 {bar_h / 2 + 1} l-5 {bar_h / 2 + 1} l-5 {-(bar_h / 2 + 1)} z" fill="#fff"/>'
            f'<text x="{label_w + plot_w + 12}" y="{y + bar_h - 3}">{esc(figures)}</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)


def html(c: ModelComparison) -> str:
    """A self-contained HTML fragment (inline SVG and a scoped style; no script, nothing fetched):
    the chart of every model, small multiples per language, then the tables."""
    colours = {m.model: PALETTE[i % len(PALETTE)] for i, m in enumerate(c.models)}
    overall = [_Bar(m.model, colours[m.model], m.pass_at_1, m.low, m.high, m.pass_at_n, m.tasks) for m in c.models]
    out = [
        f'<section class="model-comparison"><style>{CSS}</style>',
        f"<p>{esc(header(c))}. The bar is pass@1 with its interval; the diamond ◇ is pass@{c.n}.</p>",
    ]
    notes = exclusion_notes(c)
    if notes:
        out.append("<ul>" + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>")
    out.append(f"<figure><figcaption>pass@1 and pass@{c.n} by model</figcaption>{bar_chart(overall, c.n)}</figure>")
    if "language" in c.by:
        out.append('<div class="multiples">')
        for value in c.values("language"):
            bars = [
                _Bar(m.model, colours[m.model], s.pass_at_1, s.low, s.high, s.pass_at_n, s.tasks)
                for m in c.models
                if (s := m.stratum("language", value)) is not None
            ]
            caption = f"{value} ({bars[0].tasks} tasks)" if bars else value
            chart = bar_chart(bars, c.n, label_w=120, plot_w=170, text_w=100, caption=f"pass@1 by model, {caption}", compact=True)
            out.append(f'<figure data-language="{esc(value)}"><figcaption>{esc(caption)}</figcaption>{chart}</figure>')
        out.append("</div>")
    out.append(html_table(*model_rows(c)))
    out.append(f"<p>{esc(METRICS_NOTE)}.</p>")
    for key in c.by:
        out.append(html_table(*stratum_rows(c, key), caption=f"pass@1 by {key}"))
    if c.neighbours:
        out.append(html_table(*neighbour_rows(c), caption="neighbours in the ranking"))
        out.append(f"<p>{esc(NEIGHBOUR_NOTE)}.</p>")
    out.append("</section>")
    return "\n".join(out)


def page(c: ModelComparison) -> str:
    """:func:`html` as a whole HTML document."""
    return f"<!doctype html><meta charset=utf-8><title>simpilot: models compared</title>{html(c)}"
