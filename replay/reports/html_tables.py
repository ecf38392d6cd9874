"""The HTML report's tables: strata, outcome classes, tampering, metrics and comparisons, sortable
by the page's script."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from replay.reports.comparison import Comparison, differing_note
from replay.reports.html_data import attrs, num, pct, place, series_key, series_label, stratum_attrs
from replay.reports.html_text import esc
from replay.reports.report_build import Section
from replay.reports.strata import SMALL_STRATUM
from replay.reports.tampering import TamperingRow
from replay.scoring.similarity import METRIC_LABELS

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
            data = stratum_attrs("stratum-row", r, s, indel=num(indel))
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


_DIFF_COUNTS = ("passed_first", "passed_second", "only_first", "only_second")  # a stratum's counts, as they are


def comparison_block(c: Comparison, index: int, anchors: dict[str, str]) -> str:
    rows = []
    for d in c.strata:
        data = attrs(
            kind="diff",
            comparison=index,
            **place(d),
            **{count: getattr(d, count) for count in _DIFF_COUNTS},
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
