"""What one replay run is asked to do: :class:`ReplaySettings`, from the command line or a caller."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replay.config.model_spec import ModelSpec


@dataclass(frozen=True)
class ReplaySettings:
    run_id: str
    model: str
    model_spec: ModelSpec  # stored and sent as ``model_spec.spec_json``
    presets: tuple[str, ...]
    scenarios: tuple[Path, ...]
    server_command: tuple[str, ...]
    jobs: int = 2
    concurrency: int = 4
    resume: bool = False
    log: Path | None = None
    executor: str = "local"  # "local": threads here; "ray": actors on a Ray cluster
    address: str | None = None  # Ray: a cluster's address or "auto"; None or "local" starts one here
    config: dict[str, Any] = field(default_factory=dict)  # run_config.run_config(): what --resume must find unchanged
    context: dict[str, Any] | None = None  # the bridge's context strategy (JSON, with scenarios when it needs the truth)
