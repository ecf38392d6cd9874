"""The endpoint settings are defined once (``replay/config/endpoint_settings.py``): the
``models.toml`` schema and the bridge read the same keys, with the same defaults and rules."""

from __future__ import annotations

import pytest

from lsp_bridge.models import ModelError
from lsp_bridge.models.settings import EndpointSettings, settings_from_spec
from replay.config import endpoint_settings
from replay.config.models_file import Endpoint
from replay.config.strict import validate
from replay.jobs.config_schema import schema

TABLE_ONLY = {"kind", "name", "cache_db", "price_input_per_mtok", "price_output_per_mtok", "price_per_hour", "price_currency"}


def test_the_file_and_the_bridge_know_the_same_settings_with_the_same_defaults() -> None:
    settings = endpoint_settings.EndpointSettings.model_fields
    assert set(Endpoint.model_fields) - TABLE_ONLY == set(settings)
    assert set(EndpointSettings.model_fields) == set(settings)
    assert set(schema("models")["$defs"]["Endpoint"]["properties"]) - TABLE_ONLY == set(settings)
    bridge = settings_from_spec("ollama", {"kind": "ollama", "base_url": "http://h:1", "model": "m"})
    read = validate(Endpoint, {"kind": "ollama", "base_url": "http://h:1", "model": "m"}, "models.toml")
    assert {k: getattr(read, k) for k in settings} == bridge.model_dump()
    assert set(endpoint_settings.EXPECTED) == set(settings)  # every setting has its error wording


@pytest.mark.parametrize(
    "key, value",
    [("max_tokens", 0), ("temperature", 3), ("timeout", 0), ("retries", -1), ("stop", [""]), ("api_key_env", "sk-1"), ("base_url", "h:1")],
)
def test_one_rule_refuses_a_value_in_the_file_and_at_the_bridge(key: str, value: object) -> None:
    with pytest.raises(ModelError, match=f"setting {key} must be"):
        settings_from_spec("ollama", {"kind": "ollama", "base_url": "http://h:1", "model": "m", key: value})
    with pytest.raises(Exception, match=f"models.toml: {key}: "):
        validate(Endpoint, {"kind": "ollama", "base_url": "http://h:1", "model": "m", key: value}, "models.toml")


def test_a_whole_number_setting_stays_whole_so_cached_answers_keep_their_key() -> None:
    """The raw-output cache keys an answer by the settings' JSON: ``temperature = 0`` must not
    become ``0.0`` on the way, or a store written earlier is never hit again."""
    settings = settings_from_spec("ollama", {"kind": "ollama", "base_url": "http://h:1", "model": "m", "temperature": 0})
    assert type(settings.cache_identity("ollama")["temperature"]) is int
    assert endpoint_settings.NUMBER_SETTINGS == {"temperature", "timeout", "backoff"}
