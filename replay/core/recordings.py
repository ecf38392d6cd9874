"""Recorded model outputs: a real model's raw answers to bundled tasks, kept beside the scenarios
so that they can be replayed without the model (the ``recorded`` model kind) — bit for bit, on a
machine with no model and no network.

A recording folder (``scenarios/recordings/<model>/``) holds one JSONL file per repository, one
:class:`RecordedAnswer` per line, in the order of the tasks in their scenario file. The answers
come through the normal replay path (the bridge asked over LSP, as ``simpilot replay`` does) with
no post-processor, so nothing is tested: the raw completions land in the results store's
``completions`` table and are copied from there. Recording resumes: tasks already in the folder
are skipped, and a repository interrupted half-way continues from the store under the same run id.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replay.core.errors import SimpilotError
from replay.core.json_input import parse_lines
from replay.core.records import Completion, Kind, Task, Timing
from replay.core.repo_paths import relative_path
from replay.core.scenarios import document_text, write_lines


@dataclass(frozen=True, slots=True)
class RecordedAnswer:
    """One raw answer and the request it answered, as an editor would send it again: the
    document's repository-relative ``path``, the cursor (0-based line, UTF-16 character), and the
    SHA-256 of the document's text (``document_sha256``; the file with the hole removed).
    ``file_sha256`` pins the untouched file the task was cut from; ``settings`` are the model
    settings the answer was asked with (no secrets: only the name of a key's variable).
    ``sample`` numbers the answers of a model that gave several to the same request (0 first);
    the recorded model gives them all, in that order."""

    task_id: str
    repo: str
    path: str
    kind: str
    line: int
    character: int
    file_sha256: str
    document_sha256: str
    raw: str
    latency_ms: float
    model: str
    settings: dict[str, Any] = field(default_factory=dict)
    sample: int = 0
    timing: Timing | None = None  # how the model gave the answer (times, tokens), when it was measured

    def to_dict(self) -> dict[str, Any]:
        timing = {"timing": self.timing.to_json()} if self.timing is not None else {}
        return {
            "task_id": self.task_id,
            "repo": self.repo,
            "path": self.path,
            "kind": self.kind,
            "cursor": {"line": self.line, "character": self.character},
            "file_sha256": self.file_sha256,
            "document_sha256": self.document_sha256,
            "raw": self.raw,
            "latency_ms": self.latency_ms,
            "model": self.model,
            "settings": self.settings,
            "sample": self.sample,
        } | timing

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RecordedAnswer:
        """An answer from its JSON object; ``path`` must be a plain relative path
        (``repo_paths.relative_path``), as a recording is shared like a scenario file."""
        return cls(
            task_id=str(d["task_id"]),
            repo=str(d["repo"]),
            path=relative_path(str(d["path"])),
            kind=str(d["kind"]),
            line=int(d["cursor"]["line"]),
            character=int(d["cursor"]["character"]),
            file_sha256=str(d["file_sha256"]),
            document_sha256=str(d["document_sha256"]),
            raw=str(d["raw"]),
            latency_ms=float(d["latency_ms"]),
            model=str(d["model"]),
            settings=dict(d.get("settings") or {}),
            sample=int(d.get("sample", 0)),
            timing=Timing.from_json(d["timing"]) if isinstance(d.get("timing"), dict) else None,
        )


# -- the folder format (pure apart from the file reads and writes) ------------------------------


def read_recording_file(path: Path) -> list[RecordedAnswer]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise SimpilotError(f"cannot read the recording {path} ({exc})") from None
    return parse_lines(path, lines, RecordedAnswer.from_dict, "not a recorded answer", "delete the line and record again")


def read_recordings(folder: Path) -> list[RecordedAnswer]:
    """Every answer in a recording folder (its ``*.jsonl`` files, by name)."""
    if not folder.is_dir():
        raise SimpilotError(f"no recording folder {folder}: record one with replay.core.recordings.record (simpilot record)")
    return [a for path in sorted(folder.glob("*.jsonl")) for a in read_recording_file(path)]


def write_recording_file(path: Path, answers: Iterable[RecordedAnswer]) -> None:
    write_lines(path, (answer.to_dict() for answer in answers))


def sample_tasks(tasks: Sequence[Task], per_repo: int) -> list[Task]:
    """A deterministic sample of ``per_repo`` tasks from each repository, split between the two
    kinds (infill gets the odd one) and spread evenly over each kind's tasks in file order, so it
    reaches every file region the scenario covers. A kind with too few tasks gives all it has.
    The result keeps the input order."""
    if per_repo < 1:
        raise SimpilotError(f"per_repo must be at least 1, not {per_repo}")
    chosen: set[str] = set()
    for repo in dict.fromkeys(t.repo for t in tasks):
        for i, kind in enumerate((Kind.INFILL, Kind.COMPLETION)):
            pool = [t for t in tasks if t.repo == repo and t.kind is kind]
            want = min(len(pool), per_repo // 2 + (1 if i < per_repo % 2 else 0))
            chosen.update(pool[int((j + 0.5) * len(pool) / want)].id for j in range(want))
    return [t for t in tasks if t.id in chosen]


def text_sha256(text: str) -> str:
    """SHA-256 of a document's text as UTF-8: how a stored answer names the document it was
    given for, independent of where the repository is checked out."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def answer_for(task: Task, completion: Completion, original: bytes, model: str, settings: dict[str, Any]) -> RecordedAnswer:
    """The recorded form of a successful completion of ``task`` (``original``: the untouched file)."""
    if not completion.ok:
        raise ValueError(f"task {task.id} has no answer to record: {completion.error}")
    return RecordedAnswer(
        task_id=task.id,
        repo=task.repo,
        path=task.path,
        kind=task.kind.value,
        line=task.cursor.line,
        character=task.cursor.character,
        file_sha256=task.file_sha256,
        document_sha256=text_sha256(document_text(task, original)),
        raw=completion.raw or "",
        latency_ms=round(completion.latency_ms, 1),
        model=model,
        settings=settings,
        sample=completion.sample,
        timing=completion.timing,
    )


def merge(existing: Iterable[RecordedAnswer], new: Iterable[RecordedAnswer], order: Sequence[Task]) -> list[RecordedAnswer]:
    """Old and new answers, one per (task, sample) (a new one wins), in scenario order; answers
    for tasks not in ``order`` (another sample, an older scenario file) are kept, last, by task id."""
    by_id = {(a.task_id, a.sample): a for a in existing}
    by_id.update(((a.task_id, a.sample), a) for a in new)
    rank = {t.id: i for i, t in enumerate(order)}
    return sorted(by_id.values(), key=lambda a: (rank.get(a.task_id, len(rank)), a.task_id, a.sample))
