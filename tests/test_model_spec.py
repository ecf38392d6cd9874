"""The model spec as one typed record (``replay/config/model_spec.py``): the JSON it is stored and
sent as, and the configuration hash of its run, are those of the dict specs it replaced; each edge
(models.toml, the shorthand, the bridge's JSON) reads it into the record once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lsp_bridge.models import ModelError, create_model, spec_from_json
from replay.config.model_spec import EndpointSpec, NoisyOracleSpec, PluginSpec, concurrency, parse_model_spec, spec_json
from tests.model_spec_pins import pins

PINNED = Path(__file__).parent / "data" / "model_spec_pins.json"


def test_stored_json_wire_json_and_config_hash_are_unchanged(tmp_path: Path) -> None:
    """Pinned from the dict specs: a changed stored spec or hash would make every run un-resumable."""
    assert pins(tmp_path, spec_json) == json.loads(PINNED.read_text(encoding="utf-8"))


def test_only_the_keys_given_are_written() -> None:
    spec = parse_model_spec({"kind": "ollama", "base_url": "http://h:1", "model": "m", "temperature": 0})
    assert isinstance(spec, EndpointSpec) and spec.max_tokens == 512  # the default is the record's
    assert spec_json(spec) == {"kind": "ollama", "base_url": "http://h:1", "model": "m", "temperature": 0}
    assert isinstance(spec_json(spec)["temperature"], int)  # 0 stays 0: the raw-output cache keys by it


def test_the_noisy_oracle_seed_default_is_the_records(tmp_path: Path) -> None:
    spec = parse_model_spec({"kind": "noisy-oracle"})
    assert isinstance(spec, NoisyOracleSpec) and spec.seed == 0 and spec_json(spec) == {"kind": "noisy-oracle"}
    (tmp_path / "s.jsonl").write_text("", encoding="utf-8")
    model = create_model(parse_model_spec({"kind": "noisy-oracle", "scenarios": [str(tmp_path / "s.jsonl")]}))
    assert model.seed == 0  # type: ignore[attr-defined]


def test_a_plugin_kind_keeps_its_keys() -> None:
    spec = parse_model_spec({"kind": "echo", "log": "x.log", "scenarios": ["a"], "concurrency": 2})
    assert isinstance(spec, PluginSpec) and spec["log"] == "x.log" and spec.get("missing", 3) == 3
    assert spec_json(spec) == {"kind": "echo", "log": "x.log", "scenarios": ["a"], "concurrency": 2}
    assert concurrency(spec) == 2 and concurrency(parse_model_spec({"kind": "oracle"})) == 4


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"kind": "noisy-oracle", "seed": "x"}, "noisy-oracle: seed must be an integer, not 'x'"),
        ({"kind": "oracle", "scenario": ["a"]}, "oracle: scenario must be a known key"),
        ({"kind": "recorded"}, "recorded: folder must be"),
        ({"kind": "nope"}, "nope"),
        ({"kind": "ollama", "base_url": "http://h:1", "model": "m", "tempo": 1}, "unknown setting(s) for ollama: tempo"),
    ],
)
def test_the_bridge_reads_its_json_into_the_record_once(data: dict, message: str) -> None:
    with pytest.raises(ModelError, match=message.replace("(", r"\(").replace(")", r"\)")):
        spec_from_json(data)
