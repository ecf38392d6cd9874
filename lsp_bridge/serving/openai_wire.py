"""The OpenAI wire format of the local model's server, pure: what a request asks (refused with a
reason when the server cannot answer it as asked) and the JSON an answer is sent as.

Kept apart from the model and the HTTP handler so the rules of a request (greedy only, one choice,
a suffix only with fill-in-the-middle tokens) are tested without torch or a socket.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Container
from dataclasses import dataclass
from typing import Any

DEFAULT_MAX_TOKENS = 256
MAX_STOPS = 8


Emit = Callable[[str], None]  # given each piece of a streamed answer's text


class BadRequest(Exception):
    """A request this server cannot answer as asked (HTTP 400); the message says why."""


@dataclass(frozen=True, slots=True)
class GenerationParams:
    max_tokens: int
    stop: tuple[str, ...] = ()
    stream: bool = False


@dataclass(frozen=True, slots=True)
class Generation:
    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str  # "stop" (end of answer or a stop sequence) or "length" (max_tokens)
    seconds: float


def parse_params(body: dict[str, Any], default_max_tokens: int = DEFAULT_MAX_TOKENS) -> GenerationParams:
    """The generation settings of an OpenAI-style body; anything that would need sampling or
    several choices is refused."""
    max_tokens = body.get("max_tokens", body.get("max_completion_tokens"))
    if max_tokens is None:
        max_tokens = default_max_tokens
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise BadRequest(f"max_tokens must be a whole number >= 1, not {max_tokens!r}")
    temperature = body.get("temperature")
    if temperature not in (None, 0, 0.0):
        raise BadRequest(f"this server decodes greedily only: send temperature 0 (got {temperature!r})")
    if body.get("n", 1) != 1:
        raise BadRequest("this server gives one choice per request: send n = 1")
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise BadRequest(f"stream must be true or false, not {stream!r}")
    stop = body.get("stop")
    stops: list[str] = [] if stop is None else [stop] if isinstance(stop, str) else stop
    if not isinstance(stops, list) or not all(isinstance(s, str) and s for s in stops) or len(stops) > MAX_STOPS:
        raise BadRequest(f"stop must be a non-empty string or a list of at most {MAX_STOPS} of them")
    return GenerationParams(max_tokens, tuple(stops), stream)


def parse_messages(body: dict[str, Any]) -> list[dict[str, str]]:
    """Chat messages as role/content strings (content given as text parts is joined)."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequest("messages must be a non-empty list of {role, content} objects")
    parsed = []
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise BadRequest(f"messages[{i}] must be an object with a role")
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict) and part.get("type") == "text")
        if not isinstance(content, str):
            raise BadRequest(f"messages[{i}].content must be text")
        parsed.append({"role": message["role"], "content": content})
    return parsed


def parse_prompt(body: dict[str, Any]) -> str:
    prompt = body.get("prompt")
    if isinstance(prompt, list) and len(prompt) == 1:
        prompt = prompt[0]
    if not isinstance(prompt, str):
        raise BadRequest("prompt must be one string")
    return prompt


# The fill-in-the-middle tokens of the tokenizer families that have them (prefix, suffix, middle):
# a model whose vocabulary holds one set can be given a suffix.
FIM_TOKENS = (
    ("<fim_prefix>", "<fim_suffix>", "<fim_middle>"),  # StarCoder, SantaCoder
    ("<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>"),  # Qwen2.5-Coder
    ("<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>"),  # DeepSeek-Coder
)


def parse_suffix(body: dict[str, Any]) -> str:
    """The code after the cursor of a ``/v1/completions`` request (``""`` when none is sent)."""
    suffix = body.get("suffix")
    if suffix is None:
        return ""
    if not isinstance(suffix, str):
        raise BadRequest("suffix must be a string")
    return suffix


def fim_tokens(vocabulary: Container[str]) -> tuple[str, str, str] | None:
    """The model's fill-in-the-middle tokens, if its vocabulary has a family's set."""
    return next((tokens for tokens in FIM_TOKENS if all(token in vocabulary for token in tokens)), None)


def with_suffix(prompt: str, suffix: str, tokens: tuple[str, str, str] | None, model_id: str) -> str:
    """The prompt that places ``suffix`` after the hole: the model's own FIM layout (prefix-suffix-
    middle). A model without FIM tokens cannot take a suffix, and the request is refused rather
    than answered as a prefix-only completion: a silently dropped suffix turns every infill task
    into a different, easier-looking one."""
    if not suffix:
        return prompt
    if tokens is None:
        raise BadRequest(
            f"{model_id} has no fill-in-the-middle tokens, so it cannot place the suffix this request sends: "
            "send the prompt alone (a prefix-only completion), or use /v1/chat/completions with the hole marked in the prompt "
            "(simpilot: kind openai-chat, or openai-completions without prompt_mode = 'suffix')"
        )
    prefix_token, suffix_token, middle_token = tokens
    return f"{prefix_token}{prompt}{suffix_token}{suffix}{middle_token}"


def cut_at_stop(text: str, stops: tuple[str, ...]) -> tuple[str, bool]:
    """``text`` up to the earliest stop sequence, and whether one was found."""
    cuts = [i for i in (text.find(s) for s in stops) if i >= 0]
    return (text[: min(cuts)], True) if cuts else (text, False)


def _usage(gen: Generation) -> dict[str, Any]:
    return {
        "prompt_tokens": gen.prompt_tokens,
        "completion_tokens": gen.completion_tokens,
        "total_tokens": gen.prompt_tokens + gen.completion_tokens,
    }


def _response(kind: str, id_prefix: str, model_id: str, gen: Generation, choice: dict[str, Any]) -> dict[str, Any]:
    """A whole (not streamed) answer: its one ``choice``, the token counts and the time taken."""
    return {
        "id": f"{id_prefix}-{uuid.uuid4().hex}",
        "object": kind,
        "created": int(time.time()),
        "model": model_id,
        "choices": [choice],
        "usage": _usage(gen),
        "timings": {"total_ms": round(gen.seconds * 1000, 1)},
    }


def chat_response(model_id: str, gen: Generation) -> dict[str, Any]:
    choice = {"index": 0, "message": {"role": "assistant", "content": gen.text}, "finish_reason": gen.finish_reason}
    return _response("chat.completion", "chatcmpl", model_id, gen, choice)


def completion_response(model_id: str, gen: Generation) -> dict[str, Any]:
    choice = {"index": 0, "text": gen.text, "finish_reason": gen.finish_reason, "logprobs": None}
    return _response("text_completion", "cmpl", model_id, gen, choice)


def stream_chunk(model_id: str, chat: bool, piece: str | None, gen: Generation | None = None) -> dict[str, Any]:
    """One event of a streamed answer: a ``piece`` of text, or at the end (``gen``, no piece) the
    token counts with no choice, as OpenAI sends them."""
    kind = "chat.completion.chunk" if chat else "text_completion"
    head = {"object": kind, "created": int(time.time()), "model": model_id}
    if piece is None:
        if gen is None:
            raise ValueError("a chunk carries a piece of text or the generation's usage")
        return head | {"choices": [], "usage": _usage(gen)}
    text = {"delta": {"content": piece}} if chat else {"text": piece}
    return head | {"choices": [{"index": 0, **text, "finish_reason": None}]}
