"""Stored runs as the inputs of a model comparison (``model_comparison.py``): each sample's verdict and
DevBench metrics under one preset, and each task's strata (language, category).

The category is the task's ``construct``: DevBench's category for imported DevBench tasks, the
construct of the hole for marked ones.
"""

from __future__ import annotations

from collections.abc import Sequence

from replay.core.errors import SimpilotError
from replay.core.records import Status
from replay.reports.model_comparison import ModelRun, SampleScore
from replay.store import Store


def shown_model(model: str) -> str:
    """A run's model as a comparison shows it: a recording by its folder's name."""
    kind, _, rest = model.partition(":")
    return rest.rstrip("/").rsplit("/", 1)[-1] if kind == "recorded" and rest else model


def load_model_runs(store: Store, run_ids: Sequence[str], preset: str) -> tuple[list[ModelRun], dict[str, dict[str, str]]]:
    """``run_ids``' samples under ``preset`` (metrics filled in where missing) and the strata of
    their tasks. Raises ``SimpilotError`` for an unknown run or a preset a run was not judged with."""
    runs: list[ModelRun] = []
    strata: dict[str, dict[str, str]] = {}
    for run_id in run_ids:
        info = store.run(run_id)
        if info is None:
            known = ", ".join(r.run_id for r in store.runs()[-8:]) or "none"
            raise SimpilotError(f"no run {run_id!r} in {store.path} (runs: {known})")
        store.backfill_metrics(run_id)
        outcomes = [o for o in store.outcomes(run_id, sample=None) if o.postprocess == preset]
        if not outcomes:
            have = sorted({o.postprocess for o in store.outcomes(run_id, sample=None)})
            raise SimpilotError(
                f"run {run_id!r} has no outcomes under {preset!r} (it has: {', '.join(have) or 'none'}): "
                f"choose one with --postprocess, or judge it with 'simpilot compare {run_id} --postprocess {preset}'"
            )
        metrics = store.sample_metrics(run_id)
        by_task: dict[str, list[tuple[int, SampleScore]]] = {}
        for o in outcomes:
            m = metrics.get((o.task_id, o.postprocess, o.sample))
            error = (o.detail or "no answer") if o.status is Status.MODEL_ERROR else ""
            score = SampleScore(o.passed, m.devbench_line0 if m else 0, m.devbench_cosine if m else 0.0, error)
            by_task.setdefault(o.task_id, []).append((o.sample, score))
        samples = {task_id: [score for _, score in sorted(found, key=lambda x: x[0])] for task_id, found in by_task.items()}
        runs.append(ModelRun(shown_model(info.model), run_id, samples, info.model))
        for task in store.tasks(run_id):
            strata.setdefault(task.id, {"language": task.language, "category": task.construct})
    return runs, strata
