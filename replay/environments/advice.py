"""What to do about a suite that fails on the untouched code, from what its output shows: a
module the tests cannot import (the repository's own package not on the path, or a dependency its
test interpreter lacks), or something only a pytest plugin provides (a fixture, an option, a
marker, async tests) that no loaded plugin gave.

The advice names the one place the fix goes, which depends on where the tests run
(``plugins.py``): a plugin installed in the repository's environment loads by itself; simpilot's
own plugins never load for the repository's tests; a manifest that sets
``PYTEST_DISABLE_PLUGIN_AUTOLOAD`` loads only what its command names.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from replay.core.paths import MANIFEST_NAME
from replay.environments.commands import suite_python
from replay.environments.hints import missing_module
from replay.environments.plugins import AUTOLOAD, repository_decides

if TYPE_CHECKING:
    from replay.config.manifest import Manifest

# What pytest says when something a plugin provides is missing, and how to name it
_PLUGIN_SIGNS = (
    (
        re.compile(r"fixture '([\w.]+)' not found"),
        "the tests use the fixture {!r}, which no conftest.py and no loaded pytest plugin provides",
    ),
    (
        re.compile(r"error: unrecognized arguments: (\S+)"),
        "pytest is given the option {}, which no loaded pytest plugin adds (from test_command or addopts)",
    ),
    (
        re.compile(r"'([\w.]+)' not found in `markers` configuration option"),
        "the tests use the marker {!r}, which no loaded pytest plugin registers",
    ),
    (
        re.compile(r"(async def functions are not natively supported)"),
        "the tests are async def functions and no loaded pytest plugin runs them ({})",
    ),
)


def failure_hint(manifest: Manifest, output: str) -> str:
    """What to do about a suite that fails on the untouched code, from what its output shows."""
    config = manifest.root / MANIFEST_NAME
    if manifest.language != "python":
        return f"make them pass first (jars the tests need go in [java] classpath in {config})"
    module = missing_module(output)
    if module is not None:
        return _module_hint(manifest, module)
    plugin = missing_plugin(output)
    if plugin is not None:
        return f"{plugin}: {plugin_fix(manifest)}"
    return f"make them pass first: run the command below in your own checkout and fix what it shows ({config} says how simpilot runs them)"


def missing_plugin(output: str) -> str | None:
    """What ``output`` shows a pytest plugin would have provided, in words, if anything."""
    for pattern, words in _PLUGIN_SIGNS:
        found = pattern.findall(output)
        if found:
            return words.format(found[-1])
    return None


def plugin_fix(manifest: Manifest) -> str:
    """Where the plugin that provides what the tests miss must come from, for ``manifest``."""
    config = manifest.root / MANIFEST_NAME
    if repository_decides(manifest):
        return (
            f"'env' in {config} sets {AUTOLOAD}, so only the plugins test_command names with -p load: name the one that "
            f"provides it there, or remove the setting and simpilot loads the plugins installed in the tests' environment"
        )
    if manifest.environment is None:
        return (
            f'the plugin that provides it is not installed for the repository: install it with [environment] setup = ["pip install -e .", '
            f'"pip install <the plugin>"] in {config} (the tests then run in a venv of their own; simpilot\'s own plugins never load for them)'
        )
    if manifest.environment.setup:
        return f"the plugin that provides it is not installed in the tests' environment: add its installation to [environment] setup in {config}"
    return (
        f"the plugin that provides it is not installed in the interpreter [environment] python names ({suite_python(manifest)}): "
        f"install it there, or build the environment with [environment] setup in {config}"
    )


def _module_hint(manifest: Manifest, module: str) -> str:
    config = manifest.root / MANIFEST_NAME
    top = module.split(".", 1)[0]
    own = any((folder / top).is_dir() or (folder / f"{top}.py").is_file() for folder in (manifest.root, manifest.root / "src"))
    if own:
        return (
            f"the tests cannot import the repository's own {top!r}: list its folder in 'sources' (a src/ folder of packages is "
            f"found by itself) or add it to PYTHONPATH in 'env' in {config}"
        )
    return (
        f"the tests import {module!r}, which {suite_python(manifest)} cannot find: install the repository's dependencies with [environment] "
        f'setup = ["pip install -e ."] (or name a venv that has them with [environment] python) in {config}'
    )
