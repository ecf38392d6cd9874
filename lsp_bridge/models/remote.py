"""What every HTTP model adapter shares: prepare a request, send it, parse the answer.

The three steps are separate on purpose. :meth:`RemoteModel.prepare` builds the exact body and
the prompt (reading repository files, so it runs off the event loop); :meth:`RemoteModel.send`
asks the endpoint and returns the raw answer text; :meth:`RemoteModel.parse` turns raw text into
the completion. The raw-output cache (``cache.py``) sits between them: it keys on the prepared
body, stores the prompt and the raw text, and parses a stored answer exactly as a fresh one.

An adapter states its ``kind``, the endpoint ``path`` and the :meth:`build` / :meth:`answer`
pair that speaks its wire format; the FIM-style adapters share :meth:`RemoteModel.prompt_fields`
(a ``fim`` or ``suffix`` mode prompt) and :meth:`RemoteModel.stop_field`, and keep only their
body's own field names.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import httpx

from ..context import FimContext, fim_context
from ..fim import clean_answer, fim_prompt
from .base import CompletionRequest, ModelError
from .endpoint import JsonEndpoint, decode_json
from .settings import EndpointSettings, check_kind


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

    async def send(self, prepared: Prepared) -> str:
        return await self.endpoint.post(prepared.path, prepared.body)

    def parse(self, raw: str) -> str:
        """The completion in the raw answer ``raw``, cleaned of stop and special tokens."""
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

    def clean(self, text: str) -> str:
        return clean_answer(text, self.settings.stops(), self.settings.fim_family)

    async def complete(self, request: CompletionRequest) -> str:
        return self.parse(await self.send(await self.prepare(request)))

    async def aclose(self) -> None:
        await self.endpoint.aclose()

    # Shared by the FIM-style adapters -------------------------------------------------------

    def context(self, request: CompletionRequest) -> FimContext:
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

    def stop_field(self) -> dict[str, Any]:
        """``{"stop": [...]}`` with the stop sequences to send (see ``EndpointSettings.stops``),
        or nothing when there are none."""
        stops = self.settings.stops()
        return {"stop": list(stops)} if stops else {}
