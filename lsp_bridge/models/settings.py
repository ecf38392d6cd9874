"""Settings of the HTTP model kinds, from a ``models.toml`` table or an LSP model spec.

One frozen record serves every HTTP kind; which prompt modes a kind accepts, and what each
setting defaults to, is checked once here, so a typo in ``models.toml`` is a clear error at start
instead of a silently ignored setting.

Prompt modes:

- ``chat``: the SimCopilot hole-marker prompt as chat messages (``openai-chat``);
- ``fim``: a raw FIM prompt from the template of ``fim_family`` (``openai-completions``, ``ollama``
  with ``raw``);
- ``suffix``: the prefix as prompt and the suffix in its own field, the server applies the
  model's template (``openai-completions``, ``ollama``);
- ``infill``: llama.cpp's ``/infill`` with ``input_prefix``/``input_suffix``.

Secrets never live here: ``api_key_env`` is the *name* of the environment variable holding the key.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ..fim import FAMILIES
from ..repo_context import DEFAULT_CONTEXT_CHARS
from .base import ModelError

# kind -> the prompt modes it accepts; the first is its default (``fim`` when a family is given).
KIND_MODES: dict[str, tuple[str, ...]] = {
    "openai-chat": ("chat",),
    "openai-completions": ("suffix", "fim"),
    "llamacpp-infill": ("infill",),
    "ollama": ("suffix", "fim"),
}

# Settings that change how a request is sent but never what the model answers: left out of the
# raw-output cache key (with the API key's variable name, which is no property of the model).
TRANSPORT_FIELDS = frozenset({"timeout", "retries", "backoff", "concurrency", "api_key_env"})


@dataclass(frozen=True, slots=True)
class EndpointSettings:
    base_url: str
    model: str = ""
    prompt_mode: str = ""  # "": the kind's default (see KIND_MODES)
    fim_family: str | None = None  # starcoder, qwen, deepseek, codellama, codestral
    stop: tuple[str, ...] | None = None  # None: the family's stop sequences (none for chat)
    max_tokens: int = 512
    temperature: float = 0.0
    concurrency: int = 4  # requests in flight at once to this model
    timeout: float = 60.0  # seconds for one attempt, from connecting to the last byte
    retries: int = 3  # further attempts after a refused connection, a timeout, 429 or 5xx
    backoff: float = 0.5  # seconds before the first retry, doubled each time
    api_key_env: str | None = None
    context_chars: int = DEFAULT_CONTEXT_CHARS  # prompt code budget; 0: the document only
    context_tokens: int = 0  # an extra, rough token budget for FIM context; 0: none
    fim_other_files: bool = True  # FIM modes: put the repository's other files in the prompt
    stream: bool = False  # ask for the answer as a stream of events: the time to its first token is then known

    def __post_init__(self) -> None:
        _check(
            isinstance(self.base_url, str) and self.base_url.startswith(("http://", "https://")),
            "base_url",
            self.base_url,
            "an http:// or https:// URL",
        )
        _check(isinstance(self.model, str), "model", self.model, "a model name")
        _check(isinstance(self.prompt_mode, str), "prompt_mode", self.prompt_mode, "a prompt mode")
        _check(self.fim_family is None or self.fim_family in FAMILIES, "fim_family", self.fim_family, f"one of {', '.join(FAMILIES)}")
        _check(
            self.stop is None or (isinstance(self.stop, tuple) and all(isinstance(s, str) and s for s in self.stop)),
            "stop",
            self.stop,
            "a list of non-empty strings",
        )
        _check(_whole(self.max_tokens) and self.max_tokens > 0, "max_tokens", self.max_tokens, "a whole number > 0")
        _check(_number(self.temperature) and 0 <= self.temperature <= 2, "temperature", self.temperature, "a number from 0 to 2")
        _check(_whole(self.concurrency) and self.concurrency > 0, "concurrency", self.concurrency, "a whole number > 0")
        _check(_number(self.timeout) and self.timeout > 0, "timeout", self.timeout, "a number of seconds > 0")
        _check(_whole(self.retries) and self.retries >= 0, "retries", self.retries, "a whole number >= 0")
        _check(_number(self.backoff) and self.backoff >= 0, "backoff", self.backoff, "a number of seconds >= 0")
        _check(
            self.api_key_env is None or (isinstance(self.api_key_env, str) and self.api_key_env.isidentifier()),
            "api_key_env",
            self.api_key_env,
            "the NAME of an environment variable (not the key itself)",
        )
        _check(
            _whole(self.context_chars) and self.context_chars >= 0, "context_chars", self.context_chars, "a whole number of characters >= 0"
        )
        _check(
            _whole(self.context_tokens) and self.context_tokens >= 0, "context_tokens", self.context_tokens, "a whole number of tokens >= 0"
        )
        _check(isinstance(self.fim_other_files, bool), "fim_other_files", self.fim_other_files, "true or false")
        _check(isinstance(self.stream, bool), "stream", self.stream, "true or false")

    def mode_for(self, kind: str) -> str:
        """The prompt mode used by ``kind``: the one set, else ``fim`` when a family is set and the
        kind takes it, else the kind's default."""
        if self.prompt_mode:
            return self.prompt_mode
        modes = KIND_MODES[kind]
        return "fim" if self.fim_family and "fim" in modes else modes[0]

    def stops(self) -> tuple[str, ...]:
        """The stop sequences to send: those set, else the family's, else none."""
        if self.stop is not None:
            return self.stop
        return FAMILIES[self.fim_family].stop if self.fim_family else ()

    def cache_identity(self, kind: str) -> dict[str, Any]:
        """What identifies this model's answers: every setting but the transport ones."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name not in TRANSPORT_FIELDS}
        values["stop"] = list(self.stops())
        values["prompt_mode"] = self.mode_for(kind)
        return {"kind": kind, **values}


def check_kind(kind: str, settings: EndpointSettings) -> None:
    """Raise ModelError when ``settings`` do not suit ``kind`` (a mode it cannot send, FIM
    without a family, no model name where the endpoint needs one)."""
    mode = settings.mode_for(kind)
    if mode not in KIND_MODES[kind]:
        raise ModelError(f"{kind} cannot use prompt_mode {mode!r} (choose from {', '.join(KIND_MODES[kind])})")
    if mode == "fim" and not settings.fim_family:
        raise ModelError(f"{kind} with prompt_mode 'fim' needs fim_family ({', '.join(FAMILIES)})")
    if kind != "llamacpp-infill" and not settings.model:
        raise ModelError(f"{kind} needs model (the model name the endpoint serves)")


def settings_from_spec(kind: str, spec: dict[str, Any], ignore: frozenset[str] = frozenset()) -> EndpointSettings:
    """The validated settings of a spec (``kind``, and the keys in ``ignore``, are not settings).
    Unknown keys, wrong types and combinations ``kind`` cannot send are ModelErrors."""
    known = {f.name for f in dataclasses.fields(EndpointSettings)}
    unknown = set(spec) - known - ignore - {"kind"}
    if unknown:
        raise ModelError(f"unknown setting(s) for {kind}: {', '.join(sorted(unknown))} (known: {', '.join(sorted(known | ignore))})")
    if not spec.get("base_url"):
        raise ModelError(f"{kind} needs base_url (e.g. {EXAMPLE_URLS[kind]})")
    values = {k: v for k, v in spec.items() if k in known}
    if isinstance(values.get("stop"), list):
        values["stop"] = tuple(values["stop"])
    if isinstance(values.get("stop"), str):
        values["stop"] = (values["stop"],)
    settings = EndpointSettings(**values)
    check_kind(kind, settings)
    return settings


EXAMPLE_URLS = {
    "openai-chat": "http://127.0.0.1:8000/v1",
    "openai-completions": "http://127.0.0.1:8000/v1",
    "llamacpp-infill": "http://127.0.0.1:8080",
    "ollama": "http://127.0.0.1:11434",
}


def _check(ok: bool, name: str, value: object, expected: str) -> None:
    if not ok:
        raise ModelError(f"setting {name} must be {expected}, not {value!r}")


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
