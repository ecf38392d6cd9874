"""The schema of ``presets.toml``: post-processing presets, ``[presets.NAME]`` each with its
ordered ``steps``, and its loader. Which step names exist is the post-processing registry's
(``postprocess.presets.check_steps``); a bad name is reported in the same one-line form.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from postprocess.presets import BUILTIN_PRESETS, PresetError, check_steps
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
    preset's name cannot be reused."""
    file = validate(PresetsFile, read_toml(path), path)
    if not file.presets:
        raise ConfigError(path, "presets", "no [presets.NAME] tables with 'steps' lists; add one")
    defined = {}
    for name, preset in file.presets.items():
        if name in BUILTIN_PRESETS:
            raise ConfigError(path, f"presets.{name}", "is a built-in preset; give yours another name")
        try:
            defined[name] = check_steps(name, preset.steps)
        except PresetError as exc:
            raise ConfigError(path, f"presets.{name}.steps", str(exc).removeprefix(f"preset {name!r}: ")) from None
    return defined
