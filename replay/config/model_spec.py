"""The model spec: what a model name stands for, as one typed record from ``models.toml`` or the
command line to the bridge's factories.

Every key a spec can hold and its default is defined here, once: the records of the built-in kinds
(``oracle``, ``empty``, ``noisy-oracle``, ``recorded``), the endpoint record (the settings of
``endpoint_settings.py`` with the endpoint's label and raw-output store) and an open record for
kinds a plugin registers in the entry-point group ``simpilot.models`` (any keys, kept as given).
``ModelSpec`` is their union, told apart by ``kind``.

A spec is validated once at each edge (a models.toml table, the ``KIND:MODEL@URL`` shorthand, the
JSON the bridge is given) and passed as the record in between. Where it is stored or sent it
becomes JSON again through :func:`spec_json`, which writes only the keys that were given: the
stored spec, the configuration hash and the bridge's wire format stay what they were when specs
were plain dicts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Discriminator, Field, Tag, TypeAdapter, field_validator

from replay.config.endpoint_settings import EndpointSettings
from replay.config.strict import Table

ENDPOINT_KINDS = ("openai-chat", "openai-completions", "llamacpp-infill", "ollama")  # the bridge's HTTP kinds
EndpointKind = Literal["openai-chat", "openai-completions", "llamacpp-infill", "ollama"]
BUILTIN_KINDS = ("oracle", "empty", "noisy-oracle", "recorded")
DEFAULT_CONCURRENCY = 4  # requests in flight for a model that does not set its own


class Labelled(Table):
    """The keys every spec has: its kind (each record narrows it to its own) and a label for
    people, ignored by the bridge."""

    kind: str
    name: str | None = Field(None, description="A label for people; ignored.")


def _scenario_paths(value: Any) -> Any:
    """The scenario files as a tuple (the record is frozen); JSON and callers give lists."""
    return tuple(value) if isinstance(value, list) else value


class OracleSpec(Labelled):
    """The ground truth: the answers of the scenarios the run was given."""

    kind: Literal["oracle"]
    scenarios: tuple[str, ...] = Field((), description="The scenario files holding the ground truth (set by the run).")

    _paths = field_validator("scenarios", mode="before")(_scenario_paths)


class EmptySpec(Labelled):
    """No answer at all: the floor every model is measured against."""

    kind: Literal["empty"]


class NoisyOracleTable(Labelled):
    """The ground truth corrupted as models corrupt it: its ``models.toml`` table."""

    kind: Literal["noisy-oracle"]
    seed: int = Field(0, description="The corruption's random seed.")


class NoisyOracleSpec(NoisyOracleTable):
    """The noisy oracle as the bridge is given it: its table and the run's scenarios."""

    scenarios: tuple[str, ...] = Field((), description="The scenario files holding the ground truth (set by the run).")

    _paths = field_validator("scenarios", mode="before")(_scenario_paths)


class RecordedSpec(Labelled):
    """A model's answers recorded earlier (``simpilot record``)."""

    kind: Literal["recorded"]
    folder: str = Field(description="The folder of the recorded answers.")


class _EndpointLabelled(Labelled):
    """The keys an endpoint's spec has before its settings (so they come first in its schema)."""

    kind: EndpointKind = Field(description="The endpoint's wire format.")


class EndpointSpec(EndpointSettings, _EndpointLabelled):
    """A model behind an HTTP endpoint: its settings (``endpoint_settings.py``) and its raw-output
    store."""

    cache_db: str | None = Field(None, description="The SQLite file of the raw-output store, relative to models.toml.")

    def settings(self) -> dict[str, Any]:
        """The endpoint settings given (the others keep their defaults wherever they are read)."""
        return {name: getattr(self, name) for name in EndpointSettings.model_fields if name in self.model_fields_set}


class PluginSpec(Table):
    """A kind registered by a plugin: its keys are the plugin's, kept as given (the plugin's
    factory checks them). Reads like the dict plugins were given before (``spec["key"]``)."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True)

    kind: str

    def __getitem__(self, key: str) -> Any:
        return spec_json(self)[key]

    def get(self, key: str, default: Any = None) -> Any:
        return spec_json(self).get(key, default)


def _branch(value: Any) -> str:
    """The record a spec is read into: its kind's, the endpoint's, or the plugins' open one."""
    kind = value.get("kind") if isinstance(value, Mapping) else getattr(value, "kind", None)
    if kind in ENDPOINT_KINDS:
        return "endpoint"
    return kind if kind in BUILTIN_KINDS else "plugin"


ModelSpec = Annotated[
    Annotated[OracleSpec, Tag("oracle")]
    | Annotated[EmptySpec, Tag("empty")]
    | Annotated[NoisyOracleSpec, Tag("noisy-oracle")]
    | Annotated[RecordedSpec, Tag("recorded")]
    | Annotated[EndpointSpec, Tag("endpoint")]
    | Annotated[PluginSpec, Tag("plugin")],
    Discriminator(_branch),
]
SPEC: TypeAdapter[ModelSpec] = TypeAdapter(ModelSpec)


def parse_model_spec(data: Any) -> ModelSpec:
    """``data`` (a spec as JSON) as its record; raises pydantic's ValidationError, which each edge
    turns into its own error (a config line, a bridge ModelError)."""
    return SPEC.validate_python(data)


def spec_json(spec: ModelSpec) -> dict[str, Any]:
    """The spec as JSON, with exactly the keys that were given: what is stored, hashed and sent."""
    return spec.model_dump(mode="json", exclude_unset=True)


def concurrency(spec: ModelSpec) -> int:
    """Requests in flight at once to the model: its ``concurrency`` setting, if it has one."""
    if isinstance(spec, EndpointSpec):
        return spec.concurrency
    if isinstance(spec, PluginSpec):
        return int(spec.get("concurrency", DEFAULT_CONCURRENCY))
    return DEFAULT_CONCURRENCY
