"""A model comparison in words: the phrases every form shares, and the comparison on a terminal, as
markdown and as JSON."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.markup import escape

from replay.core.missing_answers import SHOWN, some
from replay.reports.model_comparison import COSINE_LABEL, LEVEL, LINE0_LABEL, METRICS_NOTE, ModelComparison, PairTest
from replay.reports.text_tables import Table

# -- words shared by every form --------------------------------------------------------------------


def pct(x: float) -> str:
    return f"{100 * x:.1f}"


def interval(x: float, low: float, high: float) -> str:
    return f"{pct(x)} [{pct(low)}–{pct(high)}]"


def _delta(p: PairTest) -> str:
    return f"{100 * p.difference:+.1f} [{100 * p.low:+.1f}, {100 * p.high:+.1f}]"  # a dash between signed numbers misreads


def _flips(p: PairTest) -> str:
    return "–" if p.flips is None else f"{100 * p.flips:.1f}%"


def header(c: ModelComparison) -> str:
    """What was compared and how, in one sentence."""
    return (
        f"{len(c.models)} models on the same {len(c.tasks)} tasks, {c.n} samples each · pass@1 intervals: "
        f"{100 * LEVEL:.0f}% percentile bootstrap over tasks ({c.resamples} resamples, seed {c.seed}) · figures in %"
    )


def _p(value: float, resamples: int) -> str:
    """A bootstrap p-value; 0 means no replicate reached the other side: below 1/resamples."""
    return f"< {1 / resamples:.0e}" if value == 0 else f"{value:.3g}"


def exclusion_notes(c: ModelComparison) -> list[str]:
    """One sentence per group of runs that lost the same tasks for the same reasons (the
    comparison pairs tasks, so one run's missing task is left out of every run)."""
    groups: dict[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]], list[str]] = {}
    for e in c.excluded:
        if e.count:
            groups.setdefault((tuple(e.missing), tuple(e.mismatched), tuple(e.empty)), []).append(e.model)
    why = {task_id: reason for e in c.excluded for task_id, reason in e.why}
    notes = []
    for (missing, mismatched, empty), models in groups.items():
        reasons = [
            f"{len(missing)} missing in another run ({some(missing)})" if missing else "",
            f"{len(mismatched)} with another run's number of samples ({some(mismatched)})" if mismatched else "",
            f"{len(empty)} with no sample ({some(empty)})" if empty else "",
        ]
        who = "every model" if len(models) == len(c.excluded) > 1 else ", ".join(models)
        lost = [*missing, *mismatched, *empty]
        named = "; ".join(f"{task_id}: {why[task_id]}" for task_id in lost[:SHOWN] if task_id in why)
        more = f" (and {len(lost) - SHOWN} more)" if len(lost) > SHOWN else ""
        reasons_text = ", ".join(r for r in reasons if r)
        notes.append(f"{who}: {len(lost)} task(s) left out — {reasons_text}." + (f" Why: {named}{more}." if named else ""))
    return notes


def model_rows(c: ModelComparison) -> tuple[list[str], list[list[str]]]:
    head = ["model", "pass@1 [95% CI]", f"pass@{c.n}", f"line-0 EM, any of {c.n}", "cosine"]
    rows = [[m.model, interval(m.pass_at_1, m.low, m.high), pct(m.pass_at_n), pct(m.line0_any), f"{m.cosine:.3f}"] for m in c.models]
    return head, rows


def stratum_rows(c: ModelComparison, key: str) -> tuple[list[str], list[list[str]]]:
    values = c.values(key)
    counts = {v: next(s.tasks for s in c.models[0].strata if s.key == key and s.value == v) for v in values}
    head = ["model", *(f"{v} (n={counts[v]})" for v in values)]
    rows = []
    for m in c.models:
        cells = []
        for v in values:
            s = m.stratum(key, v)
            cells.append("–" if s is None else interval(s.pass_at_1, s.low, s.high))
        rows.append([m.model, *cells])
    return head, rows


def neighbour_rows(c: ModelComparison) -> tuple[list[str], list[list[str]]]:
    head = ["model", "next model", "Δ pass@1 [95% CI]", "McNemar p (sample 0)", "bootstrap p", "flips"]
    rows = [
        [p.first, p.second, _delta(p), f"{p.mcnemar_p:.3g} (+{p.only_first}/−{p.only_second})", _p(p.bootstrap_p, c.resamples), _flips(p)]
        for p in c.neighbours
    ]
    return head, rows


