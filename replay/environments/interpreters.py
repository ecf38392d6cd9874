"""Test interpreters: what a probe learns about one, where a name points, and what simpilot
appends to its ``sys.path`` (its pytest plugins, and its own site-packages for its own Python
version), without shadowing anything of the repository's.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import site
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from replay.core.errors import SimpilotError
from replay.core.paths import MANIFEST_NAME, cache_root

if TYPE_CHECKING:
    from replay.config.manifest import Manifest

PROBE_TIMEOUT = 60.0
MIN_PYTHON = (3, 9)  # the warm test server uses os.pidfd_open and os.waitstatus_to_exitcode
PLUGINS = ("pytest_proof.py", "proof_channel.py", "pytest_select.py")
_PROBE = (
    "import json, sys, sysconfig, importlib.util as u\n"
    "print(json.dumps({'running': sys.executable, 'version': '%d.%d' % sys.version_info[:2], 'full_version': sys.version,"
    " 'prefix': sys.prefix, 'base_prefix': sys.base_prefix, 'purelib': sysconfig.get_paths()['purelib'],"
    " 'has_pytest': u.find_spec('pytest') is not None, 'has_pytest_cov': u.find_spec('pytest_cov') is not None}))"
)


@dataclass(frozen=True, slots=True)
class Interpreter:
    """What a probe learnt about an interpreter, with nothing of simpilot's added."""

    executable: str
    running: str  # its sys.executable: the real interpreter behind a launcher (a pyenv shim)
    version: str  # "3.11"
    full_version: str  # sys.version: the build too
    prefix: str
    base_prefix: str
    purelib: str
    has_pytest: bool
    has_pytest_cov: bool


@dataclass(frozen=True, slots=True)
class Environment:
    """The interpreter a repository's tests run with, and what the sandbox and ``PYTHONPATH``
    must add for it."""

    python: str  # what {python} stands for
    readable: tuple[str, ...] = ()  # folders every sandbox must show read-only (venv, base installation)
    pythonpath: tuple[str, ...] = ()  # PYTHONPATH entries after the repository's own (the sitecustomize hook)
    venv: str | None = None  # the cached venv a setup built
    bin: str | None = None  # a venv's bin folder, first on the tests' PATH (``pytest``, ``python`` are the venv's)
    borrowed: tuple[str, ...] = ()  # simpilot's folders the interpreter's own sys.path holds (a cached venv's .pth)


def locate(manifest: Manifest, python: str) -> str:
    """The interpreter ``python`` names: a path (relative to the repository root) to an
    interpreter or a venv folder, or a bare command name on ``PATH``."""
    config = manifest.root / MANIFEST_NAME
    if "/" not in python and not (manifest.root / python).exists():
        found = shutil.which(python)
        if found is None:
            raise SimpilotError(
                f"{manifest.name}: [environment] python {python!r} is not on PATH: give the interpreter's path or a venv folder in {config}"
            )
        return found
    path = Path(python).expanduser()
    path = path if path.is_absolute() else manifest.root / path
    if path.is_dir():
        candidates = [path / "bin" / "python", path / "bin" / "python3"]
        found_in = next((c for c in candidates if c.is_file()), None)
        if found_in is None:
            raise SimpilotError(
                f"{manifest.name}: [environment] python {python!r} is a folder without bin/python: give a venv folder or an interpreter in {config}"
            )
        return os.path.abspath(found_in)
    if not path.is_file():
        raise SimpilotError(
            f"{manifest.name}: [environment] python {python!r} does not exist ({path}): give an interpreter or a venv folder, relative to the repository root, in {config}"
        )
    return os.path.abspath(path)  # a venv's bin/python is a link: resolving it would leave the venv


def check_pytest(manifest: Manifest, info: Interpreter, fix: str) -> bool:
    """Whether ``info`` is of simpilot's Python version (then it can use simpilot's pytest);
    otherwise it must have pytest and pytest-cov itself, or this raises saying ``fix``."""
    own = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if info.version == own:
        return True
    if tuple(int(part) for part in info.version.split(".")) < MIN_PYTHON:
        raise SimpilotError(
            f"{manifest.name}: the test interpreter {info.executable} is Python {info.version}; simpilot's test "
            f"server needs {'.'.join(map(str, MIN_PYTHON))} or newer: use a newer interpreter in [environment]"
        )
    missing = [name for name, has in (("pytest", info.has_pytest), ("pytest-cov", info.has_pytest_cov)) if not has]
    if missing:
        raise SimpilotError(
            f"{manifest.name}: the test interpreter {info.executable} is Python {info.version}, not simpilot's {own}, and has no "
            f"{' or '.join(missing)}, which simpilot runs the tests with: {fix}, or use a Python {own} interpreter"
        )
    return False


