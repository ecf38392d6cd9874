"""The HTML report's charts, inline SVG drawn here (no external library): pass rates by stratum,
outcome classes by series, trends along the ordered dimensions."""

from __future__ import annotations

from collections.abc import Sequence

from replay.reports.html_data import CLASS_COLOURS, attrs, num, pct, series_key, series_label, stratum_attrs
from replay.reports.html_text import esc
from replay.reports.report_build import Section
from replay.reports.strata import ORDER, SMALL_STRATUM, StratumRow
from replay.reports.taxonomy import CLASSES

# -- charts ------------------------------------------------------------------------------------

LABEL_W, PLOT_W, TEXT_W, BAR_H, GAP = 190, 420, 230, 13, 10


def strata_chart(dimension: str, sections: Sequence[Section], colours: dict[str, str]) -> str:
    """Grouped horizontal bars, one group per value of ``dimension``, one bar per series, each
    with its interval as a whisker; small strata are drawn pale and dashed, and labelled."""
    values = [r.value for r in sections[0].rows if r.dimension == dimension] if sections else []
    for s in sections[1:]:
        values += [r.value for r in s.rows if r.dimension == dimension and r.value not in values]
    rows_of = {series_key(s): {r.value: r for r in s.rows if r.dimension == dimension} for s in sections}
    group_h = len(sections) * (BAR_H + 2) + GAP
    height = 22 + len(values) * group_h
    width = LABEL_W + PLOT_W + TEXT_W
    parts = [
        f'<svg class="chart" role="img" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'aria-label="pass rate by {esc(dimension)}">'
    ]
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        x = LABEL_W + tick * PLOT_W
        parts.append(
            f'<line class="grid" x1="{x:.1f}" y1="14" x2="{x:.1f}" y2="{height}"/>'
            f'<text class="tick" x="{x:.1f}" y="10">{int(tick * 100)}%</text>'
        )
    for i, value in enumerate(values):
        y0 = 18 + i * group_h
        small_any = any((r := rows_of[series_key(s)].get(value)) is not None and r.small for s in sections)
        label = value + (f"  ⚠ n<{SMALL_STRATUM}" if small_any else "")
        parts.append(
            f'<text class="label{" small" if small_any else ""}" x="{LABEL_W - 10}" y="{y0 + group_h / 2:.1f}" '
            f'text-anchor="end">{esc(label)}</text>'
        )
        for j, s in enumerate(sections):
            r = rows_of[series_key(s)].get(value)
            y = y0 + j * (BAR_H + 2)
            if r is None or r.rate is None:
                parts.append(f'<text class="note" x="{LABEL_W + 4}" y="{y + BAR_H - 2}">no tasks</text>')
                continue
            parts.append(_bar(r, s, y, colours[series_key(s)]))
    parts.append("</svg>")
    return "".join(parts)


def _bar(r: StratumRow, s: Section, y: float, colour: str) -> str:
    w = max(0.0, (r.rate or 0.0) * PLOT_W)
    lo, hi = LABEL_W + r.low * PLOT_W, LABEL_W + r.high * PLOT_W
    mid = y + BAR_H / 2
    cls = "bar small" if r.small else "bar"
    data = stratum_attrs("stratum", r, s)
    tip = f"{series_label(s)} — {r.dimension} {r.value}: {r.passed}/{r.n} = {pct(r.rate)} [{pct(r.low)}, {pct(r.high)}]" + (
        f" — fewer than {SMALL_STRATUM} tasks" if r.small else ""
    )
    text = f"{pct(r.rate)} [{pct(r.low)}–{pct(r.high)}] n={r.n}" + (" ⚠" if r.small else "")
    return (
        f'<g><title>{esc(tip)}</title><rect class="key" x="{LABEL_W - 6}" y="{y}" width="4" height="{BAR_H}" fill="{colour}"/>'
        f'<rect class="{cls}" {data} x="{LABEL_W}" y="{y}" width="{w:.2f}" height="{BAR_H}" fill="{colour}"/>'
        f'<line class="whisker" x1="{lo:.2f}" y1="{mid}" x2="{hi:.2f}" y2="{mid}"/>'
        f'<line class="whisker" x1="{lo:.2f}" y1="{y + 2}" x2="{lo:.2f}" y2="{y + BAR_H - 2}"/>'
        f'<line class="whisker" x1="{hi:.2f}" y1="{y + 2}" x2="{hi:.2f}" y2="{y + BAR_H - 2}"/>'
        f'<text class="value{" small" if r.small else ""}" x="{LABEL_W + PLOT_W + 6}" y="{y + BAR_H - 2}">{esc(text)}</text></g>'
    )


