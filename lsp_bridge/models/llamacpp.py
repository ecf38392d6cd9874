"""``llamacpp-infill``: the llama.cpp server's ``/infill`` endpoint.

The server applies the model's own FIM tokens, read from the GGUF file, so no family is needed
(set ``fim_family`` only to get its stop sequences and token cleaning). The body carries
``input_prefix`` and ``input_suffix`` (the window around the cursor) and, when
``fim_other_files``, the repository's other files as ``input_extra`` — a list of
``{"filename", "text"}`` objects that the server puts before the prefix, in the model's
repository-level format when it has one. ``base_url`` is the server's root, e.g.
``http://127.0.0.1:8080``.
"""

from __future__ import annotations

from typing import Any

from .base import CompletionRequest
from .remote import Prepared, RemoteModel, usage_counts


class LlamaCppInfillModel(RemoteModel):
    kind = "llamacpp-infill"
    path = "/infill"
    expected = "a llama.cpp server's root URL (POST /infill), started with a FIM-capable model"

    def build(self, request: CompletionRequest) -> Prepared:
        ctx = self.context(request)
        s = self.settings
        body: dict[str, Any] = {"input_prefix": ctx.prefix, "input_suffix": ctx.suffix}
        if ctx.files:
            body["input_extra"] = [{"filename": path, "text": text} for path, text in ctx.files]
        body |= {"n_predict": s.max_tokens, "temperature": s.temperature, "stream": s.stream, **self.stop_field()}
        return Prepared(self.path, body, ctx.files_text() + ctx.prefix)

    def answer(self, data: Any) -> str:
        return data["content"]

    def delta(self, event: Any) -> str:
        return event.get("content") or ""

    def usage(self, data: Any) -> tuple[int, int] | None:
        """llama.cpp's own counts: ``timings`` (``prompt_n``, ``predicted_n``), or the older
        ``tokens_evaluated`` and ``tokens_predicted``; in the last event of a stream."""
        timings = data.get("timings") if isinstance(data, dict) else None
        if isinstance(timings, dict) and "prompt_n" in timings and "predicted_n" in timings:
            return usage_counts(timings["prompt_n"], timings["predicted_n"])
        if isinstance(data, dict) and "tokens_evaluated" in data and "tokens_predicted" in data:
            return usage_counts(data["tokens_evaluated"], data["tokens_predicted"])
        return None
