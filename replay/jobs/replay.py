"""A replay run from scenario files to stored outcomes: what ``simpilot replay``, ``demo`` and
``record`` call. It loads the tasks, finds their repositories, resolves the model and the run's
configuration, opens (or resumes) the run in the store and drives the pipeline with a progress bar. The bridge's log goes to ``runs/logs/`` under a safe name
(``core/paths.py``: a run id holds the model spec's colons), and is left only when not empty.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Callable, Collection
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rich.progress import Progress

from lsp_bridge.contexts import Strategy
from lsp_bridge.models.resolve import resolve_model
from postprocess import PRESETS
from replay.config.locations import catalog_for
from replay.config.manifest import RepoCatalog
from replay.config.model_spec import concurrency, spec_json
from replay.config.run import redact_model_name, verdict_way
from replay.core.errors import SimpilotError
from replay.core.missing_answers import model_error_lines, recording_of
from replay.core.paths import log_file
from replay.core.recordings import read_recordings
from replay.core.records import Completion, Task
from replay.core.scenarios import read_tasks
from replay.environments.environment import identity
from replay.execution.judge import Evaluator
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.execution.scheduling.limits import TIMEOUTS
from replay.execution.scheduling.shared_verdicts import SharingEvaluator
from replay.reports.model_runs import shown_model
from replay.run.client import bridge_command
from replay.run.configuration import run_config
from replay.run.pipeline import replay_run
from replay.run.progress import err, progress
from replay.run.resume import answered, check_sources, open_run
from replay.run.session import run_session
from replay.run.settings import ReplaySettings
from replay.store import Store


def load_tasks(scenarios: tuple[Path, ...]) -> list[Task]:
    tasks: list[Task] = []
    seen: set[str] = set()
    for path in scenarios:
        for task in read_tasks(path):
            if task.id in seen:
                raise SimpilotError(f"{path}: task {task.id} appears twice in the scenario files given")
            seen.add(task.id)
            tasks.append(task)
    if not tasks:
        raise SimpilotError("the scenario files hold no tasks")
    return tasks


def test_environments(catalog: RepoCatalog, tasks: list[Task]) -> dict[str, str]:
    """The test interpreter of each of ``tasks``' repositories that names one (built here if it
    is not cached yet): part of the run's configuration, so a resume cannot mix two."""
    found = {}
    for name in sorted({t.repo for t in tasks}):
        manifest = catalog.get(name)
        if manifest.environment is not None:
            found[name] = identity(manifest)
        elif manifest.programs is not None and manifest.programs.environment is not None:
            found[name] = f"provisioned {manifest.programs.environment.name}"  # its key covers the packages installed
    return found


def run_replay(
    db: Path,
    scenarios: tuple[Path, ...],
    model: str,
    presets: tuple[str, ...],
    *,
    run_id: str | None,
    resume: bool,
    jobs: int,
    repo_paths: tuple[str, ...] = (),
    models_file: Path | None = None,
    server_command: tuple[str, ...] = (),
    unsafe_no_sandbox: bool = False,
    store: Store | None = None,
    full_suite: bool = False,
    session: bool = False,
    only: Collection[str] | None = None,
    executor: str = "local",
    address: str | None = None,
    catalog: RepoCatalog | None = None,
    evaluator: Evaluator | None = None,
    bar: Progress | None = None,
    on_advance: Callable[[], None] = lambda: None,
    context: Strategy | None = None,
) -> str:
    """Replay ``scenarios`` (only the tasks whose ids are in ``only``, when given) and store the
    outcomes; with ``session`` the answers are asked as a developer typing down each file would
    get them (``run/session.py``) before they are judged as usual; with ``context`` the bridge
    builds every prompt with that context strategy (``lsp_bridge/contexts``)."""
    tasks = load_tasks(scenarios)
    if only is not None:
        tasks = [t for t in tasks if t.id in only]
    catalog = catalog or catalog_for(scenarios, repo_paths)
    check_sources(tasks, catalog)
    spec = resolve_model(model, models_file, list(scenarios))
    sandbox = Sandbox.create(unsafe_no_sandbox)
    label = redact_model_name(model).replace("/", "_") + (f"-{context_label(context)}" if context else "")
    run_id = run_id or f"{label}-{dt.datetime.now().strftime('%Y%m%d-%H%M%S')}"
    context_json = None
    if context is not None:
        context_json = context.to_json() | ({"scenarios": [str(p) for p in scenarios]} if context.needs_truth else {})
    command = server_command or tuple(bridge_command())
    config = run_config(
        spec,
        {p: PRESETS[p] for p in presets},
        sandboxed=sandbox.enabled,
        limits=sandbox.limits,
        full_suite=full_suite,
        server_command=None if command == tuple(bridge_command()) else command,
        session=session,
        environments=test_environments(catalog, tasks),
        context=context_json,
        verdicts={name: verdict_way(catalog.get(name), full_suite) for name in sorted({t.repo for t in tasks})},
    )
    settings = ReplaySettings(
        run_id=run_id,
        model=model,
        model_spec=spec,
        presets=presets,
        scenarios=scenarios,
        server_command=command,
        jobs=jobs,
        concurrency=concurrency(spec),
        resume=resume,
        log=log_file(db, f"{run_id}.bridge"),
        executor=executor,
        address=address,
        config=config,
        context=context_json,
    )
    own_store = store is None
    store = store or Store(db)
    try:
        how = "; ".join(
            [
                "bubblewrap" if sandbox.enabled else "none (unsafe)",
                "tests: full suite" if full_suite else "tests: selected per task",
                TIMEOUTS,
            ]
        )
        open_run(store, settings, tasks, how)
        store.add_presets(run_id, {p: PRESETS[p] for p in presets})
        if session:
            _ask_as_a_session(store, settings, tasks, catalog)
        with ExitStack() as stack:
            if evaluator is None:
                evaluator = stack.enter_context(Evaluator(catalog, sandbox, jobs, full_suite=full_suite))
            shown, tid = stack.enter_context(progress(f"{run_id}", bar))
            shown.update(tid, total=len(tasks) * len(presets))

            def advance() -> None:
                shown.advance(tid)
                on_advance()

            asyncio.run(replay_run(store, evaluator, tasks, settings, advance))
        errors = {task_id: _error_of(samples) for task_id, samples in store.samples(run_id).items() if not answered(samples)}
        if errors:
            for line in model_error_lines(model, run_id, errors, recorded_model(model)):
                err.print(line, style="yellow", markup=False, highlight=False, soft_wrap=True)  # commands stay whole
    finally:
        if own_store:
            store.close()
    return run_id


