"""Model adapters and the registry that builds one from a spec.

A spec is a plain dict (it travels in the LSP ``initializationOptions``)::

    {"kind": "oracle", "scenarios": ["scenarios/lpsolve.jsonl"]}
    {"kind": "empty"}
    {"kind": "openai-chat", "base_url": "http://127.0.0.1:8000/v1", "model": "qwen2.5-coder",
     "api_key_env": "OPENAI_API_KEY", "timeout": 60, "retries": 3, "max_tokens": 512}
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .base import CompletionRequest, Model, ModelError
from .openai_chat import ChatSettings, OpenAIChatModel
from .oracle import OracleModel
from .simple import EmptyModel

KINDS = ("oracle", "empty", "openai-chat")


def create_model(spec: dict[str, Any]) -> Model:
    kind = spec.get("kind")
    if kind == "oracle":
        return OracleModel([str(p) for p in spec.get("scenarios", [])])
    if kind == "empty":
        return EmptyModel()
    if kind == "openai-chat":
        known = {f.name for f in dataclasses.fields(ChatSettings)}
        unknown = set(spec) - known - {"kind", "name"}
        if unknown:
            raise ModelError(f"unknown setting(s) for openai-chat: {', '.join(sorted(unknown))}")
        if not spec.get("base_url") or not spec.get("model"):
            raise ModelError("openai-chat needs base_url and model")
        return OpenAIChatModel(ChatSettings(**{k: v for k, v in spec.items() if k in known}))
    raise ModelError(f"unknown model kind {kind!r} (choose from {', '.join(KINDS)})")


__all__ = ["CompletionRequest", "Model", "ModelError", "create_model", "KINDS"]
