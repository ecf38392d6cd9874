"""The document the model saw, for a report's task details: the file as it was sent (or rebuilt
from the scenario), and an excerpt of it around the cursor."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from replay.config.manifest import project_root
from replay.core.records import Task
from replay.core.scenarios import document_text


def source_file(task: Task, request: dict[str, Any] | None) -> bytes | None:
    """The untouched file the task was cut from, if it can still be found unchanged: at the
    address the request named, or in the bundled repositories. ``None`` otherwise."""
    candidates = []
    if request and str(request.get("uri", "")).startswith("file://"):
        candidates.append(Path(unquote(urlparse(request["uri"]).path)))
    candidates.append(project_root() / "repos" / task.repo / task.path)
    for path in candidates:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if hashlib.sha256(data).hexdigest() == task.file_sha256:
            return data
    return None


CURSOR_MARK = "█"  # where the cursor stood; the hole's text was removed there


def prompt_excerpt(task: Task, original: bytes | None, before: int = 15, after: int = 10) -> str | None:
    """The lines of the document around the cursor as the editor had them (the hole removed; for
    completion nothing after the cursor), the cursor marked with :data:`CURSOR_MARK`."""
    if original is None:
        return None
    text = document_text(task, original)
    cursor = len(original[: task.span.start_byte].decode("utf-8"))
    marked = text[:cursor] + CURSOR_MARK + text[cursor:]
    lines = marked.split("\n")
    at = task.span.start.line
    return "\n".join(lines[max(0, at - before) : at + after + 1])
