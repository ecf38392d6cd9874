"""What every command needs before it runs: the program's version, the presets a user defined
(known before any option names one), and the errors a command reports in one line."""

from __future__ import annotations

from pathlib import Path

from postprocess import PRESETS, register_presets
from replay import __version__
from replay.config.presets_file import load_presets
from replay.core.errors import SimpilotError

__all__ = ["OptionError", "SimpilotError", "__version__", "is_preset", "load_user_presets", "preset_names"]


class OptionError(SimpilotError):
    """An option's value refused once the job sees it with the others: the command line shows it
    as a bad ``hint`` option (usage, exit status 2)."""

    exit_status = 2

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


def load_user_presets(path: Path | None) -> None:
    """Make the presets of ``path`` (or ./presets.toml) known before any option names one."""
    if path is None and not Path("presets.toml").is_file():
        return
    register_presets(load_presets(path or Path("presets.toml")))  # a ConfigError: one line, as every user error


def is_preset(name: str) -> bool:
    return name in PRESETS


def preset_names() -> tuple[str, ...]:
    return tuple(PRESETS)
