"""The test process's end of the proof channel: the one reader every Python reporter uses.

``$SIMPILOT_PROOF`` names two descriptors, ``TOKEN_FD:REPORT_FD``: a pipe carrying the run's key
(and, for the pytest reporter, the answer's place on a second line) and the file the signed
records go to (``proof/check.py`` makes both). The reader removes the variable and drains and
closes the pipe before any of the code under test runs, so nothing of the process names the key
afterwards but what the reporter keeps of it.

Imported by ``pytest_proof.py`` (as ``replay.execution.inside.proof_channel``) and by
``program_server.py`` (by its bare name: the folder is the script's ``sys.path[0]``); the host
takes :data:`ENV` from here too. Standard library only.
"""

from __future__ import annotations

import os

ENV = "SIMPILOT_PROOF"  # "TOKEN_FD:REPORT_FD" in the test process's environment (the reporter removes it)


def open_channel() -> tuple[bytes, int | None]:
    """What the token pipe carried and the report descriptor; ``(b"", None)`` without a channel."""
    spec = os.environ.pop(ENV, "")
    try:
        token_fd, report_fd = (int(part) for part in spec.split(":"))
    except ValueError:
        return b"", None
    chunks = []
    while chunk := os.read(token_fd, 4096):
        chunks.append(chunk)
    os.close(token_fd)
    return b"".join(chunks), report_fd
