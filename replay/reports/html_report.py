"""The report as one self-contained HTML file: no network, no external library, opens anywhere.

Charts are inline SVG drawn here; the only script is a few lines that sort tables and open a
task's drill-down when a link points at it. Model output is hostile input: every piece of text
goes through :func:`esc` (element text and attribute values alike), and no stored text ever
reaches the script or a ``style`` attribute.

Every number a chart or a stratum table shows is also carried, unformatted, by ``data-*``
attributes on its element (``data-kind`` says what it is), so a test — or a curious reader's
own script — can check the figures against the store.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Any

from replay.reports.comparison import Comparison, differing_note, short_model
from replay.reports.decision_figures_html import decisions_section
from replay.reports.html_text import esc
from replay.reports.report import CURSOR_MARK, OutcomeRow, Report, Section, prompt_excerpt, run_verdict, sample_line, source_file
from replay.reports.scoreboard import section as scoreboard_section
from replay.reports.strata import DIMENSIONS, ORDER, SMALL_STRATUM, StratumRow
from replay.reports.tampering import TamperingRow
from replay.reports.taxonomy import CLASSES
from replay.scoring.similarity import METRIC_LABELS

PALETTE = ("#3b6fb6", "#d9822b", "#2e9e6a", "#b8475b", "#7a5cb8", "#8c6d31", "#3aa1b5", "#6b6b6b")
CLASS_COLOURS = {
    "pass": "#2e9e6a",
    "syntax_error": "#b8475b",
    "indentation_error": "#e07a8f",
    "compile_error": "#8e2c48",
    "undefined_name": "#d9822b",
    "runtime_error": "#e6b34a",
    "fail": "#7a5cb8",
    "timeout": "#3aa1b5",
    "out_of_memory": "#1f5f6b",
    "empty": "#a9a9a9",
    "suggested": "#d4b996",
    "model_error": "#444444",
    "tests_not_run": "#c0392b",
    "tampered": "#5d1f1f",
    "unverified": "#c8c8c8",
    "toolchain_missing": "#e8e8e8",
}
TAIL_LINES = 40


def num(x: float | None) -> str:
    """A number as it goes into a data attribute: full precision, ``""`` for none."""
    return "" if x is None else repr(float(x)) if isinstance(x, float) else str(x)


def pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def attrs(**values: Any) -> str:
    return " ".join(f'data-{k.replace("_", "-")}="{esc(v)}"' for k, v in values.items())


def series_key(s: Section | TamperingRow) -> str:
    return f"{s.run_id}|{s.preset}"


def series_label(s: Section) -> str:
    return s.label


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


def _stratum_attrs(kind: str, r: StratumRow, s: Section, **extra: str) -> str:
    """The data attributes of one stratum of one series (a bar of a chart, a row of a table)."""
    return attrs(
        kind=kind,
        series=series_key(s),
        dimension=r.dimension,
        value=r.value,
        n=r.n,
        passed=r.passed,
        rate=num(r.rate),
        low=num(r.low),
        high=num(r.high),
        small=int(r.small),
        **extra,
    )


def _bar(r: StratumRow, s: Section, y: float, colour: str) -> str:
    w = max(0.0, (r.rate or 0.0) * PLOT_W)
    lo, hi = LABEL_W + r.low * PLOT_W, LABEL_W + r.high * PLOT_W
    mid = y + BAR_H / 2
    cls = "bar small" if r.small else "bar"
    data = _stratum_attrs("stratum", r, s)
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
            data = attrs(
                kind="trend",
                series=series_key(s),
                dimension=dimension,
                value=r.value,
                n=r.n,
                passed=r.passed,
                rate=num(r.rate),
                low=num(r.low),
                high=num(r.high),
                small=int(r.small),
            )
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


# -- tables --------------------------------------------------------------------------------------


def sortable(headers: Iterable[str], rows: Iterable[str], cls: str = "") -> str:
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    return f'<table class="sortable {cls}"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def td(text: Any, sort: Any = None, cls: str = "") -> str:
    key = f' data-sort="{esc(sort)}"' if sort is not None else ""
    c = f' class="{cls}"' if cls else ""
    return f"<td{key}{c}>{esc(text)}</td>"


def strata_table(sections: Sequence[Section]) -> str:
    rows = []
    for s in sections:
        means = {(m.dimension, m.value): m.mean for m in s.similarity}
        for r in s.rows:
            indel = means.get((r.dimension, r.value))
            data = _stratum_attrs("stratum-row", r, s, indel=num(indel))
            flag = f"⚠ n<{SMALL_STRATUM}" if r.small else ""
            rows.append(
                f"<tr {data}{' class=small' if r.small else ''}>"
                + td(series_label(s))
                + td(r.dimension)
                + td(r.value)
                + td(r.n, r.n)
                + td(r.passed, r.passed)
                + td(pct(r.rate), num(r.rate) or -1)
                + td(pct(r.low), num(r.low))
                + td(pct(r.high), num(r.high))
                + td("–" if indel is None else f"{indel:.3f}", num(indel) or -1)
                + td(flag, cls="flag")
                + "</tr>"
            )
    return sortable(["series", "stratum", "value", "tasks", "passed", "pass rate", "low", "high", "mean indel sim.", "flag"], rows)


def taxonomy_table(sections: Sequence[Section]) -> str:
    """One row per series, one column per class: count and share of all outcomes."""
    rows = []
    for s in sections:
        t = s.taxonomy
        cells = "".join(
            f"<td {attrs(kind='class-cell', series=series_key(s), status=k.status, count=k.count, share=num(k.share), share_of_failures=num(k.share_of_failures))}"
            f' data-sort="{k.count}">{k.count}' + (f' <span class="note">{esc(pct(k.share))}</span>' if k.count else "") + "</td>"
            for k in t.classes
        )
        rows.append("<tr>" + td(series_label(s)) + td(t.total, t.total) + td(t.passed, t.passed) + cells + "</tr>")
    return sortable(["series", "outcomes", "passed", *(k.label for k in sections[0].taxonomy.classes)] if sections else [], rows)


def task_link(task_id: str, anchors: dict[str, str]) -> str:
    """A task's id, linked to its drill-down when the page has one."""
    return f'<a href="#{anchors[task_id]}">{esc(task_id)}</a>' if task_id in anchors else esc(task_id)


