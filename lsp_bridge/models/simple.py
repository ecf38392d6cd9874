"""Models that need no endpoint: ``empty`` (always answers nothing)."""

from __future__ import annotations

from .base import CompletionRequest


class EmptyModel:
    """Answers the empty string: the floor every real model should beat."""

    name = "empty"

    async def complete(self, request: CompletionRequest) -> str:
        return ""

    async def aclose(self) -> None:
        return None
