"""Editor traces: what an editor sent to the bridge, one JSON object per line.

``simpilot serve --record FILE`` writes a trace so that a real editing session can later be
replayed against another model (``replay/run/trace_replay.py``). Every line carries ``"v"`` (the
format version), ``"t"`` (monotonic seconds since the writer opened the file) and ``"event"``;
the other fields depend on the event:

========== =====================================================================================
event      fields
========== =====================================================================================
open       uri, language_id, version, text
change     uri, version, changes: ``[{"range": {"start": {"line", "character"}, "end": …} | null,
           "text": str}]`` exactly as LSP sent them (a null range replaces the whole document)
close      uri
complete   request_id, uri, line, character (UTF-16 units, as LSP sent them), trigger_kind (1
           invoked, 2 automatic), items (the insertText strings answered), latency_ms
cancel     request_id
shown      uri, text (what the editor showed, from ``textDocument/didShowCompletion``)
accept     uri, text (what the developer accepted)
reject     uri, text
========== =====================================================================================

The writer appends, so one file may hold several sessions (``t`` restarts with each). The reader
is forgiving: a bad line is reported with its number and skipped, because a trace cut short by a
crashed editor is still worth replaying. :class:`Documents` replays open/change/close through
pygls's own ``TextDocument`` so each ``complete`` sees exactly the text the server saw.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.workspace import TextDocument

from replay.core.errors import SimpilotError

TRACE_VERSION = 1
logger = logging.getLogger(__name__)

# event -> required field -> accepted JSON types (bool is never accepted as a number)
_STR, _INT, _NUM, _ID, _LIST = (str,), (int,), (int, float), (int, str), (list,)
EVENT_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "open": {"uri": _STR, "language_id": _STR, "version": _INT, "text": _STR},
    "change": {"uri": _STR, "version": _INT, "changes": _LIST},
    "close": {"uri": _STR},
    "complete": {"request_id": _ID, "uri": _STR, "line": _INT, "character": _INT, "trigger_kind": _INT, "items": _LIST, "latency_ms": _NUM},
    "cancel": {"request_id": _ID},
    "shown": {"uri": _STR, "text": _STR},
    "accept": {"uri": _STR, "text": _STR},
    "reject": {"uri": _STR, "text": _STR},
}
_RESERVED = frozenset({"v", "t", "event"})


class TraceError(SimpilotError):
    """A trace that cannot be written or holds nothing readable."""


class TraceWriter:
    """Appends events to a JSONL trace; safe to call from several threads (one lock per line).

    The file is line-buffered, so every recorded event is on disk when :meth:`record` returns and
    a crash loses at most the line being written.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = path.open("a", encoding="utf-8", newline="\n", buffering=1)
        except OSError as exc:
            raise TraceError(f"cannot write the trace {path}: {exc.strerror or exc}; choose a writable --record path") from None
        self._lock = threading.Lock()
        self._start = time.monotonic()

    def record(self, event: str, **fields: Any) -> None:
        """Append one event. Unknown events, missing fields and reserved names are programming
        errors and raise ``ValueError``; values must be JSON-able."""
        required = EVENT_FIELDS.get(event)
        if required is None:
            raise ValueError(f"unknown trace event {event!r} (known: {', '.join(EVENT_FIELDS)})")
        missing = [name for name in required if name not in fields]
        if missing:
            raise ValueError(f"trace event {event!r} needs {', '.join(missing)}")
        clash = _RESERVED.intersection(fields)
        if clash:
            raise ValueError(f"trace event fields may not be named {', '.join(sorted(clash))}")
        with self._lock:
            if self._fh.closed:
                raise ValueError(f"the trace {self.path} is closed")
            line = {"v": TRACE_VERSION, "t": round(time.monotonic() - self._start, 6), "event": event, **fields}
            self._fh.write(json.dumps(line, ensure_ascii=False) + "\n")

    def close(self) -> None:
        with self._lock:
            if not self._fh.closed:
                self._fh.close()


