"""``simpilot replay``: what its options ask for, as one of three jobs.

The command line hands over a :class:`ReplayRequest` (every option as given); :func:`plan` checks
the combination and turns it into the job it names, with only the settings that job uses: an
editor trace replayed against a model (:class:`TraceReplay`), several models or context strategies
one run each (:class:`SeveralReplays`), or one run (:class:`OneReplay`). Each job prints what it
measured, and :func:`replay` runs the one asked for. A trace replay's bridge log goes to
``runs/logs/trace-replay.bridge.log`` (``core/paths.py``), like every other log.
"""

from __future__ import annotations

import asyncio
import shlex
from dataclasses import dataclass
from pathlib import Path

from lsp_bridge.contexts import Strategy
from lsp_bridge.models.resolve import resolve_model
from replay.config.manifest import open_repository
from replay.config.model_spec import spec_json
from replay.core.errors import SimpilotError
from replay.core.missing_answers import how_to_answer
from replay.core.paths import log_file
from replay.jobs.contexts import strategies_named
from replay.jobs.output import err, out, print_json, report_command
from replay.jobs.replay import ReplayOptions, replay_with, run_models
from replay.jobs.startup import OptionError
from replay.reports.report_build import build_report
from replay.reports.report_text import render, render_summary
from replay.run.client import bridge_command
from replay.run.trace_replay import render as render_trace
from replay.run.trace_replay import replay_trace
from replay.store import Store

DEFAULT_PRESETS = ("none", "simcopilot")
TRACE_PRESET = "simcopilot"


@dataclass(frozen=True, slots=True)
class TraceReplay:
    """Ask ``model`` every request of an editor trace and compare with what was accepted."""

    model: str
    trace: Path
    command: tuple[str, ...]
    options: ReplayOptions  # where the repositories are, the models file
    preset: str
    as_json: bool


@dataclass(frozen=True, slots=True)
class SeveralReplays:
    """One run per model and context strategy over the same scenarios, sharing the verdicts."""

    scenarios: tuple[Path, ...]
    models: tuple[str, ...]
    presets: tuple[str, ...]
    run_prefix: str | None
    options: ReplayOptions
    strategies: tuple[Strategy, ...]


@dataclass(frozen=True, slots=True)
class OneReplay:
    """One model, one run."""

    scenarios: tuple[Path, ...]
    model: str
    presets: tuple[str, ...]
    run_id: str | None
    options: ReplayOptions
    command: tuple[str, ...]
    session: bool
    executor: str
    address: str | None
    context: Strategy | None
    verbose: bool


@dataclass(frozen=True, slots=True)
class ReplayRequest:
    """The options of ``simpilot replay`` as given (empty presets: each job's default)."""

    scenarios: tuple[Path, ...]
    models: tuple[str, ...]
    options: ReplayOptions
    presets: tuple[str, ...] = ()
    run_id: str | None = None
    server_command: str | None = None
    session: bool = False
    trace: Path | None = None
    as_json: bool = False
    executor: str = "local"
    address: str | None = None
    verbose: bool = False
    contexts: tuple[str, ...] = ()
    contexts_file: Path | None = None


Job = TraceReplay | SeveralReplays | OneReplay


def plan(request: ReplayRequest) -> Job:
    """The job ``request`` asks for, or why its options do not go together."""
    strategies = strategies_named(request.contexts, request.contexts_file)
    if strategies and request.server_command:
        raise SimpilotError("--context tells simpilot's bridge how to build prompts: leave out --server-command")
    if request.address and request.executor != "ray":
        raise OptionError("a Ray cluster's address only makes sense with --executor ray", "--address")
    if len(request.models) > 1 or len(strategies) > 1:
        if request.trace is not None or request.session or request.server_command or request.executor != "local":
            raise SimpilotError(
                "several --model values replay scenario files with the bridge, locally: leave out --trace, --session, --server-command and --executor"
            )
        if not request.scenarios:
            raise SimpilotError("give scenario files (see 'simpilot mark')")
        presets = request.presets or DEFAULT_PRESETS
        return SeveralReplays(request.scenarios, request.models, presets, request.run_id, request.options, strategies)
    model = request.models[0]
    command = tuple(shlex.split(request.server_command or "")) or tuple(bridge_command())
    if request.trace is not None:
        if request.scenarios:
            raise SimpilotError("give either scenario files or --trace, not both")
        preset = request.presets[0] if request.presets else TRACE_PRESET
        return TraceReplay(model, request.trace, command, request.options, preset, request.as_json)
    if not request.scenarios:
        raise SimpilotError("give scenario files (see 'simpilot mark'), or --trace FILE")
    return OneReplay(
        request.scenarios,
        model,
        request.presets or DEFAULT_PRESETS,
        request.run_id,
        request.options,
        command,
        request.session,
        request.executor,
        request.address,
        strategies[0] if strategies else None,
        request.verbose,
    )


