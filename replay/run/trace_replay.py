"""Replay a recorded editing session against another model.

A trace (``lsp_bridge/trace.py``) holds what an editor sent and what the developer accepted. For
every ``complete`` the developer accepted — an ``accept`` on the same document after it and before
the next ``complete`` there — the document is rebuilt as the server had it, the bridge (running
the other model) is asked at the same position, and its answer is compared with the accepted
text: exact match after stripping trailing whitespace, and Levenshtein similarity (0–1). A model
error is a miss with similarity 0, counted separately, never fatal. Pairing and scoring are pure;
asking goes through :class:`replay.run.client.BridgeClient`.
"""

from __future__ import annotations

import asyncio
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from rapidfuzz.distance import Levenshtein
from rich.console import Console, JustifyMethod
from rich.text import Text

from lsp_bridge.trace import CompleteSnapshot, TraceEvent, TraceProblem, read_trace, snapshots
from replay.core.records import Position
from replay.reports.text_tables import Table
from replay.run.client import BridgeClient
from replay.scoring.stats import wilson


def normalize(text: str) -> str:
    """The text with trailing whitespace stripped from every line and trailing blank lines dropped:
    editors and models disagree on those, developers do not notice them."""
    return "\n".join(line.rstrip() for line in text.splitlines()).rstrip("\n")


def similarity(answer: str, accepted: str) -> float:
    """Normalized Levenshtein similarity of the normalized texts: 1 for equal, 0 for nothing alike."""
    return float(Levenshtein.normalized_similarity(normalize(answer), normalize(accepted)))


@dataclass(frozen=True, slots=True)
class TraceCounts:
    """What happened to the original model's answers in the trace."""

    completes: int
    answered: int  # completes with at least one item
    shown: int
    accepted: int
    rejected: int
    cancelled: int

    @property
    def acceptance_rate(self) -> float | None:
        """Accepted per shown suggestion (None when the editor reported none shown)."""
        return self.accepted / self.shown if self.shown else None


def count_events(events: Sequence[TraceEvent]) -> TraceCounts:
    kinds = Counter(e.event for e in events)
    answered = sum(1 for e in events if e.event == "complete" and e.items)
    return TraceCounts(kinds["complete"], answered, kinds["shown"], kinds["accept"], kinds["reject"], kinds["cancel"])


@dataclass(frozen=True, slots=True)
class AcceptedRequest:
    """A ``complete`` event the developer accepted, with its document and the accepted text."""

    snapshot: CompleteSnapshot
    accepted: str


def accepted_requests(events: Sequence[TraceEvent], found: Sequence[CompleteSnapshot]) -> list[AcceptedRequest]:
    """Pair each ``accept`` with the latest ``complete`` on the same document, if no other
    ``complete`` came there in between; ``found`` are the snapshots of the completes whose
    document could be rebuilt (:func:`lsp_bridge.trace.snapshots`)."""
    by_line = {s.event.lineno: s for s in found}
    pending: dict[str, CompleteSnapshot | None] = {}
    out: list[AcceptedRequest] = []
    for event in events:
        uri = event.uri or ""
        if event.event == "complete":
            pending[uri] = by_line.get(event.lineno)
        elif event.event == "accept" and (snapshot := pending.get(uri)) is not None:
            del pending[uri]
            out.append(AcceptedRequest(snapshot, event.text or ""))
    return out


@dataclass(frozen=True, slots=True)
class TraceRow:
    """One replayed request: where it was asked, what was accepted, what the other model said."""

    lineno: int  # of the complete event in the trace
    uri: str
    line: int
    character: int
    accepted: str
    original: str | None  # the recorded model's first item
    answer: str | None
    error: str | None
    exact: bool
    similarity: float
    latency_ms: float


def score(request: AcceptedRequest, answer: str | None, error: str | None, latency_ms: float) -> TraceRow:
    event = request.snapshot.event
    ok = error is None and answer is not None
    return TraceRow(
        lineno=event.lineno,
        uri=event.uri or "",
        line=event.line or 0,
        character=event.character or 0,
        accepted=request.accepted,
        original=event.items[0] if event.items else None,
        answer=answer,
        error=error,
        exact=ok and normalize(answer or "") == normalize(request.accepted),
        similarity=similarity(answer or "", request.accepted) if ok else 0.0,
        latency_ms=latency_ms,
    )


@dataclass(frozen=True)
class TraceReport:
    trace: str
    counts: TraceCounts
    rows: tuple[TraceRow, ...]
    problems: tuple[str, ...] = field(default=())

    @property
    def n(self) -> int:
        return len(self.rows)

    @property
    def exact(self) -> int:
        return sum(r.exact for r in self.rows)

    @property
    def errors(self) -> int:
        return sum(r.error is not None for r in self.rows)

    @property
    def exact_rate(self) -> float:
        return self.exact / self.n if self.n else 0.0

    @property
    def exact_interval(self) -> tuple[float, float]:
        return wilson(self.exact, self.n)

    @property
    def mean_similarity(self) -> float:
        return statistics.fmean(r.similarity for r in self.rows) if self.rows else 0.0

    @property
    def median_similarity(self) -> float:
        return statistics.median(r.similarity for r in self.rows) if self.rows else 0.0

    def to_json(self) -> dict[str, Any]:
        low, high = self.exact_interval
        return {
            "trace": self.trace,
            "n": self.n,
            "exact": self.exact,
            "exact_rate": self.exact_rate,
            "exact_low": low,
            "exact_high": high,
            "mean_similarity": self.mean_similarity,
            "median_similarity": self.median_similarity,
            "model_errors": self.errors,
            "original": {**asdict(self.counts), "acceptance_rate": self.counts.acceptance_rate},
            "rows": [asdict(r) for r in self.rows],
            "problems": list(self.problems),
        }


