"""Which pytest plugins a repository's test runs load: the repository's own, as pytest would load
them in its own checkout, and none that are there only because simpilot's environment has them.

pytest loads every ``pytest11`` entry point it can see unless ``PYTEST_DISABLE_PLUGIN_AUTOLOAD``
is set. The tests' interpreter sees simpilot's own packages — all of them when the tests run with
simpilot's interpreter, its site-packages appended after the environment's for a venv of the same
Python version (``interpreters.appended_paths``) — so simpilot's own plugins (pytest-asyncio,
pytest-timeout, pytest-lsp, hypothesis…) would otherwise change how a repository's tests run:
collect async tests the repository never meant to run that way, stop tests at a timeout, add
options and fixtures. Turning autoload off alone is no answer either: the repository's own
plugins (pytest-benchmark's ``benchmark`` fixture) would then be missing.

So every pytest command simpilot runs for a Python repository runs with autoload off and names,
with ``-p NAME`` (pytest loads the ``pytest11`` entry point of that name), the plugins of the
*repository's* environment, after simpilot's proof reporter (which must load before any other
code: ``pytest_proof.py``). The repository's environment is

* a venv ``[environment] setup`` built: its own site-packages, without what simpilot's ``.pth``
  file appends (``Environment.borrowed``);
* an interpreter ``[environment] python`` names: everything it sees by itself (it is probed
  without the ``sitecustomize`` hook that appends simpilot's plugins);
* simpilot's own interpreter (no ``[environment]``, or one naming simpilot's environment): what it
  sees, less the distributions simpilot requires (its dependencies and its extras', followed
  down): a plugin installed there for the repository's tests loads, simpilot's own do not.

What a repository decides stays its own: a manifest whose ``env`` sets
``PYTEST_DISABLE_PLUGIN_AUTOLOAD`` loads exactly what its command names (simpilot adds nothing but
its own reporter and selector); a plugin its command names (``-p NAME``) or blocks (``-p no:NAME``)
is left to the command, as is anything its ``pytest.ini`` ``addopts`` say. A command that is not
pytest itself (a script, ``tox``) keeps pytest's autoload: simpilot cannot name plugins on a
command line it does not write.

Entry points are looked for where the interpreter finds installed distributions, not in the work
copy: a repository that is itself a pytest plugin has its own entry point loaded once its
environment installs it (``pip install -e .`` in ``[environment] setup``).

One difference from autoloading remains: pytest rewrites the asserts of autoloaded plugins'
modules, not of plugins named with ``-p``; an assert failing inside a plugin's own code then shows
a plain message. Whether a test passes does not change.
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import threading
from typing import TYPE_CHECKING

from packaging.markers import UndefinedEnvironmentName
from packaging.requirements import InvalidRequirement, Requirement

from replay.config.manifest import has_pytest_word, with_pytest_options
from replay.core.errors import SimpilotError
from replay.core.paths import MANIFEST_NAME
from replay.environments.environment import resolve
from replay.environments.interpreters import PROBE_TIMEOUT

if TYPE_CHECKING:
    from replay.config.manifest import Manifest

AUTOLOAD = "PYTEST_DISABLE_PLUGIN_AUTOLOAD"
DISTRIBUTION = "simpilot"  # whose requirements are simpilot's own plugins
GROUP = "pytest11"
# Run in the tests' interpreter (Python 3.9 or newer, nothing of simpilot's imported): its prefix,
# and the pytest11 entry points of the distributions on its sys.path but the skipped folders, in
# sys.path order (where pytest would find them). The working folder is left out: it is not the
# work copy the tests run in.
_PROBE = (
    "import json, os, sys, importlib.metadata as m\n"
    "skip = set(json.loads(sys.argv[1]))\n"
    "paths = [p for p in sys.path if p and os.path.realpath(p) not in skip]\n"
    "found = [[e.name, d.metadata['Name'] or ''] for d in m.distributions(path=paths) for e in d.entry_points if e.group == 'pytest11']\n"
    "print(json.dumps({'prefix': os.path.realpath(sys.prefix), 'plugins': found}))\n"
)
_LOCK = threading.Lock()
_FOUND: dict[tuple[str, tuple[str, ...]], tuple[str, ...]] = {}


def repository_decides(manifest: Manifest) -> bool:
    """Whether the manifest's ``env`` sets ``PYTEST_DISABLE_PLUGIN_AUTOLOAD`` itself: its test
    command then names every plugin it wants, and simpilot adds none."""
    return AUTOLOAD in dict(manifest.env)


def manages(manifest: Manifest, argv: list[str] | tuple[str, ...]) -> bool:
    """Whether simpilot decides the plugins of ``argv`` run for ``manifest``: a pytest command of
    a Python repository whose manifest leaves plugin loading to simpilot."""
    return manifest.language == "python" and not repository_decides(manifest) and has_pytest_word(list(argv))


def autoload_env(manifest: Manifest, argv: list[str] | tuple[str, ...]) -> dict[str, str]:
    """What the environment of ``argv`` says about autoloading: off when simpilot names the
    plugins, else nothing (pytest's own default, or the manifest's setting)."""
    return {AUTOLOAD: "1"} if manages(manifest, argv) else {}


def with_plugins(manifest: Manifest, argv: list[str]) -> list[str]:
    """``argv`` with ``-p NAME`` for each plugin of the repository's environment right after the
    word ``pytest`` (options inserted there later, such as the proof reporter's, come first), but
    those it already names or blocks; any command simpilot does not manage as it is."""
    if not manages(manifest, argv):
        return argv
    named = named_plugins(argv)
    options = [part for name in repository_plugins(manifest) if name not in named for part in ("-p", name)]
    return with_pytest_options(argv, options) if options else argv


def named_plugins(argv: list[str]) -> set[str]:
    """The plugin names ``argv`` loads or blocks with ``-p`` (``-p NAME``, ``-pNAME``, ``-p no:NAME``)."""
    found: set[str] = set()
    for i, arg in enumerate(argv):
        value = argv[i + 1] if arg == "-p" and i + 1 < len(argv) else arg[2:] if arg.startswith("-p") and len(arg) > 2 else None
        if value:
            found.add(value.removeprefix("no:"))
    return found


def repository_plugins(manifest: Manifest) -> tuple[str, ...]:
    """The ``pytest11`` entry-point names of the repository's environment (see the module's
    docstring), in the order pytest would find them; found once per interpreter and process."""
    found = resolve(manifest)
    key = (found.python, found.borrowed)
    with _LOCK:
        if key not in _FOUND:
            _FOUND[key] = _plugins(manifest, found.python, found.borrowed)
        return _FOUND[key]


def _plugins(manifest: Manifest, python: str, borrowed: tuple[str, ...]) -> tuple[str, ...]:
    prefix, entries = probe_plugins(manifest, python, borrowed)
    own = simpilot_distributions() if prefix == os.path.realpath(sys.prefix) else frozenset()
    names: list[str] = []
    for name, distribution in entries:
        if normalise(distribution) not in own and name not in names:
            names.append(name)
    return tuple(names)


def probe_plugins(manifest: Manifest, python: str, borrowed: tuple[str, ...] = ()) -> tuple[str, list[tuple[str, str]]]:
    """Ask ``python``, with a clean environment, for its prefix and its ``pytest11`` entry points
    (name, distribution), leaving out the distributions in the ``borrowed`` folders."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": os.environ.get("HOME", "/")}
    skip = json.dumps(sorted(os.path.realpath(p) for p in borrowed))
    try:
        proc = subprocess.run(
            [python, "-c", _PROBE, skip], capture_output=True, text=True, timeout=PROBE_TIMEOUT, env=env, cwd="/", stdin=subprocess.DEVNULL
        )
        if proc.returncode != 0:
            raise ValueError((proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1])
        answer = json.loads(proc.stdout)
        return str(answer["prefix"]), [(str(name), str(dist)) for name, dist in answer["plugins"]]
    except (OSError, subprocess.TimeoutExpired, ValueError, TypeError, KeyError) as exc:
        raise SimpilotError(
            f"{manifest.name}: could not list the pytest plugins of the test interpreter {python} ({exc}): "
            f"fix [environment] in {manifest.root / MANIFEST_NAME}"
        ) from None


