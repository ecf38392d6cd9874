from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e


def tree_digest(root: Path) -> dict[str, str]:
    """SHA-256 of every file under ``root`` (byte-identity checks)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for fn in filenames:
            p = Path(dirpath) / fn
            out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def simpilot(*args: str, cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run the real command line in a child process, as a user would."""
    return subprocess.run([sys.executable, "-m", "replay", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)
