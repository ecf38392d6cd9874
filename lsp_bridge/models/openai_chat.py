"""``openai-chat``: an OpenAI-compatible ``/v1/chat/completions`` endpoint (vLLM, llama.cpp
server, TGI, LM Studio, hosted APIs), asked with the SimCopilot hole-marker prompt.

For instruct/chat models, which are not FIM-trained. The prompt's code is
the SimCopilot pre-processing of ``repo_context``: the repository's other non-test source files
within ``context_chars`` characters, then the document with the hole's function moved to the end;
``context_chars = 0`` sends the document alone. The answer is returned as the model wrote it:
cleaning chat answers is post-processing's job.

``base_url`` ends with the API version, e.g. ``http://127.0.0.1:8000/v1``.
"""

from __future__ import annotations

from typing import Any

from ..prompts import chat_messages
from ..repo_context import prompt_code
from .base import CompletionRequest
from .remote import Prepared, RemoteModel
from .settings import EndpointSettings

# The settings record predates the other HTTP kinds; the name stays for callers that build it.
ChatSettings = EndpointSettings


class OpenAIChatModel(RemoteModel):
    kind = "openai-chat"
    path = "/chat/completions"
    expected = "an OpenAI-compatible API ending in /v1 (POST /chat/completions)"

    def body(self, request: CompletionRequest, code: str | None = None) -> dict[str, Any]:
        """The request body; ``code`` is the prompt's code, built from the repository if None."""
        if code is None and request.context is not None:
            code = request.context.chat_code()  # the bridge's context strategy built it
        if code is None:
            code = prompt_code(request, self.settings.context_chars)
        body: dict[str, Any] = {
            "model": self.settings.model,
            "messages": chat_messages(request.language, code, infill=bool(request.suffix.strip())),
            "max_tokens": self.settings.max_tokens,
            "temperature": self.settings.temperature,
            **self.stream_fields(),
        }
        if self.settings.stop:
            body["stop"] = list(self.settings.stop)
        return body

    def build(self, request: CompletionRequest) -> Prepared:
        body = self.body(request)
        return Prepared(self.path, body, body["messages"][-1]["content"])

    def answer(self, data: Any) -> str:
        return data["choices"][0]["message"]["content"]

    def delta(self, event: Any) -> str:
        choices = event.get("choices") or [{}]  # the last event of a stream may carry only the usage
        return (choices[0].get("delta") or {}).get("content") or ""

    def clean(self, text: str) -> str:
        return text
