"""The HTTP layer every endpoint adapter shares: one POST of a JSON body, made robust.

- One attempt has ``timeout`` seconds from connecting to the last byte of the answer.
- Refused connections, timeouts, broken connections, 429 and 5xx answers are retried up to
  ``retries`` times, waiting ``backoff`` seconds doubled each time, or longer when the server
  says so in ``Retry-After`` (capped at :data:`MAX_RETRY_AFTER`).
- An answer body over :data:`MAX_BODY_BYTES` is refused while it is read, never buffered whole.
- Any other failure (4xx, a body that is not JSON) is a :class:`ModelError` at once, with a
  message that says what to check. Nothing else escapes: one bad request never aborts a run.
- At most ``concurrency`` requests are in flight per model (an ``asyncio.Semaphore``).
- A streamed answer (``stream``: server-sent events, or Ollama's JSON lines) is read line by
  line; its raw text is its event lines, and the time each event arrived is kept, so that the
  adapter can tell when the first piece of text came (:class:`Reply`).

The API key is read from the environment variable *named* in the settings when the endpoint is
created; it is sent as a bearer token and stored nowhere else.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import math
import os
import time
from dataclasses import dataclass
from typing import Any

import httpx

from .base import ModelError
from .settings import EndpointSettings

MAX_BODY_BYTES = 8 << 20
MAX_RETRY_AFTER = 60.0
RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class _Retry(Exception):
    """One failed attempt that may succeed when tried again; ``wait`` is the server's
    ``Retry-After`` in seconds, if it sent one."""

    def __init__(self, reason: str, wait: float = 0.0):
        super().__init__(reason)
        self.wait = wait


@dataclass(frozen=True, slots=True)
class Reply:
    """One answer and how it came. Times are in ms from the moment the request entered the
    endpoint: ``queue_ms`` spent waiting for a request slot (over every attempt), ``total_ms``
    until the answer's last byte; ``events_ms`` is when each event of a streamed answer arrived,
    one per line of ``raw`` (empty for a whole answer)."""

    raw: str
    total_ms: float
    queue_ms: float = 0.0
    events_ms: tuple[float, ...] = ()
    attempts: int = 1
    streamed: bool = False


class JsonEndpoint:
    """POSTs JSON bodies to one base URL and returns the answers' raw text."""

    def __init__(self, settings: EndpointSettings, transport: httpx.AsyncBaseTransport | None = None):
        self.settings = settings
        self.base_url = settings.base_url.rstrip("/")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if settings.api_key_env:
            key = os.environ.get(settings.api_key_env)
            if not key:
                raise ModelError(
                    f"environment variable {settings.api_key_env} (the API key for {settings.model or self.base_url}) is not set"
                )
            headers["Authorization"] = f"Bearer {key}"
        # The total per attempt is enforced below; httpx's own timeout covers each phase.
        self._client = httpx.AsyncClient(base_url=self.base_url, headers=headers, timeout=settings.timeout, transport=transport)
        self._slots = asyncio.Semaphore(settings.concurrency)

    async def post(self, path: str, body: dict[str, Any]) -> str:
        """The raw text of the answer to ``body`` POSTed at ``path`` (HTTP 200), after retries."""
        return (await self.exchange(path, body)).raw

    async def exchange(self, path: str, body: dict[str, Any], stream: bool = False) -> Reply:
        """The answer to ``body`` POSTed at ``path`` (HTTP 200), after retries, with its timing;
        ``stream``: the answer is a stream of events, read as they come."""
        start = time.perf_counter()
        queued = 0.0
        attempts = self.settings.retries + 1
        for attempt in range(attempts):
            try:
                waiting = time.perf_counter()
                async with self._slots:
                    queued += time.perf_counter() - waiting
                    raw, events = await self._attempt(path, body, stream, start)
                return Reply(raw, _ms(start), queued * 1000, events, attempt + 1, stream)
            except _Retry as failure:
                if attempt + 1 == attempts:
                    tries = f" (after {attempts} attempts)" if attempts > 1 else ""
                    raise ModelError(f"{failure}{tries}") from None
                delay = max(self.settings.backoff * 2**attempt, min(failure.wait, MAX_RETRY_AFTER))
                await asyncio.sleep(delay)
        raise AssertionError("unreachable: the loop returns or raises")

    async def _attempt(self, path: str, body: dict[str, Any], stream: bool, start: float) -> tuple[str, tuple[float, ...]]:
        url = self.base_url + path
        events: tuple[float, ...] = ()
        try:
            async with asyncio.timeout(self.settings.timeout):
                async with self._client.stream("POST", path, content=encode_body(body)) as response:
                    if response.status_code in RETRY_STATUS:
                        raise _Retry(f"{url} answered HTTP {response.status_code}", retry_after(response.headers.get("retry-after")))
                    if stream and response.status_code == 200:
                        text, events = await _read_events(response, url, start)
                    else:
                        text = (await _read_capped(response, url)).decode("utf-8", errors="replace")
        except httpx.ConnectError as exc:
            raise _Retry(f"cannot connect to {url} ({exc}): is the server running, and is base_url right?") from None
        except (TimeoutError, httpx.TimeoutException):  # the whole attempt's limit, or httpx's per phase
            raise _Retry(f"no answer from {url} within {self.settings.timeout:g} s (raise timeout if the model is slow)") from None
        except httpx.HTTPError as exc:
            raise _Retry(f"HTTP error talking to {url}: {exc!r}") from None
        if response.status_code != 200:
            raise ModelError(f"{url} answered HTTP {response.status_code}: {text[:300]!r}{_hint(response.status_code, self.settings)}")
        return text, events

    async def aclose(self) -> None:
        await self._client.aclose()


