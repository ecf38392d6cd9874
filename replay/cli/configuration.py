"""``simpilot config schema KIND``: the JSON Schema of a configuration file, for an editor to
validate ``simpilot.toml``, ``models.toml``, ``presets.toml`` or ``contexts.toml`` as it is typed."""

from __future__ import annotations

import click

from replay.cli.group import cli
from replay.jobs.config_schema import SCHEMAS, schema_text


@cli.group("config")
def config_group() -> None:
    """Configuration files: their schemas."""


@config_group.command("schema")
@click.argument("kind", type=click.Choice(list(SCHEMAS)))
def schema(kind: str) -> None:
    """Print the JSON Schema of KIND.toml (simpilot, models, presets or contexts).

    Save it and point the editor at it, e.g. with Taplo or Even Better TOML:
    `#:schema ./simpilot.schema.json` as the file's first line."""
    click.echo(schema_text(kind), nl=False)
