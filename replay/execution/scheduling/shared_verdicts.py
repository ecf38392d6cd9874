"""An Evaluator whose verdicts are shared by the runs that use it.

The demo replays the same tasks three times (the oracle, the empty model, a real model's recorded
answers under four presets), and the same text often lands in the same hole more than once: an
empty answer, or a recorded answer identical to the ground truth. A verdict depends only on the
task, the text and the run's limits under one evaluator (same sandbox, same suite), so each such
combination is tested once. Never used where repeating a run is the point (the gate's stability
check runs its filler again and again on a plain :class:`Evaluator`).
"""

from __future__ import annotations

import threading

from replay.core.records import Task
from replay.execution.judge import Evaluator, Verdict

Key = tuple[str, str, str, float | None, float | None]


class SharingEvaluator(Evaluator):
    """Remembers every verdict by (task, file digest, text, wall limit, CPU limit); counts the
    verdicts asked for (``asked``) and the executions made for them (``executed``)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._verdicts: dict[Key, Verdict] = {}
        self._lock = threading.Lock()  # the verdicts and the counts
        self.asked = 0
        self.executed = 0

    def evaluate(self, task: Task, text: str, timeout: float | None = None, cpu: float | None = None) -> Verdict:
        key = (task.id, task.file_sha256, text, timeout, cpu)
        with self._lock:
            self.asked += 1
            known = self._verdicts.get(key)
            if known is not None:
                return known
            self.executed += 1
        verdict = super().evaluate(task, text, timeout, cpu)
        with self._lock:
            self._verdicts.setdefault(key, verdict)
        return verdict