@dataclass(frozen=True, slots=True)
class TextChange:
    """One content change of a ``change`` event; ``range`` is ``((line, character), (line,
    character))`` in UTF-16 units, or None for a whole-document replacement."""

    range: tuple[tuple[int, int], tuple[int, int]] | None
    text: str

    def to_lsp(self) -> types.TextDocumentContentChangeEvent:
        if self.range is None:
            return types.TextDocumentContentChangeWholeDocument(text=self.text)
        (sl, sc), (el, ec) = self.range
        rng = types.Range(start=types.Position(line=sl, character=sc), end=types.Position(line=el, character=ec))
        return types.TextDocumentContentChangePartial(range=rng, text=self.text)


def json_changes(changes: Iterable[types.TextDocumentContentChangeEvent]) -> list[dict[str, Any]]:
    """A didChange's ``content_changes`` in the trace's shape (what ``record("change", …)``
    expects): ranges kept exactly as LSP sent them, None for a whole-document replacement."""
    out: list[dict[str, Any]] = []
    for change in changes:
        rng = getattr(change, "range", None)
        if rng is None:
            out.append({"range": None, "text": change.text})
        else:
            out.append(
                {
                    "range": {
                        "start": {"line": rng.start.line, "character": rng.start.character},
                        "end": {"line": rng.end.line, "character": rng.end.character},
                    },
                    "text": change.text,
                }
            )
    return out


@dataclass(frozen=True, slots=True)
class TraceEvent:
    """One line of a trace. ``lineno`` is its 1-based line in the file; the other attributes are
    those of its event (see the module table) and None where the event has no such field."""

    event: str
    t: float
    lineno: int
    uri: str | None = None
    language_id: str | None = None
    version: int | None = None
    text: str | None = None
    changes: tuple[TextChange, ...] = ()
    request_id: int | str | None = None
    line: int | None = None
    character: int | None = None
    trigger_kind: int | None = None
    items: tuple[str, ...] = ()
    latency_ms: float | None = None


@dataclass(frozen=True, slots=True)
class TraceProblem:
    """A line the reader skipped, or an event the document model could not apply."""

    lineno: int
    message: str

    def __str__(self) -> str:
        return f"line {self.lineno}: {self.message}"


@dataclass(frozen=True, slots=True)
class CompleteSnapshot:
    """A ``complete`` event and the document it was asked on, as the server had it then."""

    event: TraceEvent
    text: str
    language_id: str


def _type_name(types_: tuple[type, ...]) -> str:
    return " or ".join({"str": "a string", "int": "an integer", "float": "a number", "list": "a list"}[t.__name__] for t in types_)


def _position(value: Any, where: str) -> tuple[int, int]:
    if not isinstance(value, dict):
        raise ValueError(f"{where} is not an object")
    return _coordinate(value, "line", where), _coordinate(value, "character", where)


def _coordinate(position: dict[str, Any], name: str, where: str) -> int:
    v = position.get(name)
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise ValueError(f"{where}.{name} is not a non-negative integer")
    return v


def _change(value: Any, i: int) -> TextChange:
    if not isinstance(value, dict) or not isinstance(value.get("text"), str):
        raise ValueError(f"changes[{i}] needs a string 'text'")
    rng = value.get("range")
    if rng is None:
        return TextChange(None, value["text"])
    if not isinstance(rng, dict):
        raise ValueError(f"changes[{i}].range is neither an object nor null")
    return TextChange(
        (_position(rng.get("start"), f"changes[{i}].range.start"), _position(rng.get("end"), f"changes[{i}].range.end")), value["text"]
    )


