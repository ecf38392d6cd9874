"""Settings of the HTTP model kinds, from a ``models.toml`` table or an LSP model spec.

The keys, defaults and allowed values are defined once, in ``replay/config/endpoint_settings.py``
(the record ``models.toml`` is read through); this adds what only the bridge knows: the FIM
families, which prompt modes a kind accepts and what a mode and family imply. A spec is validated
into the record here, at the bridge's edge, so a typo is a clear error at start instead of a
silently ignored setting.

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

from typing import Any

from pydantic import ValidationError

from replay.config import endpoint_settings
from replay.config.endpoint_settings import EXPECTED, SETTINGS
from replay.config.model_spec import EndpointSpec

from ..fim import FAMILIES
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


class EndpointSettings(endpoint_settings.EndpointSettings):
    """The settings record with the bridge's own rules and what they imply; a value the record
    refuses is a ModelError (``setting NAME must be …, not VALUE``)."""

    def __init__(self, **values: Any) -> None:
        try:
            super().__init__(**values)
        except ValidationError as exc:
            error = exc.errors(include_url=False)[0]
            name = str(error["loc"][0]) if error["loc"] else ""
            raise ModelError(f"setting {name} must be {EXPECTED.get(name, 'known')}, not {error.get('input')!r}") from None
        _check(self.fim_family is None or self.fim_family in FAMILIES, "fim_family", self.fim_family, f"one of {', '.join(FAMILIES)}")

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
        values = {name: getattr(self, name) for name in SETTINGS if name not in TRANSPORT_FIELDS}
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
    known = set(SETTINGS)
    unknown = set(spec) - known - ignore - {"kind"}
    if unknown:
        raise ModelError(f"unknown setting(s) for {kind}: {', '.join(sorted(unknown))} (known: {', '.join(sorted(known | ignore))})")
    if not spec.get("base_url"):
        raise ModelError(f"{kind} needs base_url (e.g. {EXAMPLE_URLS[kind]})")
    settings = EndpointSettings(**{k: v for k, v in spec.items() if k in known})
    check_kind(kind, settings)
    return settings


def settings_of(spec: EndpointSpec) -> EndpointSettings:
    """The bridge's settings of an endpoint spec (its record already holds only known settings of
    the right types); combinations its kind cannot send are ModelErrors."""
    settings = EndpointSettings(**spec.settings())
    check_kind(spec.kind, settings)
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
