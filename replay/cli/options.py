"""The options several commands share, each declared once: a command names them with its own help
where what they act on differs (tests, programs, model output)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from replay.jobs.startup import is_preset, preset_names

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]
DEFAULT_REPO_HELP = "Where a repository is [default: where 'mark' found it, or the bundled one]."


class PresetType(click.ParamType):
    """A post-processing preset's name, built-in or from the user's presets.toml."""

    name = "preset"

    def convert(self, value, param, ctx):
        if not is_preset(value):
            self.fail(f"{value!r} is not a preset (choose from {', '.join(preset_names())})", param, ctx)
        return value


def _cores() -> int:
    return max(1, os.cpu_count() or 1)


def jobs(what: str = "test") -> Decorator:
    return click.option("--jobs", type=click.IntRange(1, 256), default=_cores, help=f"Parallel {what} runs [default: cores].")


def unsafe_no_sandbox(help: str = "Run tests without bubblewrap (not recommended).") -> Decorator:
    return click.option("--unsafe-no-sandbox", is_flag=True, help=help)


def full_suite(help: str) -> Decorator:
    return click.option("--full-suite", is_flag=True, help=help)


def repo_paths(help: str = DEFAULT_REPO_HELP) -> Decorator:
    return click.option("--repo", "repo_paths", multiple=True, help=help)


def models_file(help: str = "models.toml [default: ./models.toml].") -> Decorator:
    return click.option("--models", "models_file", type=click.Path(dir_okay=False, path_type=Path), help=help)


def contexts_file() -> Decorator:
    return click.option(
        "--contexts", "contexts_file", type=click.Path(dir_okay=False, path_type=Path), help="contexts.toml [default: ./contexts.toml]."
    )


def as_json(help: str = "Print everything as JSON instead of tables.") -> Decorator:
    return click.option("--json", "as_json", is_flag=True, help=help)


def written_file(option: str, help: str) -> Decorator:
    """``--html FILE`` / ``--markdown FILE``: a page written besides what is printed."""
    return click.option(option, f"{option.removeprefix('--')}_path", type=click.Path(dir_okay=False, path_type=Path), help=help)


def scenario_folder() -> Decorator:
    return click.option(
        "--out",
        type=click.Path(file_okay=False, path_type=Path),
        default=Path("scenarios"),
        show_default=True,
        help="Folder for <repo>.jsonl, and repositories.json saying where each repository is.",
    )


def scenario_files(required: bool = True) -> Decorator:
    return click.argument("scenarios", nargs=-1, required=required, type=click.Path(exists=True, dir_okay=False, path_type=Path))


def verbose() -> Decorator:
    return click.option("--verbose", "-v", is_flag=True, help="Print the full report (every stratum) instead of the pass rate per preset.")


def presets(help: str) -> Decorator:
    return click.option("--postprocess", "-p", "presets", type=PresetType(), multiple=True, help=help)


def choice(option: str, name: str, choices: list[str], help: str) -> Decorator:
    """An option choosing one of ``choices``, the first by default."""
    return click.option(option, name, type=click.Choice(choices), default=choices[0], show_default=True, help=help)
