"""When to suggest, and how much: figures of a series' answers at decision places.

A pass rate says whether the code was right where code was needed; it cannot say whether the
model interrupts where nothing was needed, nor whether it knows to stop after one line. From the
first answer (sample 0) of each task, after post-processing, where an answer with only
whitespace counts as silence (an editor shows nothing):

* **silence rate**: of the ``no_suggestion`` places, the share answered with nothing;
* **suggestion precision**: of the suggestions made (non-empty answers, every task of the series),
  the share at places where something was needed (every task but ``no_suggestion`` ones). It is
  given only when the series has ``no_suggestion`` places: without them every suggestion is
  needed by construction and the figure would say nothing;
* **single- versus multi-line**: of the ``one_line`` tasks answered with something, the share
  answered with exactly one line (non-blank lines counted), beside the counts of longer and of
  empty answers.

Each figure is also cut by every stratum of the report (``strata.py``: language and kind,
repository, construct, categories, distances), with Wilson intervals. Requests that got no
answer (model errors) are left out of every figure. Pure functions of tasks and outcomes: the
store's records recompute them exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from rich.console import Console

from replay.core.records import Decision, Outcome, Task
from replay.reports.strata import Cutoffs, IntervalMethod, StratumRow, stratify
from replay.reports.text_tables import Table

WILSON = IntervalMethod()


def answer_lines(processed: str | None) -> int:
    """Non-blank lines of an answer: 0 is silence."""
    return sum(1 for line in (processed or "").splitlines() if line.strip())


@dataclass(frozen=True, slots=True)
class Share:
    """``k`` of ``n`` and the rate (None when ``n`` is 0)."""

    k: int
    n: int

    @property
    def rate(self) -> float | None:
        return self.k / self.n if self.n else None


@dataclass(frozen=True, slots=True)
class DecisionFigures:
    """One series' decision figures, overall and per stratum (rows: ``passed`` counts the yes)."""

    silence: Share  # no_suggestion places answered with nothing
    precision: Share | None  # suggestions at places that needed something; None without no_suggestion places
    one_line: Share  # one_line tasks answered with one line, of those answered with something
    one_line_longer: int  # one_line tasks answered with more than one line
    one_line_empty: int  # one_line tasks answered with nothing
    silence_rows: tuple[StratumRow, ...] = ()
    precision_rows: tuple[StratumRow, ...] = ()
    one_line_rows: tuple[StratumRow, ...] = ()


def _lines_of(outcomes: Mapping[str, Outcome]) -> Callable[[str], int | None]:
    """Answer lines by task id; None for a task without an answer."""

    def lines(task_id: str) -> int | None:
        o = outcomes.get(task_id)
        return None if o is None or o.processed is None else answer_lines(o.processed)

    return lines


def decision_figures(
    tasks: Sequence[Task], outcomes: Mapping[str, Outcome], cut: Cutoffs, method: IntervalMethod = WILSON, key: str = ""
) -> DecisionFigures | None:
    """The figures of one series (``outcomes`` by task id, sample 0 of one preset); None when
    none of ``tasks`` is a decision task."""
    if not any(t.decision is not None for t in tasks):
        return None
    lines = _lines_of(outcomes)
    by_id = {t.id: t for t in tasks}

    def silent(task_id: str) -> bool | None:
        n = lines(task_id)
        return None if n is None or not by_id[task_id].nothing_needed else n == 0

    def needed(task_id: str) -> bool | None:
        n = lines(task_id)
        return None if not n else not by_id[task_id].nothing_needed

    def single(task_id: str) -> bool | None:
        n = lines(task_id)
        return None if not n or by_id[task_id].decision is not Decision.ONE_LINE else n == 1

    def share(of: Callable[[str], bool | None]) -> Share:
        values = [v for v in (of(t.id) for t in tasks) if v is not None]
        return Share(sum(values), len(values))

    has_nothing = any(t.nothing_needed for t in tasks)
    one_line_ids = [t.id for t in tasks if t.decision is Decision.ONE_LINE]
    counted = [lines(i) for i in one_line_ids]
    rows = {
        name: tuple(stratify(tasks, of, cut, method, key=f"{key}|{name}"))
        for name, of in (("silence", silent), ("precision", needed), ("one line", single))
    }
    return DecisionFigures(
        silence=share(silent),
        precision=share(needed) if has_nothing else None,
        one_line=share(single),
        one_line_longer=sum(1 for n in counted if n is not None and n > 1),
        one_line_empty=sum(1 for n in counted if n == 0),
        silence_rows=rows["silence"],
        precision_rows=rows["precision"] if has_nothing else (),
        one_line_rows=rows["one line"],
    )


def _pct(share: Share | None) -> str:
    if share is None or share.rate is None:
        return "–"
    return f"{100 * share.rate:.1f}% ({share.k}/{share.n})"


def summary_line(f: DecisionFigures) -> str:
    """The figures in one line of words (the terminal report)."""
    return (
        f"decisions: silent where nothing was needed {_pct(f.silence)}; "
        f"suggestion precision {_pct(f.precision) if f.precision is not None else '– (no no_suggestion places)'}; "
        f"one-line tasks answered with one line {_pct(f.one_line)}, more {f.one_line_longer}, nothing {f.one_line_empty}"
    )


def stratum_table(f: DecisionFigures) -> list[tuple[str, str, str, str, str]]:
    """(dimension, value, silence, precision, one line) per stratum that has any of the three."""
    cells: dict[tuple[str, str], dict[str, str]] = {}
    for name, rows in (("silence", f.silence_rows), ("precision", f.precision_rows), ("one line", f.one_line_rows)):
        for r in rows:
            cells.setdefault((r.dimension, r.value), {})[name] = _pct(Share(r.passed, r.n))
    return [(d, v, c.get("silence", "–"), c.get("precision", "–"), c.get("one line", "–")) for (d, v), c in cells.items() if d != "all"]


def decisions_json(f: DecisionFigures) -> dict[str, Any]:
    """The figures for ``--json``: each share with its rate, and every stratum row."""

    def share(x: Share | None) -> dict[str, Any] | None:
        return None if x is None else {"k": x.k, "n": x.n, "rate": x.rate}

    return {
        "silence": share(f.silence),
        "precision": share(f.precision),
        "one_line": share(f.one_line),
        "one_line_longer": f.one_line_longer,
        "one_line_empty": f.one_line_empty,
        "silence_rows": [asdict(r) for r in f.silence_rows],
        "precision_rows": [asdict(r) for r in f.precision_rows],
        "one_line_rows": [asdict(r) for r in f.one_line_rows],
    }


def render_decisions(f: DecisionFigures, console: Console) -> None:
    """The summary line, then the strata as a table (the terminal report)."""
    console.print("  " + summary_line(f), markup=False, highlight=False)
    table = Table("stratum", "value", "silent", "precision", "one line", box=None, padding=(0, 1), title_justify="left")
    for row in stratum_table(f):
        table.add_row(*row)
    console.print(table)