def tampering_section(rows: Sequence[TamperingRow], anchors: dict[str, str]) -> str:
    """Answers that touched the test harness beside the passes, per series (every sample), the
    answers naming each event, and a few examples linked to their tasks."""
    body = []
    for r in rows:
        key = series_key(r)
        events = ", ".join(
            f"<span {attrs(kind='tampering-event', series=key, event=name, count=count)}>{esc(name)} {count}</span>"
            for name, count in r.events.items()
        )
        data = attrs(
            kind="tampering",
            series=key,
            judged=r.judged,
            passed=r.passed,
            tampered=r.tampered,
            pass_rate=num(r.pass_rate),
            rate=num(r.rate),
        )
        body.append(
            f"<tr {data}>"
            + td(r.series.label)
            + td(r.judged, r.judged)
            + td(f"{r.passed} ({pct(r.pass_rate)})", num(r.pass_rate))
            + td(f"{r.tampered} ({pct(r.rate)})", num(r.rate))
            + f"<td>{events or '–'}</td></tr>"
        )
    examples = "".join(
        f"<li>{esc(r.series.label)}: {task_link(e.task_id, anchors)}{esc(e.sample_note)}: <code>{esc(e.event)}</code></li>"
        for r in rows
        for e in r.examples
    )
    return (
        '<h2 id="tampering">Tampering with the test harness</h2>'
        "<p>An answer is judged <i>tampered</i> (never a pass) when it forged the reporter's records, replaced the test "
        "framework's functions, looked into processes, descriptors or memory while its own code ran, or planted links, "
        "byte-code or hooks for the host or the next task. Every sample "
        "counts; the passes are of the same answers. Each event counts the answers that did it.</p>"
        + sortable(["series", "answers", "passed", "tampered", "answers per event"], body, "tampering")
        + (f"<p>Examples:</p><ul>{examples}</ul>" if examples else "")
    )


