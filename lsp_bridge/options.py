"""The bridge's settings, from the command line and the client's ``initializationOptions``.

Bad options never crash the server: the client is shown what was wrong and the defaults are used
(as jedi-language-server does).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from postprocess import PRESETS

from .contexts import ContextError, Strategy


@dataclass(frozen=True)
class BridgeOptions:
    model: dict[str, Any] = field(default_factory=lambda: {"kind": "empty"})
    postprocess: str | None = None  # None: answer the raw model text (replay post-processes itself)
    # a context strategy (``contexts.Strategy.to_json``, plus ``scenarios`` for one that needs the
    # ground truth); None: each adapter builds its own prompt as it always has
    context: dict[str, Any] | None = None


def merge_options(defaults: BridgeOptions, raw: Any) -> tuple[BridgeOptions, list[str]]:
    """``defaults`` updated from ``initializationOptions``; returns the problems found."""
    if raw is None:
        return defaults, []
    if not isinstance(raw, dict):
        return defaults, ["initializationOptions must be an object; using defaults"]
    problems: list[str] = []
    options = defaults
    if "model" in raw:
        if isinstance(raw["model"], dict) and isinstance(raw["model"].get("kind"), str):
            options = replace(options, model=dict(raw["model"]))
        else:
            problems.append("initializationOptions.model must be an object with a 'kind'; using the default model")
    if "postprocess" in raw:
        value = raw["postprocess"]
        if value is None or value in PRESETS:
            options = replace(options, postprocess=value)
        else:
            problems.append(f"unknown post-processing preset {value!r} (choose from {', '.join(PRESETS)}); using {options.postprocess!r}")
    if "context" in raw:
        value = raw["context"]
        try:
            if value is not None:
                Strategy.from_json(value)
            options = replace(options, context=value)
        except ContextError as exc:
            problems.append(f"{exc}; using {'no context strategy' if options.context is None else options.context.get('name')}")
    return options, problems
