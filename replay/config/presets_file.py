"""The schema of ``presets.toml``: post-processing presets, ``[presets.NAME]`` each with its
ordered ``steps``, and its loader, the only reader of the file. Which step names exist, and which
preset names are built in, are the post-processing registry's rules (``postprocess.presets``
``check_steps``, ``check_name``); their refusals are reported in the same one-line form.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from postprocess.presets import PresetError, check_name, check_steps
from replay.config.errors import ConfigError
from replay.config.strict import Table, read_toml, validate


class Preset(Table):
    """One preset: the steps run on every answer, in order."""

    steps: list[str] = Field(min_length=1, description="Step names, in order (see postprocess/steps).")


class PresetsFile(Table):
    """``presets.toml``: your own post-processing presets, by name."""

    presets: dict[str, Preset] = Field(description="One table per preset: [presets.NAME] with steps = [...].")


def load_presets(path: Path) -> dict[str, tuple[str, ...]]:
    """The presets ``path`` defines, checked: the file's schema, then each step's name; a built-in
    preset's name cannot be given other steps."""
    file = validate(PresetsFile, read_toml(path), path)
    if not file.presets:
        raise ConfigError(path, "presets", "no [presets.NAME] tables with 'steps' lists; add one")
    defined = {}
    for name, preset in file.presets.items():
        try:
            check_name(name, preset.steps)
        except PresetError as exc:
            raise ConfigError(path, f"presets.{name}", str(exc)) from None
        try:
            defined[name] = check_steps(preset.steps)
        except PresetError as exc:
            raise ConfigError(path, f"presets.{name}.steps", f"{exc}; fix the spelling or remove it") from None
    return defined
