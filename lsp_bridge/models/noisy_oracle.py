"""``noisy-oracle``: the ground truth, corrupted the way models corrupt it (``postprocess.noise``).

It finds the task exactly as the oracle does (path, cursor, document), so a replay through the
bridge measures how much of each corruption a preset recovers. Corruption types are assigned over
all tasks of the scenarios it was given, so each type covers an equal share; the seed fixes both
the assignment and every variant.
"""

from __future__ import annotations

from postprocess import HoleContext, closes_cursor_block
from postprocess.noise import applicable, assign, corrupt

from .base import CompletionRequest
from .oracle import OracleModel
from .task_lookup import no_match


class NoisyOracleModel(OracleModel):
    name = "noisy-oracle"

    def __init__(self, scenarios: list[str], seed: int):
        super().__init__(scenarios)
        self.seed = seed
        self._kinds: dict[str, str] | None = None

    def kinds(self) -> dict[str, str]:
        """Task id -> corruption type, over every task of the scenarios (computed once)."""
        if self._kinds is None:
            self._kinds = assign(self.seed, [(t.id, applicable(t.language, t.block)) for t in self._tasks.entries()])
        return self._kinds

    async def complete(self, request: CompletionRequest) -> str:
        for task in self._tasks.candidates(request):
            if self._matches(task, request):
                closes = closes_cursor_block(task.language, request.prefix, task.ground_truth)
                ctx = HoleContext(task.language, request.prefix, request.suffix, closes_block=closes)
                return corrupt(self.kinds()[task.id], task.ground_truth, ctx, self.seed, task.id).text
        raise no_match(self.name, request)
