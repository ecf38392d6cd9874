"""Finding the task a request is about from what an editor sends, and nothing else: the
document's path, the cursor, and the document's text.

Both models that answer from stored data use it: ``oracle`` (the ground truth) and ``recorded``
(a model's raw answers). Entries are indexed by cursor position and carry the repository-relative
path they belong to; a request's path matches when it is that path or ends with it, because the
editor sends an absolute path and the repository may sit anywhere. Whether the *text* matches is
left to the caller (the oracle compares it with the file on disk, the recorded model with a
stored hash), so one index serves both.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Generic, TypeVar

from .base import CompletionRequest, ModelError

T = TypeVar("T")


def same_path(request_path: str, task_path: str) -> bool:
    """``request_path`` (absolute, POSIX) is the repository-relative ``task_path``."""
    return request_path == task_path or request_path.endswith("/" + task_path)


class PositionIndex(Generic[T]):
    """Entries by (path, line, character), looked up from a request."""

    def __init__(self) -> None:
        self._at: dict[tuple[int, int], list[tuple[str, T]]] = defaultdict(list)
        self._count = 0

    def add(self, path: str, line: int, character: int, entry: T) -> None:
        self._at[(line, character)].append((path, entry))
        self._count += 1

    def candidates(self, request: CompletionRequest) -> Iterator[T]:
        """Entries at the request's cursor whose path is the request's document."""
        for path, entry in self._at.get((request.line, request.character), ()):
            if same_path(request.path, path):
                yield entry

    def entries(self) -> Iterator[T]:
        """Every entry, in the order they were added within each position."""
        for at in self._at.values():
            for _, entry in at:
                yield entry

    def __len__(self) -> int:
        return self._count


def no_match(model: str, request: CompletionRequest) -> ModelError:
    """The error for a request that matches no entry: a replay that opened the wrong text (or a
    task nobody stored) is caught, not scored."""
    return ModelError(f"{model}: no task at {request.path}:{request.line + 1}:{request.character + 1} for this document")
