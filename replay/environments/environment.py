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
simpilot's. An interpreter of another version must have pytest and pytest-cov itself.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import site
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from replay.core.errors import SimpilotError
from replay.core.paths import MANIFEST_NAME, cache_root

if TYPE_CHECKING:
    from replay.config.manifest import Manifest


@dataclass(frozen=True, slots=True)
class EnvironmentConfig:
    """``[environment]`` of a manifest: the interpreter that runs a Python repository's tests."""

    python: str | None = None  # an interpreter or a venv folder (relative: to the root), or a name on PATH
    setup: tuple[str | tuple[str, ...], ...] = ()  # commands building a cached venv: shell lines or argument lists


KEY_FORMAT = "2"  # bump when what a cached venv holds changes
SETUP_TIMEOUT = 1800.0  # seconds for one setup command (downloads included)
PROBE_TIMEOUT = 60.0
MIN_PYTHON = (3, 9)  # the warm test server uses os.pidfd_open and os.waitstatus_to_exitcode
TAIL_LINES = 15  # lines of a failing command's output shown in its error
OUTPUT_BYTES = 16000  # the end of a setup command's output, where its error is
READY = ".simpilot-ready"  # written last: a venv without it is half-built
PTH = "zz-simpilot.pth"  # sorts after the venv's own .pth files
PLUGINS = ("pytest_proof.py", "proof_channel.py", "pytest_select.py")
DEPENDENCY_FILES = ("pyproject.toml", "setup.cfg", "setup.py", "Pipfile", "Pipfile.lock", "poetry.lock", "uv.lock", "pdm.lock")
DEPENDENCY_GLOBS = ("requirements*.txt", "requirements/*.txt", "constraints*.txt")
# What the throw-away setup copy leaves out: caches and environments, never .git (setuptools-scm
# reads the version from it).
_COPY_IGNORE = shutil.ignore_patterns(
    "__pycache__", "*.pyc", ".pytest_cache", ".mypy_cache", ".venv", "venv", ".tox", ".nox", "node_modules"
)
_MISSING = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")
# Variables of simpilot's own process that would make a setup command or probe see simpilot's
# packages instead of the environment's.
_LEAKY = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "VIRTUAL_ENV", "PYTHONEXECUTABLE", "__PYVENV_LAUNCHER__")
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
            found = _cached_venv(manifest, config) if config.setup else _given(manifest, config)
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


# -- a given interpreter -------------------------------------------------------------------------


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


def _given(manifest: Manifest, config: EnvironmentConfig) -> Environment:
    assert config.python is not None
    python = locate(manifest, config.python)
    info = probe(manifest, python)
    if "/" not in config.python and info.running:  # a name on PATH may be a launcher script: run what it runs
        python = info.running
    same = _check_pytest(manifest, info, fix=f"install them in it ({shlex.quote(python)} -m pip install pytest pytest-cov)")
    appended = appended_paths(same)
    hook = hook_folder(appended)
    venv_bin = os.path.dirname(python) if info.prefix != info.base_prefix else None
    return Environment(python=python, readable=(info.prefix, info.base_prefix, *appended, str(hook)), pythonpath=(str(hook),), bin=venv_bin)


def _check_pytest(manifest: Manifest, info: Interpreter, fix: str) -> bool:
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


# -- a venv built by setup commands, cached ----------------------------------------------------


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


def _cached_venv(manifest: Manifest, config: EnvironmentConfig) -> Environment:
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
    return Environment(python=ready["python"], readable=readable, venv=str(folder), bin=str(folder / "bin"))


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
        same = _check_pytest(manifest, info, fix='add "pip install pytest pytest-cov" to [environment] setup')
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


# -- explaining a failing suite ----------------------------------------------------------------


def details(command: list[str], output: str, lines: int = TAIL_LINES) -> str:
    """Indented lines for an error: the command that ran and the last ``lines`` of its output."""
    tail = [line[:300] for line in output.rstrip().splitlines()[-lines:]]
    shown = "\n".join(f"    | {line}" for line in tail) or "    (no output)"
    return f"\n  command: {shlex.join(command)}\n  last lines of its output:\n{shown}"


def missing_module(output: str) -> str | None:
    """The module a ``ModuleNotFoundError`` in ``output`` names (the last one), if any."""
    found = _MISSING.findall(output)
    return found[-1] if found else None


def failure_hint(manifest: Manifest, output: str) -> str:
    """What to do about a suite that fails on the untouched code, from what its output shows."""
    config = manifest.root / MANIFEST_NAME
    if manifest.language != "python":
        return f"make them pass first (jars the tests need go in [java] classpath in {config})"
    module = missing_module(output)
    if module is None:
        return f"make them pass first (if they need other packages, install them with [environment] setup in {config}; see README, 'Your own repository')"
    top = module.split(".", 1)[0]
    own = any((folder / top).is_dir() or (folder / f"{top}.py").is_file() for folder in (manifest.root, manifest.root / "src"))
    if own:
        return (
            f"the tests cannot import the repository's own {top!r}: list its folder in 'sources' (a src/ folder of packages is "
            f"found by itself) or add it to PYTHONPATH in 'env' in {config}"
        )
    return (
        f"the tests import {module!r}, which {manifest.python()} cannot find: install the repository's dependencies with [environment] "
        f'setup = ["pip install -e ."] (or name a venv that has them with [environment] python) in {config}'
    )


def say(message: str) -> None:
    """Progress of a slow, one-time step, on standard error."""
    print(message, file=sys.stderr, flush=True)