def metrics_table(sections: Sequence[Section]) -> str:
    rows = []
    for s in sections:
        cells = "".join(td(f"{s.metrics[m]:.3f}" if m in s.metrics else "–", num(s.metrics.get(m))) for m in METRIC_LABELS)
        data = attrs(kind="metric-row", series=series_key(s), n=s.metrics_n, **{m: num(s.metrics.get(m)) for m in METRIC_LABELS})
        rows.append(f"<tr {data}>" + td(series_label(s)) + td(s.metrics_n, s.metrics_n) + cells + "</tr>")
    return sortable(["series", "outcomes", *METRIC_LABELS.values()], rows)


def comparison_block(c: Comparison, index: int, anchors: dict[str, str]) -> str:
    rows = []
    for d in c.strata:
        data = attrs(
            kind="diff",
            comparison=index,
            dimension=d.dimension,
            value=d.value,
            n=d.n,
            passed_first=d.passed_first,
            passed_second=d.passed_second,
            only_first=d.only_first,
            only_second=d.only_second,
            p_value=num(d.p_value),
            difference=num(d.difference),
            small=int(d.small),
        )
        rows.append(
            f"<tr {data}{' class=small' if d.small else ''}>"
            + td(d.dimension)
            + td(d.value)
            + td(d.n, d.n)
            + td(pct(d.passed_first / d.n if d.n else None), d.passed_first / d.n if d.n else -1)
            + td(pct(d.passed_second / d.n if d.n else None), d.passed_second / d.n if d.n else -1)
            + td(f"{100 * d.difference:+.1f}", num(d.difference))
            + td(d.only_first, d.only_first)
            + td(d.only_second, d.only_second)
            + td(f"{d.p_value:.3g}", num(d.p_value))
            + td(f"⚠ n<{SMALL_STRATUM}" if d.small else "", cls="flag")
            + "</tr>"
        )
    flips = "".join(f"<li>{task_link(f.task_id, anchors)} {esc(f.first_status)} → {esc(f.second_status)}</li>" for f in c.flips)
    differing = "".join(f"<li>{task_link(t, anchors)}</li>" for t in c.differing)
    return (
        f'<h3>{esc(c.second.label)} <span class="vs">vs</span> {esc(c.first.label)}</h3>'
        f'<pre class="summary">{esc(c.summary)}</pre>'
        + sortable(["stratum", "value", "paired", "first", "second", "Δ points", "only first", "only second", "McNemar p", "flag"], rows)
        + f'<details><summary>tasks that flipped ({len(c.flips)})</summary><ul class="flips">{flips}</ul></details>'
        + (
            f'<details class="differing"><summary>not compared: {esc(differing_note(len(c.differing)))}</summary>'
            f'<ul class="flips">{differing}</ul></details>'
            if c.differing
            else ""
        )
    )


# -- drill-down --------------------------------------------------------------------------------


def diff_html(truth: str, answer: str | None) -> str:
    if answer is None:
        return '<p class="note">no answer</p>'
    lines = list(difflib.unified_diff(truth.splitlines(), answer.splitlines(), "ground truth", "processed answer", lineterm="", n=2))
    if not lines:
        return '<p class="note">identical to the ground truth</p>'
    out = []
    for line in lines:
        cls = "add" if line.startswith("+") else "del" if line.startswith("-") else "hunk" if line.startswith("@@") else ""
        out.append(f'<span class="{cls}">{esc(line)}</span>' if cls else esc(line))
    return '<pre class="diff">' + "\n".join(out) + "</pre>"


