"""Prices in models.toml (replay/config/models.py): read by price_for, checked and left out of
the spec by resolve_model, so the bridge never sees them."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_bridge.models import ModelError, spec_from_json
from lsp_bridge.models.resolve import check_spec, resolve_model
from replay.config.model_spec import spec_json
from replay.config.models import price_for
from replay.config.price import Price
from replay.core.errors import SimpilotError

OLLAMA = 'kind = "ollama"\nbase_url = "http://127.0.0.1:11434"\nmodel = "qwen2.5-coder:1.5b-base"\n'
SPEC = {"kind": "ollama", "base_url": "http://127.0.0.1:11434", "model": "qwen2.5-coder:1.5b-base"}


def models_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "models.toml"
    path.write_text(body, encoding="utf-8")
    return path


def test_token_prices_are_read_and_left_out_of_the_spec(tmp_path: Path) -> None:
    config = models_file(
        tmp_path,
        f'[models.hosted]\n{OLLAMA}price_input_per_mtok = 0.15\nprice_output_per_mtok = 0.6\nprice_currency = "EUR"\n'
        f"[models.plain]\n{OLLAMA}",
    )
    assert price_for("hosted", config) == Price(input_per_mtok=0.15, output_per_mtok=0.6, currency="EUR")
    assert spec_json(resolve_model("hosted", config, [])) == SPEC  # no price_* key reaches the bridge
    assert spec_json(resolve_model("plain", config, [])) == SPEC
    assert price_for("plain", config) is None


def test_an_hourly_price_with_integer_values(tmp_path: Path) -> None:
    config = models_file(tmp_path, f"[models.gpu]\n{OLLAMA}price_per_hour = 2\n")
    price = price_for("gpu", config)
    assert price == Price(per_hour=2.0) and price is not None and (price.kind, price.currency) == ("hourly", "USD")
    assert spec_json(resolve_model("gpu", config, [])) == SPEC


def test_the_bridge_would_refuse_the_price_keys_so_they_must_be_stripped() -> None:
    with pytest.raises(ModelError, match="unknown setting.*price_per_hour"):
        spec_from_json({**SPEC, "price_per_hour": 2.0})  # the bridge's edge refuses them
    check_spec("gpu", spec_from_json(SPEC))  # what resolve_model hands on passes


def test_a_misspelt_price_key_is_still_an_unknown_setting(tmp_path: Path) -> None:
    config = models_file(tmp_path, f"[models.gpu]\n{OLLAMA}price_per_hr = 2\n")
    with pytest.raises(SimpilotError, match=r"models.toml: models\.gpu\.price_per_hr: unknown key"):
        resolve_model("gpu", config, [])
    with pytest.raises(SimpilotError, match=r"models\.gpu\.price_per_hr: unknown key"):
        price_for("gpu", config)  # no key of a model's table goes unchecked


def test_models_without_a_price(tmp_path: Path) -> None:
    config = models_file(tmp_path, f"[models.oracle]\n{OLLAMA}price_per_hour = 9\n[models.plain]\n{OLLAMA}")
    assert price_for("oracle", config) is None  # built in: the file's table is not the model resolve_model uses
    assert price_for("undefined", config) is None
    assert price_for("plain", tmp_path / "missing.toml") is None
    assert price_for("ollama:m@http://127.0.0.1:11434", config) is None  # inline


@pytest.mark.parametrize(
    "lines, message",
    [
        pytest.param('price_per_hour = "ten"\n', 'price_per_hour: expected a number, got a string "ten"', id="string"),
        pytest.param("price_per_hour = true\n", "price_per_hour: expected a number, got a boolean true", id="bool"),
        pytest.param("price_per_hour = -1.5\n", "price_per_hour must be a non-negative number", id="negative"),
        pytest.param("price_per_hour = nan\n", "price_per_hour must be a non-negative number", id="nan"),
        pytest.param(
            "price_input_per_mtok = -0.1\nprice_output_per_mtok = 1\n", "price_input_per_mtok must be a non-negative", id="negative-token"
        ),
        pytest.param(
            "price_per_hour = 1\nprice_input_per_mtok = 1\nprice_output_per_mtok = 1\n",
            "give either token prices \\(price_input_per_mtok and price_output_per_mtok\\) or price_per_hour, not both",
            id="both-kinds",
        ),
        pytest.param('price_currency = "USD"\n', "no price given: set price_input_per_mtok", id="currency-only"),
        pytest.param("price_output_per_mtok = 1\n", "price_output_per_mtok is set but price_input_per_mtok is not", id="half-tokens"),
        pytest.param("price_per_hour = 1\nprice_currency = 1\n", "price_currency: expected a string", id="currency-number"),
    ],
)
def test_bad_prices_name_the_file_the_model_and_the_key(tmp_path: Path, lines: str, message: str) -> None:
    config = models_file(tmp_path, f"[models.bad]\n{OLLAMA}{lines}")
    with pytest.raises(SimpilotError, match=message) as from_price:
        price_for("bad", config)
    assert str(from_price.value).startswith(f"{config}: models.bad")
    with pytest.raises(SimpilotError) as from_resolve:
        resolve_model("bad", config, [])  # a run with a bad price fails before any server starts
    assert str(from_resolve.value) == str(from_price.value)


def test_price_for_reports_a_file_that_is_not_toml(tmp_path: Path) -> None:
    config = models_file(tmp_path, "[models.gpu\n")
    with pytest.raises(SimpilotError, match="not valid TOML"):
        price_for("gpu", config)
