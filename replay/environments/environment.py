"""Test environments: the interpreter that runs a repository's tests, and what it sees.

A library's tests import the library's own dependencies, which simpilot's interpreter does not
have. ``[environment]`` in ``simpilot.toml`` names the interpreter instead::

    [environment]
    python = ".venv"                       # an interpreter or a venv folder (relative: to the repository root)
    setup = ["pip install '.[test]'"]      # or: commands building a venv that simpilot caches

* ``python`` alone: that interpreter runs the tests (a bare name such as ``python3.12`` is
  looked up on ``PATH``). It is only ever read.
* ``setup``: simpilot creates a venv (from ``python`` when given, else from its own
  interpreter), runs the commands in a throw-away copy of the repository, *outside* the sandbox
  (they may download packages), with the venv's ``bin`` first on ``PATH`` and ``{python}``
  standing for its interpreter. A string is a shell command line, a list an argument vector. The
  venv is kept in simpilot's cache folder (``$SIMPILOT_CACHE``, else
  ``$XDG_CACHE_HOME/simpilot``, else ``~/.cache/simpilot``) under ``envs/``, keyed by what decides
  its contents: the commands, the repository's dependency files (``pyproject.toml``,
  ``setup.cfg``, ``setup.py``, ``requirements*.txt``, lock files, and files the commands name) and
  the base interpreter's version. A later ``mark`` or ``replay`` reuses it; a failed or
  interrupted build leaves nothing usable behind (a venv counts only once its ready marker is
  written, under a lock that also serialises concurrent builders).

Whatever the interpreter, the code under test is always the work copy's: its folder comes first
on ``sys.path`` (``python -m``), its import roots next (``PYTHONPATH``: a ``src/`` folder of
packages, see :func:`source_roots`, and with an environment the root of a flat layout, see
:func:`import_roots`), and only then the environment's site-packages, where an installed or
editable copy of the original may also live. A venv's ``bin`` also comes first on the tests'
``PATH``.

simpilot's pytest plugins (the proof reporter, the test selector) and pytest, pytest-cov and
coverage must be importable there too, without shadowing anything of the repository's: they are
*appended* to ``sys.path`` — by a ``.pth`` file in a venv simpilot built, and for a given
interpreter by a ``sitecustomize`` module in a folder of its own on ``PYTHONPATH`` (which then
runs the environment's own ``sitecustomize``, if any). The plugins come from a folder holding
only them; simpilot's site-packages follow only when the interpreter's Python version is
simpilot's. An interpreter of another version must have pytest and pytest-cov itself. Being
importable is not being loaded: the tests load the pytest plugins of the environment's own, never
those of simpilot's site-packages (``plugins.py``).
"""

from __future__ import annotations

import os
import shlex
import sys
import threading
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from replay.environments.interpreters import Environment, appended_paths, check_pytest, hook_folder, locate, probe
from replay.environments.venv import cached_venv

if TYPE_CHECKING:
    from replay.config.manifest import EnvironmentConfig, Manifest

_LOCK = threading.Lock()  # one resolution at a time in this process; other processes: the file lock
_READABLE: tuple[str, ...] = ()  # more folders every sandbox shows read-only


def allow_reading(*paths: str) -> None:
    """Show ``paths`` read-only in every sandbox from now on: a repository's test interpreter (its
    venv, base installation and simpilot's plugin folder) may live in a hidden folder such as
    ``~/.cache``, and must be readable wherever its tests run."""
    global _READABLE
    _READABLE = tuple(sorted({*_READABLE, *(p for p in paths if p)}))


def readable_folders() -> tuple[str, ...]:
    """The folders :func:`allow_reading` was given (the sandbox binds them read-only)."""
    return _READABLE


_RESOLVED: dict[tuple[Path, EnvironmentConfig], Environment] = {}


def own_python() -> Environment:
    """simpilot's own interpreter (no [environment])."""
    return Environment(python=sys.executable)


