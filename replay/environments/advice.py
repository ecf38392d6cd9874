"""What to do about a suite that fails on the untouched code, from what its output shows (a
module the tests cannot import, above all): the repository's own package not on the path, or a
dependency its test interpreter lacks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from replay.core.paths import MANIFEST_NAME
from replay.environments.commands import suite_python
from replay.environments.hints import missing_module

if TYPE_CHECKING:
    from replay.config.manifest import Manifest


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
        f"the tests import {module!r}, which {suite_python(manifest)} cannot find: install the repository's dependencies with [environment] "
        f'setup = ["pip install -e ."] (or name a venv that has them with [environment] python) in {config}'
    )
