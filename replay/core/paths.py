"""Where simpilot keeps things: the manifest's file name and the cache folder.

The cache (``$SIMPILOT_CACHE``, else ``$XDG_CACHE_HOME/simpilot``, else ``~/.cache/simpilot``)
holds what is built once per machine and reused: git checkouts, the Java runner, the venvs of
``[environment] setup``.
"""

from __future__ import annotations

import os
from pathlib import Path

MANIFEST_NAME = "simpilot.toml"


def cache_root() -> Path:
    """simpilot's cache folder."""
    base = os.environ.get("SIMPILOT_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "simpilot")
    return Path(base)
