"""Model adapters and the registry that builds one from a spec.

A spec is a ``replay.config.model_spec.ModelSpec`` record; it travels as JSON (in the LSP
``initializationOptions`` or ``--model-json``) and :func:`spec_from_json` reads it back into the
record at the bridge's edge::

    {"kind": "oracle", "scenarios": ["scenarios/lpsolve.jsonl"]}
    {"kind": "empty"}
    {"kind": "noisy-oracle", "seed": 0, "scenarios": [...]}          # the ground truth, corrupted as models do
    {"kind": "recorded", "folder": "scenarios/recordings/smollm2"}   # a model's answers recorded earlier
    {"kind": "openai-chat", "base_url": "http://127.0.0.1:8000/v1", "model": "qwen2.5-coder",
     "api_key_env": "OPENAI_API_KEY", "timeout": 60, "retries": 3, "max_tokens": 512}
    {"kind": "openai-completions", "base_url": "http://127.0.0.1:8000/v1", "model": "bigcode/starcoder2-3b",
     "fim_family": "starcoder"}
    {"kind": "llamacpp-infill", "base_url": "http://127.0.0.1:8080"}
    {"kind": "ollama", "base_url": "http://127.0.0.1:11434", "model": "qwen2.5-coder:1.5b-base"}

The HTTP kinds take the settings of :class:`settings.EndpointSettings` and, optionally,
``cache_db``: the SQLite file of the raw-output store (``cache.py``). ``name`` is ignored (a label
for people). New kinds register a factory in :data:`FACTORIES`, or, from another package, through
the entry-point group ``simpilot.models`` (``postprocess.registry``); their factory is given a
``PluginSpec``, which keeps the spec's keys and reads like a dict.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from postprocess.registry import Registry
from replay.config.model_spec import EndpointSpec, ModelSpec, NoisyOracleSpec, OracleSpec, RecordedSpec, parse_model_spec

from .base import CompletionRequest, Model, ModelError
from .cache import CachedModel, RawOutputStore
from .llamacpp import LlamaCppInfillModel
from .noisy_oracle import NoisyOracleModel
from .ollama import OllamaModel
from .openai_chat import OpenAIChatModel
from .openai_completions import OpenAICompletionsModel
from .oracle import OracleModel
from .recorded import RecordedModel
from .remote import RemoteModel
from .settings import settings_from_spec, settings_of
from .simple import EmptyModel

HTTP_KINDS: dict[str, type[RemoteModel]] = {
    cls.kind: cls for cls in (OpenAIChatModel, OpenAICompletionsModel, LlamaCppInfillModel, OllamaModel)
}
_NOT_SETTINGS = frozenset({"name", "cache_db"})


def _http_factory(cls: type[RemoteModel]) -> Callable[[ModelSpec], Model]:
    def create(spec: ModelSpec) -> Model:
        if not isinstance(spec, EndpointSpec) or spec.kind != cls.kind:
            raise ModelError(f"{cls.kind} cannot be built from a {spec.kind} spec")
        model = cls(settings_of(spec))
        if spec.cache_db is None:
            return model
        if not spec.cache_db:
            raise ModelError(f"cache_db must be the path of an SQLite file, not {spec.cache_db!r}")
        return CachedModel(model, RawOutputStore(Path(spec.cache_db)))

    return create


def _oracle(spec: ModelSpec) -> Model:
    if isinstance(spec, NoisyOracleSpec):
        return NoisyOracleModel(list(spec.scenarios), spec.seed)
    if isinstance(spec, OracleSpec):
        return OracleModel(list(spec.scenarios))
    raise ModelError(f"the oracle cannot be built from a {spec.kind} spec")


def _recorded(spec: ModelSpec) -> Model:
    if not isinstance(spec, RecordedSpec):
        raise ModelError(f"recorded cannot be built from a {spec.kind} spec")
    return RecordedModel(spec.folder)


# kind -> factory(spec) -> model. A factory raises ModelError for a spec it cannot use. Plugins
# add theirs through the entry-point group ``simpilot.models``.
FACTORIES: Registry[Callable[[ModelSpec], Model]] = Registry("model kind", "simpilot.models")
FACTORIES.register("oracle", _oracle, __name__)
FACTORIES.register("noisy-oracle", _oracle, __name__)
FACTORIES.register("empty", lambda spec: EmptyModel(), __name__)
FACTORIES.register("recorded", _recorded, __name__)
for _kind, _cls in HTTP_KINDS.items():
    FACTORIES.register(_kind, _http_factory(_cls), _cls.__module__)
KINDS = ("oracle", "noisy-oracle", "empty", "recorded", *HTTP_KINDS)  # the built-in kinds


def _factory(kind: object) -> Callable[[ModelSpec], Model]:
    if not isinstance(kind, str) or kind not in FACTORIES:
        raise ModelError(FACTORIES.unknown(kind))
    return FACTORIES[kind]


def spec_from_json(data: Any) -> ModelSpec:
    """The bridge's edge: a spec as JSON (``initializationOptions.model``, ``--model-json``) read
    into its record, or a ModelError saying what is wrong (an unknown kind or setting, a bad
    value) in the words the bridge has always used."""
    kind = data.get("kind") if isinstance(data, Mapping) else None
    _factory(kind)
    if kind in HTTP_KINDS:
        settings_from_spec(str(kind), dict(data), _NOT_SETTINGS)  # the settings' own errors, first
    try:
        return parse_model_spec(data)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        key = ".".join(str(part) for part in error["loc"][1:])  # past the union's branch name
        raise ModelError(f"{kind}: {key} must be {_EXPECTED.get(error['type'], 'valid')}, not {error.get('input')!r}") from None


_EXPECTED = {"int_type": "an integer", "string_type": "a string", "tuple_type": "a list of paths", "extra_forbidden": "a known key"}


def check_spec(spec: ModelSpec) -> None:
    """Raise ModelError when ``create_model(spec)`` would refuse the spec's kind or settings,
    without creating anything (no client, no store, no API key needed yet)."""
    _factory(spec.kind)
    if isinstance(spec, EndpointSpec):
        settings_of(spec)


def create_model(spec: ModelSpec) -> Model:
    return _factory(spec.kind)(spec)


__all__ = [
    "CompletionRequest",
    "Model",
    "ModelError",
    "ModelSpec",
    "check_spec",
    "create_model",
    "spec_from_json",
    "FACTORIES",
    "HTTP_KINDS",
    "KINDS",
]
