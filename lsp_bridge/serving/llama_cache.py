"""Where the built ``llama-server`` is cached, and the pinned source it is built from.

Shared by the build (``llama_server.py``) and the running of the server (``llama_run.py``): the
cache is outside the checkout, so a fresh clone (as CI makes) reuses a build that took minutes.
"""

from __future__ import annotations

import os
from pathlib import Path

# The PyPI source distribution whose vendor/llama.cpp is built. Pinned with its sha256: pip
# checks the index's hash in transit, this one checks that the file is the one these settings
# and the tests were written against (a re-uploaded or substituted file is refused).
PACKAGE = "llama-cpp-python"
VERSION = "0.3.36"
SDIST_NAME = f"llama_cpp_python-{VERSION}.tar.gz"
SDIST_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
VENDORED = f"llama_cpp_python-{VERSION}/vendor/llama.cpp"

BINARY_NAME = "llama-server"
SETUP_HINT = "bash .ci/setup --servers (or: python -m lsp_bridge.serving.llama_server build)"

LOG_TAIL_LINES = 40


class LlamaServerError(RuntimeError):
    """The server cannot be built, found or started; the message says what to do."""


# -- the cached binary ------------------------------------------------------------------------


def cache_root() -> Path:
    """simpilot's cache folder, as ``replay.core.paths.cache_root`` finds it (``$SIMPILOT_CACHE``,
    else ``$XDG_CACHE_HOME/simpilot``, else ``~/.cache/simpilot``). Repeated rather than imported:
    ``lsp_bridge.serving`` imports no other project module (tests/test_architecture.py), so a
    model server never depends on the bridge or the evaluation side."""
    base = os.environ.get("SIMPILOT_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "simpilot")
    return Path(base)


def server_dir() -> Path:
    """The cache folder of this pinned version's build (outside any checkout, so clones share it)."""
    return cache_root() / "servers" / f"llama.cpp-{VERSION}"


def find() -> Path | None:
    """The cached ``llama-server`` binary if it is built, else None."""
    binary = server_dir() / BINARY_NAME
    return binary if binary.is_file() and os.access(binary, os.X_OK) else None


def log_tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    """The last ``lines`` lines of a log, for an error message."""
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return f"(no log at {path})"