def encode_body(body: dict[str, Any]) -> bytes:
    """``body`` as UTF-8 JSON; text an editor sent with lone surrogates (which UTF-8 cannot
    hold) is sent as JSON ``\\u`` escapes instead of failing."""
    try:
        return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(body, separators=(",", ":")).encode("ascii")


async def _read_capped(response: httpx.Response, url: str) -> bytes:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise ModelError(
            f"{url} sent an answer of {int(declared)} bytes, over the {MAX_BODY_BYTES}-byte limit: check max_tokens and the endpoint"
        )
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise ModelError(f"{url} sent an answer over the {MAX_BODY_BYTES}-byte limit: check max_tokens and the endpoint")
        chunks.append(chunk)
    return b"".join(chunks)


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000


async def _read_events(response: httpx.Response, url: str, start: float) -> tuple[str, tuple[float, ...]]:
    """A streamed answer's event lines (``data: …`` of server-sent events, or the JSON objects
    of Ollama's stream, one a line) and when each arrived; comments, ``event:`` and blank lines
    are left out. Capped like a whole answer."""
    lines: list[str] = []
    arrived: list[float] = []
    size = 0
    async for line in response.aiter_lines():
        size += len(line) + 1
        if size > MAX_BODY_BYTES:
            raise ModelError(f"{url} streamed an answer over the {MAX_BODY_BYTES}-byte limit: check max_tokens and the endpoint")
        line = line.strip()
        if not line or line.startswith(":") or line.startswith("event:") or line.startswith("id:") or line.startswith("retry:"):
            continue
        lines.append(line)
        arrived.append(_ms(start))
    return "\n".join(lines), tuple(arrived)


def stream_events(raw: str) -> list[str]:
    """The payload of each event line of a streamed answer's raw text (``data: `` taken off),
    up to the ``[DONE]`` that ends an OpenAI-style stream."""
    payloads = []
    for line in raw.split("\n"):
        payload = line[5:].strip() if line.startswith("data:") else line
        if payload == "[DONE]":
            break
        payloads.append(payload)
    return payloads


def retry_after(value: str | None) -> float:
    """Seconds to wait from a ``Retry-After`` header (seconds or an HTTP date); 0 if absent or
    unreadable."""
    if not value:
        return 0.0
    try:
        seconds = float(value)
        return seconds if math.isfinite(seconds) and seconds > 0 else 0.0
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return 0.0
    return max(0.0, when.timestamp() - time.time())


def _hint(status: int, settings: EndpointSettings) -> str:
    if status in (401, 403):
        where = f"the key in ${settings.api_key_env}" if settings.api_key_env else "api_key_env (no key is sent)"
        return f"; check {where}"
    if status == 404:
        return f"; check base_url ({settings.base_url}) and that the server offers this endpoint and model {settings.model!r}"
    return ""


def decode_json(raw: str, url: str, expected: str) -> Any:
    """``raw`` parsed as JSON; a ModelError saying what was expected otherwise."""
    try:
        return json.loads(raw)
    except ValueError:
        raise ModelError(f"malformed answer from {url} (not JSON: {raw[:200]!r}); check that base_url points at {expected}") from None
