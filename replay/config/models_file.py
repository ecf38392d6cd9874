"""The schema of ``models.toml``: one table per model, ``[models.NAME]``, its ``kind`` choosing the
keys it takes.

Every table is strict (an unknown or misspelt key is an error naming it), and this is what an
editor validates the file against (``simpilot config schema models``). What a setting's value
means for the endpoint (a prompt mode the kind cannot send, a FIM family the bridge does not
know) is checked by the bridge where the spec is resolved.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from replay.config.endpoint_settings import EndpointSettings
from replay.config.strict import Table

ENDPOINT_KINDS = ("openai-chat", "openai-completions", "llamacpp-infill", "ollama")  # the bridge's HTTP kinds
EndpointKind = Literal["openai-chat", "openai-completions", "llamacpp-infill", "ollama"]


class _Labelled(Table):
    """The keys an endpoint's table has before its settings."""

    kind: EndpointKind = Field(description="The endpoint's wire format.")
    name: str | None = Field(None, description="A label for people; ignored.")


class Endpoint(EndpointSettings, _Labelled):
    """A model behind an HTTP endpoint: its settings (``endpoint_settings.py``), its raw-output
    store and its price (not settings: left out of the spec the bridge is given)."""

    cache_db: str | None = Field(None, description="The SQLite file of the raw-output store, relative to models.toml.")
    price_input_per_mtok: float | None = Field(None, description="Price per million prompt tokens.")
    price_output_per_mtok: float | None = Field(None, description="Price per million answer tokens.")
    price_per_hour: float | None = Field(None, description="A self-hosted GPU's price for each busy hour (instead of token prices).")
    price_currency: str | None = Field(None, description="The prices' currency (default USD).")


class Builtin(Table):
    """The ground truth (``oracle``) or no answer at all (``empty``)."""

    kind: Literal["oracle", "empty"]
    name: str | None = None


class NoisyOracle(Table):
    """The ground truth corrupted as models corrupt it."""

    kind: Literal["noisy-oracle"]
    name: str | None = None
    seed: int = Field(0, description="The corruption's random seed.")


class Recorded(Table):
    """A model's answers recorded earlier (``simpilot record``)."""

    kind: Literal["recorded"]
    name: str | None = None
    folder: str = Field(description="The folder of the recorded answers.")


ModelTable = Annotated[Endpoint | Builtin | NoisyOracle | Recorded, Field(discriminator="kind")]
TABLES: dict[str, type[Table]] = {
    **dict.fromkeys(ENDPOINT_KINDS, Endpoint),
    "oracle": Builtin,
    "empty": Builtin,
    "noisy-oracle": NoisyOracle,
    "recorded": Recorded,
}


class ModelsFile(Table):
    """``models.toml``: model names and how to reach each model."""

    models: dict[str, ModelTable] = Field({}, description="One table per model: [models.NAME].")
