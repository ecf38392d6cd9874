"""One replay run: ask the bridge for every task, post-process, test, store.

Requests go to the language server concurrently (up to ``concurrency``) while the tests run on
``jobs`` workers, each with warm work copies; every completion and outcome is stored by this
process (the driver) the moment it exists. Re-running with ``resume`` skips what is stored and
re-asks only requests that ended in a model error.

Where the tests run is one small seam, an :class:`Executor`: ``submit(fn, *args)`` runs
``fn(worker, *args)`` on some :class:`Worker` and returns an awaitable of its result. The local
executor is a thread pool sharing one Evaluator in this process; the Ray executor
(``execution/ray_executor.py``) keeps one Worker per Ray actor. Both run the same functions
(:func:`judge`, :func:`reference_limits`), so a run gives the same outcomes on either.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import hashlib
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from postprocess import run_preset
from replay import __version__
from replay.config.manifest import RepoCatalog
from replay.config.run import config_hash, differences, redact_model_name, redact_spec, without_address
from replay.core.errors import SimpilotError
from replay.core.records import Completion, Outcome, Status, Task
from replay.core.repo_paths import task_file
from replay.core.scenarios import file_digest, hole_context, legacy_file_digest
from replay.execution.judge import Evaluator, Verdict
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.execution.scheduling.references import REPLAY_CPU_SLOWDOWN, REPLAY_MIN_CPU, REPLAY_MIN_TIMEOUT, REPLAY_SLOWDOWN, ReferenceRuns
from replay.run.configuration import legacy_config
from replay.store import RunInfo, Store

TIMEOUTS = (
    f"timeouts: {REPLAY_SLOWDOWN}x the untouched run of each file's tests, {REPLAY_MIN_TIMEOUT:g} s up to the manifest's; "
    f"CPU time {REPLAY_CPU_SLOWDOWN}x the untouched run's, at least {REPLAY_MIN_CPU:g} s "
    f"(the untouched run is made when a run reaches {REPLAY_MIN_TIMEOUT:g} s or {REPLAY_MIN_CPU:g} s of CPU)"
)


@dataclass(frozen=True, slots=True)
class RunLimits:
    """How long one test run may take: wall-clock seconds, and CPU seconds (None: the sandbox's)."""

    wall: float
    cpu: float | None

    def covers(self, other: RunLimits) -> bool:
        """Whether every run ``other`` lets finish finishes under these limits too."""
        return self.wall >= other.wall and (self.cpu is None or (other.cpu is not None and self.cpu >= other.cpu))


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
    executor: str = "local"  # "local": threads here; "ray": actors on a Ray cluster
    address: str | None = None  # Ray: a cluster's address or "auto"; None or "local" starts one here
    config: dict[str, Any] = field(default_factory=dict)  # run_config.run_config(): what --resume must find unchanged
    context: dict[str, Any] | None = None  # the bridge's context strategy (JSON, with scenarios when it needs the truth)


def check_sources(tasks: list[Task], catalog: RepoCatalog) -> None:
    """Every task's file must be byte-identical to the one it was marked on, and its span must lie
    inside that file (a span past its end would make every answer fail as if the model had)."""
    files: dict[tuple[str, str], tuple[str, int]] = {}  # digest, size
    for task in tasks:
        key = (task.repo, task.path)
        if key not in files:
            try:
                data = task_file(catalog.get(task.repo).root, task).read_bytes()
            except OSError as exc:
                raise SimpilotError(
                    f"{task.repo}: cannot read {task.path} ({exc.strerror}): is --repo pointing at the right checkout?"
                ) from None
            files[key] = (hashlib.sha256(data).hexdigest(), len(data))
        digest, size = files[key]
        if digest != task.file_sha256:
            raise SimpilotError(f"{task.repo}: {task.path} changed since its tasks were marked: re-run 'simpilot mark' for this repository")
        if task.span.end_byte > size:
            raise SimpilotError(
                f"{task.repo}: task {task.id}: its span ends at byte {task.span.end_byte}, past the end of {task.path} "
                f"({size} bytes): the scenario file does not match the repository; re-run 'simpilot mark' for it"
            )


NEW_RUN = "start a new run instead: give another --run ID, or leave out --run for a fresh one"


def open_run(store: Store, settings: ReplaySettings, tasks: list[Task], sandbox: str) -> None:
    """Record a new run, or check that the run to resume was made with the same scenarios, model,
    presets and configuration (a run mixing two configurations measures neither)."""
    scenario_hash = file_digest(settings.scenarios)
    model = redact_model_name(settings.model)
    existing = store.run(settings.run_id)
    if existing is not None:
        if not settings.resume:
            raise SimpilotError(
                f"run {settings.run_id!r} already exists in {store.path}: pass --resume to continue it, or choose another --run"
            )
        check_resume(store, existing, settings, scenario_hash, model)
        return
    info = RunInfo(
        run_id=settings.run_id,
        created=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        tool_version=__version__,
        model=model,
        model_spec=redact_spec(settings.model_spec),
        presets=settings.presets,
        scenarios=tuple(str(p) for p in settings.scenarios),
        scenario_hash=scenario_hash,
        sandbox=sandbox,
        finished=None,
        config=settings.config,
        config_hash=config_hash(settings.config),
    )
    store.create_run(info, tasks)


def without_url(model: str) -> str:
    """A ``KIND:MODEL@URL`` model name without its address: the model is the same wherever it
    is served, so a run can be resumed after the endpoint moved."""
    head, sep, url = model.rpartition("@")
    return head if sep and url.startswith(("http://", "https://")) else model


def check_resume(store: Store, run: RunInfo, settings: ReplaySettings, scenario_hash: str, model: str) -> None:
    """Refuse to resume ``run`` with anything that would change its answers or verdicts, saying
    what differs. A run stored by an older version (another scenario digest, no configuration)
    is checked against what it did store, then brought up to date."""
    name = settings.run_id
    legacy_digest = run.scenario_hash != scenario_hash and run.scenario_hash == legacy_file_digest(settings.scenarios)
    if run.scenario_hash != scenario_hash and not legacy_digest:
        raise SimpilotError(
            f"run {name!r} was made with other scenario files (or other versions of them): resume needs the same "
            f"ones ({', '.join(run.scenarios)}); or {NEW_RUN}"
        )
    if without_url(redact_model_name(run.model)) != without_url(model):
        raise SimpilotError(f"run {name!r} was made with the model {run.model!r}, not {model!r}: resume needs the same one; or {NEW_RUN}")
    if tuple(run.presets) != tuple(settings.presets):
        # its report shows the presets it was made with: others would leave them half done
        presets = " ".join(f"-p {p}" for p in run.presets)
        raise SimpilotError(f"run {name!r} was made with {presets}: resume it with the same post-processing options")
    current_hash = config_hash(settings.config)
    stored = None if run.config is None else without_address(run.config)
    if stored is None:
        recorded = {p: steps for p, steps in store.presets(name).items() if p in run.presets}
        diffs = differences(legacy_config(run.model_spec, recorded, run.sandbox), settings.config, known_only=True)
    elif config_hash(stored) != current_hash:
        assert run.config_hash is not None  # stored with the configuration
        diffs = differences(stored, settings.config) or [f"the configuration's hash differs ({run.config_hash[:12]} → {current_hash[:12]})"]
    else:
        diffs = []
    if diffs:
        raise SimpilotError(
            f"run {name!r} cannot be resumed with another configuration: its answers would mix two. "
            f"{'; '.join(diffs)}. Resume it with the settings it was made with, or {NEW_RUN}"
        )
    if legacy_digest or run.config is None or run.config_hash != current_hash:
        store.update_run(name, scenario_hash, settings.config, current_hash)


def model_error(task: Task, completion: Completion, preset: str) -> Outcome:
    """The outcome of a request that got no answer: nothing to run."""
    return Outcome(task.id, preset, None, Status.MODEL_ERROR, completion.error or "no answer", sample=completion.sample)


def outcome(task: Task, preset: str, text: str, steps: tuple[str, ...], verdict: Verdict, sample: int = 0) -> Outcome:
    return Outcome(task.id, preset, text, verdict.status, verdict.detail, verdict.duration_s, verdict.output_tail, steps, sample)


def answered(samples: list[Completion] | None) -> bool:
    """Whether a request's stored answers are complete: at least one, and none an error."""
    return bool(samples) and all(c.ok for c in samples or ())


# -- workers and executors ----------------------------------------------------------------------

T = TypeVar("T")
EXECUTORS = ("local", "ray")


@dataclass
class Worker:
    """What runs tests: an Evaluator with its warm work copies and the reference runs made on them."""

    evaluator: Evaluator
    references: ReferenceRuns

    def close(self) -> None:
        self.evaluator.close()


@dataclass(frozen=True)
class WorkerRecipe:
    """How to build a one-job :class:`Worker` in another process (a Ray actor); it pickles.

    The sandbox is looked up again where the worker runs: bubblewrap must be installed there too,
    and the repositories must be at the same paths (a shared or identical file system)."""

    catalog: RepoCatalog
    sandbox: Sandbox
    full_suite: bool
    warm: bool
    tasks: tuple[Task, ...]

    def build(self) -> Worker:
        sandbox = Sandbox.create(unsafe_no_sandbox=not self.sandbox.enabled, limits=self.sandbox.limits)
        for repo in sorted({t.repo for t in self.tasks}):
            root = self.catalog.get(repo).root
            if not root.is_dir():
                raise SimpilotError(f"{repo}: {root} does not exist on this Ray node: every node needs the repositories at the same paths")
        evaluator = Evaluator(self.catalog, sandbox, 1, full_suite=self.full_suite, warm=self.warm)
        return Worker(evaluator, ReferenceRuns(evaluator, self.tasks))


def reference_limits(worker: Worker, task: Task) -> RunLimits:
    """The limits of ``task``'s tests, from its file's run on the untouched code (on ``worker``)."""
    references = worker.references
    return RunLimits(
        references.timeout(task, REPLAY_SLOWDOWN, REPLAY_MIN_TIMEOUT), references.cpu(task, REPLAY_CPU_SLOWDOWN, REPLAY_MIN_CPU)
    )


def judge(worker: Worker, task: Task, text: str, limits: RunLimits) -> Verdict:
    """The verdict on ``text`` in ``task``'s hole, its tests stopped at ``limits``."""
    return worker.evaluator.evaluate(task, text, limits.wall, limits.cpu)


class Executor(Protocol):
    def submit(self, fn: Callable[..., T], *args: Any, key: str = "") -> Awaitable[T]:
        """Run ``fn(worker, *args)`` on a worker; ``key`` (a repository name) lets an executor
        prefer a worker that already holds a warm copy of that repository."""
        ...

    def close(self) -> None: ...


class LocalExecutor:
    """``jobs`` threads in this process sharing one Worker, whose Evaluator lends each concurrent
    call its own warm work copy."""

    def __init__(self, worker: Worker, jobs: int):
        self.worker = worker
        self._pool = ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="simpilot-test")

    def submit(self, fn: Callable[..., T], *args: Any, key: str = "") -> Awaitable[T]:
        return asyncio.get_running_loop().run_in_executor(self._pool, functools.partial(fn, self.worker, *args))

    def close(self) -> None:
        self._pool.shutdown(wait=True)  # the Evaluator belongs to the caller, who closes it