ROWS_SHOWN = 20


def _preview(text: str | None, width: int = 40) -> str:
    if text is None:
        return ""
    flat = text.replace("\n", "⏎")
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def render(report: TraceReport, console: Console) -> None:
    """The summary table, the trace's own counts, and the first :data:`ROWS_SHOWN` requests
    (all of them are in :meth:`TraceReport.to_json`)."""
    low, high = report.exact_interval
    c = report.counts
    table = Table(title=f"trace replay: {report.trace}")
    for name in ("accepted requests", "exact match", "95% interval", "mean similarity", "median similarity", "model errors"):
        table.add_column(name, justify="right")
    table.add_row(
        str(report.n),
        f"{report.exact} ({report.exact_rate:.1%})",
        f"{low:.1%} – {high:.1%}",
        f"{report.mean_similarity:.3f}",
        f"{report.median_similarity:.3f}",
        str(report.errors),
    )
    console.print(table)
    rate = "n/a (no shown events)" if c.acceptance_rate is None else f"{c.acceptance_rate:.1%}"
    console.print(
        f"  in the trace: {c.completes} requests ({c.answered} answered, {c.cancelled} cancelled), "
        f"{c.shown} shown, {c.accepted} accepted, {c.rejected} rejected; acceptance {rate}",
        highlight=False,
    )
    if report.rows:
        rows = Table(show_edge=False, box=None, padding=(0, 1))
        columns: tuple[tuple[str, JustifyMethod], ...] = (
            ("trace line", "right"),
            ("position", "right"),
            ("exact", "left"),
            ("similarity", "right"),
            ("accepted", "left"),
            ("answer or error", "left"),
        )
        for name, justify in columns:
            rows.add_column(name, justify=justify)
        for r in report.rows[:ROWS_SHOWN]:
            answer = _preview(r.answer) if r.error is None else f"error: {_preview(r.error)}"
            rows.add_row(
                str(r.lineno),
                f"{r.line}:{r.character}",
                "yes" if r.exact else "no",
                f"{r.similarity:.3f}",
                Text(_preview(r.accepted)),
                Text(answer),
            )  # code is not rich markup: '[x]' stays as typed
        console.print(rows)
        if report.n > ROWS_SHOWN:
            console.print(f"  … and {report.n - ROWS_SHOWN} more (see --json)")
    if report.problems:
        console.print(f"  {len(report.problems)} trace problem(s), first: {report.problems[0]}", markup=False, highlight=False)


async def ask_all(client: BridgeClient, requests: Sequence[AcceptedRequest], concurrency: int = 4) -> list[TraceRow]:
    """Ask the bridge at every accepted request, each on its own freshly opened document."""
    limit = asyncio.Semaphore(max(1, concurrency))

    async def one(request: AcceptedRequest) -> TraceRow:
        snap = request.snapshot
        event = snap.event
        trigger = (
            types.InlineCompletionTriggerKind(event.trigger_kind)
            if event.trigger_kind in (1, 2)
            else types.InlineCompletionTriggerKind.Invoked
        )
        async with limit, client.open_document(event.uri or "", snap.language_id, snap.text) as doc:
            answer, error, latency = await doc.ask(Position(event.line or 0, event.character or 0), trigger)
        return score(request, answer, error, latency)

    return list(await asyncio.gather(*(one(r) for r in requests)))


async def replay_trace(
    trace_path: Path,
    server_command: Sequence[str],
    init_options: dict[str, Any],
    roots: Sequence[Path],
    *,
    log: Path | None = None,
    concurrency: int = 4,
) -> TraceReport:
    """Replay every accepted request of the trace at ``trace_path`` against the bridge started
    with ``server_command`` and ``init_options`` (``{"model": spec, "postprocess": preset or
    None}``), its workspace folders being ``roots``. Unreadable lines and events that do not fit
    the documents are listed in ``problems``; the trace must hold at least one readable event."""
    problems: list[TraceProblem] = []
    events = read_trace(trace_path, problems.append)
    requests = accepted_requests(events, snapshots(events, problems.append))
    rows: list[TraceRow] = []
    if requests:
        async with BridgeClient(list(server_command), init_options, list(roots), log) as client:
            rows = await ask_all(client, requests, concurrency)
    return TraceReport(str(trace_path), count_events(events), tuple(rows), tuple(str(p) for p in sorted(problems, key=lambda p: p.lineno)))