def parse_event(line: str, lineno: int) -> TraceEvent:
    """One trace line as an event; ``ValueError`` says what is wrong with it."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    if data.get("v") != TRACE_VERSION:
        raise ValueError(f"format version {data.get('v')!r}, this reader knows {TRACE_VERSION}")
    event = data.get("event")
    if not isinstance(event, str) or event not in EVENT_FIELDS:
        raise ValueError(f"unknown event {event!r}")
    required = EVENT_FIELDS[event]
    t = data.get("t")
    if not isinstance(t, (int, float)) or isinstance(t, bool):
        raise ValueError("'t' is not a number")
    for name, accepted in required.items():
        value = data.get(name)
        if name not in data or isinstance(value, bool) or not isinstance(value, accepted):
            raise ValueError(f"{event}: '{name}' {'is missing' if name not in data else 'is not ' + _type_name(accepted)}")
    fields = {name: data[name] for name in required}
    if event == "change":
        fields["changes"] = tuple(_change(c, i) for i, c in enumerate(data["changes"]))
    if event == "complete":
        if not all(isinstance(item, str) for item in data["items"]):
            raise ValueError("complete: 'items' must be a list of strings")
        fields["items"] = tuple(data["items"])
        fields["latency_ms"] = float(data["latency_ms"])
        if data["line"] < 0 or data["character"] < 0:
            raise ValueError("complete: negative position")
    return TraceEvent(event=event, t=float(t), lineno=lineno, **fields)


def _log_problem(problem: TraceProblem) -> None:
    logger.warning("%s", problem)


def read_trace(path: Path, on_problem: Callable[[TraceProblem], None] = _log_problem) -> list[TraceEvent]:
    """Every readable event of the trace at ``path``, in file order.

    Bad lines go to ``on_problem`` (line number and what is wrong) and are skipped; a trace with
    no readable event at all raises :class:`TraceError`.
    """
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TraceError(f"trace {path} does not exist: record one with 'simpilot serve --record {path}'") from None
    except UnicodeDecodeError as exc:
        raise TraceError(f"trace {path} is not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise TraceError(f"cannot read the trace {path}: {exc.strerror or exc}") from None
    events: list[TraceEvent] = []
    problems: list[TraceProblem] = []
    for lineno, line in enumerate(raw.split("\n"), 1):
        if not line.strip():
            continue
        try:
            events.append(parse_event(line, lineno))
        except ValueError as exc:
            problem = TraceProblem(lineno, str(exc))
            problems.append(problem)
            on_problem(problem)
    if not events:
        first = f" (first problem: {problems[0]})" if problems else ""
        raise TraceError(f"trace {path} holds no readable event{first}; record one with 'simpilot serve --record FILE'")
    return events


class Documents:
    """The editor's open documents, rebuilt from open/change/close events.

    Changes go through pygls's ``TextDocument.apply_change``, the code the bridge's workspace runs,
    so positions are interpreted exactly as the server interpreted them (UTF-16 units).
    """

    def __init__(self) -> None:
        self._docs: dict[str, TextDocument] = {}

    def apply(self, event: TraceEvent) -> TraceProblem | None:
        """Update the documents for ``event``; a change to a document that is not open is a problem."""
        uri = event.uri or ""
        if event.event == "open":
            self._docs[uri] = TextDocument(uri, event.text, event.version, event.language_id)
        elif event.event == "change":
            doc = self._docs.get(uri)
            if doc is None:
                return TraceProblem(event.lineno, f"change to {uri}, which is not open")
            for change in event.changes:
                try:
                    doc.apply_change(change.to_lsp())
                except (IndexError, ValueError) as exc:
                    return TraceProblem(event.lineno, f"change to {uri} does not fit the document ({exc}); later text may be wrong")
            doc.version = event.version
        elif event.event == "close":
            if self._docs.pop(uri, None) is None:
                return TraceProblem(event.lineno, f"close of {uri}, which is not open")
        return None

    def text(self, uri: str) -> str | None:
        doc = self._docs.get(uri)
        return None if doc is None else doc.source

    def language(self, uri: str) -> str | None:
        doc = self._docs.get(uri)
        return None if doc is None else doc.language_id


def snapshots(events: Iterable[TraceEvent], on_problem: Callable[[TraceProblem], None] = _log_problem) -> list[CompleteSnapshot]:
    """The document behind every ``complete`` event, in trace order. A complete on a document
    that is not open is reported and left out."""
    docs = Documents()
    out: list[CompleteSnapshot] = []
    for event in events:
        if event.event == "complete":
            text = docs.text(event.uri or "")
            if text is None:
                on_problem(TraceProblem(event.lineno, f"complete on {event.uri}, which is not open"))
            else:
                out.append(CompleteSnapshot(event, text, docs.language(event.uri or "") or "python"))
        elif (problem := docs.apply(event)) is not None:
            on_problem(problem)
    return out
