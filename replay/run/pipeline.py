"""One replay run: ask the bridge for every task, post-process, test, store.

Requests go to the language server concurrently (up to ``concurrency``) while the tests run on
``jobs`` workers, each with warm work copies; every completion and outcome is stored by this
process (the driver) the moment it exists. Re-running with ``resume`` skips what is stored and
re-asks only requests that ended in a model error (``resume.py`` checks that the run may be resumed).

Where the tests run is an executor (``execution/scheduling/executors.py``: threads here, or Ray
actors); how long each run may take is ``execution/scheduling/limits.py``'s rule, its reference
runs shared between workers (:class:`Timeouts`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from postprocess import run_preset
from replay.config.model_spec import spec_json
from replay.core.records import Completion, Outcome, Status, Task
from replay.core.scenarios import hole_context
from replay.execution.judge import Evaluator, Verdict
from replay.execution.scheduling.executors import Executor, executor_for
from replay.execution.scheduling.limits import Timeouts
from replay.run.resume import answered
from replay.run.settings import ReplaySettings
from replay.store import Store

if TYPE_CHECKING:
    from replay.run.client import BridgeClient


def model_error(task: Task, completion: Completion, preset: str) -> Outcome:
    """The outcome of a request that got no answer: nothing to run."""
    return Outcome(task.id, preset, None, Status.MODEL_ERROR, completion.error or "no answer", sample=completion.sample)


def outcome(task: Task, preset: str, text: str, steps: tuple[str, ...], verdict: Verdict, sample: int = 0) -> Outcome:
    return Outcome(task.id, preset, text, verdict.status, verdict.detail, verdict.duration_s, verdict.output_tail, steps, sample)


def open_executor(settings: ReplaySettings, evaluator: Evaluator, tasks: list[Task]) -> Executor:
    """The executor ``settings`` ask for; the Ray one builds its workers like ``evaluator``."""
    return executor_for(settings.executor, settings.address, evaluator, tasks)


class RunLoop:
    """The work of one run on an open bridge: each task's answers asked for (or taken from the
    store), each distinct text judged once, every outcome stored the moment it exists."""

    def __init__(
        self,
        store: Store,
        evaluator: Evaluator,
        settings: ReplaySettings,
        client: BridgeClient,
        timeouts: Timeouts,
        advance: Callable[[], None],
    ):
        self.store, self.evaluator, self.settings, self.client, self.timeouts, self.advance = (
            store,
            evaluator,
            settings,
            client,
            timeouts,
            advance,
        )
        self.run_id = settings.run_id
        self.stored = store.samples(self.run_id)
        self.done = store.outcome_keys(self.run_id)
        self.requests = asyncio.Semaphore(max(1, settings.concurrency))

    async def ask(self, task: Task) -> list[Completion]:
        """The bridge's answers for ``task`` (one completion carrying the error when it failed)."""
        client = self.client
        document, _ = hole_context(task, self.evaluator.original(task))
        uri = (self.evaluator.catalog.get(task.repo).root / task.path).as_uri()
        async with self.requests:
            texts, error, latency, timing = await client.complete_timed(uri, task.language, document, task.cursor)
            prompt = client.prompt_at(uri, task.cursor)
        request = {
            "uri": uri,
            "line": task.cursor.line,
            "character": task.cursor.character,
            "kind": task.kind.value,
            "server_pid": client.pid,
        }
        if error is not None:
            return [Completion(task.id, None, error, latency, request, timing=timing, prompt=prompt)]
        return [Completion(task.id, text, None, latency, request, i, timing, prompt) for i, text in enumerate(texts)]

    async def handle(self, task: Task) -> None:
        """Every (preset, sample) of ``task`` without a stored outcome, judged and stored."""
        store, run_id, done, evaluator = self.store, self.run_id, self.done, self.evaluator
        samples = self.stored.get(task.id)
        fresh = not answered(samples)
        if fresh:
            samples = await self.ask(task)
            store.add_completions(run_id, samples)
        assert samples  # stored, or asked for just now
        # Presets and samples often give the same text: each distinct text is tested once
        # and its verdict given to every (preset, sample) that produced it.
        verdicts: dict[str, asyncio.Future[Verdict]] = {}
        ctx = None
        for preset in self.settings.presets:
            for completion in samples:
                if not fresh and (task.id, preset, completion.sample) in done:
                    continue
                if not completion.ok:
                    store.add_outcome(run_id, model_error(task, completion, preset))
                    continue
                if ctx is None:
                    ctx = hole_context(task, evaluator.original(task))[1]
                processed = run_preset(preset, completion.raw or "", ctx)
                if processed.text not in verdicts:
                    verdicts[processed.text] = asyncio.ensure_future(self.timeouts.judge(evaluator.catalog, task, processed.text))
                verdict = await verdicts[processed.text]
                store.add_outcome(run_id, outcome(task, preset, processed.text, processed.changed_by, verdict, completion.sample))
            self.advance()


async def replay_run(
    store: Store,
    evaluator: Evaluator,
    tasks: list[Task],
    settings: ReplaySettings,
    advance: Callable[[], None] = lambda: None,
) -> None:
    """Replay ``tasks``; ``evaluator`` reads the original files here and, with the local
    executor, runs the tests (the Ray executor builds one like it per actor)."""
    from replay.run.client import BridgeClient  # here, not at the top: Ray workers import this module and need no LSP client

    run_id = settings.run_id
    roots = sorted({evaluator.catalog.get(t.repo).root for t in tasks})
    init_options = {"model": spec_json(settings.model_spec), "postprocess": None, "context": settings.context}
    executor = open_executor(settings, evaluator, tasks)
    try:
        timeouts = Timeouts(executor)
        async with BridgeClient(list(settings.server_command), init_options, roots, settings.log) as client:
            loop = RunLoop(store, evaluator, settings, client, timeouts, advance)
            await asyncio.gather(*(loop.handle(t) for t in tasks))
    finally:
        executor.close()
    final = store.samples(run_id)
    expected = sum(len(final.get(t.id, ())) for t in tasks) * len(settings.presets)
    if all(answered(final.get(t.id)) for t in tasks) and len(store.outcome_keys(run_id)) == expected:
        store.finish_run(run_id)
