"""A venv built by ``[environment] setup`` commands, cached under simpilot's cache folder and
keyed by what decides its contents; a failed or interrupted build leaves nothing usable behind.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from replay.core.errors import SimpilotError
from replay.core.paths import MANIFEST_NAME, cache_root
from replay.environments.hints import details
from replay.environments.interpreters import Environment, Interpreter, appended_paths, check_pytest, locate, probe

if TYPE_CHECKING:
    from replay.config.manifest import EnvironmentConfig, Manifest

KEY_FORMAT = "2"  # bump when what a cached venv holds changes
SETUP_TIMEOUT = 1800.0  # seconds for one setup command (downloads included)
OUTPUT_BYTES = 16000  # the end of a setup command's output, where its error is
READY = ".simpilot-ready"  # written last: a venv without it is half-built
PTH = "zz-simpilot.pth"  # sorts after the venv's own .pth files
DEPENDENCY_FILES = ("pyproject.toml", "setup.cfg", "setup.py", "Pipfile", "Pipfile.lock", "poetry.lock", "uv.lock", "pdm.lock")
DEPENDENCY_GLOBS = ("requirements*.txt", "requirements/*.txt", "constraints*.txt")
# What the throw-away setup copy leaves out: caches and environments, never .git (setuptools-scm
# reads the version from it).
_COPY_IGNORE = shutil.ignore_patterns(
    "__pycache__", "*.pyc", ".pytest_cache", ".mypy_cache", ".venv", "venv", ".tox", ".nox", "node_modules"
)
# Variables of simpilot's own process that would make a setup command or probe see simpilot's
# packages instead of the environment's.
_LEAKY = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "VIRTUAL_ENV", "PYTHONEXECUTABLE", "__PYVENV_LAUNCHER__")


def dependency_files(manifest: Manifest, config: EnvironmentConfig) -> list[str]:
    """The repository files whose contents decide what the setup installs: the usual dependency
    files, and any file a setup command names (``-r dev-requirements.txt``)."""
    root = manifest.root
    found = {name for name in DEPENDENCY_FILES if (root / name).is_file()}
    for pattern in DEPENDENCY_GLOBS:
        found |= {p.relative_to(root).as_posix() for p in root.glob(pattern) if p.is_file()}
    for command in config.setup:
        for token in shlex.split(command) if isinstance(command, str) else command:
            for part in {token, token.split("=", 1)[-1], token[2:] if token.startswith("-") else token}:
                if part and not part.startswith("/") and ".." not in PurePosixPath(part).parts and (root / part).is_file():
                    found.add(PurePosixPath(part).as_posix())
    return sorted(found)


def cache_key(manifest: Manifest, config: EnvironmentConfig, base: Interpreter) -> str:
    """What decides a cached venv: the setup commands, the dependency files' contents and the base
    interpreter (its path and full version). What simpilot appends to its ``sys.path`` does not:
    that ``.pth`` file is brought up to date on each use, so a new simpilot reinstalls nothing."""
    digest = hashlib.sha256()

    def feed(label: str, data: bytes) -> None:
        digest.update(f"{label}\0{len(data)}\0".encode() + data)

    feed("format", KEY_FORMAT.encode())
    feed("setup", json.dumps(config.setup).encode())
    feed("base", f"{os.path.realpath(base.executable)}\n{base.full_version}".encode())
    for rel in dependency_files(manifest, config):
        feed(f"file:{rel}", (manifest.root / rel).read_bytes())
    return digest.hexdigest()[:16]


def venv_folder(manifest: Manifest, key: str) -> Path:
    return cache_root() / "envs" / f"{manifest.name}-{key}"


def cached_venv(manifest: Manifest, config: EnvironmentConfig) -> Environment:
    base = probe(manifest, locate(manifest, config.python) if config.python else sys.executable)
    folder = venv_folder(manifest, cache_key(manifest, config, base))
    folder.parent.mkdir(parents=True, exist_ok=True)
    with _file_lock(folder.with_name(folder.name + ".lock")):
        if (folder / READY).is_file():
            say(f"{manifest.name}: the tests run in the cached environment {folder}")
        else:
            _build(manifest, config, base, folder)
        ready = json.loads((folder / READY).read_text())
        appended = appended_paths(ready["same_version"])
        _write_pth(Path(ready["purelib"]) / PTH, appended)
    readable = (str(folder), ready["base_prefix"], *appended)
    return Environment(python=ready["python"], readable=readable, venv=str(folder), bin=str(folder / "bin"), borrowed=appended)


def _write_pth(path: Path, appended: tuple[str, ...]) -> None:
    """The venv's ``.pth`` appending ``appended`` to ``sys.path``, replaced atomically when it
    differs (processes already running have read the old one, whose folders stay)."""
    text = "".join(p + "\n" for p in appended)
    if path.is_file() and path.read_text() == text:
        return
    partial = path.with_name(f"{path.name}.{os.getpid()}")
    partial.write_text(text)
    os.replace(partial, path)


@contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (processes building the same venv wait for each other)."""
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _build(manifest: Manifest, config: EnvironmentConfig, base: Interpreter, folder: Path) -> None:
    """Create the venv at ``folder`` and run the setup in a throw-away copy of the repository;
    on any failure remove the venv, so the next attempt starts afresh."""
    start = time.monotonic()
    say(f"{manifest.name}: building the test environment in {folder} ({len(config.setup)} setup command(s), once; later runs reuse it)")
    shutil.rmtree(folder, ignore_errors=True)  # a half-built venv of an interrupted run
    try:
        _run(
            manifest,
            f"creating a venv with {base.executable}",
            [base.executable, "-m", "venv", str(folder)],
            Path(tempfile.gettempdir()),
            _setup_env(folder),
        )
        python = str(folder / "bin" / "python")
        with tempfile.TemporaryDirectory(prefix="simpilot-setup-") as tmp:
            copy = Path(tmp) / manifest.root.name
            shutil.copytree(manifest.root, copy, ignore=_COPY_IGNORE, symlinks=True)
            for command in config.setup:
                argv, shown = setup_argv(command, python)
                say(f"{manifest.name}: $ {shown}")
                _run(manifest, f"[environment] setup command {shown!r}", argv, copy, _setup_env(folder))
        info = probe(manifest, python)
        same = check_pytest(manifest, info, fix='add "pip install pytest pytest-cov" to [environment] setup')
        ready = {
            "python": python,
            "purelib": info.purelib,
            "base_prefix": info.base_prefix,
            "same_version": same,
            "version": info.full_version,
            "built_s": round(time.monotonic() - start, 1),
        }
        (folder / READY).write_text(json.dumps(ready, indent=1) + "\n")
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    say(f"{manifest.name}: test environment ready in {time.monotonic() - start:.1f} s")


