"""A model name resolved into the spec the bridge builds its model from, checked by the bridge
before any server starts: the name or ``models.toml`` table (``replay/config/models.py``), then
what only the bridge knows (the kind's prompt modes, the FIM family), then a recorded model's
answers and the oracle's scenarios.
"""

from __future__ import annotations

from pathlib import Path

from replay.config.model_spec import ModelSpec, NoisyOracleSpec, OracleSpec, RecordedSpec
from replay.config.models import model_spec
from replay.core.errors import SimpilotError
from replay.core.recordings import read_recordings

from . import ModelError
from . import check_spec as check_model_spec


def resolve_model(name: str, config: Path | None, scenarios: list[Path]) -> ModelSpec:
    spec = model_spec(name, config)
    check_spec(name, spec)
    if isinstance(spec, RecordedSpec):
        # every answer is read here, so that a bad line (a path leading out of its repository
        # above all) stops the run now, with its own exit status, not as model errors later
        read_recordings(Path(spec.folder))
    if isinstance(spec, (OracleSpec, NoisyOracleSpec)):
        spec = spec.model_copy(update={"scenarios": tuple(str(p.resolve()) for p in scenarios)})
    return spec


def check_spec(name: str, spec: ModelSpec) -> None:
    """Raise SimpilotError when the bridge would refuse ``spec`` (an unknown kind or setting, a
    bad value), so that a run fails at the start and not at its first request."""
    try:
        check_model_spec(spec)
    except ModelError as exc:
        raise SimpilotError(f"model {name!r}: {exc}") from None
