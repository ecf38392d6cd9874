"""A report as text on a terminal (rich): the full ``report``, and the short summary a replay
prints."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from replay.reports.comparison import Series
from replay.reports.decision_figures import render_decisions
from replay.reports.report_build import Report, Section
from replay.reports.strata import SMALL_STRATUM, StratumRow
from replay.reports.tampering import render_tampering
from replay.reports.taxonomy import Taxonomy
from replay.reports.text_tables import Table
from replay.scoring.similarity import METRIC_LABELS


def _pct(x: float | None) -> str:
    return "    –" if x is None else f"{100 * x:5.1f}"


def strata_table(report: Report, s: Section) -> Table:
    """One series' strata as a table that fits 80 columns: each dimension is a heading row with
    its values indented under it (two label columns would push the numbers off a narrow
    terminal), and the numbers never wrap."""
    method = "Wilson" if report.interval == "wilson-95" else "bootstrap"
    table = Table(title=escape(f"run {s.run_id} · model {s.model} · post-processing {s.preset}"), title_justify="left")
    table.add_column("stratum", justify="left", overflow="fold")
    for col in ("tasks", "passed", "pass %", f"95% CI ({method})"):
        table.add_column(col, justify="right", no_wrap=True)
    last = None
    for r in s.rows:
        if r.dimension != last:
            if last is not None:
                table.add_section()
            if r.dimension != "all":
                table.add_row(f"[bold]{escape(r.dimension)}[/]")
            last = r.dimension
        flag = f" [yellow](n<{SMALL_STRATUM})[/]" if r.small else ""
        label = escape(r.value) if r.dimension == "all" else "  " + escape(r.value)
        table.add_row(label + flag, str(r.n), str(r.passed), _pct(r.rate), f"{_pct(r.low)} – {_pct(r.high)}")
    return table


def render(report: Report, console: Console) -> None:
    """Every series' strata, outcome classes and similarity, the answers that tampered with the
    harness (when any did), then the comparisons (``report``)."""
    cut_lines = report.cutoffs.describe()
    for s in report.sections:
        console.print(strata_table(report, s))
        if s.samples is not None:
            console.print(f"  {s.preset}: {sample_line(s)}", markup=False, highlight=False)
        for dimension, line in cut_lines.items():
            console.print(f"  {dimension}: {line}", markup=False, highlight=False)
        t = s.taxonomy
        classes = ", ".join(f"{k.label} {k.count} ({100 * k.share:.1f}%)" for k in t.classes if k.count)
        console.print(f"  outcomes: {t.passed} passed of {t.total}; failures: {classes or 'none'}", markup=False, highlight=False)
        if s.decisions is not None:
            render_decisions(s.decisions, console)
        if t.undefined_sources:
            console.print("  undefined names found by: " + ", ".join(f"{k} {v}" for k, v in t.undefined_sources.items()), markup=False)
        if s.metrics:
            console.print(
                "  similarity (mean of "
                + str(s.metrics_n)
                + "): "
                + ", ".join(f"{METRIC_LABELS[k]} {v:.3f}" for k, v in s.metrics.items()),
                markup=False,
                highlight=False,
            )
        if s.notable:
            console.print(f"  [bold]worth a look ({len(s.notable)}):[/]")
            for note in s.notable[:20]:
                console.print(f"    {note.task_id}  [{note.status}] {note.why}", markup=False, highlight=False)
            if len(s.notable) > 20:
                console.print(f"    … and {len(s.notable) - 20} more (see --json)")
        elif s.model == "oracle":
            console.print("  every ground-truth answer passed")
        console.print()
    render_tampering(report.tampering, console)
    for c in report.comparisons:
        console.print(f"[bold]comparison[/]: {c.second.label} vs {c.first.label}", highlight=False)
        for line in c.summary.splitlines():
            console.print("  " + line, markup=False, highlight=False)
        if c.flips:
            shown = ", ".join(f"{f.task_id} ({f.first_status}→{f.second_status})" for f in c.flips[:10])
            console.print(f"  flipped ({len(c.flips)}): {shown}" + (" …" if len(c.flips) > 10 else ""), markup=False, highlight=False)
        if c.differing:
            console.print(
                f"  not compared, different tasks under one id ({len(c.differing)}): {', '.join(c.differing[:10])}"
                + (" …" if len(c.differing) > 10 else ""),
                markup=False,
                highlight=False,
            )
        console.print()


# -- the short summary a replay prints ----------------------------------------------------------


def _overall(s: Section) -> StratumRow | None:
    return next((r for r in s.rows if r.dimension == "all"), None)


def _most_common(t: Taxonomy, shown: int = 3) -> str:
    """The most frequent outcome classes other than a pass, the rest counted (the full report
    lists them all)."""
    classes = sorted((k for k in t.classes if k.count), key=lambda k: -k.count)
    text = ", ".join(f"{k.label} {k.count}" for k in classes[:shown]) or "none"
    return text + (f", {len(classes) - shown} more" if len(classes) > shown else "")


def summary_table(report: Report, sections: list[Section] | None = None) -> Table:
    """One row per series (of ``sections``, default all): the pass rate with its interval and the
    other outcomes, in a table whose numbers never wrap at 80 columns (the outcomes fold instead)."""
    method = "Wilson" if report.interval == "wilson-95" else "bootstrap"
    table = Table(title_justify="left")
    table.add_column("preset", overflow="fold")
    for col in ("passed", "pass %", f"95% CI ({method})"):
        table.add_column(col, justify="right", no_wrap=True)
    table.add_column("other outcomes", overflow="fold")
    for s in report.sections if sections is None else sections:
        r = _overall(s)
        others = _most_common(s.taxonomy)
        if r is None:
            table.add_row(escape(s.preset), "0/0", _pct(None), "", escape(others))
        else:
            table.add_row(escape(s.preset), f"{r.passed}/{r.n}", _pct(r.rate), f"{_pct(r.low)} – {_pct(r.high)}", escape(others))
    return table


def sample_line(s: Section) -> str:
    """pass@1 over every sample and pass@n of a series with several samples per task."""
    m = s.samples
    assert m is not None
    return (
        f"pass@1 over {m.n} samples {100 * m.pass_at_1:.1f}% [{100 * m.low:.1f} – {100 * m.high:.1f}], "
        f"pass@{m.n} {100 * m.pass_at_n:.1f}% ({m.tasks} tasks; the table counts sample 0, the first suggestion)"
    )


def _series_name(series: Series, several: bool) -> str:
    return f"{series.run_id}:{series.preset}" if several else series.preset


def render_summary(report: Report, console: Console, report_command: str) -> None:
    """What ``replay`` prints by default: the pass rate of each preset with its interval, how many
    tasks and model errors, one line per comparison and where the full report is. The strata
    tables (``report``, or ``replay --verbose``) run to hundreds of lines."""
    for run in report.runs:  # each run its own table: the same presets recur across runs
        mine = [s for s in report.sections if s.run_id == run.run_id]
        tasks = max((r.n for s in mine if (r := _overall(s)) is not None), default=0)
        errors = max((k.count for s in mine for k in s.taxonomy.classes if k.status == "model_error"), default=0)
        console.print(escape(f"run {run.run_id} · model {run.model} · {tasks} tasks · {errors} model error(s)"), highlight=False)
        console.print(summary_table(report, mine))
        for s in mine:
            if s.samples is not None:
                console.print(f"  {s.preset}: {sample_line(s)}", markup=False, highlight=False)
    for c in report.comparisons:
        overall = next((d for d in c.strata if d.dimension == "all"), None)
        if overall is not None and overall.n:
            several = c.first.run_id != c.second.run_id
            console.print(
                f"  {_series_name(c.second, several)} vs {_series_name(c.first, several)}: {100 * overall.difference:+.1f} points "
                f"(+{overall.only_second} / −{overall.only_first} tasks, exact McNemar p = {overall.p_value:.3g})",
                markup=False,
                highlight=False,
            )
    notes = sum(len(s.notable) for s in report.sections)
    if notes:
        console.print(f"  {notes} outcome(s) worth a look: see the full report", markup=False, highlight=False)
    # commands are printed whole (soft wrap) so that a narrow terminal does not break them for copying
    console.print(f"full report (strata, error classes, similarity): {report_command}", markup=False, highlight=False, soft_wrap=True)
    console.print(f"charts and every task on one page: {report_command} --html report.html", markup=False, highlight=False, soft_wrap=True)
