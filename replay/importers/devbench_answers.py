"""DevBench's recorded model answers, read as simpilot recordings.

A DevBench checkout keeps, next to ``benchmark/``, the answers nine models gave to every instance:
``completions/<language>/<category>/<category>-<model>.jsonl``, one line per instance holding the
instance's fields and the model's samples (``<model>_completions``, a list, or
``<model>_completion_0`` … ``_4``). Each sample becomes a :class:`RecordedAnswer` of the task the
instance imports as (``devbench.task_for``): the same document, cursor and digests an editor
would send, so the ``recorded`` model answers the bridge's request with all of a task's samples,
in DevBench's order, and a run stores each as its own completion.

DevBench sampled at temperature 0.2 (its paper); the answers carry that in their settings, with
where they came from.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from replay.core.errors import SimpilotError
from replay.core.json_input import numbered
from replay.core.recordings import RecordedAnswer, answer_for
from replay.core.records import Completion
from replay.importers.devbench import CATEGORIES, FOLDERS, Instance, instance_from, json_line, task_for

SETTINGS: dict[str, Any] = {"source": "DevBench's recorded completions (microsoft/devbench)", "temperature": 0.2}


@dataclass(frozen=True, slots=True)
class ModelAnswers:
    """One model's samples for one instance, in DevBench's order."""

    model: str
    instance: Instance
    samples: tuple[str, ...]


def completions_folder(folder: Path) -> Path:
    """Where the recorded answers of the DevBench at ``folder`` are: its ``completions/``
    (``folder`` a checkout, its ``benchmark/`` folder, or the ``completions/`` folder itself)."""
    for candidate in (folder / "completions", folder.parent / "completions", folder):
        if candidate.name == "completions" and candidate.is_dir():
            return candidate
    raise SimpilotError(f"no DevBench answers under {folder}: expected completions/<language>/<category>/<category>-<model>.jsonl")


def answer_files(folder: Path, language: str, categories: Iterable[str] = CATEGORIES) -> Iterator[tuple[str, str, Path]]:
    """(category, model, file) of every answer file of ``language``, by category then model."""
    base = completions_folder(folder) / FOLDERS[language]
    for category in categories:
        for path in sorted((base / category).glob(f"{category}-*.jsonl")):
            yield category, path.stem[len(category) + 1 :], path


def models_in(folder: Path, languages: Iterable[str]) -> list[str]:
    """The models that answered in ``folder``, sorted."""
    return sorted({model for language in languages for _, model, _ in answer_files(folder, language)})


def read_answers(
    folder: Path, languages: Iterable[str], models: Iterable[str] | None = None, categories: Iterable[str] = CATEGORIES
) -> Iterator[ModelAnswers]:
    """Every model's samples for every instance of ``languages`` (only ``models``, when given)."""
    wanted = None if models is None else set(models)
    for language in languages:
        for category, model, path in answer_files(folder, language, categories):
            if wanted is not None and model not in wanted:
                continue
            for number, line in numbered(path.read_text(encoding="utf-8").splitlines()):
                where = f"{path}:{number}"
                data = json_line(line, where)
                yield ModelAnswers(model, instance_from(data, language, category, where), _samples(data, model))


def _samples(data: dict[str, Any], model: str) -> tuple[str, ...]:
    """The samples of ``model`` in ``data``: its list, or its numbered fields in order. A
    missing (null) sample is an empty answer: the model gave nothing. An instance with no sample
    at all (DevBench has three, all Ministral-3B's) gives none: no answer is recorded for it."""
    listed = data.get(f"{model}_completions")
    if not isinstance(listed, list):
        listed = []
        while f"{model}_completion_{len(listed)}" in data:
            listed.append(data[f"{model}_completion_{len(listed)}"])
    return tuple(s if isinstance(s, str) else "" for s in listed)


def recorded(entry: ModelAnswers) -> list[RecordedAnswer]:
    """``entry``'s samples as recorded answers to its task's request (none when it has none)."""
    text, task = task_for(entry.instance)
    settings = {**SETTINGS, "samples": len(entry.samples)}
    return [
        answer_for(task, Completion(task.id, sample, sample=i), text.encode("utf-8"), entry.model, settings)
        for i, sample in enumerate(entry.samples)
    ]
