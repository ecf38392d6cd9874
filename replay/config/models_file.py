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

from replay.config.model_spec import ENDPOINT_KINDS, EndpointKind, EndpointSpec, Labelled, NoisyOracleTable, RecordedSpec
from replay.config.strict import Table

__all__ = ["ENDPOINT_KINDS", "EndpointKind", "TABLES", "ModelsFile", "ModelTable"]


class Endpoint(EndpointSpec):
    """A model behind an HTTP endpoint: its spec (``model_spec.EndpointSpec``) and its price (not a
    setting: left out of the spec the bridge is given)."""

    price_input_per_mtok: float | None = Field(None, description="Price per million prompt tokens.")
    price_output_per_mtok: float | None = Field(None, description="Price per million answer tokens.")
    price_per_hour: float | None = Field(None, description="A self-hosted GPU's price for each busy hour (instead of token prices).")
    price_currency: str | None = Field(None, description="The prices' currency (default USD).")


class Builtin(Labelled):
    """The ground truth (``oracle``) or no answer at all (``empty``)."""

    kind: Literal["oracle", "empty"]


NoisyOracle = NoisyOracleTable  # the run adds the scenarios to the spec, never the file
Recorded = RecordedSpec


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
