"""The ``simpilot`` command line. Progress goes to stderr, data (reports, JSON) to stdout."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import sys
from collections import Counter
from collections.abc import Callable, Collection
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from postprocess import PRESETS

from . import __version__
from .client import bridge_command
from .errors import SimpilotError
from .execution.evaluate import Evaluator
from .execution.sandbox import Sandbox
from .execution.shared import SharingEvaluator
from .manifest import RepoCatalog, open_repository, project_root
from .models_config import resolve_model
from .pipeline import TIMEOUTS, ReplaySettings, check_sources, open_run, replay_run
from .recordings import read_recordings, record as record_answers
from .records import Kind, Task
from .html_report import render_html
from .locations import catalog_for, remember
from .run_config import redact_model_name, run_config
from .report import build_report, render, render_summary, to_json
from .scenarios import read_tasks, write_tasks
from .session import run_session
from .store import Store
from .trace_replay import render as render_trace, replay_trace
from .validate import NO_TESTS, mark_validated

err = Console(stderr=True, soft_wrap=True)
out = Console()


@dataclass
class Context:
    db: Path

    def store(self) -> Store:
        return Store(self.db)


pass_context = click.make_pass_decorator(Context)


class PresetType(click.ParamType):
    name = "preset"

    def convert(self, value, param, ctx):
        if value not in PRESETS:
            self.fail(f"{value!r} is not a preset (choose from {', '.join(PRESETS)})", param, ctx)
        return value


def _progress_bar() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    TextColumn("[dim]left[/]"), TimeRemainingColumn(), console=err, transient=False)


@contextmanager
def _progress(description: str, bar: Progress | None = None):
    """A progress row for ``description``: on ``bar`` when a caller already shows one (rich shows
    one live display at a time), else on a bar of its own."""
    if bar is not None:
        yield bar, bar.add_task(description, total=None)
        return
    with _progress_bar() as own:
        yield own, own.add_task(description, total=None)


def _jobs_default() -> int:
    return max(1, os.cpu_count() or 1)


@click.group(context_settings={"auto_envvar_prefix": "SIMPILOT", "help_option_names": ["-h", "--help"]})
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=Path("runs/simpilot.db"), show_default=True, help="SQLite file holding runs and outcomes.")
@click.option("--presets", "presets_file", type=click.Path(dir_okay=False, path_type=Path),
              help="TOML file defining your own post-processing presets ([presets.NAME] steps = [...]) [default: ./presets.toml if present].")
@click.version_option(__version__, prog_name="simpilot")
@click.pass_context
def cli(ctx: click.Context, db: Path, presets_file: Path | None) -> None:
    """Measure how well a code model serves as a Copilot-style assistant on your own repositories."""
    ctx.obj = Context(db=db)
    _load_user_presets(presets_file)


def _load_user_presets(path: Path | None) -> None:
    """Make the presets of ``path`` (or ./presets.toml) known before any option names one."""
    from postprocess import PresetError, load_presets, register_presets

    if path is None and not Path("presets.toml").is_file():
        return
    try:
        register_presets(load_presets(path or Path("presets.toml")))
    except PresetError as exc:
        raise SimpilotError(str(exc)) from None


# -- mark -------------------------------------------------------------------------------------


@cli.command()
@click.argument("repos", nargs=-1, required=True)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("scenarios"), show_default=True,
              help="Folder for <repo>.jsonl, and repositories.json saying where each repository is.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for choosing holes; the same seed gives a byte-identical file.")
@click.option("--per-kind", type=click.IntRange(1, 1000), help="Holes per file and kind before validation [default: one per 25 lines of the file, at least 2].")
@click.option("--max-per-file", type=click.IntRange(1, 10000), help="Cap on holes per file, both kinds together [default: no cap].")
@click.option("--kinds", type=click.Choice(["infill", "completion"]), multiple=True, help="Task kinds (default: both).")
@click.option("--languages", type=click.Choice(["python", "java"]), multiple=True, help="Mark only repositories in these languages (default: all).")
@click.option("--full-suite", is_flag=True, help="Validate with each repository's whole test command instead of the tests selected per hole.")
@click.option("--jobs", type=click.IntRange(1, 256), default=_jobs_default, help="Parallel test runs [default: cores].")
@click.option("--unsafe-no-sandbox", is_flag=True, help="Run tests without bubblewrap (not recommended).")
def mark(
    repos: tuple[str, ...], out: Path, seed: int, per_kind: int | None, max_per_file: int | None, kinds: tuple[str, ...],
    languages: tuple[str, ...], full_suite: bool, jobs: int, unsafe_no_sandbox: bool,
) -> None:
    """Mark holes in REPOS (folders with simpilot.toml, or manifest files) and validate them.

    A task is written only if the tests pass on the untouched code and fail with the hole filled
    by a neutral filler, both twice (a filler that does not compile is followed by a throwing probe).
    Each task stores the tests selected for it (those that execute its lines; for Java the test
    methods a throwing probe in the hole makes fail); replays run only those.
    """
    sandbox = Sandbox.create(unsafe_no_sandbox)
    chosen = {Kind(k) for k in kinds} or {Kind.INFILL, Kind.COMPLETION}
    manifests = [(open_repository(location), location) for location in repos]
    empty: list[str] = []  # why each repository kept no task
    for manifest, location in manifests:
        if languages and manifest.language not in languages:
            err.print(f"{manifest.name}: skipped ({manifest.language} is not among --languages {', '.join(languages)})")
            continue
        with Evaluator(RepoCatalog([manifest]), sandbox, jobs, full_suite=full_suite) as evaluator, _progress(f"validating {manifest.name}") as (bar, tid):
            marked, report = mark_validated(
                manifest, evaluator, seed=seed, per_kind=per_kind, kinds=chosen, jobs=jobs, max_per_file=max_per_file,
                progress_total=lambda n: bar.update(tid, total=n), progress=lambda: bar.advance(tid),
            )
        target = out / f"{manifest.name}.jsonl"
        if report.kept:
            write_tasks(target, report.kept)
            remember(out, manifest.name, location)
        else:  # an empty scenario file would only fail later, at replay; an existing one stays as it was
            empty.append(_nothing_kept(manifest, marked, report.dropped, target))
        kinds_count = Counter(t.kind.value for t in report.kept)
        err.print(
            f"{manifest.name}: {marked.files} files, {marked.lines} lines; {len(marked.tasks)} candidates, "
            f"{len(report.kept)} kept" + (f" ({', '.join(f'{k} {v}' for k, v in sorted(kinds_count.items()))})" if kinds_count else "") + ", "
            f"{len(report.dropped)} dropped → {target if report.kept else 'nothing written'}"
        )
        for why, count in Counter(why for _, why in report.dropped).most_common():
            err.print(f"  dropped {count}: {why}")
        if report.altered:
            err.print(f"[yellow]  post-processing altered {len(report.altered)} ground truth(s); the tasks are kept, but this is a bug of "
                      "the preset (it would turn a correct answer into another): please report it[/]")
            for alteration in report.altered[:10]:
                err.print(f"    {alteration.preset} (steps {', '.join(alteration.steps)}) on {alteration.task.id}")
        for path, why in marked.skipped:
            err.print(f"  skipped {path}: {why}")
    if empty:
        raise SimpilotError("; ".join(empty))


def _nothing_kept(manifest, marked, dropped: list[tuple[Task, str]], target: Path) -> str:
    """Why ``manifest``'s repository kept no task, and what to do about it (one line): the most
    common reason for dropping its candidates decides the advice."""
    if not marked.tasks:
        return (f"{manifest.name}: no task kept: its {marked.files} file(s) hold no hole worth asking (trivial code is skipped), "
                f"nothing written to {target}: mark a repository with more code in {', '.join(manifest.sources)}")
    reasons = Counter(why for _, why in dropped).most_common()
    why = ", ".join(f"{count} {reason}" for reason, count in reasons[:3])
    top = reasons[0][0] if reasons else ""
    if top.startswith(NO_TESTS):
        advice = (f"check that the tests in {', '.join(manifest.tests) or 'the repository'} import and call the code in "
                  f"{', '.join(manifest.sources)} (a hole needs a test that runs it)")
    elif top.startswith("tests pass with the hole filled"):
        advice = "the tests run the code but do not check what it computes: add assertions on its results"
    elif top.startswith("the selected tests fail"):
        advice = "make the tests pass on the untouched code"
    else:
        advice = "see the reasons above"
    return (f"{manifest.name}: no task kept, all {len(marked.tasks)} candidates dropped ({why}); nothing written to {target}: "
            f"{advice}, or try more candidates with --per-kind N")


@cli.command()
@click.argument("scenarios", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
def tasks(scenarios: tuple[Path, ...]) -> None:
    """Count the tasks in SCENARIOS by language: kinds, constructs and the eight categories."""
    from rich.table import Table

    from .marking.labels import LABELS

    loaded = _load_tasks(scenarios)
    languages = sorted({t.language for t in loaded})
    table = Table(title=f"{len(loaded)} tasks in {len(scenarios)} scenario file(s)", title_justify="left")
    table.add_column("", justify="left")
    for language in languages:
        table.add_column(language, justify="right")
    groups = [
        ("tasks", lambda t: ["all"]),
        ("kind", lambda t: [t.kind.value]),
        ("category", lambda t: list(t.labels)),
        ("construct", lambda t: [t.construct]),
    ]
    for title, keys in groups:
        counts = Counter((t.language, key) for t in loaded for key in keys(t))
        values = list(LABELS) if title == "category" else sorted({key for _, key in counts})
        table.add_section()
        for value in values:
            label = value if title == "tasks" else f"{title}: {value}"
            table.add_row(label, *(str(counts.get((language, value), 0)) for language in languages))
    out.print(table)


# -- replay -----------------------------------------------------------------------------------


def _load_tasks(scenarios: tuple[Path, ...]) -> list[Task]:
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


def run_replay(
    ctx: Context, scenarios: tuple[Path, ...], model: str, presets: tuple[str, ...], *, run_id: str | None, resume: bool,
    jobs: int, repo_paths: tuple[str, ...] = (), models_file: Path | None = None, server_command: tuple[str, ...] = (),
    unsafe_no_sandbox: bool = False, store: Store | None = None, full_suite: bool = False, session: bool = False,
    only: Collection[str] | None = None, executor: str = "local", address: str | None = None, catalog: RepoCatalog | None = None,
    evaluator: Evaluator | None = None, bar: Progress | None = None, on_advance: Callable[[], None] = lambda: None,
) -> str:
    """Replay ``scenarios`` (only the tasks whose ids are in ``only``, when given) and store the
    outcomes; with ``session`` the answers are asked as a developer typing down each file would
    get them (``session.py``) before they are judged as usual."""
    tasks = _load_tasks(scenarios)
    if only is not None:
        tasks = [t for t in tasks if t.id in only]
    catalog = catalog or catalog_for(scenarios, repo_paths)
    check_sources(tasks, catalog)
    spec = resolve_model(model, models_file, list(scenarios))
    sandbox = Sandbox.create(unsafe_no_sandbox)
    run_id = run_id or f"{redact_model_name(model).replace('/', '_')}-{dt.datetime.now().strftime('%Y%m%d-%H%M%S')}"
    command = server_command or tuple(bridge_command())
    config = run_config(spec, {p: PRESETS[p] for p in presets}, sandboxed=sandbox.enabled, limits=sandbox.limits, full_suite=full_suite,
                        server_command=None if command == tuple(bridge_command()) else command, session=session)
    settings = ReplaySettings(
        run_id=run_id, model=model, model_spec=spec, presets=presets, scenarios=scenarios,
        server_command=command, jobs=jobs, concurrency=int(spec.get("concurrency", 4)), resume=resume,
        log=ctx.db.parent / f"{run_id}.bridge.log", executor=executor, address=address, config=config,
    )
    own_store = store is None
    store = store or ctx.store()
    try:
        how = "; ".join(["bubblewrap" if sandbox.enabled else "none (unsafe)", "tests: full suite" if full_suite else "tests: selected per task", TIMEOUTS])
        open_run(store, settings, tasks, how)
        store.add_presets(run_id, {p: PRESETS[p] for p in presets})
        if session:
            _ask_as_a_session(store, settings, tasks, catalog)
        with ExitStack() as stack:
            if evaluator is None:
                evaluator = stack.enter_context(Evaluator(catalog, sandbox, jobs, full_suite=full_suite))
            shown, tid = stack.enter_context(_progress(f"{run_id}", bar))
            shown.update(tid, total=len(tasks) * len(presets))

            def advance() -> None:
                shown.advance(tid)
                on_advance()

            asyncio.run(replay_run(store, evaluator, tasks, settings, advance))
        errors = [c for c in store.completions(run_id).values() if not c.ok]
        if errors:
            err.print(f"[yellow]{len(errors)} request(s) ended in a model error, e.g.: {errors[0].error}[/]")
            err.print(f"[yellow]they are recorded as model_error; fix the endpoint and re-ask them with: simpilot replay … --run {run_id} --resume[/]")
    finally:
        if own_store:
            store.close()
    return run_id


def _ask_as_a_session(store: Store, settings: ReplaySettings, tasks: list[Task], catalog: RepoCatalog) -> None:
    """Ask every task not yet answered as part of a typing session over its file; the normal
    replay then finds the answers stored and only judges them."""
    answered = {task_id for task_id, c in store.completions(settings.run_id).items() if c.ok}
    roots = {name: catalog.get(name).root for name in sorted({t.repo for t in tasks})}
    init_options = {"model": settings.model_spec, "postprocess": None}
    err.print(f"session: asking {sum(t.id not in answered for t in tasks)} task(s) on one open document per file")
    asyncio.run(run_session(settings.server_command, init_options, tasks, roots, log=settings.log, skip=answered,
                            concurrency=settings.concurrency, on_completion=lambda c: store.add_completion(settings.run_id, c)))


@cli.command()
@click.argument("scenarios", nargs=-1, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--model", "-m", required=True, help="oracle, empty, KIND:MODEL@URL (e.g. openai-chat:qwen@http://127.0.0.1:8000/v1), or a name from models.toml.")
@click.option("--postprocess", "-p", "presets", type=PresetType(), multiple=True, help="Post-processing presets [default: none and simcopilot].")
@click.option("--run", "run_id", help="Run id [default: MODEL-timestamp].")
@click.option("--resume", is_flag=True, help="Continue an existing run: skip what is stored, re-ask model errors.")
@click.option("--jobs", type=click.IntRange(1, 256), default=_jobs_default, help="Parallel test runs [default: cores].")
@click.option("--repo", "repo_paths", multiple=True, help="Where a repository is (folder with simpilot.toml, or manifest) [default: where 'mark' found it, or the bundled one].")
@click.option("--models", "models_file", type=click.Path(dir_okay=False, path_type=Path), help="models.toml [default: ./models.toml].")
@click.option("--server-command", help="Language server to drive instead of simpilot's bridge (a shell-style command line).")
@click.option("--full-suite", is_flag=True, help="Run each repository's whole test command instead of the tests selected per task.")
@click.option("--unsafe-no-sandbox", is_flag=True, help="Run model output without bubblewrap (not recommended).")
@click.option("--session", is_flag=True, help="Ask as a developer typing down each file would: one open document per file, edited between requests.")
@click.option("--trace", "trace", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Instead of SCENARIOS: replay an editor trace (serve --record) and compare MODEL's answers with what was accepted.")
@click.option("--json", "as_json", is_flag=True, help="With --trace: print the comparison as JSON.")
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="Where the tests run: threads here, or --jobs actors on a Ray cluster (pip install 'simpilot[ray]').")
@click.option("--address", help="With --executor ray: a running cluster's address or 'auto' [default: start a local Ray instance].")
@click.option("--verbose", "-v", is_flag=True, help="Print the full report (every stratum) instead of the pass rate per preset.")
@pass_context
def replay(ctx: Context, scenarios, model, presets, run_id, resume, jobs, repo_paths, models_file, server_command, full_suite,
           unsafe_no_sandbox, session, trace, as_json, executor, address, verbose) -> None:
    """Ask MODEL, through the LSP bridge, for every task in SCENARIOS and test the answers (or,
    with --trace, for every request a developer accepted in a recorded editor session)."""
    import shlex

    if address and executor != "ray":
        raise click.BadParameter("a Ray cluster's address only makes sense with --executor ray", param_hint="--address")
    command = tuple(shlex.split(server_command or "")) or tuple(bridge_command())
    if trace is not None:
        if scenarios:
            raise SimpilotError("give either scenario files or --trace, not both")
        spec = resolve_model(model, models_file, [])
        roots = [open_repository(p).root for p in repo_paths]
        options = {"model": spec, "postprocess": presets[0] if presets else "simcopilot"}
        report = asyncio.run(replay_trace(trace, command, options, roots, log=ctx.db.parent / "trace-replay.bridge.log"))
        if as_json:
            click.echo(json.dumps(report.to_json(), indent=2))
        else:
            render_trace(report, out)
        return
    if not scenarios:
        raise SimpilotError("give scenario files (see 'simpilot mark'), or --trace FILE")
    if resume:
        _check_resumable(ctx, run_id)
    run_id = run_replay(
        ctx, scenarios, model, presets or ("none", "simcopilot"), run_id=run_id, resume=resume, jobs=jobs,
        repo_paths=repo_paths, models_file=models_file, server_command=command,
        unsafe_no_sandbox=unsafe_no_sandbox, full_suite=full_suite, session=session, executor=executor, address=address,
    )
    store = ctx.store()
    try:
        built = build_report(store, [run_id])
        completions = store.completions(run_id).values()
    finally:
        store.close()
    if verbose:
        render(built, out)
    else:
        render_summary(built, out, _report_command(ctx, run_id))
    if completions and not any(c.ok for c in completions):
        # nothing was measured: a script must be able to notice
        raise SimpilotError(f"every model request of run {run_id!r} failed (see the warnings above): fix the endpoint, then "
                            f"'simpilot replay … --run {run_id} --resume' re-asks them")


def _report_command(ctx: Context, *run_ids: str) -> str:
    """The command that shows the runs' full report, naming the database when it is not the
    default one (the user would otherwise look in the wrong place)."""
    import shlex

    db = "" if ctx.db == Path("runs/simpilot.db") else f" --db {shlex.quote(str(ctx.db))}"
    return f"simpilot{db} report {' '.join(map(shlex.quote, run_ids))}"


def _check_resumable(ctx: Context, run_id: str | None) -> None:
    """``--resume`` continues a stored run: without --run, or with an id no run has, it would
    silently start a new one."""
    if run_id is None:
        raise SimpilotError("--resume continues a stored run: name it with --run ID ('simpilot report' lists the runs)")
    store = ctx.store()
    try:
        known = store.run(run_id) is not None
    finally:
        store.close()
    if not known:
        raise SimpilotError(f"there is no run {run_id!r} in {ctx.db} to resume: leave out --resume to start it, "
                            "or give the id of a stored run ('simpilot report' lists them)")


# -- report -----------------------------------------------------------------------------------


@cli.command()
@click.argument("runs", nargs=-1)
@click.option("--json", "json_out", is_flag=False, flag_value="-", default=None, metavar="[FILE]",
              help="Write the report as JSON to FILE; '--json' alone (last) prints it.")
@click.option("--html", "html_out", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Write one self-contained HTML report (charts, sortable tables, every task) to FILE.")
@click.option("--csv", "csv_dir", type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
              help="Write outcomes, strata, taxonomy, comparisons and flips as CSV files into DIR.")
@click.option("--bootstrap", type=click.IntRange(0, 1_000_000), default=0, metavar="N",
              help="Task-level percentile bootstrap intervals from N resamples instead of Wilson [default: Wilson].")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap (same seed, same intervals).")
@click.option("--compare", "pairs", nargs=2, multiple=True, metavar="RUN:PRESET RUN:PRESET",
              help="Compare these two series (repeatable) instead of the default comparisons.")
@pass_context
def report(ctx: Context, runs: tuple[str, ...], json_out: str | None, html_out: Path | None, csv_dir: Path | None,
           bootstrap: int, seed: int, pairs: tuple[tuple[str, str], ...]) -> None:
    """Pass rates with 95% intervals by stratum, error taxonomy, similarity and comparisons for
    RUNS [default: the latest run]. Text on stdout unless a file output is asked for."""
    from .report import write_csv
    from .strata import IntervalMethod

    if not ctx.db.exists():
        raise SimpilotError(f"no results database at {ctx.db}: run 'simpilot replay' or 'simpilot demo' first")
    series_pairs = []
    for pair in pairs:
        parsed = tuple(tuple(side.rsplit(":", 1)) for side in pair)
        if any(len(side) != 2 for side in parsed):
            raise click.BadParameter(f"give each side as RUN:PRESET, not {' '.join(pair)!r}", param_hint="--compare")
        series_pairs.append(parsed)
    store = ctx.store()
    known = store.runs()
    if not known:
        raise SimpilotError(f"{ctx.db} holds no runs yet")
    ids = list(runs) or [known[-1].run_id]
    ids += [run for pair in series_pairs for run, _ in pair if run not in ids]
    missing = [r for r in ids if store.run(r) is None]
    if missing:
        raise SimpilotError(f"no run {missing[0]!r} in {ctx.db} (runs: {', '.join(r.run_id for r in known[-8:])})")
    try:
        built = build_report(store, ids, IntervalMethod(bootstrap, seed), series_pairs or None)
    finally:
        store.close()
    if series_pairs and len(built.comparisons) < len(series_pairs):
        raise SimpilotError("a --compare side names a preset the run has no outcomes for: check RUN:PRESET")
    if json_out == "-":
        click.echo(json.dumps(to_json(built), indent=2))
    elif json_out:
        Path(json_out).parent.mkdir(parents=True, exist_ok=True)
        Path(json_out).write_text(json.dumps(to_json(built), indent=2), encoding="utf-8")
        err.print(f"JSON report → {json_out}")
    if html_out:
        html_out.parent.mkdir(parents=True, exist_ok=True)
        html_out.write_text(render_html(built), encoding="utf-8")
        err.print(f"HTML report → {html_out}")
    if csv_dir:
        err.print(f"CSV files → {', '.join(str(p) for p in write_csv(built, csv_dir))}")
    if not (json_out or html_out or csv_dir):
        render(built, out)


# -- demo -------------------------------------------------------------------------------------


@cli.command()
@click.option("--jobs", type=click.IntRange(1, 256), default=_jobs_default, help="Parallel test runs [default: cores].")
@click.option("--full-suite", is_flag=True, help="Run each repository's whole test command instead of the selected tests.")
@click.option("--unsafe-no-sandbox", is_flag=True, help="Run tests without bubblewrap (not recommended).")
@click.option("--verbose", "-v", is_flag=True, help="Print the full report (every stratum) instead of the pass rate per preset.")
@pass_context
def demo(ctx: Context, jobs: int, full_suite: bool, unsafe_no_sandbox: bool, verbose: bool) -> None:
    """Replay the bundled scenarios with the oracle and the empty model, and a real model's
    recorded answers (scenarios/recordings/), then report."""
    scenario_dir = project_root() / "scenarios"
    scenarios = tuple(sorted(scenario_dir.glob("*.jsonl")))
    if not scenarios:
        raise SimpilotError(f"no bundled scenarios in {scenario_dir}: run simpilot from a checkout of the project")
    count = sum(1 for s in scenarios for _ in read_tasks(s))
    runs: list[tuple[str, str, tuple[str, ...], set[str] | None]] = [
        ("demo-oracle", "oracle", ("simcopilot",), None), ("demo-empty", "empty", ("simcopilot",), None)]
    for folder in sorted(p for p in (scenario_dir / "recordings").glob("*") if p.is_dir()):
        # a real model's recorded answers: raw and post-processed, on the tasks it was asked
        recorded = {a.task_id for a in read_recordings(folder)}
        if recorded:
            runs.append((f"demo-{folder.name}", f"recorded:{folder}", ("none", "simcopilot", "syntax", "ide"), recorded))
    total = sum((count if only is None else len(only)) * len(presets) for _, _, presets, only in runs)
    err.print(f"{count} tasks from {len(scenarios)} repositories: the oracle, the empty model and the recorded answers of "
              f"{len(runs) - 2} model(s), {total} verdicts in all (under 3 minutes on 2 cores; the first bar estimates the time left)")
    catalog = catalog_for(scenarios)
    store = ctx.store()
    ids = []
    try:
        # one evaluator for the three runs: warm test servers are started once, and a text that
        # lands in the same hole in two runs (an empty answer, say) is tested once
        with SharingEvaluator(catalog, Sandbox.create(unsafe_no_sandbox), jobs, full_suite=full_suite) as evaluator, _progress_bar() as bar:
            overall = bar.add_task("[bold]demo[/]", total=total)
            for run_id, model, presets, only in runs:
                store.delete_run(run_id)
                ids.append(run_replay(ctx, scenarios, model, presets, run_id=run_id, resume=False, jobs=jobs, unsafe_no_sandbox=unsafe_no_sandbox,
                                      store=store, full_suite=full_suite, only=only, catalog=catalog, evaluator=evaluator, bar=bar,
                                      on_advance=lambda: bar.advance(overall)))
        built = build_report(store, ids)
        if verbose:
            render(built, out)
        else:
            render_summary(built, out, _report_command(ctx, *ids))
        page = ctx.db.parent / "demo-report.html"
        page.write_text(render_html(built), encoding="utf-8")
    finally:
        store.close()
    err.print(f"results stored in {ctx.db}; the HTML report (charts, every task) is {page}")
    err.print(f"'simpilot report {' '.join(ids)} --json' prints them as JSON; "
              f"'simpilot compare {ids[-1]}' shows what each post-processing step does")


# -- compare ----------------------------------------------------------------------------------


@cli.command()
@click.argument("run_id", metavar="RUN")
@click.option("--postprocess", "-p", "presets", type=PresetType(), multiple=True,
              help="Presets to compare, the first is the baseline [default: none simcopilot syntax ide].")
@click.option("--jobs", type=click.IntRange(1, 256), default=_jobs_default, help="Parallel test runs [default: cores].")
@click.option("--repo", "repo_paths", multiple=True, help="Where a repository is [default: where 'mark' found it, or the bundled one].")
@click.option("--unsafe-no-sandbox", is_flag=True, help="Run model output without bubblewrap (not recommended).")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@pass_context
def compare(ctx: Context, run_id: str, presets: tuple[str, ...], jobs: int, repo_paths: tuple[str, ...],
            unsafe_no_sandbox: bool, as_json: bool) -> None:
    """Compare post-processing presets on RUN's stored raw answers (the model is not asked
    again): pass rates, paired differences with exact McNemar p-values, and what each step fixed
    and broke. Outcomes for new presets are judged by the tests and stored in RUN."""
    from .compare import judge, render as render_comparison, summarise, variants

    presets = presets or ("none", "simcopilot", "syntax", "ide")
    if not ctx.db.exists():
        raise SimpilotError(f"no results database at {ctx.db}: run 'simpilot replay' first")
    store = ctx.store()
    try:
        run = store.run(run_id)
        if run is None:
            known = ", ".join(r.run_id for r in store.runs()[-8:]) or "none"
            raise SimpilotError(f"no run {run_id!r} in {ctx.db} (runs: {known})")
        tasks = store.tasks(run_id)
        if not store.completions(run_id):
            raise SimpilotError(f"run {run_id!r} holds no answers yet: finish it with 'simpilot replay … --run {run_id} --resume'")
        wanted = variants(presets)
        recorded = store.presets(run_id)
        clash = [v.name for v in wanted if v.name in recorded and recorded[v.name] != v.steps]
        if clash:
            raise SimpilotError(f"run {run_id!r} holds outcomes for {clash[0]!r} made with other steps "
                                f"({', '.join(recorded[clash[0]])}): name your preset differently")
        catalog = catalog_for([Path(s) for s in run.scenarios if Path(s).is_file()], repo_paths)
        check_sources(tasks, catalog)
        store.add_presets(run_id, {v.name: v.steps for v in wanted})
        full_suite = "full suite" in run.sandbox
        with Evaluator(catalog, Sandbox.create(unsafe_no_sandbox), jobs, full_suite=full_suite) as evaluator, \
                _progress(f"compare {run_id}") as (bar, tid):
            bar.update(tid, total=len(tasks) * len(wanted))
            judge(store, run_id, evaluator, tasks, wanted, lambda: bar.advance(tid))
        similarity = {key: m.indel_similarity for key, m in store.metrics(run_id).items()}
        comparison = summarise(run_id, run.model, [t.id for t in tasks], presets, store.outcomes(run_id), similarity)
    finally:
        store.close()
    if as_json:
        click.echo(json.dumps(comparison.to_json(), indent=2))
    else:
        render_comparison(comparison, out)


# -- record -----------------------------------------------------------------------------------


@cli.command("record")
@click.argument("scenarios", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--model", "-m", required=True, help="The model to record (as for replay).")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path), help="Recording folder, e.g. scenarios/recordings/NAME.")
@click.option("--per-repo", type=click.IntRange(1, None), help="Record a deterministic sample of N tasks per repository (both kinds) [default: all].")
@click.option("--repo", "repo_paths", multiple=True, help="Where a repository is [default: where 'mark' found it, or the bundled one].")
@click.option("--models", "models_file", type=click.Path(dir_okay=False, path_type=Path), help="models.toml [default: ./models.toml].")
@click.option("--unsafe-no-sandbox", is_flag=True, help="Run without bubblewrap (nothing is executed when recording).")
@pass_context
def record_command(ctx: Context, scenarios, model, out_dir, per_repo, repo_paths, models_file, unsafe_no_sandbox) -> None:
    """Record MODEL's raw answers to the tasks of SCENARIOS, to replay later with
    --model recorded:FOLDER (resumes: recorded tasks are skipped)."""
    summary = record_answers(scenarios, model, out_dir, per_repo=per_repo, db=ctx.db, models_file=models_file,
                             repo_paths=repo_paths, unsafe_no_sandbox=unsafe_no_sandbox, say=lambda line: err.print(line))
    errors = f"; {len(summary.errors)} model error(s), asked again on the next call (e.g. {summary.errors[0]})" if summary.errors else ""
    err.print(f"{summary.recorded} answer(s) recorded, {summary.skipped} already there, in {summary.folder}{errors}")


# -- serve ------------------------------------------------------------------------------------


@cli.command()
@click.option("--model", "-m", default="empty", show_default=True, help="oracle, empty, KIND:MODEL@URL (e.g. openai-chat:qwen@http://127.0.0.1:8000/v1), or a name from models.toml.")
@click.option("--postprocess", "-p", type=PresetType(), default="simcopilot", show_default=True, help="Preset applied to answers.")
@click.option("--scenarios", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Scenario files (for the oracle).")
@click.option("--models", "models_file", type=click.Path(dir_okay=False, path_type=Path), help="models.toml [default: ./models.toml].")
@click.option("--log-file", type=click.Path(dir_okay=False), help="Write the server log here.")
@click.option("--record", "record", type=click.Path(dir_okay=False), help="Append what the editor sends (and the answers) to this trace file, for 'replay --trace'.")
def serve(model: str, postprocess: str, scenarios: tuple[Path, ...], models_file: Path | None, log_file: str | None, record: str | None) -> None:
    """Run the LSP bridge on stdio for an editor (textDocument/inlineCompletion)."""
    from lsp_bridge.__main__ import main as bridge_main

    spec = resolve_model(model, models_file, list(scenarios))
    args = ["--model-json", json.dumps(spec), "--postprocess", postprocess, "--preset-steps", ",".join(PRESETS[postprocess])]
    args += ["--log-file", log_file] if log_file else []
    bridge_main(args + (["--record", record] if record else []))


def main() -> None:
    try:
        cli.main(standalone_mode=False)
    except SimpilotError as exc:
        err.print(f"[red]error:[/] {escape(str(exc))}", highlight=False)  # messages may hold [brackets]
        sys.exit(1)
    except click.exceptions.Abort:
        err.print("aborted")
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        err.print("interrupted: stored results are kept; continue with --resume")
        sys.exit(130)
