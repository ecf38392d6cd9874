"""One replay run: ask the bridge for every task, post-process, test, store.

Requests go to the language server concurrently (up to ``concurrency``) while the tests run on
``jobs`` worker threads, each with warm work copies; every completion and outcome is stored the
moment it exists. Re-running with ``resume`` skips what is stored and re-asks only requests that
ended in a model error.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from postprocess import HoleContext, run_preset

from . import __version__
from .client import BridgeClient
from .errors import SimpilotError
from .execution.evaluate import Evaluator
from .execution.reference import ReferenceRuns
from .manifest import RepoCatalog
from .records import Completion, Outcome, Status, Task
from .scenarios import document_text, file_digest
from .store import RunInfo, Store

# A completion that makes the tests loop is stopped after ten times as long as the same tests took
# on the untouched code here (at least 10 s, at most the manifest's timeout): generous to slow but
# correct code, without letting endless loops dominate a run.
REPLAY_SLOWDOWN = 10
REPLAY_MIN_TIMEOUT = 10.0
TIMEOUTS = f"timeouts: {REPLAY_SLOWDOWN}x the untouched run of each file's tests, {REPLAY_MIN_TIMEOUT:g} s up to the manifest's"


@dataclass(frozen=True)
class ReplaySettings:
    run_id: str
    model: str
    model_spec: dict[str, Any]
    presets: tuple[str, ...]
    scenarios: tuple[Path, ...]
    server_command: tuple[str, ...]
    jobs: int = 2
    concurrency: int = 4
    resume: bool = False
    log: Path | None = None


def check_sources(tasks: list[Task], catalog: RepoCatalog) -> None:
    """Every task's file must be byte-identical to the one it was marked on."""
    digests: dict[tuple[str, str], str] = {}
    for task in tasks:
        key = (task.repo, task.path)
        if key not in digests:
            path = catalog.get(task.repo).root / task.path
            try:
                digests[key] = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError as exc:
                raise SimpilotError(f"{task.repo}: cannot read {task.path} ({exc.strerror}): is --repo pointing at the right checkout?") from None
        if digests[key] != task.file_sha256:
            raise SimpilotError(f"{task.repo}: {task.path} changed since its tasks were marked: re-run 'simpilot mark' for this repository")


def open_run(store: Store, settings: ReplaySettings, tasks: list[Task], sandbox: str) -> None:
    scenario_hash = file_digest(settings.scenarios)
    existing = store.run(settings.run_id)
    if existing is not None:
        if not settings.resume:
            raise SimpilotError(f"run {settings.run_id!r} already exists in {store.path}: pass --resume to continue it, or choose another --run")
        if existing.scenario_hash != scenario_hash or existing.model != settings.model:
            raise SimpilotError(f"run {settings.run_id!r} was made with other scenarios or another model; resume needs the same ones")
        return
    info = RunInfo(
        run_id=settings.run_id,
        created=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        tool_version=__version__,
        model=settings.model,
        model_spec=settings.model_spec,
        presets=settings.presets,
        scenarios=tuple(str(p) for p in settings.scenarios),
        scenario_hash=scenario_hash,
        sandbox=sandbox,
        finished=None,
    )
    store.create_run(info)
    store.add_tasks(settings.run_id, tasks)


def hole_context(task: Task, original: bytes) -> tuple[str, HoleContext]:
    """The document the editor has open for ``task`` and the post-processors' view of it."""
    document = document_text(task, original)
    prefix = original[: task.span.start_byte].decode("utf-8")
    return document, HoleContext(task.language, prefix, document[len(prefix) :])


def evaluate_one(evaluator: Evaluator, task: Task, completion: Completion, preset: str, timeout: float | None = None) -> Outcome:
    if not completion.ok:
        return Outcome(task.id, preset, None, Status.MODEL_ERROR, completion.error or "no answer")
    _, ctx = hole_context(task, evaluator.original(task))
    processed = run_preset(preset, completion.raw or "", ctx)
    verdict = evaluator.evaluate(task, processed.text, timeout)
    return Outcome(task.id, preset, processed.text, verdict.status, verdict.detail, verdict.duration_s, verdict.output_tail, processed.changed_by)


async def replay_run(
    store: Store,
    evaluator: Evaluator,
    tasks: list[Task],
    settings: ReplaySettings,
    advance: Callable[[], None] = lambda: None,
) -> None:
    run_id = settings.run_id
    completions = store.completions(run_id)
    done = store.outcome_keys(run_id)
    roots = sorted({evaluator.catalog.get(t.repo).root for t in tasks})
    init_options = {"model": settings.model_spec, "postprocess": None}
    loop = asyncio.get_running_loop()
    requests = asyncio.Semaphore(max(1, settings.concurrency))
    references = ReferenceRuns(evaluator, tasks)
    with ThreadPoolExecutor(max_workers=evaluator.jobs, thread_name_prefix="simpilot-test") as pool:
        async with BridgeClient(list(settings.server_command), init_options, roots, settings.log) as client:

            async def handle(task: Task) -> None:
                completion = completions.get(task.id)
                fresh = completion is None or not completion.ok
                if fresh:
                    document, _ = hole_context(task, evaluator.original(task))
                    uri = (evaluator.catalog.get(task.repo).root / task.path).as_uri()
                    async with requests:
                        raw, error, latency = await client.complete(uri, task.language, document, task.cursor)
                    request = {"uri": uri, "line": task.cursor.line, "character": task.cursor.character,
                               "kind": task.kind.value, "server_pid": client.pid}
                    completion = Completion(task.id, raw, error, latency, request)
                    store.add_completion(run_id, completion)
                for preset in settings.presets:
                    if not fresh and (task.id, preset) in done:
                        advance()
                        continue
                    timeout = await loop.run_in_executor(pool, references.timeout, task, REPLAY_SLOWDOWN, REPLAY_MIN_TIMEOUT)
                    outcome = await loop.run_in_executor(pool, evaluate_one, evaluator, task, completion, preset, timeout)
                    store.add_outcome(run_id, outcome)
                    advance()

            await asyncio.gather(*(handle(t) for t in tasks))
    if all(c.ok for c in store.completions(run_id).values()) and len(store.outcome_keys(run_id)) == len(tasks) * len(settings.presets):
        store.finish_run(run_id)

