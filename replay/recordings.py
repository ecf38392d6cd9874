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

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import SimpilotError
from .locations import catalog_for
from .models_config import resolve_model
from .records import Completion, Kind, Task
from .scenarios import document_text, file_digest, parse_lines, read_tasks, write_lines, write_tasks
from .store import Store

DEFAULT_DB = Path("runs/recordings.db")


@dataclass(frozen=True, slots=True)
class RecordedAnswer:
    """One raw answer and the request it answered, as an editor would send it again: the
    document's repository-relative ``path``, the cursor (0-based line, UTF-16 character), and the
    SHA-256 of the document's text (``document_sha256``; the file with the hole removed).
    ``file_sha256`` pins the untouched file the task was cut from; ``settings`` are the model
    settings the answer was asked with (no secrets: only the name of a key's variable)."""

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

    def to_dict(self) -> dict[str, Any]:
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
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RecordedAnswer:
        return cls(
            task_id=str(d["task_id"]),
            repo=str(d["repo"]),
            path=str(d["path"]),
            kind=str(d["kind"]),
            line=int(d["cursor"]["line"]),
            character=int(d["cursor"]["character"]),
            file_sha256=str(d["file_sha256"]),
            document_sha256=str(d["document_sha256"]),
            raw=str(d["raw"]),
            latency_ms=float(d["latency_ms"]),
            model=str(d["model"]),
            settings=dict(d.get("settings") or {}),
        )


@dataclass(frozen=True, slots=True)
class RecordingSummary:
    """What one call of :func:`record` did, per repository file written."""

    folder: Path
    recorded: int  # new answers written by this call
    skipped: int  # chosen tasks that were already in the folder
    errors: tuple[str, ...]  # model errors (not written; a new call re-asks them)
    files: tuple[Path, ...]


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
        raise SimpilotError(f"no recording folder {folder}: record one with replay.recordings.record (simpilot record)")
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


def answer_for(task: Task, completion: Completion, original: bytes, model: str, settings: dict[str, Any]) -> RecordedAnswer:
    """The recorded form of a successful completion of ``task`` (``original``: the untouched file)."""
    # The bridge imports this module (the ``recorded`` model): importing it back lazily, as
    # ``simpilot serve`` does, keeps the two packages free of an import cycle.
    from lsp_bridge.models.task_lookup import text_sha256

    if not completion.ok:
        raise ValueError(f"task {task.id} has no answer to record: {completion.error}")
    return RecordedAnswer(
        task_id=task.id, repo=task.repo, path=task.path, kind=task.kind.value, line=task.cursor.line,
        character=task.cursor.character, file_sha256=task.file_sha256,
        document_sha256=text_sha256(document_text(task, original)), raw=completion.raw or "",
        latency_ms=round(completion.latency_ms, 1), model=model, settings=settings,
    )


def model_settings(spec: dict[str, Any]) -> dict[str, Any]:
    """The settings an answer was asked with: for an HTTP model, every endpoint setting with the
    adapter's defaults filled in (max_tokens, temperature, context_chars… shape the answer);
    otherwise the spec. Local paths that do not shape an answer (scenarios, cache_db) are left out."""
    from lsp_bridge.models import HTTP_KINDS
    from lsp_bridge.models.settings import settings_from_spec

    plain = {k: v for k, v in spec.items() if k not in ("scenarios", "cache_db", "name")}
    kind = spec.get("kind")
    if kind not in HTTP_KINDS:
        return plain
    return {"kind": kind, **dataclasses.asdict(settings_from_spec(kind, plain))}


def merge(existing: Iterable[RecordedAnswer], new: Iterable[RecordedAnswer], order: Sequence[Task]) -> list[RecordedAnswer]:
    """Old and new answers, one per task (a new one wins), in scenario order; answers for tasks
    not in ``order`` (another sample, an older scenario file) are kept, last, by task id."""
    by_id = {a.task_id: a for a in existing}
    by_id.update((a.task_id, a) for a in new)
    rank = {t.id: i for i, t in enumerate(order)}
    return sorted(by_id.values(), key=lambda a: (rank.get(a.task_id, len(rank)), a.task_id))


