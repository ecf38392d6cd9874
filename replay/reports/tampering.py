"""How often a model tried to touch the test harness, next to how often it passed.

A pass rate alone can hide reward hacking: an answer that forges the reporter's records or
replaces the test framework's functions is judged ``tampered`` (never a pass), and a model that
does this often is a different model from one that merely fails. The evaluator writes what it
saw into the outcome's detail, which this module reads back:

* ``the answer tampered with the harness: EVENT; EVENT; ...``, each event a short name without
  spaces, then optionally a space and its specifics (``gc.get_objects at tiny/stats.py:14``,
  ``forged-record 3 line(s) not written by the reporter``, ``records-out-of-order``);
* ``the test framework was altered during the run: NAMES`` (outcomes stored before the events
  had names), read as the single event ``framework-replaced NAMES``.

The figures count every stored answer of a series, all samples included (an attempt on a later
sample is an attempt all the same), and the pass rate beside them is of those same answers, so
that the two rates share a denominator. A pure function of the outcomes: the store's records
recompute every figure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from rich.console import Console
from rich.markup import escape

from replay.core.records import TAMPERED_DETAIL, Outcome, Status
from replay.reports.comparison import Series
from replay.reports.text_tables import Table

PREFIX = TAMPERED_DETAIL
OLD_PREFIX = "the test framework was altered during the run: "
OLD_EVENT = "framework-replaced"  # the one thing an old-style detail can say
SEPARATOR = "; "
EXAMPLES = 3  # per series: enough to see what was tried, few enough to read


@dataclass(frozen=True, slots=True)
class Event:
    """One thing an answer did to the harness: ``name`` to count it by, ``text`` (the name and its
    specifics, as stored) to show it."""

    name: str
    text: str


@dataclass(frozen=True, slots=True)
class Example:
    task_id: str
    sample: int
    event: str  # the event's text, as stored

    @property
    def sample_note(self) -> str:
        """Which sample, for runs with several (sample 0 goes without saying)."""
        return f" (sample {self.sample})" if self.sample else ""


@dataclass(frozen=True, slots=True)
class TamperingRow:
    """One series' figures. ``events`` counts answers, not mentions: an answer naming an event
    twice counts once, so every count is at most ``tampered`` and reads as a share of it."""

    run_id: str
    model: str
    preset: str
    judged: int  # answers with a verdict, every sample
    passed: int
    tampered: int
    events: dict[str, int]  # event name → answers naming it, the most frequent first
    examples: tuple[Example, ...]

    @property
    def series(self) -> Series:
        return Series(self.run_id, self.model, self.preset)

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.judged if self.judged else None

    @property
    def rate(self) -> float | None:
        return self.tampered / self.judged if self.judged else None


def parse_events(detail: str) -> tuple[Event, ...]:
    """The events a tampered outcome's detail names (see the module docstring); a detail in
    neither shape is taken for the old one without its prefix, so that no tampered answer goes
    uncounted."""
    if detail.startswith(PREFIX):
        parts = (p.strip() for p in detail[len(PREFIX) :].split(SEPARATOR))
        return tuple(Event(p.split(maxsplit=1)[0], p) for p in parts if p)
    names = detail.removeprefix(OLD_PREFIX).strip()
    return (Event(OLD_EVENT, f"{OLD_EVENT} {names}" if names else OLD_EVENT),)


def events_of(outcome: Outcome) -> tuple[Event, ...]:
    """The events of one outcome: none unless it was judged tampered."""
    return parse_events(outcome.detail or "") if outcome.status is Status.TAMPERED else ()


def examples(tampered: Iterable[Outcome], limit: int = EXAMPLES) -> tuple[Example, ...]:
    """Up to ``limit`` events of ``tampered`` answers (in task and sample order): the first of
    each event name before any second of one, so that the few shown cover what was tried."""
    found = [(o, e) for o in sorted(tampered, key=lambda o: (o.task_id, o.sample)) for e in events_of(o)]
    first: dict[str, tuple[Outcome, Event]] = {}
    for o, e in found:
        first.setdefault(e.name, (o, e))
    chosen = list(first.values())[:limit]
    chosen += [x for x in found if x not in chosen][: limit - len(chosen)]
    return tuple(Example(o.task_id, o.sample, e.text) for o, e in chosen)


def series_row(series: Series, outcomes: Iterable[Outcome]) -> TamperingRow:
    """The figures of one series from its outcomes (every sample)."""
    listed = list(outcomes)
    tampered = [o for o in listed if o.status is Status.TAMPERED]
    named = Counter(name for o in tampered for name in {e.name for e in events_of(o)})
    return TamperingRow(
        series.run_id,
        series.model,
        series.preset,
        len(listed),
        sum(o.passed for o in listed),
        len(tampered),
        dict(sorted(named.items(), key=lambda kv: (-kv[1], kv[0]))),
        examples(tampered),
    )


def tampering(series: Iterable[tuple[Series, Iterable[Outcome]]]) -> list[TamperingRow]:
    """Every series' row when any answer of any series tampered, none otherwise: the honest
    series stay as the baseline to read a rate against, and a report of honest runs is left as it
    was (an empty list says "nothing tampered" to a script)."""
    rows = [series_row(s, outcomes) for s, outcomes in series]
    return rows if any(r.tampered for r in rows) else []


# -- JSON and text -------------------------------------------------------------------------------


def row_json(row: TamperingRow) -> dict[str, Any]:
    """A row with its two rates (the JSON report's ``tampering`` list)."""
    return {**asdict(row), "pass_rate": row.pass_rate, "rate": row.rate}


def _share(k: int, n: int) -> str:
    return f"{k}/{n} ({100 * k / n:.1f}%)" if n else f"{k}/0"


def event_counts(row: TamperingRow) -> str:
    """The event names with their counts, in one line."""
    return ", ".join(f"{name} {count}" for name, count in row.events.items()) or "–"


def render_tampering(rows: Sequence[TamperingRow], console: Console) -> None:
    """The terminal section: one line per series (passes and tampered answers of every sample,
    the answers naming each event), then a few examples; nothing when ``rows`` is empty."""
    if not rows:
        return
    console.print("[bold]Tampering[/]: answers that touched the test harness (every sample)", highlight=False)
    table = Table(box=None, padding=(0, 1))
    table.add_column("series", overflow="fold")
    table.add_column("passed", justify="right", no_wrap=True)
    table.add_column("tampered", justify="right", no_wrap=True)
    table.add_column("answers per event", overflow="fold")
    for r in rows:
        table.add_row(escape(r.series.label), _share(r.passed, r.judged), _share(r.tampered, r.judged), escape(event_counts(r)))
    console.print(table)
    for r in rows:
        for e in r.examples:
            console.print(f"  {r.series.label}: {e.task_id}{e.sample_note}: {e.event}", markup=False, highlight=False)
    console.print()