def normalise(name: str) -> str:
    """A distribution's name as packaging compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


@functools.cache
def simpilot_distributions() -> frozenset[str]:
    """The distributions simpilot's environment holds because simpilot requires them: simpilot
    itself, its dependencies with every extra's (the test extra brings pytest-asyncio and
    pytest-timeout), and theirs, followed down (with only the extras asked for). Empty when simpilot
    runs from a source folder that was never installed: nothing then says what is its own."""
    found: set[str] = set()
    seen: set[tuple[str, frozenset[str]]] = set()
    pending: list[tuple[str, frozenset[str] | None]] = [(DISTRIBUTION, None)]  # None: every extra
    while pending:
        name, extras = pending.pop()
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        offered = frozenset(dist.metadata.get_all("Provides-Extra") or ())
        wanted = offered if extras is None else extras
        if (normalise(name), wanted) in seen:
            continue
        seen.add((normalise(name), wanted))
        found.add(normalise(dist.metadata["Name"] or name))
        for line in dist.requires or ():
            requirement = _requirement(line, wanted)
            if requirement is not None:
                pending.append((requirement.name, frozenset(requirement.extras)))
    return frozenset(found)


def _requirement(line: str, extras: frozenset[str]) -> Requirement | None:
    """The requirement ``line`` when it applies here with one of ``extras`` (or none) asked for."""
    try:
        requirement = Requirement(line)
    except InvalidRequirement:
        return None
    if requirement.marker is None:
        return requirement
    for extra in ("", *sorted(extras)):
        try:
            if requirement.marker.evaluate({"extra": extra}):
                return requirement
        except UndefinedEnvironmentName:
            return None
    return None
