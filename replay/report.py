"""Reports computed from the store alone: pass rates with Wilson 95% intervals by kind and by
repository, outcome classes, and the tasks worth a look (a ground-truth answer that failed, an
empty answer that passed). Building (pure) and rendering (rich / JSON) are separate."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any

from rich.console import Console
from rich.table import Table

from .records import Outcome, Task
from .stats import wilson
from .store import RunInfo, Store

SMALL_STRATUM = 10


@dataclass(frozen=True)
class Row:
    stratum: str
    value: str
    n: int
    passed: int
    rate: float
    low: float
    high: float
    small: bool  # fewer than SMALL_STRATUM tasks: the interval is wide, read with care


@dataclass
class Notable:
    task_id: str
    status: str
    why: str


@dataclass
class Section:
    run_id: str
    model: str
    preset: str
    scenario_hash: str
    rows: list[Row]
    statuses: dict[str, int]
    notable: list[Notable] = field(default_factory=list)


def _row(stratum: str, value: str, outcomes: list[Outcome]) -> Row:
    n = len(outcomes)
    k = sum(o.passed for o in outcomes)
    low, high = wilson(k, n)
    return Row(stratum, value, n, k, k / n if n else 0.0, low, high, n < SMALL_STRATUM)


def build_section(run: RunInfo, preset: str, tasks: dict[str, Task], outcomes: list[Outcome]) -> Section:
    mine = [o for o in outcomes if o.postprocess == preset and o.task_id in tasks]
    rows = [_row("all", "all", mine)]
    for stratum, key in (("kind", lambda t: t.kind.value), ("language", lambda t: t.language), ("repository", lambda t: t.repo)):
        groups: dict[str, list[Outcome]] = defaultdict(list)
        for o in mine:
            groups[key(tasks[o.task_id])].append(o)
        rows += [_row(stratum, value, groups[value]) for value in sorted(groups)]
    notable = []
    for o in mine:
        if run.model == "oracle" and not o.passed:
            notable.append(Notable(o.task_id, o.status.value, o.detail or "the ground truth failed"))
        elif o.passed and not (o.processed or "").strip():
            notable.append(Notable(o.task_id, o.status.value, "passed with an empty answer: its tests do not exercise the hole"))
    return Section(run.run_id, run.model, preset, run.scenario_hash, rows, dict(Counter(o.status.value for o in mine)), notable)


def build_report(store: Store, run_ids: list[str]) -> list[Section]:
    sections = []
    for run_id in run_ids:
        run = store.run(run_id)
        if run is None:
            continue
        tasks = {t.id: t for t in store.tasks(run_id)}
        outcomes = store.outcomes(run_id)
        for preset in run.presets:
            sections.append(build_section(run, preset, tasks, outcomes))
    return sections


def to_json(sections: list[Section]) -> dict[str, Any]:
    return {"sections": [asdict(s) for s in sections], "interval": "wilson-95"}


def _pct(x: float) -> str:
    return f"{100 * x:5.1f}"


def render(sections: list[Section], console: Console) -> None:
    for s in sections:
        table = Table(title=f"run {s.run_id} · model {s.model} · post-processing {s.preset}", title_justify="left")
        for col, justify in (("stratum", "left"), ("value", "left"), ("tasks", "right"), ("passed", "right"), ("pass %", "right"), ("95% CI (Wilson)", "right")):
            table.add_column(col, justify=justify)  # type: ignore[arg-type]
        last = None
        for r in s.rows:
            if last is not None and r.stratum != last:
                table.add_section()
            last = r.stratum
            flag = " [yellow](n<10)[/]" if r.small else ""
            table.add_row(r.stratum, r.value + flag, str(r.n), str(r.passed), _pct(r.rate), f"{_pct(r.low)} – {_pct(r.high)}")
        console.print(table)
        statuses = ", ".join(f"{k} {v}" for k, v in sorted(s.statuses.items(), key=lambda kv: (-kv[1], kv[0])))
        console.print(f"  outcomes: {statuses or 'none'}")
        if s.notable:
            console.print(f"  [bold]worth a look ({len(s.notable)}):[/]")
            for note in s.notable[:20]:
                console.print(f"    {note.task_id}  [{note.status}] {note.why}", markup=False, highlight=False)
            if len(s.notable) > 20:
                console.print(f"    … and {len(s.notable) - 20} more (see --json)")
        elif s.model == "oracle":
            console.print("  every ground-truth answer passed")
        console.print()