def setup_argv(command: str | tuple[str, ...], python: str) -> tuple[list[str], str]:
    """The argument vector of one setup command and how to show it: a string is a shell command
    line, a list an argument vector; ``{python}`` is the venv's interpreter in both."""
    if isinstance(command, str):
        return ["/bin/sh", "-c", command.replace("{python}", shlex.quote(python))], command
    return [part.replace("{python}", python) for part in command], shlex.join(command)


def _setup_env(folder: Path) -> dict[str, str]:
    """simpilot's environment (proxies, pip settings) with the venv activated and nothing of
    simpilot's own Python set-up."""
    env = {k: v for k, v in os.environ.items() if k not in _LEAKY}
    env["VIRTUAL_ENV"] = str(folder)
    env["PATH"] = f"{folder / 'bin'}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"
    env.setdefault("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    return env


def _run(manifest: Manifest, what: str, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
    """Run one step of a build; a failure raises with its status and the end of its output."""
    with tempfile.TemporaryFile() as out:
        try:
            proc = subprocess.Popen(
                argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        except OSError as exc:
            raise SimpilotError(
                f"{manifest.name}: {what} could not start ({exc}): fix [environment] in {manifest.root / MANIFEST_NAME}"
            ) from None
        try:
            code: int | str = proc.wait(timeout=SETUP_TIMEOUT)
        except subprocess.TimeoutExpired:
            code = f"stopped after {SETUP_TIMEOUT:g} s"
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # whatever it left running
            except (ProcessLookupError, PermissionError):
                pass
            proc.wait()
        if code == 0:
            return
        out.seek(0)
        tail = out.read()[-OUTPUT_BYTES:].decode("utf-8", "replace")
    status = code if isinstance(code, str) else f"exit status {code}"
    raise SimpilotError(
        f"{manifest.name}: {what} failed ({status}): fix it in {manifest.root / MANIFEST_NAME}; nothing was cached" + details(argv, tail)
    )


def say(message: str) -> None:
    """Progress of a slow, one-time step, on standard error."""
    print(message, file=sys.stderr, flush=True)