def open_executor(settings: ReplaySettings, evaluator: Evaluator, tasks: list[Task]) -> Executor:
    """The executor ``settings`` ask for; the Ray one builds its workers like ``evaluator``."""
    if settings.executor == "local":
        return LocalExecutor(Worker(evaluator, ReferenceRuns(evaluator, tasks)), evaluator.threads(tasks))
    if settings.executor == "ray":
        from replay.execution.scheduling.ray_executor import RayExecutor

        recipe = WorkerRecipe(evaluator.catalog, evaluator.sandbox, evaluator.full_suite, evaluator.warm, tuple(tasks))
        return RayExecutor(recipe.build, jobs=evaluator.jobs, address=settings.address)
    raise SimpilotError(f"unknown executor {settings.executor!r} (choose from {', '.join(EXECUTORS)})")


def first_limits(catalog: RepoCatalog, task: Task) -> RunLimits:
    """The limits of a task's first run, before its file's reference run is known: the rule's
    minimums. Every limit the rule gives is at least these, so a run that ends within them gets
    the verdict it would get under the rule; only a run that reaches them needs the reference
    (and a second run, when the rule allows more). Most files never need a reference run."""
    return RunLimits(min(catalog.get(task.repo).timeout, REPLAY_MIN_TIMEOUT), REPLAY_MIN_CPU)


