"""The commands a repository's tests run with, and what they see: ``{python}`` replaced by the
tests' interpreter (the ``[environment]``'s, built on first use, else simpilot's), the pytest
plugins of the repository's environment named on a pytest command line (``plugins.py``), and the
environment of every command (the manifest's ``env``, pytest's autoload off for a pytest suite,
the work copy's import roots, a venv's ``bin`` first on ``PATH``). The manifest itself is a plain
record: finding or building the interpreter happens here, when the tests first need it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from replay.config.manifest import with_pytest_options
from replay.environments.environment import python_env, resolve
from replay.environments.plugins import AUTOLOAD, autoload_env, with_plugins

if TYPE_CHECKING:
    from replay.config.manifest import Manifest


def suite_python(manifest: Manifest) -> str:
    """What ``{python}`` stands for: the ``[environment]``'s interpreter (its venv is built on
    first use), else the interpreter running simpilot."""
    if manifest.environment is None:
        return sys.executable
    return resolve(manifest).python


def suite_command(manifest: Manifest) -> list[str]:
    """The repository's whole test command, ``{python}`` replaced, with its environment's pytest
    plugins named (every command derived from it inherits them)."""
    return with_plugins(manifest, [part.replace("{python}", suite_python(manifest)) for part in manifest.test_command])


def suite_env(manifest: Manifest, root: Path | None = None) -> dict[str, str]:
    """The extra environment of every command run for ``manifest``'s repository; ``root``: the
    work copy it runs in (its ``src/`` folder of packages goes first on ``PYTHONPATH``, and the
    ``[environment]``'s venv first on ``PATH``: ``environment.python_env``)."""
    env = manifest.own_env()
    if manifest.language == "python":
        env = python_env(manifest, root, {**autoload_env(manifest, manifest.test_command), **env})
    return env


def selected_command(manifest: Manifest, tests: tuple[str, ...]) -> tuple[list[str], dict[str, str]] | None:
    """The command and extra environment running only ``tests`` (pytest node ids), or None
    when the repository's test command cannot be narrowed down (the whole suite runs)."""
    if manifest.compare_output:  # the program runs whole: its output is the one test
        return None
    if manifest.select_command:
        argv: list[str] = []
        for part in manifest.select_command:
            if part == "{tests}":
                argv.extend(tests)
            else:
                argv.append(part.replace("{python}", suite_python(manifest)))
        return with_plugins(manifest, argv), _autoload_difference(manifest, argv)
    if not (manifest.language == "python" and manifest.is_pytest()):
        return None
    folders = {t.rstrip("/") for t in manifest.tests}
    argv = [p for p in suite_command(manifest) if p.rstrip("/") not in folders]
    files = sorted({t.split("::", 1)[0] for t in tests})
    argv = with_pytest_options(argv, ["-p", "replay.execution.inside.pytest_select"]) + files
    return argv, {"SIMPILOT_TESTS": "\n".join(tests)}


def _autoload_difference(manifest: Manifest, argv: list[str]) -> dict[str, str]:
    """What ``argv``'s environment must change in ``suite_env``'s, which follows ``test_command``:
    autoload off for a pytest ``select_command`` of a suite run otherwise, and back on (an empty
    value, which pytest reads as unset) for a script selecting the tests of a pytest suite."""
    mine, suite = autoload_env(manifest, argv), autoload_env(manifest, manifest.test_command)
    if mine == suite:
        return {}
    return mine or {AUTOLOAD: ""}
