"""The specs whose stored JSON, wire JSON and configuration hash ``test_model_spec.py`` pins: a
models.toml of every kind of table, the built-in names and the command-line shorthands."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

MODELS_TOML = """
[models.chat]
kind = "openai-chat"
name = "Chat"
base_url = "https://user:pw@host/v1?key=s"
model = "qwen"
api_key_env = "OPENAI_API_KEY"
temperature = 0
timeout = 60
stop = ["\\n\\n"]
price_input_per_mtok = 0.15
price_output_per_mtok = 0.6

[models.fim]
kind = "openai-completions"
base_url = "http://127.0.0.1:8000/v1"
model = "bigcode/starcoder2-3b"
fim_family = "starcoder"
cache_db = "cache/s.sqlite"
max_tokens = 64

[models.noisy]
kind = "noisy-oracle"

[models.noisy9]
kind = "noisy-oracle"
seed = 9

[models.lab]
kind = "oracle"
name = "truth"

[models.rec]
kind = "recorded"
folder = "/fixed/recordings"
"""

NAMES = (
    "chat",
    "fim",
    "noisy",
    "noisy9",
    "lab",
    "rec",
    "oracle",
    "empty",
    "noisy-oracle",
    "noisy-oracle:7",
    "ollama:qwen2.5-coder:1.5b@http://127.0.0.1:11434",
    "llamacpp-infill:@http://127.0.0.1:8080",
    "recorded:/fixed/recordings",
)


# the rule deciding a pass (``replay.config.run.RULE``) when the pins were taken
PINNED_RULE = "busy loops stopped by CPU time (2)"


def pins(tmp: Path, to_json: Callable[[Any], dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """name -> the spec as stored (its text), as sent to the bridge (its JSON) and the hash of
    its run's configuration; ``to_json``: the spec as the JSON that is stored and sent."""
    from lsp_bridge.models.resolve import resolve_model
    from replay.config.models import model_spec
    from replay.config.run import RULE, config_hash, redact_spec
    from replay.execution.sandbox.bubblewrap import Limits
    from replay.run.configuration import run_config

    (tmp / "models.toml").write_text(MODELS_TOML, encoding="utf-8")
    scenario = tmp / "s.jsonl"
    scenario.write_text("", encoding="utf-8")
    out = {}
    for name in NAMES:
        recorded = name == "rec" or name.startswith("recorded:")  # its folder is read by resolve_model: not here
        spec = model_spec(name, tmp / "models.toml") if recorded else resolve_model(name, tmp / "models.toml", [scenario])
        data = to_json(spec)
        config = run_config(spec, {"simcopilot": ("a",)}, sandboxed=True, limits=Limits(), full_suite=False)
        # hashed under the rule the pins were taken with: a new rule changes every hash alike,
        # which says nothing of how the spec is stored
        config = {**config, "verdict": config["verdict"].replace(RULE, PINNED_RULE)}
        out[name] = {
            "stored": json.dumps(redact_spec(data), sort_keys=True).replace(str(tmp), "<TMP>"),
            "sent": json.loads(json.dumps(data).replace(str(tmp), "<TMP>")),
            "hash": config_hash(config),
        }
    return out
