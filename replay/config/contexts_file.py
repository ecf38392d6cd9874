"""The schema of ``contexts.toml``: context strategies, ``[contexts.NAME]`` each a builder, a
token budget, an optional tokenizer and the builder's options. Which builders and options exist is
the bridge's registry (``lsp_bridge.contexts``); this reads the file strictly (no coercion) and
reports in the same one-line form.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ConfigDict, Field

from replay.config.strict import Table, read_toml, validate


class Context(Table):
    """One strategy; any other key is an option of its builder (a number)."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True)
    __pydantic_extra__: dict[str, int | float]

    builder: str | None = Field(None, description="The builder (default: the table's NAME): file, window, simcopilot, bm25, ...")
    budget: int | None = Field(None, gt=0, description="Tokens the context may take (default 4096).")
    tokenizer: str | None = Field(None, description="A tokenizer.json counting the budget in the model's tokens, relative to the file.")


class ContextsFile(Table):
    """``contexts.toml``: your own context strategies, by name."""

    contexts: dict[str, Context] = Field({}, description="One table per strategy: [contexts.NAME].")


def read_contexts(path: Path) -> dict[str, Context]:
    """Each strategy's table, checked against the schema, its tokenizer made absolute (the bridge
    may run elsewhere); the only reader of the file."""
    file = validate(ContextsFile, read_toml(path), path)
    return {
        name: table.model_copy(update={"tokenizer": str((path.parent / table.tokenizer).resolve())}) if table.tokenizer else table
        for name, table in file.contexts.items()
    }


def options_of(table: Context) -> dict[str, int | float]:
    """The builder's options a table sets: every key that is not ``builder``, ``budget`` or ``tokenizer``."""
    return dict(table.model_extra or {})
