from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
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


def simpilot(*args: str, cwd: Path | None = None, timeout: float = 600, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run the real command line in a child process, as a user would (``env`` adds variables)."""
    return subprocess.run([sys.executable, "-m", "replay", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=None if env is None else {**os.environ, **env})


@contextmanager
def chat_endpoint(answer: Callable[[str], str], delay: float = 0.0) -> Iterator[str]:
    """A local OpenAI-compatible chat endpoint: ``answer(prompt)`` is the reply to the last user
    message, sent after ``delay`` seconds. Yields its base URL (``…/v1``)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            messages = body.get("messages") or [{"content": ""}]
            content = answer(messages[-1]["content"])
            time.sleep(delay)
            data = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                            "finish_reason": "stop"}]}).encode()
            try:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the asker gave up (a cancelled request, a killed run)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1"
    finally:
        server.shutdown()
        server.server_close()