def block(title: str, text: str | None, cls: str = "") -> str:
    body = '<p class="note">none</p>' if text is None else f'<pre class="{cls}">{esc(text) if text else "<i>(empty)</i>"}</pre>'
    return f"<h5>{esc(title)}</h5>{body}"


def task_detail(report: Report, task_id: str, anchor: str, outcomes: list[OutcomeRow], colours: dict[str, str]) -> str:
    task = report.tasks.get(task_id)
    parts = [
        f'<details class="task" id="{anchor}"><summary><code>{esc(task_id)}</code> '
        + "".join(
            f'<span class="badge" style="background:{CLASS_COLOURS.get(o.status, "#999")}">'
            f"{esc(short_model(o.model))} · {esc(o.preset)}: {esc(o.status)}</span>"
            for o in outcomes
        )
        + "</summary>"
    ]
    if task is not None:
        meta = (
            f"{task.repo} · {task.language} · {task.kind.value} · {task.construct} · {task.lines_removed} lines removed · "
            f"labels: {', '.join(task.labels) or 'none'} · comment distance {task.comment_distance} · "
            f"reference distance {task.reference_distance}"
        )
        parts.append(f'<p class="meta">{esc(meta)}</p>')
        request = next((report.requests.get((o.run_id, task_id)) for o in outcomes if (o.run_id, task_id) in report.requests), None)
        excerpt = prompt_excerpt(task, source_file(task, request))
        parts.append(
            block(f"prompt: the document around the cursor ({CURSOR_MARK} marks it)", excerpt, "prompt")
            if excerpt is not None
            else '<h5>prompt</h5><p class="note">the source file is no longer available unchanged</p>'
        )
        parts.append(block("ground truth", task.ground_truth))
    for o in outcomes:
        tail = "\n".join(o.output_tail.splitlines()[-TAIL_LINES:])
        own = report.run_tasks.get((o.run_id, task_id))  # this run's task differs from the one above (re-marked)
        truth = own or task
        parts.append(
            f'<div class="outcome"><h4>{esc(short_model(o.model))} · {esc(o.preset)} ({esc(o.run_id)}): {esc(o.status)}'
            + (f" — {esc(o.detail)}" if o.detail else "")
            + "</h4>"
            + (block(f"ground truth in {o.run_id} (another task under the same id: re-marked?)", own.ground_truth) if own else "")
            + (block("model error", o.model_error) if o.model_error else "")
            + block("raw output", o.raw)
            + block("processed output", o.processed)
            + "<h5>diff against the ground truth</h5>"
            + (diff_html(truth.ground_truth, o.processed) if truth else "")
            + block(f"test output (last {TAIL_LINES} lines)", tail, "tail")
            + "</div>"
        )
    parts.append("</details>")
    return "".join(parts)


def outcome_badges(sections: Sequence[Section], mine: dict[tuple[str, str], OutcomeRow]) -> str:
    """One small badge per series, coloured by the outcome; its title and the list under it give
    the series, the outcome and the indel similarity in words (a column per series made the table
    wider than a page)."""
    badges, lines = [], []
    for i, s in enumerate(sections, 1):
        o = mine.get((s.run_id, s.preset))
        status = o.status if o else ""  # this series has no outcome for the task
        indel = (o.metrics or {}).get("indel_similarity") if o else None
        sim = "–" if indel is None else f"{indel:.2f}"
        words = f"{series_label(s)}: {status if o else 'no outcome'}, indel sim. {sim}"
        data = attrs(kind="task-outcome", series=series_key(s), status=status, indel=num(indel))
        badges.append(f'<span class="badge" {data} style="background:{CLASS_COLOURS.get(status, "#999")}" title="{esc(words)}">{i}</span>')
        lines.append(f"<li>{esc(words)}</li>")
    return f'<details class="outcomes"><summary>{"".join(badges)}</summary><ol>{"".join(lines)}</ol></details>'