# -- recording --------------------------------------------------------------------------------


def record(
    scenarios: Sequence[Path],
    model: str,
    out: Path,
    *,
    per_repo: int | None = None,
    db: Path = DEFAULT_DB,
    models_file: Path | None = None,
    repo_paths: Sequence[str] = (),
    unsafe_no_sandbox: bool = False,
    say: Callable[[str], None] = lambda line: None,
) -> RecordingSummary:
    """Record ``model``'s raw answers to the tasks of ``scenarios`` into the folder ``out``
    (``scenarios/recordings/<model>/``), one ``<repo>.jsonl`` per repository.

    ``model`` is any name ``simpilot replay --model`` accepts (a models.toml entry from
    ``models_file``, ``openai-chat:MODEL@URL``…). ``per_repo`` records a deterministic sample of
    that many tasks per repository, both kinds (see :func:`sample_tasks`); None records every
    task. Each repository is one replay run (no post-processor, so no tests run) in the results
    store ``db``, with the run id ``record-<folder>-<repo>-<hash of its pending tasks>``; the
    folder's file is rewritten when the repository's run returns. Tasks already in ``out`` are
    skipped, and calling again after an interruption re-uses the run and asks only what it lacks.
    Model errors are not written; they are returned, and the next call asks them again.
    ``say`` receives one progress line per repository.
    """
    # The command line's module is imported here, not at the top: the bridge reads recordings
    # through this module and should not pay for importing the whole command line.
    from .cli import Context, run_replay

    tasks = [t for path in scenarios for t in read_tasks(path)]
    if not tasks:
        raise SimpilotError("the scenario files hold no tasks")
    chosen = sample_tasks(tasks, per_repo) if per_repo else tasks
    spec = resolve_model(model, models_file, list(scenarios))
    settings = model_settings(spec)
    catalog = catalog_for(scenarios, repo_paths)
    work = db.parent / "recording" / out.name
    recorded = skipped = 0
    errors: list[str] = []
    files: list[Path] = []
    store = Store(db)
    try:
        for repo in dict.fromkeys(t.repo for t in chosen):
            target = out / f"{repo}.jsonl"
            existing = read_recording_file(target)
            done = {a.task_id for a in existing}
            repo_tasks = [t for t in chosen if t.repo == repo]
            pending = [t for t in repo_tasks if t.id not in done]
            skipped += len(repo_tasks) - len(pending)
            if not pending:
                say(f"{repo}: all {len(repo_tasks)} chosen tasks already recorded in {target}")
                continue
            scenario = work / f"{repo}.jsonl"
            write_tasks(scenario, pending)
            run_id = f"record-{out.name}-{repo}-{file_digest([scenario])[:12]}"
            say(f"{repo}: asking {model} for {len(pending)} task(s) (run {run_id}; {len(repo_tasks) - len(pending)} already recorded)")
            run_replay(
                Context(db=db), (scenario,), model, (), run_id=run_id, resume=True, jobs=1, catalog=catalog,
                models_file=models_file, unsafe_no_sandbox=unsafe_no_sandbox, store=store,
            )
            completions = store.completions(run_id)
            root = catalog.get(repo).root
            new = []
            for task in pending:
                completion = completions.get(task.id)
                if completion is None or not completion.ok:
                    errors.append(f"{task.id}: {completion.error if completion else 'not asked'}")
                    continue
                new.append(answer_for(task, completion, (root / task.path).read_bytes(), model, settings))
            write_recording_file(target, merge(existing, new, [t for t in tasks if t.repo == repo]))
            recorded += len(new)
            files.append(target)
            say(f"{repo}: {len(new)} answer(s) written to {target}, {len(pending) - len(new)} model error(s)")
    finally:
        store.close()
    return RecordingSummary(out, recorded, skipped, tuple(errors), tuple(files))
