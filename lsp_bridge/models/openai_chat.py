"""An OpenAI-compatible ``/v1/chat/completions`` endpoint (vLLM, llama.cpp server, TGI, LM Studio,
hosted APIs), asked with the SimCopilot hole-marker prompt.

Timeouts and connection failures, 429 and 5xx answers are retried with exponential backoff
(honouring ``Retry-After``); anything else that is not a well-formed answer is a ModelError.

The prompt's code is the SimCopilot pre-processing of ``repo_context``: the repository's other
non-test source files within ``context_chars`` characters, then the document with the hole's
function moved to the end; ``context_chars = 0`` sends the document alone.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass

import httpx

from ..prompts import chat_messages
from ..repo_context import DEFAULT_CONTEXT_CHARS, prompt_code
from .base import CompletionRequest, ModelError

MAX_BODY_BYTES = 8 << 20
_RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


@dataclass(frozen=True, slots=True)
class ChatSettings:
    base_url: str
    model: str
    api_key_env: str | None = None
    timeout: float = 60.0
    retries: int = 3
    backoff: float = 0.5
    max_tokens: int = 512
    temperature: float = 0.0
    concurrency: int = 4
    context_chars: int = DEFAULT_CONTEXT_CHARS  # prompt code budget; 0: the document only

    def __post_init__(self) -> None:
        if isinstance(self.context_chars, bool) or not isinstance(self.context_chars, int) or self.context_chars < 0:
            raise ModelError(f"context_chars must be a whole number of characters >= 0, not {self.context_chars!r}")


class OpenAIChatModel:
    def __init__(self, settings: ChatSettings, transport: httpx.AsyncBaseTransport | None = None):
        self.settings = settings
        self.name = settings.model
        headers = {"Content-Type": "application/json"}
        if settings.api_key_env:
            key = os.environ.get(settings.api_key_env)
            if not key:
                raise ModelError(f"environment variable {settings.api_key_env} (the API key for {settings.model}) is not set")
            headers["Authorization"] = f"Bearer {key}"
        self._client = httpx.AsyncClient(base_url=settings.base_url.rstrip("/"), headers=headers, timeout=settings.timeout, transport=transport)
        self._slots = asyncio.Semaphore(max(1, settings.concurrency))

    def body(self, request: CompletionRequest, code: str | None = None) -> dict:
        """The request body; ``code`` is the prompt's code, built from the repository if None."""
        if code is None:
            code = prompt_code(request, self.settings.context_chars)
        return {
            "model": self.settings.model,
            "messages": chat_messages(request.language, code, infill=bool(request.suffix.strip())),
            "max_tokens": self.settings.max_tokens,
            "temperature": self.settings.temperature,
            "stream": False,
        }

    async def complete(self, request: CompletionRequest) -> str:
        # Listing and reading the repository touches the disk: keep it off the event loop.
        code = await asyncio.to_thread(prompt_code, request, self.settings.context_chars)
        body = self.body(request, code)
        last = "no attempt made"
        for attempt in range(self.settings.retries + 1):
            if attempt:
                await asyncio.sleep(self.settings.backoff * 2 ** (attempt - 1))
            try:
                async with self._slots:
                    response = await self._client.post("/chat/completions", json=body)
            except httpx.ConnectError as exc:
                last = f"cannot connect to {self.settings.base_url} ({exc}): is the server running?"
                continue
            except httpx.TimeoutException:
                last = f"no answer from {self.settings.base_url} within {self.settings.timeout:g} s"
                continue
            except httpx.HTTPError as exc:
                last = f"HTTP error talking to {self.settings.base_url}: {exc}"
                continue
            if response.status_code in _RETRY_STATUS:
                last = f"{self.settings.base_url} answered HTTP {response.status_code}"
                retry_after = response.headers.get("retry-after", "")
                if retry_after.replace(".", "", 1).isdigit():
                    await asyncio.sleep(min(float(retry_after), 30.0))
                continue
            return self._parse(response)
        raise ModelError(last)

    def _parse(self, response: httpx.Response) -> str:
        if response.status_code != 200:
            raise ModelError(f"{self.settings.base_url} answered HTTP {response.status_code}: {response.text[:200]}")
        if len(response.content) > MAX_BODY_BYTES:
            raise ModelError(f"answer body of {len(response.content)} bytes is larger than {MAX_BODY_BYTES}")
        try:
            data = response.json()
            content = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise ModelError(f"malformed answer from {self.settings.base_url}: {response.text[:200]!r}") from None
        if not isinstance(content, str):
            raise ModelError("the answer's message content is not text")
        return content

    async def aclose(self) -> None:
        await self._client.aclose()
