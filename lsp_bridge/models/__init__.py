"""Model adapters and the registry that builds one from a spec.

A spec is a plain dict (it travels in the LSP ``initializationOptions``)::

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
the entry-point group ``simpilot.models`` (``postprocess.registry``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from postprocess.registry import Registry

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
from .settings import settings_from_spec
from .simple import EmptyModel

HTTP_KINDS: dict[str, type[RemoteModel]] = {
    cls.kind: cls for cls in (OpenAIChatModel, OpenAICompletionsModel, LlamaCppInfillModel, OllamaModel)
}
_NOT_SETTINGS = frozenset({"name", "cache_db"})


def _http_factory(cls: type[RemoteModel]) -> Callable[[dict[str, Any]], Model]:
    def create(spec: dict[str, Any]) -> Model:
        model = cls(settings_from_spec(cls.kind, spec, _NOT_SETTINGS))
        cache_db = spec.get("cache_db")
        if cache_db is None:
            return model
        if not isinstance(cache_db, str) or not cache_db:
            raise ModelError(f"cache_db must be the path of an SQLite file, not {cache_db!r}")
        return CachedModel(model, RawOutputStore(Path(cache_db)))

    return create


def _seed(spec: dict[str, Any]) -> int:
    seed = spec.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ModelError(f"noisy-oracle: seed must be an integer, not {seed!r}")
    return seed


# kind -> factory(spec) -> model. A factory raises ModelError for a spec it cannot use. Plugins
# add theirs through the entry-point group ``simpilot.models``.
FACTORIES: Registry[Callable[[dict[str, Any]], Model]] = Registry("model kind", "simpilot.models")
FACTORIES.register("oracle", lambda spec: OracleModel([str(p) for p in spec.get("scenarios", [])]), __name__)
FACTORIES.register("noisy-oracle", lambda spec: NoisyOracleModel([str(p) for p in spec.get("scenarios", [])], _seed(spec)), __name__)
FACTORIES.register("empty", lambda spec: EmptyModel(), __name__)
FACTORIES.register("recorded", lambda spec: RecordedModel(str(spec.get("folder") or "")), __name__)
for _kind, _cls in HTTP_KINDS.items():
    FACTORIES.register(_kind, _http_factory(_cls), _cls.__module__)
KINDS = ("oracle", "noisy-oracle", "empty", "recorded", *HTTP_KINDS)  # the built-in kinds


def _factory(spec: dict[str, Any]) -> Callable[[dict[str, Any]], Model]:
    kind = spec.get("kind")
    if not isinstance(kind, str) or kind not in FACTORIES:
        raise ModelError(FACTORIES.unknown(kind))
    return FACTORIES[kind]


def check_spec(spec: dict[str, Any]) -> None:
    """Raise ModelError when ``create_model(spec)`` would refuse the spec's kind or settings,
    without creating anything (no client, no store, no API key needed yet)."""
    _factory(spec)
    if spec["kind"] in HTTP_KINDS:
        settings_from_spec(spec["kind"], spec, _NOT_SETTINGS)


def create_model(spec: dict[str, Any]) -> Model:
    return _factory(spec)(spec)


__all__ = ["CompletionRequest", "Model", "ModelError", "check_spec", "create_model", "FACTORIES", "HTTP_KINDS", "KINDS"]