def taxonomy_chart(sections: Sequence[Section]) -> str:
    """One stacked bar per series: passes, then each failure class, as shares of its outcomes."""
    label_w, plot_w, bar_h = 300, 520, 20
    height = 16 + len(sections) * (bar_h + 10)
    parts = [f'<svg class="chart" role="img" width="{label_w + plot_w + 10}" height="{height}" aria-label="outcome classes">']
    for i, s in enumerate(sections):
        y = 8 + i * (bar_h + 10)
        parts.append(f'<text class="label" x="{label_w - 6}" y="{y + bar_h - 6}" text-anchor="end">{esc(series_label(s))}</text>')
        t = s.taxonomy
        segments = [("pass", "pass", t.passed, t.passed / t.total if t.total else 0.0)]
        segments += [(k.status, k.label, k.count, k.share) for k in t.classes]
        x = float(label_w)
        for status, label, count, share in segments:
            if not count:
                continue
            w = share * plot_w
            data = attrs(kind="class", series=series_key(s), status=status, count=count, share=num(share), total=t.total)
            parts.append(
                f"<g><title>{esc(f'{series_label(s)}: {label} {count} of {t.total} ({pct(share)})')}</title>"
                f'<rect class="segment" {data} x="{x:.2f}" y="{y}" width="{w:.2f}" height="{bar_h}" fill="{CLASS_COLOURS[status]}"/></g>'
            )
            if w > 34:
                parts.append(f'<text class="inbar" x="{x + 3:.2f}" y="{y + bar_h - 6}">{count}</text>')
            x += w
    parts.append("</svg>")
    legend = "".join(
        f'<span class="key"><i style="background:{CLASS_COLOURS[st]}"></i>{esc(lb)}</span>'
        for st, lb in [("pass", "pass")] + [(k.value, v) for k, v in CLASSES.items()]
    )
    return "".join(parts) + f'<p class="legend">{legend}</p>'


def _trend_points(s: Section, dimension: str, similarity: bool) -> dict[str, tuple[float, float, float, str, str]]:
    """value → (y, low, high, data attributes, tooltip) of one series' points on a trend chart."""
    points = {}
    if similarity:
        for m in s.similarity:
            if m.dimension == dimension and m.mean is not None:
                data = attrs(kind="trend-similarity", series=series_key(s), dimension=dimension, value=m.value, n=m.n, mean=num(m.mean))
                points[m.value] = (m.mean, m.mean, m.mean, data, f"{series_label(s)} — {dimension} {m.value}: mean {m.mean:.3f} over {m.n}")
        return points
    for r in s.rows:
        if r.dimension == dimension and r.rate is not None:
            data = stratum_attrs("trend", r, s)
            points[r.value] = (
                r.rate,
                r.low,
                r.high,
                data,
                f"{series_label(s)} — {dimension} {r.value}: {r.passed}/{r.n} = {pct(r.rate)}" + (" (small)" if r.small else ""),
            )
    return points


def trend_chart(dimension: str, sections: Sequence[Section], colours: dict[str, str], similarity: bool = False) -> str:
    """Pass rate (with intervals), or the mean indel similarity, over the ordered groups of a
    distance (short → long), one line per series; the ``none`` group is not a point on the axis
    and is listed under the chart."""
    groups = [g for g in ORDER[dimension] if g != "none"]
    w, h, left, top, plot_w, plot_h = 520, 240, 50, 12, 420, 190
    xs = {g: left + (k + 0.5) * plot_w / len(groups) for k, g in enumerate(groups)}
    what = "mean indel similarity" if similarity else "pass rate"
    parts = [f'<svg class="chart" role="img" width="{w}" height="{h}" aria-label="{what} over {esc(dimension)}">']
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        y = top + (1 - tick) * plot_h
        parts.append(
            f'<line class="grid" x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}"/>'
            f'<text class="tick" x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{f"{tick:g}" if similarity else f"{int(tick * 100)}%"}</text>'
        )
    for g, x in xs.items():
        parts.append(f'<text class="tick" x="{x:.1f}" y="{top + plot_h + 18}" text-anchor="middle">{esc(g)}</text>')
    for j, s in enumerate(sections):
        colour = colours[series_key(s)]
        found = _trend_points(s, dimension, similarity)
        small = {r.value for r in s.rows if r.dimension == dimension and r.small}
        shift = (j - (len(sections) - 1) / 2) * 5
        points = []
        for g in groups:
            if g not in found:
                continue
            value, low, high, data, tip = found[g]
            x, y = xs[g] + shift, top + (1 - value) * plot_h
            points.append((x, y))
            whisker = (
                (
                    f'<line class="whisker" x1="{x:.1f}" y1="{top + (1 - high) * plot_h:.1f}" x2="{x:.1f}" '
                    f'y2="{top + (1 - low) * plot_h:.1f}" stroke="{colour}"/>'
                )
                if high > low
                else ""
            )
            parts.append(
                f"<g><title>{esc(tip)}</title>{whisker}"
                f'<circle class="point{" small" if g in small else ""}" {data} cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{colour}"/></g>'
            )
        if len(points) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
            parts.append(f'<polyline class="trend" points="{path}" stroke="{colour}"/>')
    parts.append("</svg>")
    if similarity:
        nones = [(s, m) for s in sections for m in s.similarity if m.dimension == dimension and m.value == "none" and m.mean is not None]
        note = "; ".join(f"{esc(series_label(s))}: {m.mean:.3f} over {m.n}" for s, m in nones)
    else:
        none_rows = [(s, r) for s in sections for r in s.rows if r.dimension == dimension and r.value == "none"]
        note = "; ".join(f"{esc(series_label(s))}: {r.passed}/{r.n} ({pct(r.rate)})" for s, r in none_rows)
    return "".join(parts) + (f'<p class="note">not on the axis, the group “none”: {note}</p>' if note else "")