def judge_here(evaluator: Evaluator, references: ReferenceRuns, task: Task, text: str) -> Verdict:
    """The verdict under the limits' rule, in this thread (``compare``; replay's runs go through
    :class:`Timeouts`, which shares each file's reference between workers)."""
    first = first_limits(evaluator.catalog, task)
    verdict = evaluator.evaluate(task, text, first.wall, first.cpu)
    if verdict.status is Status.TIMEOUT:
        full = RunLimits(
            references.timeout(task, REPLAY_SLOWDOWN, REPLAY_MIN_TIMEOUT), references.cpu(task, REPLAY_CPU_SLOWDOWN, REPLAY_MIN_CPU)
        )
        if not first.covers(full):
            verdict = evaluator.evaluate(task, text, full.wall, full.cpu)
    return verdict


class Timeouts:
    """Each file's limits, asked of a worker once and shared by every task of the file, whichever
    worker judges it (so outcomes do not depend on which worker ran the reference)."""

    def __init__(self, executor: Executor):
        self.executor = executor
        self._known: dict[tuple[str, str], asyncio.Future[RunLimits]] = {}

    async def get(self, task: Task) -> RunLimits:
        key = (task.repo, task.path)
        if key not in self._known:
            self._known[key] = asyncio.ensure_future(self.executor.submit(reference_limits, task, key=task.repo))
        return await self._known[key]

    def _known_limits(self, task: Task) -> RunLimits | None:
        known = self._known.get((task.repo, task.path))
        return known.result() if known is not None and known.done() and known.exception() is None else None

    async def judge(self, catalog: RepoCatalog, task: Task, text: str) -> Verdict:
        """The verdict on ``text`` in ``task``'s hole under the limits' rule. Until its file's
        reference is known a run gets the rule's minimums and the reference is made only when a
        run reaches them; once it is known, runs get the full limits at once (the same verdict,
        without a run stopped at the minimums first)."""
        known = self._known_limits(task)
        first = known or first_limits(catalog, task)
        verdict = await self.executor.submit(judge, task, text, first, key=task.repo)
        if verdict.status is Status.TIMEOUT and known is None:
            full = await self.get(task)
            if not first.covers(full):
                verdict = await self.executor.submit(judge, task, text, full, key=task.repo)
        return verdict


