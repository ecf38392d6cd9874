"""Recording a model's raw answers into a recording folder (``simpilot record``).

The answers come through the normal replay path (the bridge asked over LSP, as ``simpilot
replay`` does) with no post-processor, so nothing is tested: the raw completions land in the
results store's ``completions`` table and are copied from there into the folder's files
(``replay.core.recordings``, which the ``recorded`` model reads). Recording resumes: tasks already
in the folder are skipped, and a repository interrupted half-way continues from the store under
the same run id.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsp_bridge.models.resolve import resolve_model
from replay.config.locations import catalog_for
from replay.config.model_spec import EndpointSpec, ModelSpec, spec_json
from replay.core.errors import SimpilotError
from replay.core.missing_answers import some
from replay.core.recordings import RecordedAnswer, answer_for, merge, read_recording_file, sample_tasks, write_recording_file
from replay.core.repo_paths import task_file
from replay.core.scenarios import file_digest, read_tasks, write_tasks
from replay.jobs.output import err
from replay.jobs.replay import run_replay
from replay.store import Store

DEFAULT_DB = Path("runs/recordings.db")


@dataclass(frozen=True, slots=True)
class RecordingSummary:
    """What one call of :func:`record` did, per repository file written."""

    folder: Path
    recorded: int  # new answers written by this call
    skipped: int  # chosen tasks that were already in the folder
    errors: tuple[str, ...]  # model errors (not written; a new call re-asks them)
    files: tuple[Path, ...]


def model_settings(spec: ModelSpec) -> dict[str, Any]:
    """The settings an answer was asked with: for an HTTP model, every endpoint setting with the
    adapter's defaults filled in (max_tokens, temperature, context_chars… shape the answer);
    otherwise the spec. Local paths that do not shape an answer (scenarios, cache_db) are left out."""
    from lsp_bridge.models.settings import settings_of

    if not isinstance(spec, EndpointSpec):
        return {k: v for k, v in spec_json(spec).items() if k not in ("scenarios", "cache_db", "name")}
    return {"kind": spec.kind, **settings_of(spec).model_dump()}


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
                db,
                (scenario,),
                model,
                (),
                run_id=run_id,
                resume=True,
                jobs=1,
                catalog=catalog,
                models_file=models_file,
                unsafe_no_sandbox=unsafe_no_sandbox,
                store=store,
            )
            samples = store.samples(run_id)
            root = catalog.get(repo).root
            new: list[RecordedAnswer] = []
            failed = 0
            for task in pending:
                answers = samples.get(task.id)
                if not answers or not all(c.ok for c in answers):
                    errors.append(f"{task.id}: {answers[0].error if answers else 'not asked'}")
                    failed += 1
                    continue
                original = task_file(root, task).read_bytes()
                new += [answer_for(task, completion, original, model, settings) for completion in answers]
            write_recording_file(target, merge(existing, new, [t for t in tasks if t.repo == repo]))
            recorded += len(pending) - failed
            files.append(target)
            say(f"{repo}: {len(pending) - failed} task(s)' answers ({len(new)} in all) written to {target}, {failed} model error(s)")
    finally:
        store.close()
    return RecordingSummary(out, recorded, skipped, tuple(errors), tuple(files))


def record_and_say(scenarios: Sequence[Path], model: str, out: Path, **options: Any) -> RecordingSummary:
    """``simpilot record``: :func:`record` (``options``: its keywords) with its progress and a
    last line on stderr."""
    summary = record(scenarios, model, out, say=lambda line: err.print(line), **options)
    errors = (
        f"; {len(summary.errors)} model error(s), not written and asked again on the next call: {some(summary.errors)}"
        if summary.errors
        else ""
    )
    err.print(f"{summary.recorded} answer(s) recorded, {summary.skipped} already there, in {summary.folder}{errors}")
    return summary
