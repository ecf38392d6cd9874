"""``recorded``: answers with a model's raw outputs recorded earlier (``replay/core/recordings.py``).

A real model's answers, replayed without the model: the same messy text every time, so a run
over them reproduces its outcomes bit for bit on any machine. Like the oracle it learns the task
from what an editor sends — the document's path, the cursor, and the SHA-256 of the document's
text — and a request no recorded answer was given for is an error, never a guess. A recording
with several samples per request answers with all of them (one inline item each), with the timing
recorded with them (times and token counts), so that a recorded run reproduces its timings.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from replay.core.errors import SimpilotError
from replay.core.recordings import RecordedAnswer, read_recordings, text_sha256
from replay.core.records import Timing

from .base import CompletionRequest, ModelError
from .task_lookup import PositionIndex, no_match


class RecordedModel:
    def __init__(self, folder: str):
        if not folder:
            raise ModelError("the recorded model needs the folder of a recording (e.g. scenarios/recordings/smollm2)")
        try:
            answers = read_recordings(Path(folder))
        except SimpilotError as exc:
            raise ModelError(str(exc)) from None
        if not answers:
            raise ModelError(f"the recording folder {folder} holds no answers: record some first (replay.core.recordings.record)")
        self.name = f"recorded:{Path(folder).name}"
        self._answers: PositionIndex[RecordedAnswer] = PositionIndex()
        for answer in answers:
            self._answers.add(answer.path, answer.line, answer.character, answer)

    def __len__(self) -> int:
        return len(self._answers)

    async def complete(self, request: CompletionRequest) -> str:
        return (await self.complete_all(request))[0]

    async def complete_all(self, request: CompletionRequest) -> list[str]:
        """Every answer recorded for ``request``, by sample number (a recording of one sample
        per request gives one)."""
        return [a.raw for a in self._found(request)]

    async def complete_timed(self, request: CompletionRequest) -> tuple[list[str], Timing | None]:
        """The recorded answers and the recorded timing of the request (marked ``replayed``;
        None when the recording kept none), so that a recorded run reproduces its timings."""
        found = self._found(request)
        timing = found[0].timing
        return [a.raw for a in found], replace(timing, replayed=True) if timing is not None else None

    def _found(self, request: CompletionRequest) -> list[RecordedAnswer]:
        digest = text_sha256(request.text)
        found = sorted((a for a in self._answers.candidates(request) if a.document_sha256 == digest), key=lambda a: a.sample)
        if not found:
            raise no_match(self.name, request)
        return found

    async def aclose(self) -> None:
        return None