def tasks_table(report: Report, sections: Sequence[Section], anchors: dict[str, str], by_task: dict[str, list[OutcomeRow]]) -> str:
    """One row per task in :data:`TASK_COLUMNS` columns, whatever the number of series: each
    series' outcome is a badge numbered as in the legend, with the words a click away."""
    rows = []
    shown = {(s.run_id, s.preset) for s in sections}  # not the ablation variants 'compare' stores
    for task_id, anchor in anchors.items():
        task = report.tasks.get(task_id)
        mine = {key: o for o in by_task[task_id] if (key := (o.run_id, o.preset)) in shown}
        passes = sum(o.passed for o in mine.values())
        indels = [m["indel_similarity"] for o in mine.values() if (m := o.metrics) and "indel_similarity" in m]
        mean = sum(indels) / len(indels) if indels else None
        rows.append(
            f'<tr><td><a href="#{anchor}">{esc(task_id)}</a></td>'
            + td(task.repo if task else "")
            + td(f"{task.language} {task.kind.value}" if task else "")
            + td(task.construct if task else "")
            + td(task.lines_removed if task else "", task.lines_removed if task else -1)
            + td(f"{passes}/{len(mine)}", passes)
            + td("–" if mean is None else f"{mean:.2f}", -1 if mean is None else mean)
            + f'<td data-sort="{passes}">{outcome_badges(sections, mine)}</td></tr>'
        )
    return sortable(TASK_COLUMNS, rows, "tasks")


TASK_COLUMNS = ("task", "repository", "language, kind", "construct", "lines", "passed", "mean indel sim.", "outcome per series")


def series_legend(sections: Sequence[Section]) -> str:
    """The numbers the tasks table's badges carry, with the series each stands for."""
    items = "".join(f"<li>{esc(series_label(s))}</li>" for s in sections)
    return f'<ol class="series">{items}</ol>'


# -- the page -------------------------------------------------------------------------------------

CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:0 18px 60px;color:#222}
h1{margin:18px 0 4px}h2{border-bottom:2px solid #ddd;padding-bottom:3px;margin-top:34px}
nav a{margin-right:14px}table{border-collapse:collapse;margin:8px 0;font-size:12.5px}
th,td{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}
th{background:#f3f3f3;cursor:pointer;user-select:none}th.asc:after{content:" ▲"}th.desc:after{content:" ▼"}
tr.small td,.flag{color:#a15c00}.flag{font-weight:bold}rect.small,circle.small{fill-opacity:.35}
rect.bar.small{stroke:#a15c00;stroke-dasharray:3 2}text.small{fill:#a15c00;font-weight:bold}
.chart text{font-size:11px;fill:#333}.grid{stroke:#e5e5e5}.whisker{stroke:#222;stroke-width:1.2}
.trend{fill:none;stroke-width:1.8}.tick{fill:#777}.inbar{fill:#fff;font-size:11px}.note{color:#666;font-size:12px}
figure{margin:10px 0 22px}figcaption{font-weight:bold;margin-bottom:4px}.legend .key{margin-right:12px;font-size:12px}
.legend i{display:inline-block;width:11px;height:11px;margin-right:4px;vertical-align:-1px}
pre{background:#f7f7f7;border:1px solid #e3e3e3;padding:6px;overflow:auto;max-height:380px;white-space:pre;font-size:12px}
pre.summary{white-space:pre-wrap}pre.prompt{max-height:none}.diff .add{color:#176b2c;background:#e6f6ea}.diff .del{color:#9b1c1c;background:#fbe9e9}
.diff .hunk{color:#555}details.task{border:1px solid #ddd;margin:4px 0;padding:4px 8px}
details.task summary{cursor:pointer}.badge{color:#fff;border-radius:3px;padding:0 5px;margin-left:6px;font-size:11px}
.outcome{border-top:1px dashed #ccc;margin-top:8px}.meta{color:#555}.warn{background:#fff4e0;border:1px solid #f0c36d;padding:6px 10px}
.vs{color:#888;font-weight:normal}.trends{display:flex;flex-wrap:wrap;gap:0 24px}.trends figure{width:540px}
table.tasks{width:100%;table-layout:auto}table.tasks td:first-child{word-break:break-all}
details.outcomes summary{cursor:pointer;list-style:none}details.outcomes .badge{margin:0 2px 0 0;display:inline-block;min-width:12px;text-align:center}
details.outcomes ol{margin:4px 0;padding-left:20px}ol.series{font-size:12px;columns:2}
"""

SCRIPT = """
(function(){
  function key(td){var s=td.getAttribute('data-sort');return s!==null&&s!==''&&!isNaN(+s)?+s:td.textContent.trim().toLowerCase();}
  document.querySelectorAll('table.sortable').forEach(function(table){
    table.querySelectorAll('th').forEach(function(th,col){
      th.addEventListener('click',function(){
        var asc=!th.classList.contains('asc');
        table.querySelectorAll('th').forEach(function(h){h.classList.remove('asc','desc');});
        th.classList.add(asc?'asc':'desc');
        var body=table.tBodies[0],rows=Array.prototype.slice.call(body.rows);
        rows.sort(function(a,b){var x=key(a.cells[col]),y=key(b.cells[col]);return (x<y?-1:x>y?1:0)*(asc?1:-1);});
        rows.forEach(function(r){body.appendChild(r);});
      });
    });
    table.setAttribute('data-sortable','ready');
  });
  function open(){var id=decodeURIComponent(location.hash.slice(1));var el=id&&document.getElementById(id);
    if(el&&el.tagName==='DETAILS'){el.open=true;el.scrollIntoView();}}
  window.addEventListener('hashchange',open);open();
  document.body.setAttribute('data-script','ran');
})();
"""


def samples_list(sections: list[Section]) -> str:
    """pass@1 over every sample and pass@n of the series with several samples per task (the
    charts and tables below are about sample 0); nothing when no series has them."""
    items = [f"<li>{esc(series_label(s))}: {esc(sample_line(s))}</li>" for s in sections if s.samples is not None]
    return f"<p>Several samples per task:</p><ul>{''.join(items)}</ul>" if items else ""


def render_html(report: Report) -> str:
    sections = report.sections
    colours = {series_key(s): PALETTE[i % len(PALETTE)] for i, s in enumerate(sections)}
    by_task: dict[str, list[OutcomeRow]] = {}
    for o in report.outcomes:
        by_task.setdefault(o.task_id, []).append(o)
    anchors = {task_id: f"task-{i}" for i, task_id in enumerate(sorted(by_task))}
    small = [(s, r) for s in sections for r in s.rows if r.small]
    runs = "".join(
        f"<tr>{td(r.run_id)}{td(r.model)}{td(r.created)}{td(r.scenario_hash[:12])}{td(', '.join(s.preset for s in sections if s.run_id == r.run_id))}"
        f"{td(run_verdict(r))}</tr>"
        for r in report.runs
    )
    legend = "".join(
        f'<span class="key"><i style="background:{colours[series_key(s)]}"></i>{esc(series_label(s))}</span>' for s in sections
    )
    cut = "".join(f"<li><b>{esc(k)}</b>: {esc(v)}</li>" for k, v in report.cutoffs.describe().items())
    out = [
        "<!doctype html><html lang=en><head><meta charset=utf-8>",
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">",
        f"<title>simpilot report: {esc(', '.join(r.run_id for r in report.runs))}</title><style>{CSS}</style></head><body>",
        "<h1>simpilot report</h1>",
        '<nav><a href="#strata">strata</a><a href="#taxonomy">error taxonomy</a>'
        + ('<a href="#tampering">tampering</a>' if report.tampering else "")
        + '<a href="#trends">trends</a><a href="#similarity">similarity</a><a href="#comparisons">comparisons</a>'
        '<a href="#latency">latency</a><a href="#table">all strata</a><a href="#tasks">tasks</a></nav>',
        sortable(["run", "model", "created", "scenario hash", "presets", "how verdicts were reached"], [runs]),
        f"<p>Intervals: <b>{esc(report.interval)}</b>. Cut-offs, computed once over the {len(report.tasks)} tasks of this report:</p><ul>{cut}</ul>",
        f'<p class="warn">⚠ {len(small)} of {sum(len(s.rows) for s in sections)} strata have fewer than {SMALL_STRATUM} tasks: '
        "they are drawn pale with dashed outlines and flagged “⚠ n&lt;10” everywhere; read their intervals with care.</p>"
        if small
        else "",
        f'<p class="legend">{legend}</p>',
        samples_list(sections),
        '<h2 id="strata">Pass rate per stratum</h2>',
    ]
    for dimension in DIMENSIONS:
        if dimension == "decision" and not any(r.dimension == dimension for s in sections for r in s.rows):
            continue  # no decision tasks in this report
        out.append(
            f'<figure data-dimension="{esc(dimension)}"><figcaption>{esc(dimension)}</figcaption>{strata_chart(dimension, sections, colours)}</figure>'
        )
    out += [
        '<h2 id="taxonomy">Error taxonomy</h2>',
        f"<figure><figcaption>outcome classes per model and preset</figcaption>{taxonomy_chart(sections)}</figure>",
        taxonomy_table(sections),
    ]
    sources = [(s, s.taxonomy.undefined_sources) for s in sections if s.taxonomy.undefined_sources]
    if sources:
        out.append(
            "<p>Undefined names found by: "
            + "; ".join(f"{esc(series_label(s))}: " + ", ".join(f"{esc(k)} {v}" for k, v in src.items()) for s, src in sources)
            + "</p>"
        )
    if report.tampering:  # a report of honest runs stays as it was
        out.append(tampering_section(report.tampering, anchors))
    out += ['<h2 id="trends">Trends over distance</h2><div class="trends">']
    for dimension in ("comment distance", "reference distance"):
        for similarity, what in ((False, "pass rate"), (True, "mean indel similarity")):
            out.append(
                f'<figure data-dimension="{esc(dimension)}"><figcaption>{what} over {esc(dimension)}</figcaption>'
                f"{trend_chart(dimension, sections, colours, similarity)}</figure>"
            )
    out += [
        "</div>",
        '<h2 id="similarity">Similarity to the ground truth (means)</h2>',
        "<p>Indel similarity is rapidfuzz's fuzz.ratio/100 (CrossCodeEval, RepoBench); normalised Levenshtein is "
        "rapidfuzz's Levenshtein.normalized_similarity (RepoEval). They are different numbers. A missing answer counts as empty.</p>",
        metrics_table(sections),
        '<h2 id="comparisons">Comparisons</h2>',
    ]
    out += [comparison_block(c, i, anchors) for i, c in enumerate(report.comparisons)] or [
        '<p class="note">one series only: nothing to compare</p>'
    ]
    out.append(decisions_section(sections, series_label))
    if report.board is not None:
        out += [
            '<h2 id="latency">Latency, the simulated editor and the Pareto front</h2>',
            "<p>Each series' first answers: time to the first token (streamed answers) and to the whole answer, "
            "whether a developer pausing at the cursor would have seen it and kept it, and the keystrokes it saved "
            "(<code>simpilot scoreboard</code> sets the editor's timing and the prices).</p>",
            scoreboard_section(report.board),
        ]
    out += [
        '<h2 id="table">All strata</h2>',
        strata_table(sections),
        '<h2 id="tasks">Tasks</h2>',
        "<p>Click a column to sort; click a task for its prompt, answers, diff and test output. Each badge is one "
        "series, numbered as below and coloured by its outcome; click the badges for the outcome and indel similarity in words.</p>",
        series_legend(sections),
        tasks_table(report, sections, anchors, by_task),
    ]
    out += [task_detail(report, task_id, anchor, by_task[task_id], colours) for task_id, anchor in anchors.items()]
    out.append(f"<script>{SCRIPT}</script></body></html>")
    return "\n".join(out)