def replay(db: Path, request: ReplayRequest) -> None:
    """``simpilot replay``: run the job ``request`` asks for into the store ``db``."""
    job = plan(request)
    if isinstance(job, TraceReplay):
        replay_editor_trace(db, job)
    elif isinstance(job, SeveralReplays):
        replay_several(db, job)
    else:
        replay_one(db, job)


def replay_editor_trace(db: Path, job: TraceReplay) -> None:
    """Replay the trace's requests and print how MODEL's answers compare with the accepted ones."""
    spec = resolve_model(job.model, job.options.models_file, [])
    roots = [open_repository(p).root for p in job.options.repo_paths]
    options = {"model": spec_json(spec), "postprocess": job.preset}
    report = asyncio.run(replay_trace(job.trace, job.command, options, roots, log=log_file(db, "trace-replay.bridge")))
    if job.as_json:
        print_json(report.to_json())
    else:
        render_trace(report, out)


def replay_several(db: Path, job: SeveralReplays) -> None:
    """One run each (``PREFIX-MODEL`` with --run PREFIX), then one line per run and how many
    executions the shared answers saved."""
    run_ids, evaluator = run_models(
        db, job.scenarios, job.models, job.presets, job.options, run_prefix=job.run_prefix, contexts=job.strategies
    )
    store = Store(db)
    try:
        stored = [store.outcomes(run_id, sample=None) for run_id in run_ids]
        for built in (build_report(store, [run_id]) for run_id in run_ids):
            render_summary(built, out, report_command(db, *run_ids))
    finally:
        store.close()
    outcomes = sum(len(store_outcomes) for store_outcomes in stored)
    err.print(f"{outcomes} outcome(s) judged with {evaluator.executed} execution(s): equal answers ran once")
    err.print(f"compare the models: {report_command(db, *run_ids).replace(' report ', ' models ', 1)}")
    if len(job.strategies) > 1:
        err.print(f"compare the context strategies (paired McNemar per stratum): {report_command(db, *run_ids)}")


def replay_one(db: Path, job: OneReplay) -> None:
    """One run, then its pass rates (every stratum with ``verbose``); a run whose every model
    request failed measured nothing, and says so with a failing exit status."""
    if job.options.resume:
        check_resumable(db, job.run_id)
    run_id = replay_with(
        db,
        job.scenarios,
        job.model,
        job.presets,
        job.options,
        job.run_id,
        server_command=job.command,
        session=job.session,
        executor=job.executor,
        address=job.address,
        context=job.context,
    )
    store = Store(db)
    try:
        built = build_report(store, [run_id])
        completions = store.completions(run_id).values()
    finally:
        store.close()
    if job.verbose:
        render(built, out)
    else:
        render_summary(built, out, report_command(db, run_id))
    if completions and not any(c.ok for c in completions):
        # nothing was measured: a script must be able to notice
        raise SimpilotError(
            f"every model request of run {run_id!r} failed (the tasks and errors are listed above): {how_to_answer(job.model, run_id)}"
        )


def check_resumable(db: Path, run_id: str | None) -> None:
    """``--resume`` continues a stored run: without --run, or with an id no run has, it would
    silently start a new one."""
    if run_id is None:
        raise SimpilotError("--resume continues a stored run: name it with --run ID ('simpilot report' lists the runs)")
    store = Store(db)
    try:
        known = store.run(run_id) is not None
    finally:
        store.close()
    if not known:
        raise SimpilotError(
            f"there is no run {run_id!r} in {db} to resume: leave out --resume to start it, "
            "or give the id of a stored run ('simpilot report' lists them)"
        )