def identity(manifest: Manifest) -> str:
    """What names ``manifest``'s test interpreter in a run's configuration: the cached venv's
    folder name (its key covers the commands, the dependency files and the base interpreter), or
    the interpreter given."""
    found = resolve(manifest)
    return f"venv {Path(found.venv).name}" if found.venv else f"python {found.python}"


def resolve(manifest: Manifest) -> Environment:
    """The environment of ``manifest``'s tests, built on first use and then reused (in this
    process from memory, across processes from the cache folder)."""
    config = manifest.environment
    if config is None:
        return own_python()
    key = (manifest.root, config)
    with _LOCK:
        if key not in _RESOLVED:
            found = cached_venv(manifest, config) if config.setup else _given(manifest, config)
            allow_reading(*found.readable)
            _RESOLVED[key] = found
        return _RESOLVED[key]


# -- src/ layouts ------------------------------------------------------------------------------


def source_roots(manifest: Manifest) -> tuple[str, ...]:
    """Repository folders Python must search for the repository's packages, relative to its root:
    ``src`` when the sources live there (a source folder under ``src/``, or a ``src/`` that holds
    packages and is not itself one). The work copy's are put on the tests' ``PYTHONPATH``."""
    if manifest.language != "python":
        return ()
    src = manifest.root / "src"
    if not src.is_dir() or (src / "__init__.py").exists():
        return ()
    listed = any(PurePosixPath(s).parts[:1] == ("src",) for s in manifest.sources)
    return ("src",) if listed or _holds_packages(src) else ()


def _holds_packages(folder: Path) -> bool:
    try:
        return any(p.suffix == ".py" or (p / "__init__.py").is_file() for p in folder.iterdir())
    except OSError:
        return False


def import_roots(manifest: Manifest) -> tuple[str, ...]:
    """The folders put first on the tests' ``PYTHONPATH``: the source roots; with an
    ``[environment]`` (whose venv may hold an installed copy of the repository) the root of a
    flat layout too, so that even a ``pytest`` console script, which does not put the working
    folder first as ``python -m`` does, imports the work copy's code."""
    return source_roots(manifest) or ((".",) if manifest.environment is not None else ())


def python_env(manifest: Manifest, root: Path | None, env: dict[str, str]) -> dict[str, str]:
    """``env`` (the manifest's) with the tests' ``PYTHONPATH``: the work copy's import roots
    (absolute under ``root``, the work copy; relative to the working folder without one), then
    the manifest's own ``PYTHONPATH``, then what the environment needs; and with a venv's ``bin``
    first on ``PATH``."""
    entries = [str(root / r) if root is not None else r for r in import_roots(manifest)]
    if env.get("PYTHONPATH"):
        entries.append(env["PYTHONPATH"])
    found = resolve(manifest) if manifest.environment is not None else None
    if found is not None:
        entries.extend(found.pythonpath)
    result = dict(env)
    if entries:
        result["PYTHONPATH"] = os.pathsep.join(entries)
    if found is not None and found.bin:
        result["PATH"] = found.bin + os.pathsep + env.get("PATH", os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"))
    return result


def _given(manifest: Manifest, config: EnvironmentConfig) -> Environment:
    assert config.python is not None
    python = locate(manifest, config.python)
    info = probe(manifest, python)
    if "/" not in config.python and info.running:  # a name on PATH may be a launcher script: run what it runs
        python = info.running
    same = check_pytest(manifest, info, fix=f"install them in it ({shlex.quote(python)} -m pip install pytest pytest-cov)")
    appended = appended_paths(same)
    hook = hook_folder(appended)
    venv_bin = os.path.dirname(python) if info.prefix != info.base_prefix else None
    return Environment(python=python, readable=(info.prefix, info.base_prefix, *appended, str(hook)), pythonpath=(str(hook),), bin=venv_bin)
