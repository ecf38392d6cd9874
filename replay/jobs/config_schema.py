"""The JSON Schema of each configuration file, for editors to validate ``simpilot.toml``,
``models.toml``, ``presets.toml`` and ``contexts.toml`` as they are written (``simpilot config
schema KIND``). It comes from the very schemas the files are read through, so the two never differ.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from replay.config.contexts_file import ContextsFile
from replay.config.errors import ConfigError
from replay.config.models_file import ModelsFile
from replay.config.presets_file import PresetsFile
from replay.config.simpilot_file import SimpilotFile

SCHEMAS: dict[str, type[BaseModel]] = {
    "simpilot": SimpilotFile,
    "models": ModelsFile,
    "presets": PresetsFile,
    "contexts": ContextsFile,
}


def schema(kind: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the configuration file ``kind`` names."""
    if kind not in SCHEMAS:
        raise ConfigError(kind, "", f"no such configuration file (choose from {', '.join(SCHEMAS)})")
    found = SCHEMAS[kind].model_json_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"{kind}.toml",
        **{k: v for k, v in found.items() if k != "title"},
    }


def schema_text(kind: str) -> str:
    """:func:`schema` as indented JSON, ready to save next to the file."""
    return json.dumps(schema(kind), indent=2, sort_keys=False) + "\n"
