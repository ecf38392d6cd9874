"""The one error of every configuration file.

A configuration mistake is the user's to fix, so it is a :class:`SimpilotError` (the command line
prints it as one line, never a traceback), and its message always has the same shape:
``FILE: KEY.PATH: what is wrong; what to do``.
"""

from __future__ import annotations

from pathlib import Path

from replay.core.errors import SimpilotError


class ConfigError(SimpilotError):
    """A configuration file (``simpilot.toml``, ``models.toml``, ``presets.toml``,
    ``contexts.toml``) that cannot be used, explained in one line naming the file and the key."""

    def __init__(self, file: Path | str, key: str, problem: str) -> None:
        self.file, self.key, self.problem = str(file), key, problem
        super().__init__(f"{file}: {key}: {problem}" if key else f"{file}: {problem}")