NEIGHBOUR_NOTE = (
    "Δ: the model's pass@1 minus the next model's, in points · McNemar: exact, on sample 0 (+ tasks only the model passed / − only the next) · "
    "bootstrap p: paired bootstrap of per-task pass@1 · flips: share of bootstrap replicates in which the next model comes out ahead"
)


# -- the terminal ----------------------------------------------------------------------------------


def _table(title: str | None, head: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> Table:
    """A table whose name columns (the first ``left``) fold rather than being cut, and whose
    numbers never wrap."""
    table = Table(title=None if title is None else escape(title), title_justify="left")
    for i, col in enumerate(head):
        # a header's qualifier goes under it: the column is as narrow as its figures
        label = escape(col.replace(" (", "\n(").replace(" [", "\n["))
        if i < left:
            widest = max((len(row[i]) for row in rows), default=0)
            table.add_column(label, justify="left", overflow="fold", min_width=min(10, max(widest, 4)))
        else:
            table.add_column(label, justify="right", no_wrap=True)
    for row in rows:
        table.add_row(*(escape(cell) for cell in row))
    return table


def _fold(rows: Sequence[Sequence[str]], left: int = 1) -> list[list[str]]:
    """Each figure's interval or counts under it: a table of many columns stays within 80."""
    return [[*row[:left], *(cell.replace(" [", "\n[").replace(" (", "\n(") for cell in row[left:])] for row in rows]


def render(c: ModelComparison, console: Console, *, brief: bool = False) -> None:
    """The models, then (unless ``brief``) pass@1 by each stratum key and the neighbours in the ranking."""
    console.print(header(c), markup=False, highlight=False)
    for note in exclusion_notes(c):
        console.print(f"  {note}", markup=False, highlight=False)
    console.print(_table(None, *model_rows(c)))
    console.print(f"  {METRICS_NOTE}", markup=False, highlight=False)
    if brief:
        return
    for key in c.by:
        head, rows = stratum_rows(c, key)
        console.print(_table(f"pass@1 by {key}", head, _fold(rows)))
    if c.neighbours:
        head, rows = neighbour_rows(c)
        console.print(_table("neighbours in the ranking", head, _fold(rows, left=2), left=2))
        console.print(f"  {NEIGHBOUR_NOTE}", markup=False, highlight=False)


# -- markdown --------------------------------------------------------------------------------------


def _md_cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _md_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(_md_cell(h) for h in head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(_md_cell(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def markdown(c: ModelComparison) -> str:
    """The same tables as :func:`render`, in GitHub markdown (for a README)."""
    parts = [_md_cell(header(c)) + "."]
    notes = exclusion_notes(c)
    if notes:
        parts.append("\n".join(f"- {_md_cell(n)}" for n in notes))
    parts.append(_md_table(*model_rows(c)) + "\n\n" + _md_cell(METRICS_NOTE) + ".")
    for key in c.by:
        parts.append(f"**pass@1 by {_md_cell(key)}**\n\n" + _md_table(*stratum_rows(c, key)))
    if c.neighbours:
        parts.append("**neighbours in the ranking**\n\n" + _md_table(*neighbour_rows(c)) + "\n\n" + _md_cell(NEIGHBOUR_NOTE) + ".")
    return "\n\n".join(parts) + "\n"


# -- JSON ------------------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def _record(obj: Any) -> dict[str, Any]:
    return {name: _plain(getattr(obj, name)) for name in obj.__dataclass_fields__}


def to_json(c: ModelComparison) -> dict[str, Any]:
    """Everything, every pair included (not only the neighbours)."""
    return {
        "tasks": len(c.tasks),
        "task_ids": list(c.tasks),
        "samples_per_task": c.n,
        "by": list(c.by),
        "interval": f"percentile bootstrap over tasks, {100 * LEVEL:.0f}%",
        "resamples": c.resamples,
        "seed": c.seed,
        "tests": {
            "mcnemar": "exact, two-sided, on sample 0",
            "bootstrap": "paired percentile bootstrap of per-task pass@1",
            "flips": "share of bootstrap replicates in which the lower-ranked neighbour comes out ahead",
        },
        "devbench_metrics": {
            "line0": LINE0_LABEL,
            "cosine": COSINE_LABEL,
            "best_at_1": "best@1 of the cosine",
            "best_at_n": "best@n of the cosine",
        },
        "models": [{**_record(m), "strata": [_record(s) for s in m.strata]} for m in c.models],
        "pairs": [_record(p) for p in c.pairs],
        "neighbours": [[p.first, p.second] for p in c.neighbours],
        "excluded": [{**_record(e), "count": e.count} for e in c.excluded],
    }
