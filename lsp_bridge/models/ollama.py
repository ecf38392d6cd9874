"""``ollama``: Ollama's ``/api/generate``.

- ``suffix`` mode (the default without ``fim_family``): ``prompt`` is the prefix and ``suffix`` the
  code after the cursor; Ollama applies the model's template (models whose template has no
  suffix support are refused by Ollama with an error, which becomes a ModelError).
- ``fim`` mode (the default with ``fim_family``): the family's raw FIM prompt with ``raw: true``,
  so Ollama applies no template at all.

Generation options go in ``options`` (``temperature``, ``num_predict``, ``stop``); ``stream`` is
false unless the settings ask for a stream (then one JSON object a line, each with a piece of
``response``, the last with ``done`` and the token counts). ``base_url`` is the
server's root, e.g. ``http://127.0.0.1:11434``.
"""

from __future__ import annotations

from typing import Any

from .base import CompletionRequest
from .remote import Prepared, RemoteModel, usage_counts


class OllamaModel(RemoteModel):
    kind = "ollama"
    path = "/api/generate"
    expected = "an Ollama server's root URL (POST /api/generate)"

    def build(self, request: CompletionRequest) -> Prepared:
        """This API's own fields: ``raw`` for a FIM prompt, the sampling settings under ``options``."""
        s = self.settings
        raw = {"raw": True} if self.mode == "fim" else {}  # the prompt is already in the family's template
        options: dict[str, Any] = {"temperature": s.temperature, "num_predict": s.max_tokens, **self.stop_field()}
        return self.prompt_request(request, **raw, options=options, stream=s.stream)

    def answer(self, data: Any) -> str:
        return data["response"]

    def delta(self, event: Any) -> str:
        return event.get("response") or ""

    def usage(self, data: Any) -> tuple[int, int] | None:
        """Ollama's ``prompt_eval_count`` and ``eval_count`` (in the last object of a stream)."""
        if isinstance(data, dict) and "prompt_eval_count" in data and "eval_count" in data:
            return usage_counts(data["prompt_eval_count"], data["eval_count"])
        return None
