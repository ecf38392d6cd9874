"""The decisions section of the HTML report: silence, suggestion precision and one-line answers
per series, overall and per stratum (the figures of ``decisions.py``; every cell carries its
counts as data attributes, so a reader or a test can check them against the JSON)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from replay.reports.decision_figures import DecisionFigures, Share
from replay.reports.html_text import esc
from replay.reports.report_build import Section
from replay.reports.strata import StratumRow

INTRO = (
    "<p>At a <code>no_suggestion</code> place the developer has just finished a statement, block or function and the "
    "right answer is nothing; at a <code>one_line</code> place one line is right and a plausible longer answer fails "
    "the tests. <b>Silent</b>: no_suggestion places answered with nothing. <b>Precision</b>: of the suggestions made, "
    "those at places that needed code. <b>One line</b>: one_line tasks answered with one line, of those answered "
    "with something. First answers, after post-processing; model errors left out.</p>"
)


def _cell(kind: str, series: str, share: Share | None) -> str:
    if share is None or share.n == 0:
        return "<td>–</td>"
    rate = share.k / share.n
    return (
        f'<td data-kind="{esc(kind)}" data-series="{esc(series)}" data-k="{share.k}" data-n="{share.n}" '
        f'data-sort="{rate:.4f}">{100 * rate:.1f}% <span class="note">{share.k}/{share.n}</span></td>'
    )


def _share(row: StratumRow | None) -> Share | None:
    return None if row is None else Share(row.passed, row.n)


def _rows(label: str, f: DecisionFigures) -> list[str]:
    strata: dict[tuple[str, str], dict[str, StratumRow]] = {}
    for name, rows in (("silence", f.silence_rows), ("precision", f.precision_rows), ("one line", f.one_line_rows)):
        for r in rows:
            strata.setdefault((r.dimension, r.value), {})[name] = r
    out = []
    for (dimension, value), cells in strata.items():
        out.append(
            "<tr>"
            + f"<td>{esc(label)}</td><td>{esc(dimension)}</td><td>{esc(value)}</td>"
            + _cell("silence", label, _share(cells.get("silence")))
            + _cell("precision", label, _share(cells.get("precision")))
            + _cell("one-line", label, _share(cells.get("one line")))
            + "</tr>"
        )
    return out


def decisions_section(sections: Sequence[Section], label: Callable[[Section], str]) -> str:
    """The section, or the empty string when no series has decision tasks."""
    with_figures = [(s, s.decisions) for s in sections if s.decisions is not None]
    if not with_figures:
        return ""
    summary = []
    rows: list[str] = []
    for s, f in with_figures:
        assert f is not None
        name = label(s)
        summary.append(
            "<tr>"
            + f"<td>{esc(name)}</td>"
            + _cell("silence", name, f.silence)
            + _cell("precision", name, f.precision)
            + _cell("one-line", name, f.one_line)
            + f"<td>{f.one_line_longer}</td><td>{f.one_line_empty}</td></tr>"
        )
        rows += _rows(name, f)
    head = "".join(f"<th>{h}</th>" for h in ("series", "silent", "precision", "one line", "one_line: longer", "one_line: nothing"))
    strata_head = "".join(f"<th>{h}</th>" for h in ("series", "stratum", "value", "silent", "precision", "one line"))
    return (
        '<h2 id="decisions">When to suggest, and how much</h2>'
        + INTRO
        + f'<table class="sortable decisions"><thead><tr>{head}</tr></thead><tbody>{"".join(summary)}</tbody></table>'
        + f'<table class="sortable decision-strata"><thead><tr>{strata_head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )
