"""Every configuration file is read strictly: an unknown key and a wrong type are refused with one
line naming the file and the key path, and the JSON Schema an editor uses accepts the bundled files."""

from __future__ import annotations

import tomllib
from pathlib import Path

import jsonschema
import pytest

from replay.config.contexts_file import read_contexts
from replay.config.errors import ConfigError
from replay.config.manifest import load_manifest, project_root
from replay.config.models import model_spec
from replay.config.presets_file import load_presets
from replay.core.errors import SimpilotError
from replay.jobs.config_schema import SCHEMAS, schema, schema_text

REPO = '[repository]\nname = "x"\ntest_command = ["true"]\n'
OLLAMA = '[models.m]\nkind = "ollama"\nbase_url = "http://127.0.0.1:11434"\nmodel = "q"\n'


def refused(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    read = {
        "simpilot.toml": load_manifest,
        "models.toml": lambda p: model_spec("m", p),
        "presets.toml": load_presets,
        "contexts.toml": read_contexts,
    }[name]
    with pytest.raises(ConfigError) as caught:
        read(path)
    assert isinstance(caught.value, SimpilotError)  # the command line shows it as a user error
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{path}: ")
    return message.removeprefix(f"{path}: ")


@pytest.mark.parametrize(
    "name, body, expected",
    [
        ("simpilot.toml", REPO + "timout = 5\n", "repository.timout: unknown key (known: name, language,"),
        ("simpilot.toml", REPO + 'setup = "make"\n', 'repository.setup: expected a list of commands, got a string "make"; write setup = ["make"]'),
        ("simpilot.toml", 'source = "x"\n' + REPO, 'source: expected a table, got a string "x"'),
        ("simpilot.toml", REPO + 'timeout = "5"\n', 'repository.timeout: expected a number, got a string "5"'),
        ("simpilot.toml", REPO + '[programs]\nchecks = "c"\nextra = 1\n', "programs.extra: unknown key (known: checks, environment)"),
        ("simpilot.toml", REPO + "[java]\nclasspath = 1\n", "java.classpath: expected a list, got a number 1"),
        ("models.toml", OLLAMA + "timout = 5\n", "models.m.timout: unknown key (known: kind, name, base_url,"),
        ("models.toml", OLLAMA + 'timeout = "5"\n', 'models.m.timeout: expected a number, got a string "5"'),
        ("models.toml", OLLAMA + "[other]\n", "other: unknown key (known: models)"),
        ("presets.toml", '[presets.p]\nsteps = ["reindent"]\nstep = []\n', "presets.p.step: unknown key (known: steps)"),
        ("presets.toml", '[presets.p]\nsteps = "reindent"\n', 'presets.p.steps: expected a list, got a string "reindent"; write steps = ["reindent"]'),
        ("presets.toml", '[presets.p]\nsteps = ["reindnet"]\n', "presets.p.steps: unknown step(s) 'reindnet'"),
        ("contexts.toml", '[contexts.c]\nbuilder = "bm25"\nbudget = "5"\n', 'contexts.c.budget: expected a whole number, got a string "5"'),
        ("contexts.toml", "[context.c]\n", "context: unknown key (known: contexts)"),
    ],
)
def test_unknown_keys_and_wrong_types_are_one_line_naming_the_path(tmp_path: Path, name: str, body: str, expected: str) -> None:
    assert refused(tmp_path, name, body).startswith(expected)


def test_a_valid_setup_list_keeps_its_commands(tmp_path: Path) -> None:
    (tmp_path / "simpilot.toml").write_text(REPO + 'setup = ["make", ["make", "all"]]\ntimeout = 5\n', encoding="utf-8")
    manifest = load_manifest(tmp_path / "simpilot.toml")
    assert manifest.setup == (("make",), ("make", "all")) and manifest.timeout == 5.0


@pytest.mark.parametrize("kind", sorted(SCHEMAS))
def test_each_schema_is_a_valid_json_schema_with_help(kind: str) -> None:
    found = schema(kind)
    jsonschema.Draft202012Validator.check_schema(found)
    assert found["title"] == f"{kind}.toml" and "description" in found
    assert schema_text(kind).startswith("{")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"unknown-top-level-key": {}}, found)


def test_an_unknown_schema_kind_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="choose from"):
        schema("setup")


def bundled(name: str) -> list[Path]:
    root = project_root()
    return sorted(p for folder in ("repos", "scenarios", "tests") for p in (root / folder).rglob(name))


@pytest.mark.parametrize("path", bundled("simpilot.toml"), ids=str)
def test_bundled_manifests_validate_against_the_schema(path: Path) -> None:
    jsonschema.validate(tomllib.loads(path.read_text(encoding="utf-8")), schema("simpilot"))


def test_bundled_models_files_validate_against_the_schema() -> None:
    files = bundled("models.toml")
    assert files
    for path in files:
        jsonschema.validate(tomllib.loads(path.read_text(encoding="utf-8")), schema("models"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"models": {"m": {"kind": "ollama", "base_url": "http://h", "timout": 5}}}, schema("models"))


@pytest.mark.parametrize("kind", sorted(SCHEMAS))
def test_the_command_prints_the_schema_the_files_are_read_through(kind: str) -> None:
    """``simpilot config schema KIND`` prints exactly the job's schema, as JSON on stdout."""
    import json

    from click.testing import CliRunner

    from replay.cli import cli

    result = CliRunner().invoke(cli, ["config", "schema", kind])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == schema(kind)
    assert result.output == schema_text(kind)