def _error_of(samples: list[Completion]) -> str:
    """Why a request got no usable answer: the model's error (the first sample's that has one)."""
    return next((c.error for c in samples if c.error), None) or "no answer"


def recorded_model(model: str) -> str | None:
    """The model a ``recorded:FOLDER`` model's recording was made with (None: not recorded, or unreadable)."""
    folder = recording_of(model)
    if folder is None:
        return None
    try:
        answers = read_recordings(Path(folder))
    except SimpilotError:
        return None
    return answers[0].model if answers else None


def context_label(context: Strategy) -> str:
    """A strategy's name as part of a run id (``bm25:1024`` -> ``ctx-bm25-1024``)."""
    return "ctx-" + context.name.replace(":", "-").replace("/", "_")


def _ask_as_a_session(store: Store, settings: ReplaySettings, tasks: list[Task], catalog: RepoCatalog) -> None:
    """Ask every task not yet answered as part of a typing session over its file; the normal
    replay then finds the answers stored and only judges them."""
    done = {task_id for task_id, samples in store.samples(settings.run_id).items() if answered(samples)}
    roots = {name: catalog.get(name).root for name in sorted({t.repo for t in tasks})}
    init_options = {"model": spec_json(settings.model_spec), "postprocess": None, "context": settings.context}
    err.print(f"session: asking {sum(t.id not in done for t in tasks)} task(s) on one open document per file")
    asyncio.run(
        run_session(
            settings.server_command,
            init_options,
            tasks,
            roots,
            log=settings.log,
            skip=done,
            concurrency=settings.concurrency,
            on_completion=lambda answers: store.add_completions(settings.run_id, answers),
        )
    )


@dataclass(frozen=True, slots=True)
class ReplayOptions:
    """How a replay command runs, the same for every model and strategy it replays (named as
    :func:`run_replay`'s keywords)."""

    jobs: int
    resume: bool = False
    repo_paths: tuple[str, ...] = ()
    models_file: Path | None = None
    unsafe_no_sandbox: bool = False
    full_suite: bool = False


def replay_with(
    db: Path,
    scenarios: tuple[Path, ...],
    model: str,
    presets: tuple[str, ...],
    options: ReplayOptions,
    run_id: str | None = None,
    **more: Any,
) -> str:
    """:func:`run_replay` with ``options`` (``more``: its other keywords)."""
    return run_replay(db, scenarios, model, presets, run_id=run_id, **asdict(options), **more)


def run_models(
    db: Path,
    scenarios: tuple[Path, ...],
    models: tuple[str, ...],
    presets: tuple[str, ...],
    options: ReplayOptions,
    *,
    run_prefix: str | None,
    contexts: tuple[Strategy, ...] = (),
) -> tuple[list[str], SharingEvaluator]:
    """One run per model over the same ``scenarios``, one after the other, sharing the work
    copies and every verdict: an answer several models give is executed once. Run ids are
    ``PREFIX-MODEL`` (a resume names the same prefix); without a prefix, each model's default.
    With ``contexts``, one run per model and context strategy (``PREFIX-MODEL-ctx-NAME``).
    Returns the run ids and the evaluator, whose counts say how many executions were made."""
    catalog = catalog_for(scenarios, options.repo_paths)
    run_ids = []
    evaluator = SharingEvaluator(catalog, Sandbox.create(options.unsafe_no_sandbox), options.jobs, full_suite=options.full_suite)
    with evaluator:
        for model, context in [(m, c) for m in models for c in (contexts or (None,))]:
            name = shown_model(redact_model_name(model)).replace("/", "_").replace(":", "-")
            if context is not None:
                name += f"-{context_label(context)}"
            run_id = f"{run_prefix}-{name}" if run_prefix else None
            run_ids.append(
                replay_with(db, scenarios, model, presets, options, run_id, context=context, catalog=catalog, evaluator=evaluator)
            )
    return run_ids, evaluator
