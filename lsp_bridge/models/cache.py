"""The raw-output store: every request's exact body and prompt, and the raw answer, in SQLite.

A model spec with ``cache_db = "PATH"`` wraps its HTTP model in :class:`CachedModel`. A request is
keyed by the SHA-256 of the model's identity (its kind and settings, without the transport ones —
timeout, retries, backoff, concurrency, the API key's variable — see ``settings.TRANSPORT_FIELDS``)
and the exact JSON body. A key already stored is answered from the store: the endpoint is never
asked the same thing twice, so re-running a benchmark costs nothing and gives the same answers
bit for bit. Identical requests in flight at the same moment share one endpoint call.

What is stored is the answer's raw text as the endpoint sent it; it is parsed (and cleaned of
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
    created TEXT NOT NULL      -- UTC, ISO 8601
)
"""


@dataclass(frozen=True, slots=True)
class RawOutput:
    key: str
    model: str
    identity: dict[str, Any]
    body: dict[str, Any]
    prompt: str
    raw: str
    created: str

    def to_row(self) -> tuple[str, str, str, str, str, str, str]:
        prompt = self.prompt.encode("utf-8", "backslashreplace").decode("utf-8")  # SQLite text is UTF-8: no lone surrogates
        return (self.key, self.model, _canonical(self.identity), _canonical(self.body), prompt, self.raw, self.created)

    @classmethod
    def from_row(cls, row: tuple[str, str, str, str, str, str, str]) -> RawOutput:
        key, model, identity, body, prompt, raw, created = row
        return cls(key, model, json.loads(identity), json.loads(body), prompt, raw, created)


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
        except (OSError, sqlite3.Error) as exc:
            raise ModelError(f"cannot open the raw-output store {path}: {exc}; check cache_db") from None
        self._lock = threading.Lock()

    def get(self, key: str) -> RawOutput | None:
        try:
            with self._lock:
                row = self._db.execute(
                    "SELECT key, model, identity, body, prompt, raw, created FROM raw_outputs WHERE key = ?", (key,)
                ).fetchone()
        except sqlite3.Error as exc:
            raise ModelError(f"cannot read the raw-output store {self.path}: {exc}; check cache_db") from None
        return RawOutput.from_row(row) if row else None

    def put(self, output: RawOutput) -> None:
        """Store ``output``; a failure is a ModelError, since an answer that cannot be stored
        would be asked again on the next run."""
        try:
            with self._lock:
                self._db.execute("INSERT OR IGNORE INTO raw_outputs VALUES (?, ?, ?, ?, ?, ?, ?)", output.to_row())
        except sqlite3.Error as exc:
            raise ModelError(f"cannot write the raw-output store {self.path}: {exc}; check cache_db (disk full? read-only?)") from None

    def all(self) -> list[RawOutput]:
        with self._lock:
            rows = self._db.execute(
                "SELECT key, model, identity, body, prompt, raw, created FROM raw_outputs ORDER BY created, key"
            ).fetchall()
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
        self._in_flight: dict[str, asyncio.Future[str]] = {}

    async def complete(self, request: CompletionRequest) -> str:
        prepared = await self.inner.prepare(request)
        key = request_key(self._identity, prepared.body)
        stored = self.store.get(key)
        if stored is not None:
            return self.inner.parse(stored.raw)
        if key in self._in_flight:  # the same request is being asked right now: share its answer
            shared = self._in_flight[key]
            await asyncio.wait([shared])  # never cancels the other caller's request
            if not shared.cancelled():
                return self.inner.parse(shared.result())
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._in_flight[key] = future
        try:
            raw = await self._fetch(key, prepared)
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # marked as seen: there may be no other caller to see it
            raise
        except BaseException:
            future.cancel()  # cancelled: a waiting caller asks on its own
            raise
        else:
            future.set_result(raw)
        finally:
            if self._in_flight.get(key) is future:
                del self._in_flight[key]
        return self.inner.parse(raw)

    async def _fetch(self, key: str, prepared: Prepared) -> str:
        raw = await self.inner.send(prepared)
        self.inner.parse(raw)  # an answer that does not parse raises here and is not stored
        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        self.store.put(RawOutput(key, self.inner.name, self._identity, prepared.body, prepared.prompt, raw, now))
        return raw

    async def aclose(self) -> None:
        try:
            await self.inner.aclose()
        finally:
            self.store.close()
