"""A run's configuration, composed: the model's settings as the bridge will use them, the
presets, the sandbox and its limits, the suite, how answers are asked and how a pass is decided
(see ``replay/config/run.py`` for what each section holds and why).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from lsp_bridge.fim import FAMILIES
from lsp_bridge.models.settings import settings_of
from replay.config.endpoint_settings import NUMBER_SETTINGS
from replay.config.model_spec import EndpointSpec, ModelSpec, parse_model_spec, spec_json
from replay.config.run import (
    ADDRESS,
    BRIDGE,
    FULL_SUITE,
    LEGACY_VERDICT,
    NOT_ANSWER_KEYS,
    SANDBOXED,
    SELECTED,
    UNSANDBOXED,
    describe_verdicts,
    redact_spec,
)
from replay.execution.sandbox.bubblewrap import Limits


def model_settings(spec: ModelSpec) -> dict[str, Any]:
    """The settings that shape ``spec``'s answers, secrets redacted: for an endpoint those the
    bridge will use (defaults filled in, prompt mode, stops and FIM template resolved), for the
    built-in models their spec."""
    if not isinstance(spec, EndpointSpec):
        return redact_spec({k: v for k, v in spec_json(spec).items() if k not in NOT_ANSWER_KEYS})
    settings = settings_of(spec)
    values = settings.cache_identity(spec.kind)
    values = {k: float(v) if k in NUMBER_SETTINGS and isinstance(v, int) else v for k, v in values.items()}  # 0 and 0.0 alike
    if values["prompt_mode"] == "fim" and settings.fim_family:
        values["fim_template"] = FAMILIES[settings.fim_family].template
    values.pop(ADDRESS, None)  # where the model is served, not what it answers
    return redact_spec(values)


def run_config(
    spec: ModelSpec,
    presets: dict[str, tuple[str, ...]],
    *,
    sandboxed: bool,
    limits: Limits,
    full_suite: bool,
    server_command: tuple[str, ...] | None = None,
    session: bool = False,
    environments: dict[str, str] | None = None,
    context: dict[str, Any] | None = None,
    verdicts: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The configuration of a run (see the module docstring) as plain JSON values;
    ``server_command`` None is simpilot's own bridge; ``environments``: the test interpreter of
    each repository that names one in ``[environment]`` (``environment.identity``); ``verdicts``:
    how each repository's verdicts are reached (:func:`verdict_way`; None: each test's result)."""
    config = {
        "model": model_settings(spec),
        "presets": {name: list(steps) for name, steps in presets.items()},
        "sandbox": {"mode": SANDBOXED if sandboxed else UNSANDBOXED, "limits": dataclasses.asdict(limits)},
        "suite": FULL_SUITE if full_suite else SELECTED,
        "requests": {"server": BRIDGE if server_command is None else list(server_command), "session": session},
        "verdict": describe_verdicts(verdicts or {}),
    }
    if environments:  # only then: the configurations of runs without one stay as they were
        config["environments"] = dict(sorted(environments.items()))
    if context is not None:  # the same: runs without a strategy keep their configuration
        config["context"] = {k: v for k, v in context.items() if k != "scenarios"}  # the scenario hash pins the tasks
    return json.loads(json.dumps(config))  # tuples become lists, as when read back from the store


def legacy_config(model_spec: dict[str, Any], presets: dict[str, tuple[str, ...]], sandbox: str) -> dict[str, Any]:
    """What the columns of a run stored before configurations were say of its configuration: its
    model spec, the steps of its presets (when recorded) and the sandbox line ("bubblewrap;
    tests: full suite; …"). The sandbox's limits and how answers were asked are unknown."""
    try:
        model = model_settings(parse_model_spec(model_spec))
    except Exception:  # a spec this version no longer accepts: compare it as it was stored
        model = redact_spec({k: v for k, v in model_spec.items() if k not in NOT_ANSWER_KEYS})
    config: dict[str, Any] = {
        "model": model,
        "sandbox": {"mode": SANDBOXED if sandbox.startswith("bubblewrap") else UNSANDBOXED},
        "suite": FULL_SUITE if "tests: full suite" in sandbox else SELECTED,
        "verdict": LEGACY_VERDICT,
    }
    if presets:
        config["presets"] = {name: list(steps) for name, steps in presets.items()}
    return json.loads(json.dumps(config))
