"""``oracle``: answers the ground truth of the task being asked.

It learns the task from the document and the cursor alone — the file path, the position, and a
hash of the document text — exactly what an editor sends; it never looks at a prompt. A request
that matches no task is an error, so a replay that opened the wrong text is caught, not scored.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from replay.core.records import Task
from replay.core.scenarios import document_text, read_tasks

from .base import CompletionRequest, ModelError
from .task_lookup import PositionIndex, no_match


class OracleModel:
    name = "oracle"

    def __init__(self, scenarios: list[str]):
        if not scenarios:
            raise ModelError("the oracle needs the scenario files whose ground truth it answers")
        self._tasks: PositionIndex[Task] = PositionIndex()
        for path in scenarios:
            for task in read_tasks(Path(path)):
                self._tasks.add(task.path, task.cursor.line, task.cursor.character, task)
        self._files: dict[str, tuple[bytes, str] | None] = {}

    def _file(self, path: str) -> tuple[bytes, str] | None:
        """The file behind the document on disk, and its SHA-256 (cached)."""
        if path not in self._files:
            try:
                data = Path(path).read_bytes()
                self._files[path] = (data, hashlib.sha256(data).hexdigest())
            except OSError:
                self._files[path] = None
        return self._files[path]

    def _matches(self, task: Task, request: CompletionRequest) -> bool:
        """The request's text is the task's document made from the file on disk."""
        on_disk = self._file(request.path)
        if on_disk is None or on_disk[1] != task.file_sha256:
            return False
        return request.text == document_text(task, on_disk[0])

    async def complete(self, request: CompletionRequest) -> str:
        for task in self._tasks.candidates(request):
            if self._matches(task, request):
                return task.ground_truth
        raise no_match(self.name, request)

    async def aclose(self) -> None:
        return None
