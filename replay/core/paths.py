"""Where simpilot keeps things: the manifest's file name, the cache folder and the logs.

The cache (``$SIMPILOT_CACHE``, else ``$XDG_CACHE_HOME/simpilot``, else ``~/.cache/simpilot``)
holds what is built once per machine and reused: git checkouts, the Java runner, the venvs of
``[environment] setup``.

Logs (what the language-server bridge writes on its standard error) go to ``logs/`` in the folder
of the results database (``runs/logs/`` by default), never beside it or in the current folder,
under a name :func:`safe_name` made: a run id holds a model spec (``openai:gpt-4o@host``), and a
colon or a slash in a file name breaks copying the folder to Windows, zip files and shells.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

MANIFEST_NAME = "simpilot.toml"
LOGS_FOLDER = "logs"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def cache_root() -> Path:
    """simpilot's cache folder."""
    base = os.environ.get("SIMPILOT_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "simpilot")
    return Path(base)


def safe_name(text: str) -> str:
    """``text`` as a file name of letters, digits, ``-``, ``_`` and ``.`` only: every run of other
    characters (a colon, a slash, a space, an ``@``) becomes one ``_``; no leading dot (a hidden
    file) and never empty."""
    return _UNSAFE.sub("_", text).lstrip(".") or "_"


def log_file(db: Path, name: str) -> Path:
    """The log ``name`` (a run id, say) of the runs stored in ``db``: ``<db's folder>/logs/<safe
    name>.log``. The folder is made when the log is first written, not here."""
    return db.parent / LOGS_FOLDER / f"{safe_name(name)}.log"


def remove_if_empty(path: Path | None) -> None:
    """Remove the log ``path`` when it holds nothing (a run whose bridge said nothing leaves no
    file), and its folder when that is then empty."""
    if path is None:
        return
    try:
        if path.stat().st_size == 0:
            path.unlink()
            path.parent.rmdir()  # only when empty: OSError otherwise
    except OSError:
        pass
