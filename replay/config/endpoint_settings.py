"""The settings of a model behind an HTTP endpoint: the one definition of their keys, defaults and
allowed values.

``models.toml``'s endpoint tables are read through this record (``models_file.Endpoint`` adds the
table's own keys: kind, label, cache, prices), and the bridge builds its adapters from it
(``lsp_bridge/models/settings.py`` adds what only the bridge knows: the FIM families and which
prompt modes a kind can send). A setting added here is therefore known to the file, its JSON
Schema and the bridge at once.

Whole numbers given to the number settings stay whole (``temperature = 0`` is not made ``0.0``):
the raw-output cache keys an answer by its settings' JSON, so a conversion would orphan it.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from replay.config.strict import Table

DEFAULT_CONTEXT_CHARS = 48_000  # about 12k tokens at ~4 characters a token

# what each setting must be, as an error says it (``setting NAME must be …, not VALUE``)
EXPECTED = {
    "base_url": "an http:// or https:// URL",
    "model": "a model name",
    "prompt_mode": "a prompt mode",
    "fim_family": "a FIM family name",
    "stop": "a list of non-empty strings",
    "max_tokens": "a whole number > 0",
    "temperature": "a number from 0 to 2",
    "concurrency": "a whole number > 0",
    "timeout": "a number of seconds > 0",
    "retries": "a whole number >= 0",
    "backoff": "a number of seconds >= 0",
    "api_key_env": "the NAME of an environment variable (not the key itself)",
    "context_chars": "a whole number of characters >= 0",
    "context_tokens": "a whole number of tokens >= 0",
    "fim_other_files": "true or false",
    "stream": "true or false",
}


A_NUMBER: dict[str, Any] = {"expected": "a number"}  # a whole number or not, as the error says it


class EndpointSettings(Table):
    """How to reach an endpoint and what to ask it; every setting but ``base_url`` has a default."""

    base_url: str = Field(description="The endpoint's http:// or https:// URL.")
    model: str = Field("", description="The model name the endpoint serves (not needed by llamacpp-infill).")
    prompt_mode: str = Field("", description="chat, fim, suffix or infill; default: the kind's own (fim with fim_family).")
    fim_family: str | None = Field(None, description="A raw FIM prompt template: starcoder, qwen, deepseek, codellama, codestral.")
    stop: tuple[str, ...] | None = Field(None, description="Stop sequences; default: the FIM family's (none for chat).")
    max_tokens: int = Field(512, gt=0, description="Longest answer, in tokens.")
    temperature: int | float = Field(0.0, ge=0, le=2, description="Sampling temperature, 0 to 2.", json_schema_extra=A_NUMBER)
    concurrency: int = Field(4, gt=0, description="Requests in flight at once to this model.")
    timeout: int | float = Field(
        60.0, gt=0, description="Seconds for one attempt, from connecting to the last byte.", json_schema_extra=A_NUMBER
    )
    retries: int = Field(3, ge=0, description="Further attempts after a refused connection, a timeout, 429 or 5xx.")
    backoff: int | float = Field(0.5, ge=0, description="Seconds before the first retry, doubled each time.", json_schema_extra=A_NUMBER)
    api_key_env: str | None = Field(None, description="The NAME of the environment variable holding the API key, never the key.")
    context_chars: int = Field(DEFAULT_CONTEXT_CHARS, ge=0, description="Prompt code budget in characters; 0: the document only.")
    context_tokens: int = Field(0, ge=0, description="An extra, rough token budget for FIM context; 0: none.")
    fim_other_files: bool = Field(True, description="FIM modes: put the repository's other files in the prompt.")
    stream: bool = Field(False, description="Ask for the answer as a stream of events (time to first token known).")

    @field_validator("stop", mode="before")
    @classmethod
    def _stops(cls, value: Any) -> Any:
        """A single string is one stop sequence; a TOML or JSON list is a tuple (the record is frozen)."""
        if isinstance(value, str):
            value = (value,)
        if isinstance(value, list):
            value = tuple(value)
        if isinstance(value, tuple) and not all(isinstance(s, str) and s for s in value):
            raise ValueError(f"expected {EXPECTED['stop']}; fix it")
        return value

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError(f"expected {EXPECTED['base_url']}; fix it")
        return value

    @field_validator("api_key_env")
    @classmethod
    def _variable(cls, value: str | None) -> str | None:
        if value is not None and not value.isidentifier():
            raise ValueError(f"expected {EXPECTED['api_key_env']}; fix it")
        return value


SETTINGS = tuple(EndpointSettings.model_fields)
# the settings that are numbers: 0 and 0.0 are the same setting when runs are compared
NUMBER_SETTINGS = frozenset(name for name, field in EndpointSettings.model_fields.items() if field.annotation == int | float)