def probe(manifest: Manifest, python: str) -> Interpreter:
    """Ask ``python`` what it is, with a clean environment (nothing of simpilot's on its path)."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": os.environ.get("HOME", "/")}
    try:
        proc = subprocess.run([python, "-c", _PROBE], capture_output=True, text=True, timeout=PROBE_TIMEOUT, env=env)
        if proc.returncode != 0:
            raise ValueError((proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1])
        return Interpreter(executable=python, **json.loads(proc.stdout))
    except (OSError, subprocess.TimeoutExpired, ValueError, TypeError) as exc:
        raise SimpilotError(
            f"{manifest.name}: the test interpreter {python} does not run ({exc}): fix [environment] in {manifest.root / MANIFEST_NAME}"
        ) from None


# -- what the tests' interpreter appends to sys.path -------------------------------------------


def appended_paths(same_version: bool) -> tuple[str, ...]:
    """What the tests' interpreter appends to ``sys.path``: simpilot's pytest plugins, and, for
    an interpreter of simpilot's own Python version, simpilot's site-packages (pytest,
    pytest-cov, coverage). Never simpilot's source folder: its ``tests`` or ``benchmarks`` would
    stand in for modules the repository lacks."""
    paths = [str(plugin_folder())]
    if same_version:
        paths += [p for p in site.getsitepackages() if os.path.isdir(p)]
        user = site.getusersitepackages()
        if site.ENABLE_USER_SITE and isinstance(user, str) and os.path.isdir(user):
            paths.append(user)
    return tuple(paths)


def plugin_folder() -> Path:
    """A folder holding only simpilot's pytest plugins, as ``replay.execution.*`` (what ``-p``
    names), kept in the cache under a digest of their contents."""
    here = Path(__file__).resolve().parents[1] / "execution" / "inside"
    files = {name: (here / name).read_bytes() for name in PLUGINS}
    digest = hashlib.sha256(b"".join(name.encode() + b"\0" + data for name, data in files.items())).hexdigest()[:16]
    target = cache_root() / "plugins" / digest

    def fill(folder: Path) -> None:
        (folder / "replay" / "execution" / "inside").mkdir(parents=True)
        (folder / "replay" / "__init__.py").write_text('"""simpilot\'s pytest plugins, as the tests\' interpreter imports them."""\n')
        for name, data in files.items():
            (folder / "replay" / "execution" / "inside" / name).write_bytes(data)

    return _publish(target, fill)


_HOOK = '''"""Appends simpilot's plugins to sys.path after everything of the environment's, then runs the
environment's own sitecustomize, which this module shadows."""
import importlib.machinery, importlib.util, os, sys

for _path in {paths!r}:
    if os.path.isdir(_path) and _path not in sys.path:
        sys.path.append(_path)
_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.machinery.PathFinder.find_spec("sitecustomize", [p for p in sys.path if p and os.path.abspath(p) != _here])
if _spec is not None and _spec.loader is not None:
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["sitecustomize"] = _module
    _spec.loader.exec_module(_module)
'''


def hook_folder(appended: tuple[str, ...]) -> Path:
    """A folder holding only a ``sitecustomize`` that appends ``appended`` to ``sys.path``: put
    on ``PYTHONPATH`` for an interpreter simpilot did not build (and must not change)."""
    text = _HOOK.format(paths=list(appended))
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    return _publish(
        cache_root() / "hooks" / digest, lambda folder: (folder.mkdir(parents=True), (folder / "sitecustomize.py").write_text(text))
    )


def _publish(target: Path, fill) -> Path:
    """``target``, made by ``fill`` in a temporary sibling and renamed into place (a concurrent
    maker loses the race harmlessly; a crash leaves no half-made ``target``)."""
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f"{target.name}.partial-", dir=target.parent))
    try:
        fill(partial / "x")
        try:
            os.rename(partial / "x", target)
        except OSError:
            if not target.is_dir():
                raise
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return target
