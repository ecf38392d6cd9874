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

from replay.config.strict import Table

ENDPOINT_KINDS = ("openai-chat", "openai-completions", "llamacpp-infill", "ollama")  # the bridge's HTTP kinds
EndpointKind = Literal["openai-chat", "openai-completions", "llamacpp-infill", "ollama"]


class Endpoint(Table):
    """A model behind an HTTP endpoint; the settings of the bridge's ``EndpointSettings``."""

    kind: EndpointKind = Field(description="The endpoint's wire format.")
    name: str | None = Field(None, description="A label for people; ignored.")
    base_url: str = Field(description="The endpoint's http:// or https:// URL.")
    model: str | None = Field(None, description="The model name the endpoint serves (not needed by llamacpp-infill).")
    prompt_mode: str | None = Field(None, description="chat, fim, suffix or infill; default: the kind's own (fim with fim_family).")
    fim_family: str | None = Field(None, description="A raw FIM prompt template: starcoder, qwen, deepseek, codellama, codestral.")
    stop: list[str] | str | None = Field(None, description="Stop sequences; default: the FIM family's (none for chat).")
    max_tokens: int | None = Field(None, description="Longest answer, in tokens (default 512).")
    temperature: float | None = Field(None, description="Sampling temperature, 0 to 2 (default 0).")
    concurrency: int | None = Field(None, description="Requests in flight at once to this model (default 4).")
    timeout: float | None = Field(None, description="Seconds for one attempt (default 60).")
    retries: int | None = Field(None, description="Further attempts after a refused connection, a timeout, 429 or 5xx (default 3).")
    backoff: float | None = Field(None, description="Seconds before the first retry, doubled each time (default 0.5).")
    api_key_env: str | None = Field(None, description="The NAME of the environment variable holding the API key, never the key.")
    context_chars: int | None = Field(None, description="Prompt code budget in characters; 0: the document only.")
    context_tokens: int | None = Field(None, description="An extra, rough token budget for FIM context; 0: none.")
    fim_other_files: bool | None = Field(None, description="FIM modes: put the repository's other files in the prompt (default true).")
    stream: bool | None = Field(None, description="Ask for the answer as a stream of events (time to first token known).")
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
