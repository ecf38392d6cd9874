"""What every HTTP model adapter shares: prepare a request, send it, parse the answer.

The three steps are separate on purpose. :meth:`RemoteModel.prepare` builds the exact body and
the prompt (reading repository files, so it runs off the event loop); :meth:`RemoteModel.send`
asks the endpoint and returns the raw answer text; :meth:`RemoteModel.parse` turns raw text into
the completion. The raw-output cache (``cache.py``) sits between them: it keys on the prepared
body, stores the prompt and the raw text, and parses a stored answer exactly as a fresh one.

An adapter states its ``kind``, the endpoint ``path`` and the :meth:`build` / :meth:`answer`
pair that speaks its wire format, with :meth:`delta` (the text in one event of a streamed answer)
and, where its API differs from OpenAI's ``usage``, :meth:`usage` (the token counts); the FIM-style adapters share :meth:`RemoteModel.prompt_fields`
(a ``fim`` or ``suffix`` mode prompt) and :meth:`RemoteModel.stop_field`, and keep only their
body's own field names.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import httpx

from replay.core.records import Timing

from ..context import FimContext, fim_context
from ..fim import clean_answer, fim_prompt
from .base import CompletionRequest, ModelError
from .endpoint import JsonEndpoint, Reply, decode_json, stream_events
from .settings import EndpointSettings, check_kind

CHARS_PER_TOKEN = 4  # the estimate of token counts an endpoint did not report (labelled "estimate")


def usage_counts(prompt: Any, answer: Any) -> tuple[int, int] | None:
    """``(prompt tokens, answer tokens)`` when both are whole numbers, else None."""
    if isinstance(prompt, int) and isinstance(answer, int) and not isinstance(prompt, bool) and not isinstance(answer, bool):
        return prompt, answer
    return None


def estimated_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


@dataclass(frozen=True, slots=True)
class Prepared:
    """One request ready to send: the endpoint path, the exact JSON body, and the prompt text
    the model sees (the raw FIM string, the chat user message, or the prompt field before the
    suffix for endpoints that apply the template themselves)."""

    path: str
    body: dict[str, Any]
    prompt: str


class RemoteModel(ABC):
    kind: ClassVar[str]
    path: ClassVar[str]
    expected: ClassVar[str]  # what base_url should point at, for error messages

    def __init__(self, settings: EndpointSettings, transport: httpx.AsyncBaseTransport | None = None):
        check_kind(self.kind, settings)
        self.settings = settings
        self.mode = settings.mode_for(self.kind)
        self.name = settings.model or f"{self.kind}@{settings.base_url}"
        self.endpoint = JsonEndpoint(settings, transport)

    @property
    def url(self) -> str:
        return self.endpoint.base_url + self.path

    @abstractmethod
    def build(self, request: CompletionRequest) -> Prepared:
        """The request for ``request`` (may read the repository's files: call off the loop)."""

    @abstractmethod
    def answer(self, data: Any) -> str:
        """The completion text in a decoded answer; KeyError/IndexError/TypeError if absent."""

    def cache_identity(self) -> dict[str, Any]:
        return self.settings.cache_identity(self.kind)

    async def prepare(self, request: CompletionRequest) -> Prepared:
        return await asyncio.to_thread(self.build, request)

    def delta(self, event: Any) -> str:
        """The piece of answer text in one decoded event of a streamed answer ('' if none)."""
        raise ModelError(f"{self.kind} cannot stream: set stream = false")

    def usage(self, data: Any) -> tuple[int, int] | None:
        """``(prompt tokens, answer tokens)`` the endpoint reported in a decoded answer (or the
        last event of a stream), OpenAI's ``usage`` by default; None when it sent none."""
        found = data.get("usage") if isinstance(data, dict) else None
        return usage_counts(found.get("prompt_tokens"), found.get("completion_tokens")) if isinstance(found, dict) else None

    def stream_fields(self) -> dict[str, Any]:
        """``stream``, and for an OpenAI-style stream the request for its token counts."""
        if not self.settings.stream:
            return {"stream": False}
        return {"stream": True, "stream_options": {"include_usage": True}}

    async def send(self, prepared: Prepared) -> str:
        return (await self.exchange(prepared)).raw

    async def exchange(self, prepared: Prepared) -> Reply:
        return await self.endpoint.exchange(prepared.path, prepared.body, self.settings.stream)

    def parse(self, raw: str) -> str:
        """The completion in the raw answer ``raw`` (whole, or a stream's event lines), cleaned
        of stop and special tokens."""
        if self.settings.stream:
            return self.clean("".join(self.delta(event) for event in self._events(raw)))
        data = decode_json(raw, self.url, self.expected)
        try:
            text = self.answer(data)
        except (KeyError, IndexError, TypeError):
            raise ModelError(
                f"{self.url} answered without a completion ({raw[:200]!r}); check that base_url points at {self.expected}"
            ) from None
        if not isinstance(text, str):
            raise ModelError(f"{self.url} answered a completion that is not text: {text!r}")
        return self.clean(text)

    def _events(self, raw: str) -> list[Any]:
        events = [decode_json(payload, self.url, self.expected) for payload in stream_events(raw)]
        if not all(isinstance(event, dict) for event in events):
            raise ModelError(f"{self.url} streamed events that are not JSON objects ({raw[:200]!r}); check {self.expected}")
        return events

    def timing(self, prepared: Prepared, reply: Reply, text: str) -> Timing:
        """How ``reply`` came: its times, and the token counts the endpoint reported (else an
        estimate from the prompt's and the answer's lengths, labelled so)."""
        first: float | None = None
        counts: tuple[int, int] | None = None
        if reply.streamed:  # the first event with text in it (None: the answer is empty)
            for arrived, event in zip(reply.events_ms, self._events(reply.raw), strict=False):
                if first is None and self.delta(event):
                    first = arrived
                counts = self.usage(event) or counts
        else:
            counts = self.usage(decode_json(reply.raw, self.url, self.expected))
        if counts is not None:
            prompt, answer, source = counts[0], counts[1], "usage"
        else:
            prompt, answer, source = estimated_tokens(prepared.prompt), estimated_tokens(text), "estimate"
        return Timing(reply.total_ms, first, reply.queue_ms, prompt, answer, source, reply.attempts, reply.streamed)

    async def complete_timed(self, request: CompletionRequest) -> tuple[list[str], Timing]:
        """The answer to ``request`` and how it came."""
        prepared = await self.prepare(request)
        reply = await self.exchange(prepared)
        text = self.parse(reply.raw)
        return [text], self.timing(prepared, reply, text)

    def clean(self, text: str) -> str:
        return clean_answer(text, self.settings.stops(), self.settings.fim_family)

    async def complete(self, request: CompletionRequest) -> str:
        return self.parse(await self.send(await self.prepare(request)))

    async def aclose(self) -> None:
        await self.endpoint.aclose()

    # Shared by the FIM-style adapters -------------------------------------------------------

    def context(self, request: CompletionRequest) -> FimContext:
        """The window and other files of a FIM prompt: the bridge's context strategy's when it
        built one (``lsp_bridge/contexts``), else the adapter's own budget in characters."""
        if request.context is not None:
            built = request.context
            return FimContext(built.language, built.path, built.prefix, built.suffix, built.files())
        s = self.settings
        return fim_context(request, s.context_chars, s.context_tokens, s.fim_other_files)

    def fim_text(self, ctx: FimContext) -> str:
        """The raw FIM prompt: the family's template around the window, other files first."""
        assert self.settings.fim_family is not None  # check_kind guarantees it for mode "fim"
        return fim_prompt(self.settings.fim_family, ctx.full_prefix(), ctx.suffix)

    def prompt_fields(self, request: CompletionRequest) -> dict[str, Any]:
        """The prompt of a ``fim`` or ``suffix`` mode body. ``fim``: ``prompt`` alone, the raw FIM
        prompt (:meth:`fim_text`). ``suffix``: the prefix as ``prompt`` and the code after the
        cursor as ``suffix``, for the server to put in the model's template."""
        ctx = self.context(request)
        if self.mode == "fim":
            return {"prompt": self.fim_text(ctx)}
        return {"prompt": ctx.full_prefix(), "suffix": ctx.suffix}

    def prompt_request(self, request: CompletionRequest, **fields: Any) -> Prepared:
        """The request of a prompt-completion API (OpenAI completions, Ollama): the model, the
        prompt (:meth:`prompt_fields`), then the API's own ``fields`` in their order. One place
        builds what these APIs share, so they cannot drift apart."""
        body: dict[str, Any] = {"model": self.settings.model, **self.prompt_fields(request), **fields}
        return Prepared(self.path, body, body["prompt"])

    def stop_field(self) -> dict[str, Any]:
        """``{"stop": [...]}`` with the stop sequences to send (see ``EndpointSettings.stops``),
        or nothing when there are none."""
        stops = self.settings.stops()
        return {"stop": list(stops)} if stops else {}
