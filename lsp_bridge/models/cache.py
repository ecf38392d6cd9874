"""The raw-output store: every request's exact body and prompt, and the raw answer, in SQLite.

A model spec with ``cache_db = "PATH"`` wraps its HTTP model in :class:`CachedModel`. A request is
keyed by the SHA-256 of the model's identity (its kind and settings, without the transport ones —
timeout, retries, backoff, concurrency, the API key's variable — see ``settings.TRANSPORT_FIELDS``)
and the exact JSON body. A key already stored is answered from the store: the endpoint is never
asked the same thing twice, so re-running a benchmark costs nothing and gives the same answers
bit for bit. Identical requests in flight at the same moment share one endpoint call.

What is stored is the answer's raw text as the endpoint sent it, and how it came (its times and
token counts): a stored answer is given again with the original request's timing, marked
``replayed``; it is parsed (and cleaned of
stop and special tokens) on every use, so a fix to the parsing applies to stored answers too.
Failures are not stored: a request that failed is asked again next time.

Several processes may share one file (WAL mode, a busy timeout); the first writer of a key wins.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import json
import sqlite3
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from replay.core.records import Timing

from .base import CompletionRequest, ModelError
from .remote import Prepared, RemoteModel

_SCHEMA = """
CREATE TABLE IF NOT EXISTS raw_outputs (
    key TEXT PRIMARY KEY,      -- sha256 of the model identity and the request body
    model TEXT NOT NULL,       -- the model's name, for people reading the file
    identity TEXT NOT NULL,    -- JSON: kind and settings that shape the answer
    body TEXT NOT NULL,        -- JSON: the exact request body sent
    prompt TEXT NOT NULL,      -- the prompt text inside the body
    raw TEXT NOT NULL,         -- the answer body exactly as received
    created TEXT NOT NULL,     -- UTC, ISO 8601
    timing TEXT                -- JSON: how the answer came (replay.core.records.Timing); NULL before timings were kept
)
"""
_COLUMNS = "key, model, identity, body, prompt, raw, created, timing"


@dataclass(frozen=True, slots=True)
class RawOutput:
    key: str
    model: str
    identity: dict[str, Any]
    body: dict[str, Any]
    prompt: str
    raw: str
    created: str
    timing: Timing | None = None

    def to_row(self) -> tuple[str, str, str, str, str, str, str, str | None]:
        prompt = self.prompt.encode("utf-8", "backslashreplace").decode("utf-8")  # SQLite text is UTF-8: no lone surrogates
        timing = _canonical(self.timing.to_json()) if self.timing is not None else None
        return (self.key, self.model, _canonical(self.identity), _canonical(self.body), prompt, self.raw, self.created, timing)

    @classmethod
    def from_row(cls, row: tuple[str, str, str, str, str, str, str, str | None]) -> RawOutput:
        key, model, identity, body, prompt, raw, created, timing = row
        kept = Timing.from_json(json.loads(timing)) if timing else None
        return cls(key, model, json.loads(identity), json.loads(body), prompt, raw, created, kept)


def request_key(identity: dict[str, Any], body: dict[str, Any]) -> str:
    """The store key of ``body`` sent to the model ``identity``."""
    return hashlib.sha256(_canonical({"model": identity, "body": body}).encode("utf-8")).hexdigest()


def _canonical(value: Any) -> str:
    """One spelling per value: sorted keys, ASCII escapes (any text, even lone surrogates)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


class RawOutputStore:
    """One SQLite file of raw outputs (created with its folder on first use)."""

    def __init__(self, path: Path):
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, timeout=30, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(_SCHEMA)
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(raw_outputs)")}
            if "timing" not in columns:  # a store written before timings were kept
                self._db.execute("ALTER TABLE raw_outputs ADD COLUMN timing TEXT")
        except (OSError, sqlite3.Error) as exc:
            raise ModelError(f"cannot open the raw-output store {path}: {exc}; check cache_db") from None
        self._lock = threading.Lock()

    def get(self, key: str) -> RawOutput | None:
        try:
            with self._lock:
                row = self._db.execute(f"SELECT {_COLUMNS} FROM raw_outputs WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as exc:
            raise ModelError(f"cannot read the raw-output store {self.path}: {exc}; check cache_db") from None
        return RawOutput.from_row(row) if row else None

    def put(self, output: RawOutput) -> None:
        """Store ``output``; a failure is a ModelError, since an answer that cannot be stored
        would be asked again on the next run."""
        try:
            with self._lock:
                self._db.execute(f"INSERT OR IGNORE INTO raw_outputs ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", output.to_row())
        except sqlite3.Error as exc:
            raise ModelError(f"cannot write the raw-output store {self.path}: {exc}; check cache_db (disk full? read-only?)") from None

    def all(self) -> list[RawOutput]:
        with self._lock:
            rows = self._db.execute(f"SELECT {_COLUMNS} FROM raw_outputs ORDER BY created, key").fetchall()
        return [RawOutput.from_row(r) for r in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()


class CachedModel:
    """``inner`` answered from ``store`` when the same request was answered before."""

    def __init__(self, inner: RemoteModel, store: RawOutputStore):
        self.inner = inner
        self.store = store
        self.name = inner.name
        self.settings = inner.settings
        self._identity = inner.cache_identity()
        self._in_flight: dict[str, asyncio.Future[RawOutput]] = {}

    async def complete(self, request: CompletionRequest) -> str:
        return (await self.complete_timed(request))[0][0]

    async def complete_timed(self, request: CompletionRequest) -> tuple[list[str], Timing | None]:
        """The answer, from the store when it holds the request (with the original request's
        timing, marked ``replayed``), else from the endpoint (and then stored)."""
        prepared = await self.inner.prepare(request)
        key = request_key(self._identity, prepared.body)
        stored = self.store.get(key)
        if stored is not None:
            return self._given_again(prepared, stored)
        if key in self._in_flight:  # the same request is being asked right now: share its answer
            shared = self._in_flight[key]
            await asyncio.wait([shared])  # never cancels the other caller's request
            if not shared.cancelled():
                return self._given_again(prepared, shared.result())
        future: asyncio.Future[RawOutput] = asyncio.get_running_loop().create_future()
        self._in_flight[key] = future
        try:
            output = await self._fetch(key, prepared)
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # marked as seen: there may be no other caller to see it
            raise
        except BaseException:
            future.cancel()  # cancelled: a waiting caller asks on its own
            raise
        else:
            future.set_result(output)
        finally:
            if self._in_flight.get(key) is future:
                del self._in_flight[key]
        return [self.inner.parse(output.raw)], output.timing

    def _given_again(self, prepared: Prepared, output: RawOutput) -> tuple[list[str], Timing | None]:
        """A stored answer, with the original request's timing (None if stored before timings were kept)."""
        timing = replace(output.timing, replayed=True) if output.timing is not None else None
        return [self.inner.parse(output.raw)], timing

    async def _fetch(self, key: str, prepared: Prepared) -> RawOutput:
        reply = await self.inner.exchange(prepared)
        text = self.inner.parse(reply.raw)  # an answer that does not parse raises here and is not stored
        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        timing = self.inner.timing(prepared, reply, text)
        output = RawOutput(key, self.inner.name, self._identity, prepared.body, prepared.prompt, reply.raw, now, timing)
        self.store.put(output)
        return output

    async def aclose(self) -> None:
        try:
            await self.inner.aclose()
        finally:
            self.store.close()
