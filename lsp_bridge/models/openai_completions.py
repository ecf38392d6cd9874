"""``openai-completions``: an OpenAI-compatible ``/v1/completions`` endpoint (vLLM, llama.cpp
server, TGI, LM Studio) for FIM-trained base models.

Two prompt modes:

- ``fim``: a raw prompt built from the template of ``fim_family``, with the family's stops. Use it
  when the server passes the prompt through untouched (vLLM, llama.cpp) — the usual case.
- ``suffix``: the prefix as ``prompt`` and the code after the cursor in ``suffix``; the server
  applies the model's template (the OpenAI API's own field; not every server supports it).

Both use the FIM context of ``context``: lines around the cursor within ``context_chars``, the
repository's other files before them when ``fim_other_files``.
"""

from __future__ import annotations

from typing import Any

from .base import CompletionRequest
from .remote import Prepared, RemoteModel


class OpenAICompletionsModel(RemoteModel):
    kind = "openai-completions"
    path = "/completions"
    expected = "an OpenAI-compatible API ending in /v1 (POST /completions)"

    def build(self, request: CompletionRequest) -> Prepared:
        s = self.settings  # only this API's own fields: those shared with Ollama are prompt_request's
        return self.prompt_request(request, max_tokens=s.max_tokens, temperature=s.temperature, **self.stream_fields(), **self.stop_field())

    def answer(self, data: Any) -> str:
        return data["choices"][0]["text"]

    def delta(self, event: Any) -> str:
        choices = event.get("choices") or [{}]  # the last event of a stream may carry only the usage
        return choices[0].get("text") or ""