# -- the run -------------------------------------------------------------------------------------


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
    stored = store.samples(run_id)
    done = store.outcome_keys(run_id)
    roots = sorted({evaluator.catalog.get(t.repo).root for t in tasks})
    init_options = {"model": settings.model_spec, "postprocess": None, "context": settings.context}
    requests = asyncio.Semaphore(max(1, settings.concurrency))
    executor = open_executor(settings, evaluator, tasks)
    try:
        timeouts = Timeouts(executor)
        async with BridgeClient(list(settings.server_command), init_options, roots, settings.log) as client:

            async def ask(task: Task) -> list[Completion]:
                document, _ = hole_context(task, evaluator.original(task))
                uri = (evaluator.catalog.get(task.repo).root / task.path).as_uri()
                async with requests:
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

            async def handle(task: Task) -> None:
                samples = stored.get(task.id)
                fresh = not answered(samples)
                if fresh:
                    samples = await ask(task)
                    store.add_completions(run_id, samples)
                assert samples  # stored, or asked for just now
                # Presets and samples often give the same text: each distinct text is tested once
                # and its verdict given to every (preset, sample) that produced it.
                verdicts: dict[str, asyncio.Future[Verdict]] = {}
                ctx = None
                for preset in settings.presets:
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
                            verdicts[processed.text] = asyncio.ensure_future(timeouts.judge(evaluator.catalog, task, processed.text))
                        verdict = await verdicts[processed.text]
                        store.add_outcome(run_id, outcome(task, preset, processed.text, processed.changed_by, verdict, completion.sample))
                    advance()

            await asyncio.gather(*(handle(t) for t in tasks))
    finally:
        executor.close()
    final = store.samples(run_id)
    expected = sum(len(final.get(t.id, ())) for t in tasks) * len(settings.presets)
    if all(answered(final.get(t.id)) for t in tasks) and len(store.outcome_keys(run_id)) == expected:
        store.finish_run(run_id)
