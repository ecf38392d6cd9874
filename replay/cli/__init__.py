"""The ``simpilot`` command line. Progress goes to stderr, data (reports, JSON) to stdout."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape

from lsp_bridge.models.resolve import resolve_model
from postprocess import PRESETS
from replay import __version__
from replay.config.manifest import open_repository
from replay.core.errors import SimpilotError
from replay.core.records import Kind, Task
from replay.core.scenarios import read_tasks
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.importers.devbench import CATEGORIES as DEVBENCH_CATEGORIES
from replay.importers.devbench import FOLDERS as DEVBENCH_LANGUAGES
from replay.importers.devbench import read_instances
from replay.importers.lines import read_holes
from replay.importers.simcopilot import read_checkpoints
from replay.jobs.demo import run_demo
from replay.jobs.import_devbench import import_devbench, write_answers
from replay.jobs.import_devbench import standard_library_only as standard_library_only_program
from replay.jobs.import_lines import import_lines_into
from replay.jobs.mark import mark_into
from replay.jobs.record import record as record_answers
from replay.jobs.replay import load_tasks, run_models, run_replay
from replay.reports.html_report import render_html
from replay.reports.report import build_report, render, render_summary, to_json
from replay.reports.survival import survival_table
from replay.run.client import bridge_command
from replay.run.progress import err, progress
from replay.run.trace_replay import render as render_trace
from replay.run.trace_replay import replay_trace
from replay.store import Store
from replay.validation.gate import NO_TESTS, GateReport
from replay.validation.repetition import TARGET_RUNS

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


def _jobs_default() -> int:
    return max(1, os.cpu_count() or 1)


@click.group(context_settings={"auto_envvar_prefix": "SIMPILOT", "help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("runs/simpilot.db"),
    show_default=True,
    help="SQLite file holding runs and outcomes.",
)
@click.option(
    "--presets",
    "presets_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="TOML file defining your own post-processing presets ([presets.NAME] steps = [...]) [default: ./presets.toml if present].",
)
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
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("scenarios"),
    show_default=True,
    help="Folder for <repo>.jsonl, and repositories.json saying where each repository is.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for choosing holes; the same seed gives a byte-identical file.")
@click.option(
    "--per-kind",
    type=click.IntRange(1, 1000),
    help="Holes per file and kind before validation [default: one per 25 lines of the file, at least 2].",
)
@click.option("--max-per-file", type=click.IntRange(1, 10000), help="Cap on holes per file, both kinds together [default: no cap].")
@click.option("--kinds", type=click.Choice(["infill", "completion"]), multiple=True, help="Task kinds (default: both).")
@click.option(
    "--languages", type=click.Choice(["python", "java"]), multiple=True, help="Mark only repositories in these languages (default: all)."
)
@click.option(
    "--full-suite", is_flag=True, help="Validate with each repository's whole test command instead of the tests selected per hole."
)
@click.option(
    "--decisions",
    is_flag=True,
    help="Mark decision places instead of holes: where nothing should be suggested, and where one line is right and more is "
    "wrong (--per-kind of each per file [default: 6]); write them to a folder of their own, e.g. --out scenarios/decisions.",
)
@click.option("--jobs", type=click.IntRange(1, 256), default=_jobs_default, help="Parallel test runs [default: cores].")
@click.option("--unsafe-no-sandbox", is_flag=True, help="Run tests without bubblewrap (not recommended).")
def mark(
    repos: tuple[str, ...],
    out: Path,
    seed: int,
    per_kind: int | None,
    max_per_file: int | None,
    kinds: tuple[str, ...],
    languages: tuple[str, ...],
    full_suite: bool,
    decisions: bool,
    jobs: int,
    unsafe_no_sandbox: bool,
) -> None:
    """Mark holes in REPOS (folders with simpilot.toml, or manifest files) and validate them.

    A task is written only if the tests pass on the untouched code and fail with the hole filled
    by a neutral filler, both twice (a filler that does not compile is followed by a throwing probe).
    Each task stores the tests selected for it (those that execute its lines; for Java the test
    methods a throwing probe in the hole makes fail); replays run only those.

    With --decisions a "no_suggestion" place (the ground truth is empty) is kept when a plausible
    addition there (the line again, the next line, a return) compiles and fails its tests, twice;
    a "one_line" place when the line passes the usual gate and the line plus such an addition fails.
    """
    sandbox = Sandbox.create(unsafe_no_sandbox)
    chosen = {Kind(k) for k in kinds} or {Kind.INFILL, Kind.COMPLETION}
    manifests = [(open_repository(location), location) for location in repos]
    empty: list[str] = []  # why each repository kept no task
    for manifest, location in manifests:
        if languages and manifest.language not in languages:
            err.print(f"{manifest.name}: skipped ({manifest.language} is not among --languages {', '.join(languages)})")
            continue
        with progress(f"validating {manifest.name}") as (bar, tid):
            done = mark_into(
                out,
                manifest,
                location,
                sandbox,
                seed=seed,
                per_kind=per_kind,
                kinds=chosen,
                jobs=jobs,
                max_per_file=max_per_file,
                full_suite=full_suite,
                decisions=decisions,
                progress_total=lambda n: bar.update(tid, total=n),
                progress=lambda: bar.advance(tid),
            )
        marked, report, target = done.marked, done.report, done.target
        if not done.written:  # nothing written; an existing scenario file stays as it was
            empty.append(_nothing_kept(manifest, marked, report.dropped, target))
        err.print(
            f"{manifest.name}: {marked.files} files, {marked.lines} lines; {len(marked.tasks)} candidates, {_kept(report)}, "
            f"{len(report.dropped)} dropped → {target if report.kept else 'nothing written'}"
        )
        _print_gate(report)
        for path, why in marked.skipped:
            err.print(f"  skipped {path}: {why}")
    if empty:
        raise SimpilotError("; ".join(empty))


def _print_gate(report: GateReport) -> None:
    """Why the gate dropped candidates (most common first), and the presets' alterations."""
    for why, count in Counter(why for _, why in report.dropped).most_common():
        err.print(f"  dropped {count}: {why}")
    if report.altered:
        err.print(
            f"[yellow]  post-processing altered {len(report.altered)} ground truth(s); the tasks are kept, but this is a bug of "
            "the preset (it would turn a correct answer into another): please report it[/]"
        )
        for alteration in report.altered[:10]:
            err.print(f"    {alteration.preset} (steps {', '.join(alteration.steps)}) on {alteration.task.id}")


def _kept(report: GateReport) -> str:
    """How many tasks were kept, by kind (decision tasks by their decision)."""
    kinds_count = Counter(t.decision.value if t.decision else t.kind.value for t in report.kept)
    return f"{len(report.kept)} kept" + (f" ({', '.join(f'{k} {v}' for k, v in sorted(kinds_count.items()))})" if kinds_count else "")


@cli.group("import")
def import_group() -> None:
    """Import holes made elsewhere as validated tasks."""


@import_group.command("lines")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--repo", required=True, help="The repository (a folder with simpilot.toml, or a manifest file).")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("scenarios"),
    show_default=True,
    help="Folder for <repo>.jsonl, and repositories.json saying where each repository is.",
)
@click.option("--jobs", type=click.IntRange(1, 256), default=_jobs_default, help="Parallel test runs [default: cores].")
@click.option("--unsafe-no-sandbox", is_flag=True, help="Run tests without bubblewrap (not recommended).")
@click.option(
    "--full-suite", is_flag=True, help="Validate with the repository's whole test command instead of the tests selected per hole."
)
@click.option(
    "--format",
    "file_format",
    type=click.Choice(["simpilot", "simcopilot"]),
    default="simpilot",
    show_default=True,
    help="FILE's format: simpilot's hole list, or SimCopilot's <Language>_tasks_checkpoints.json (its programs are files of --repo).",
)
def import_lines(file: Path, repo: str, out: Path, jobs: int, unsafe_no_sandbox: bool, full_suite: bool, file_format: str) -> None:
    """Make tasks of the holes in FILE (a JSON list or JSONL of {"file", "kind", "first_line",
    "last_line", "id"?}, lines 1-based and inclusive) and validate them as 'mark' does.

    Each hole becomes the task marking would make of those lines; a hole that cannot be one (a
    test file, lines out of the file or inside a statement) is listed with the reason and skipped.
    With --format simcopilot, FILE is SimCopilot's checkpoint file: each Task_Name's program is
    found in the repository, and its checkpoint_LN_infilling and checkpoint_LN_Completion ranges
    become infill and completion holes (ids <Task_Name>:<kind>:<n>).
    """
    manifest = open_repository(repo)
    holes = read_checkpoints(file, manifest) if file_format == "simcopilot" else read_holes(file)
    sandbox = Sandbox.create(unsafe_no_sandbox)
    with progress(f"validating {manifest.name}") as (bar, tid):
        done = import_lines_into(
            out,
            manifest,
            repo,
            sandbox,
            holes,
            jobs=jobs,
            full_suite=full_suite,
            progress_total=lambda n: bar.update(tid, total=n),
            progress=lambda: bar.advance(tid),
        )
    result, report = done.holes, done.report
    for hole, why in result.rejected:
        err.print(f"  skipped {escape(hole.describe())}: {escape(why)}")
    err.print(
        f"{manifest.name}: {len(holes)} holes, {len(result.rejected)} skipped; {len(result.tasks)} candidates, {_kept(report)}, "
        f"{len(report.dropped)} dropped → {done.target if done.written else 'nothing written'}"
    )
    _print_gate(report)
    if not done.written:
        raise SimpilotError(f"{manifest.name}: no task kept from {file}, nothing written to {done.target}: see the reasons above")


def _names(value: str | None, known: tuple[str, ...], what: str) -> tuple[str, ...]:
    """A comma-separated ``--languages``/``--categories`` value, checked (None: all)."""
    if not value:
        return known
    names = tuple(v.strip() for v in value.split(",") if v.strip())
    unknown = [n for n in names if n not in known]
    if unknown:
        raise click.BadParameter(f"unknown {what}: {', '.join(unknown)} (choose from {', '.join(known)})")
    return names


@import_group.command("devbench")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("devbench"),
    show_default=True,
    help="Folder for the repositories (devbench-<language>/), their scenario files, devbench-gate.json and devbench.lock.json.",
)
@click.option("--languages", help=f"Comma-separated, from {', '.join(DEVBENCH_LANGUAGES)} [default: all].")
@click.option("--categories", help=f"Comma-separated, from {', '.join(DEVBENCH_CATEGORIES)} [default: all].")
@click.option("--limit", type=click.IntRange(1), help="At most this many instances per language and category.")
@click.option("--provision", is_flag=True, help="First install the packages the programs use (PyPI, npm, Debian), cached and pinned.")
@click.option("--jobs", type=click.IntRange(1, 256), default=_jobs_default, help="Parallel program runs [default: cores].")
@click.option("--fresh", is_flag=True, help="A fresh process per program instead of the warm runners (slower; same verdicts).")
@click.option(
    "--standard-library-only",
    is_flag=True,
    help="Only the instances whose programs use nothing but their language's standard library (what runs without --provision).",
)
@click.option("--repos", type=click.Path(file_okay=False, path_type=Path), help="Folder for the repositories [default: OUT].")
@click.option("--by-category", is_flag=True, help="Show the survival table per category too.")
@click.option(
    "--answers",
    is_flag=True,
    help="Also write the models' recorded answers (FOLDER's completions/) for the kept tasks: OUT/recordings/<model>/, every sample.",
)
@click.option("--models", help="With --answers: only these models (comma-separated) [default: every model in FOLDER].")
@click.option("--unsafe-no-sandbox", is_flag=True, help="Run programs without bubblewrap (not recommended).")
def import_devbench_cmd(
    folder: Path,
    out: Path,
    languages: str | None,
    categories: str | None,
    limit: int | None,
    provision: bool,
    jobs: int,
    fresh: bool,
    standard_library_only: bool,
    repos: Path | None,
    by_category: bool,
    answers: bool,
    models: str | None,
    unsafe_no_sandbox: bool,
) -> None:
    """Import DevBench's instances from FOLDER (a DevBench checkout, its benchmark/ folder, or a
    folder of <language>/<category>.jsonl) as validated single-program tasks.

    Each instance becomes a program file (prefix, golden completion, suffix) of a repository
    devbench-<language> in OUT, its assertions a check file never shown to the model. The gate
    keeps an instance when its golden completion passes three times and the empty answer fails every
    run (up to 45, side by side, as a time budget allows: enough to catch one passing one run in seven);
    OUT/devbench-gate.json lists the others by reason (golden_fails, passes_empty,
    toolchain_missing, flaky). Replay OUT/devbench-<language>.jsonl like any scenario file.
    """
    chosen = _names(languages, tuple(DEVBENCH_LANGUAGES), "languages")
    instances = read_instances(folder, chosen, _names(categories, DEVBENCH_CATEGORIES, "categories"), limit)
    if standard_library_only:
        instances = [i for i in instances if standard_library_only_program(i)]
        if not instances:
            raise SimpilotError("no instance uses only its language's standard library: leave out --standard-library-only")
    sandbox = Sandbox.create(unsafe_no_sandbox)
    with progress("running the DevBench gate") as (bar, tid):
        imports = import_devbench(
            instances,
            out,
            sandbox,
            jobs=jobs,
            provision=provision,
            warm=not fresh,
            repos=repos,
            progress_total=lambda n: bar.update(tid, total=n),
            progress=lambda: bar.advance(tid),
        )
    summary = json.loads((out / "devbench-gate.json").read_text())
    err.print(survival_table({i.language: summary[i.language] for i in imports}, by_category))
    for imported in imports:
        state = f"{len(imported.report.kept)} kept → {imported.target}" if imported.report.kept else "nothing kept"
        err.print(f"{imported.manifest.name}: {len(imported.instances)} instances, {state}")
        short = imported.report.short_runs()
        if short:  # too slow for the target's runs: kept, and said how sure the gate is of them
            err.print(
                f"  {len(short)} kept task(s) ran the empty answer fewer than {TARGET_RUNS} times (the time budget): "
                f"at worst {min(n for _, n, _ in short)} runs, a {min(p for _, _, p in short):.0%} chance of catching a one-in-seven pass"
            )
        for altered in imported.report.altered:  # a preset's bug, never the task's: kept, and said
            err.print(f"  preset {altered.preset} changed the golden completion of {escape(altered.task.id)} ({', '.join(altered.steps)})")
    err.print(
        f"reasons per instance: {out / 'devbench-gate.json'}" + (f"; installed packages: {out / 'devbench.lock.json'}" if provision else "")
    )
    if answers:
        _write_devbench_answers(folder, out, [t for i in imports for t in i.report.kept], models)


def _write_devbench_answers(folder: Path, out: Path, kept: list[Task], models: str | None) -> None:
    wanted = [m.strip() for m in models.split(",") if m.strip()] if models else None
    counts = write_answers(folder, out, kept, wanted)
    for model, n in counts.items():
        err.print(f"{model}: answers for {n} of {len(kept)} kept task(s) → {out / 'recordings' / model}")
    scenario = " ".join(str(p) for p in sorted(out.glob("devbench-*.jsonl")))
    first = next(iter(counts), "MODEL")
    err.print(f"replay them: simpilot replay {scenario} --model recorded:{out / 'recordings' / first} (repeat --model for several)")


@import_group.command("devbench-answers")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--out",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=Path("devbench"),
    show_default=True,
    help="The folder of an earlier 'simpilot import devbench' (its devbench-<language>.jsonl files).",
)
@click.option("--models", help="Only these models (comma-separated) [default: every model in FOLDER].")
def import_devbench_answers_cmd(folder: Path, out: Path, models: str | None) -> None:
    """Write the recorded answers of DevBench at FOLDER (its completions/: nine models, five
    samples each) for the tasks an earlier import kept in OUT, as recordings OUT/recordings/<model>/
    that '--model recorded:OUT/recordings/<model>' replays. The gate is not run again."""
    kept = [t for path in sorted(out.glob("devbench-*.jsonl")) for t in read_tasks(path)]
    if not kept:
        raise SimpilotError(f"no devbench-<language>.jsonl in {out}: run 'simpilot import devbench FOLDER --out {out}' first")
    _write_devbench_answers(folder, out, kept, models)


def _nothing_kept(manifest, marked, dropped: list[tuple[Task, str]], target: Path) -> str:
    """Why ``manifest``'s repository kept no task, and what to do about it (one line): the most
    common reason for dropping its candidates decides the advice."""
    if not marked.tasks:
        return (
            f"{manifest.name}: no task kept: its {marked.files} file(s) hold no hole worth asking (trivial code is skipped), "
            f"nothing written to {target}: mark a repository with more code in {', '.join(manifest.sources)}"
        )
    reasons = Counter(why for _, why in dropped).most_common()
    why = ", ".join(f"{count} {reason}" for reason, count in reasons[:3])
    top = reasons[0][0] if reasons else ""
    if top.startswith(NO_TESTS):
        advice = (
            f"check that the tests in {', '.join(manifest.tests) or 'the repository'} import and call the code in "
            f"{', '.join(manifest.sources)} (a hole needs a test that runs it)"
        )
    elif top.startswith("tests pass with the hole filled"):
        advice = "the tests run the code but do not check what it computes: add assertions on its results"
    elif top.startswith("the selected tests fail"):
        advice = "make the tests pass on the untouched code"
    else:
        advice = "see the reasons above"
    return (
        f"{manifest.name}: no task kept, all {len(marked.tasks)} candidates dropped ({why}); nothing written to {target}: "
        f"{advice}, or try more candidates with --per-kind N"
    )


@cli.command()
@click.argument("scenarios", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
def tasks(scenarios: tuple[Path, ...]) -> None:
    """Count the tasks in SCENARIOS by language: kinds, constructs and the eight categories."""
    from rich.table import Table

    from replay.marking.labels import LABELS

    loaded = load_tasks(scenarios)
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


@cli.command("contexts")
@click.argument("scenarios", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--strategy", "-s", "chosen", multiple=True, help="Context strategy (NAME; repeat it) [default: every built-in one].")
@click.option("--budget", "budgets", type=click.IntRange(1), multiple=True, help="Token budget (repeat it) [default: 1024 2048 4096 8192].")
@click.option(
    "--contexts", "contexts_file", type=click.Path(dir_okay=False, path_type=Path), help="contexts.toml [default: ./contexts.toml]."
)
@click.option("--repo", "repo_paths", multiple=True, help="Where a repository is [default: where 'mark' found it, or the bundled one].")
@click.option("--json", "as_json", is_flag=True, help="Print everything (every task too) as JSON instead of tables.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), help="Also write the tables as HTML.")
def contexts_command(scenarios, chosen, budgets, contexts_file, repo_paths, as_json, html_path) -> None:
    """Measure context strategies without a model: for every task, whether the prompt holds the
    definitions of the repository names the answer uses (identifier recall), the tokens it
    spends and how long it takes to build, by budget and by stratum."""
    from lsp_bridge.contexts import STRATEGIES
    from replay.config.locations import catalog_for
    from replay.jobs.contexts import BUDGETS, measure, variants
    from replay.jobs.replay import load_tasks
    from replay.reports import contexts as context_tables

    strategies = _strategies(chosen or tuple(STRATEGIES), contexts_file)
    tasks = load_tasks(scenarios)
    rows, index_ms = measure(tasks, catalog_for(scenarios, repo_paths), variants(strategies, budgets or BUDGETS))
    if html_path is not None:
        html_path.write_text(context_tables.page(rows, index_ms), encoding="utf-8")
        err.print(f"the context measures: {html_path}")
    if as_json:
        click.echo(json.dumps(context_tables.to_json(rows, index_ms), indent=2))
    else:
        context_tables.render(rows, index_ms, out)


# -- replay -----------------------------------------------------------------------------------


@cli.command()
@click.argument("scenarios", nargs=-1, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--model",
    "-m",
    "models",
    required=True,
    multiple=True,
    help="oracle, empty, KIND:MODEL@URL (e.g. openai-chat:qwen@http://127.0.0.1:8000/v1), or a name from models.toml. "
    "Repeat it to replay several models, one run each, executing an answer they share once.",
)
@click.option(
    "--postprocess", "-p", "presets", type=PresetType(), multiple=True, help="Post-processing presets [default: none and simcopilot]."
)
@click.option("--run", "run_id", help="Run id [default: MODEL-timestamp].")
@click.option("--resume", is_flag=True, help="Continue an existing run: skip what is stored, re-ask model errors.")
@click.option("--jobs", type=click.IntRange(1, 256), default=_jobs_default, help="Parallel test runs [default: cores].")
@click.option(
    "--repo",
    "repo_paths",
    multiple=True,
    help="Where a repository is (folder with simpilot.toml, or manifest) [default: where 'mark' found it, or the bundled one].",
)
@click.option("--models", "models_file", type=click.Path(dir_okay=False, path_type=Path), help="models.toml [default: ./models.toml].")
@click.option("--server-command", help="Language server to drive instead of simpilot's bridge (a shell-style command line).")
@click.option("--full-suite", is_flag=True, help="Run each repository's whole test command instead of the tests selected per task.")
@click.option("--unsafe-no-sandbox", is_flag=True, help="Run model output without bubblewrap (not recommended).")
@click.option(
    "--session", is_flag=True, help="Ask as a developer typing down each file would: one open document per file, edited between requests."
)
@click.option(
    "--trace",
    "trace",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Instead of SCENARIOS: replay an editor trace (serve --record) and compare MODEL's answers with what was accepted.",
)
@click.option("--json", "as_json", is_flag=True, help="With --trace: print the comparison as JSON.")
@click.option(
    "--executor",
    type=click.Choice(["local", "ray"]),
    default="local",
    show_default=True,
    help="Where the tests run: threads here, or --jobs actors on a Ray cluster (pip install 'simpilot[ray]').",
)
@click.option("--address", help="With --executor ray: a running cluster's address or 'auto' [default: start a local Ray instance].")
@click.option("--verbose", "-v", is_flag=True, help="Print the full report (every stratum) instead of the pass rate per preset.")
@click.option(
    "--context",
    "contexts",
    multiple=True,
    help="Context strategy the bridge builds prompts with (NAME or NAME:BUDGET; see 'simpilot contexts'). Repeat it for one run per strategy.",
)
@click.option(
    "--contexts", "contexts_file", type=click.Path(dir_okay=False, path_type=Path), help="contexts.toml [default: ./contexts.toml]."
)
@pass_context
def replay(
    ctx: Context,
    scenarios,
    models,
    presets,
    run_id,
    resume,
    jobs,
    repo_paths,
    models_file,
    server_command,
    full_suite,
    unsafe_no_sandbox,
    session,
    trace,
    as_json,
    executor,
    address,
    verbose,
    contexts,
    contexts_file,
) -> None:
    """Ask MODEL, through the LSP bridge, for every task in SCENARIOS and test the answers (or,
    with --trace, for every request a developer accepted in a recorded editor session)."""
    import shlex

    strategies = _strategies(contexts, contexts_file)
    if strategies and server_command:
        raise SimpilotError("--context tells simpilot's bridge how to build prompts: leave out --server-command")

    if address and executor != "ray":
        raise click.BadParameter("a Ray cluster's address only makes sense with --executor ray", param_hint="--address")
    if len(models) > 1 or len(strategies) > 1:
        if trace is not None or session or server_command or executor != "local":
            raise SimpilotError(
                "several --model values replay scenario files with the bridge, locally: leave out --trace, --session, --server-command and --executor"
            )
        _replay_models(
            ctx, scenarios, models, presets, run_id, resume, jobs, repo_paths, models_file, full_suite, unsafe_no_sandbox, strategies
        )
        return
    model = models[0]
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
        ctx.db,
        scenarios,
        model,
        presets or ("none", "simcopilot"),
        run_id=run_id,
        resume=resume,
        jobs=jobs,
        repo_paths=repo_paths,
        models_file=models_file,
        server_command=command,
        unsafe_no_sandbox=unsafe_no_sandbox,
        full_suite=full_suite,
        session=session,
        executor=executor,
        address=address,
        context=strategies[0] if strategies else None,
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
        from replay.core.missing_answers import how_to_answer

        raise SimpilotError(
            f"every model request of run {run_id!r} failed (the tasks and errors are listed above): {how_to_answer(model, run_id)}"
        )


def _strategies(choices: tuple[str, ...], contexts_file: Path | None) -> tuple:
    """The context strategies named by --context, user-defined ones from contexts.toml."""
    from lsp_bridge.contexts import ContextError, load_contexts, resolve

    if not choices:
        return ()
    path = contexts_file or Path("contexts.toml")
    try:
        known = load_contexts(path) if contexts_file is not None or path.is_file() else {}
        return tuple(resolve(choice, known) for choice in choices)
    except ContextError as exc:
        raise SimpilotError(str(exc)) from None


def _replay_models(
    ctx: Context,
    scenarios,
    models,
    presets,
    run_prefix,
    resume,
    jobs,
    repo_paths,
    models_file,
    full_suite,
    unsafe_no_sandbox,
    strategies=(),
) -> None:
    """``replay`` with several models: one run each (``PREFIX-MODEL`` with --run PREFIX), then
    one line per run and how many executions the shared answers saved."""
    if not scenarios:
        raise SimpilotError("give scenario files (see 'simpilot mark')")
    run_ids, evaluator = run_models(
        ctx.db,
        scenarios,
        models,
        presets or ("none", "simcopilot"),
        run_prefix=run_prefix,
        resume=resume,
        jobs=jobs,
        repo_paths=repo_paths,
        models_file=models_file,
        unsafe_no_sandbox=unsafe_no_sandbox,
        full_suite=full_suite,
        contexts=strategies,
    )
    store = ctx.store()
    try:
        stored = [store.outcomes(run_id, sample=None) for run_id in run_ids]
        for built in (build_report(store, [run_id]) for run_id in run_ids):
            render_summary(built, out, _report_command(ctx, *run_ids))
    finally:
        store.close()
    outcomes = sum(len(store_outcomes) for store_outcomes in stored)
    err.print(f"{outcomes} outcome(s) judged with {evaluator.executed} execution(s): equal answers ran once")
    err.print(f"compare the models: {_report_command(ctx, *run_ids).replace(' report ', ' models ', 1)}")
    if len(strategies) > 1:
        err.print(f"compare the context strategies (paired McNemar per stratum): {_report_command(ctx, *run_ids)}")


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
        raise SimpilotError(
            f"there is no run {run_id!r} in {ctx.db} to resume: leave out --resume to start it, "
            "or give the id of a stored run ('simpilot report' lists them)"
        )


# -- report -----------------------------------------------------------------------------------


@cli.command()
@click.argument("runs", nargs=-1)
@click.option(
    "--json",
    "json_out",
    is_flag=False,
    flag_value="-",
    default=None,
    metavar="[FILE]",
    help="Write the report as JSON to FILE; '--json' alone (last) prints it.",
)
@click.option(
    "--html",
    "html_out",
    type=click.Path(path_type=Path),  # a folder is refused by check_output_file, in one line
    metavar="FILE",
    help="Write one self-contained HTML report (charts, sortable tables, every task) to FILE.",
)
@click.option(
    "--csv",
    "csv_dir",
    type=click.Path(path_type=Path),  # a file is refused by check_output_folder, in one line
    metavar="DIR",
    help="Write outcomes, strata, taxonomy, comparisons and flips as CSV files into DIR.",
)
@click.option(
    "--bootstrap",
    type=click.IntRange(0, 1_000_000),
    default=0,
    metavar="N",
    help="Task-level percentile bootstrap intervals from N resamples instead of Wilson [default: Wilson].",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap (same seed, same intervals).")
@click.option(
    "--compare",
    "pairs",
    nargs=2,
    multiple=True,
    metavar="RUN:PRESET RUN:PRESET",
    help="Compare these two series (repeatable) instead of the default comparisons.",
)
@pass_context
def report(
    ctx: Context,
    runs: tuple[str, ...],
    json_out: str | None,
    html_out: Path | None,
    csv_dir: Path | None,
    bootstrap: int,
    seed: int,
    pairs: tuple[tuple[str, str], ...],
) -> None:
    """Pass rates with 95% intervals by stratum, error taxonomy, similarity and comparisons for
    RUNS [default: the latest run]. Text on stdout unless a file output is asked for.

    Missing folders on the way to --html FILE, --json FILE and --csv DIR are created; a path
    that cannot be written (a folder given as FILE, a file as DIR or on the way, a folder that
    is not writable) is refused in one line, exit status 2, before anything is built or written.
    Each file is written atomically (the old file or the new one, never half of one)."""
    from replay.reports.report import check_output_file, check_output_folder, write_csv, write_text_atomically
    from replay.reports.strata import IntervalMethod

    if not ctx.db.exists():
        raise SimpilotError(f"no results database at {ctx.db}: run 'simpilot replay' or 'simpilot demo' first")
    if json_out and json_out != "-":
        check_output_file(Path(json_out), "JSON report")
    if html_out:
        check_output_file(html_out, "HTML report")
    if csv_dir:
        check_output_folder(csv_dir)
    series_pairs: list[tuple[tuple[str, str], tuple[str, str]]] = []
    for pair in pairs:
        parsed = [side.rsplit(":", 1) for side in pair]
        if any(len(side) != 2 for side in parsed):
            raise click.BadParameter(f"give each side as RUN:PRESET, not {' '.join(pair)!r}", param_hint="--compare")
        (run1, preset1), (run2, preset2) = parsed
        series_pairs.append(((run1, preset1), (run2, preset2)))
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
        write_text_atomically(Path(json_out), json.dumps(to_json(built), indent=2), "JSON report")
        err.print(f"JSON report → {json_out}")
    if html_out:
        write_text_atomically(html_out, render_html(built), "HTML report")
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
    ids = run_demo(ctx.db, jobs=jobs, full_suite=full_suite, unsafe_no_sandbox=unsafe_no_sandbox)
    store = ctx.store()
    try:
        built = build_report(store, ids)
        # DevBench's recorded models get one table side by side, not a table each
        recorded = [i for i in ids if i.startswith("demo-devbench-") and i not in ("demo-devbench-oracle", "demo-devbench-empty")]
        if verbose:
            render(built, out)
        else:
            render_summary(build_report(store, [i for i in ids if i not in recorded]), out, _report_command(ctx, *ids))
        page = ctx.db.parent / "demo-report.html"
        page.write_text(render_html(built), encoding="utf-8")
        if recorded:
            _demo_models(store, recorded, ctx.db.parent / "demo-models.html")
    finally:
        store.close()
    err.print(f"results stored in {ctx.db}; the HTML report (charts, every task) is {page}")
    err.print(
        f"'simpilot report {' '.join(ids)} --json' prints them as JSON; "
        f"'simpilot compare {ids[-1]}' shows what each post-processing step does"
    )


def _demo_models(store: Store, run_ids: list[str], page: Path) -> None:
    """The demo's DevBench models side by side: the headline table here, everything in ``page``."""
    from replay.reports import models as comparison
    from replay.reports.model_runs import load_model_runs

    runs, strata = load_model_runs(store, run_ids, "none")
    result = comparison.compare_models(runs, strata, resamples=2_000)
    out.print("DevBench sample, models DevBench recorded (raw answers, every sample):")
    comparison.render(result, out, brief=True)
    page.write_text(comparison.page(result), encoding="utf-8")
    err.print(f"the models compared (per language and category, paired tests): {page}")


# -- compare ----------------------------------------------------------------------------------


@cli.command()
@click.argument("run_ids", metavar="RUN [RUN…]", nargs=-1, required=True)
@click.option(
    "--postprocess",
    "-p",
    "presets",
    type=PresetType(),
    multiple=True,
    help="Presets to compare, the first is the baseline [default: none simcopilot syntax ide; with several runs, those they share].",
)
@click.option("--jobs", type=click.IntRange(1, 256), default=_jobs_default, help="Parallel test runs [default: cores].")
@click.option("--repo", "repo_paths", multiple=True, help="Where a repository is [default: where 'mark' found it, or the bundled one].")
@click.option("--unsafe-no-sandbox", is_flag=True, help="Run model output without bubblewrap (not recommended).")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@click.option(
    "--html",
    "html_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write a page with the tasks each step fixed or broke.",
)
@pass_context
def compare(
    ctx: Context,
    run_ids: tuple[str, ...],
    presets: tuple[str, ...],
    jobs: int,
    repo_paths: tuple[str, ...],
    unsafe_no_sandbox: bool,
    as_json: bool,
    html_path: Path | None,
) -> None:
    """Compare post-processing presets on RUN's stored raw answers (the model is not asked
    again): pass rates, paired differences with exact McNemar p-values, and what each step fixed
    and broke. Outcomes for new presets are judged by the tests and stored in RUN.

    With several RUNs (one per context strategy, from 'replay --context A --context B'), compare
    the runs instead, from their stored outcomes: per preset, each run's pass rate with its
    interval and prompt tokens, and each run against the first, paired task by task (exact
    McNemar), overall and per stratum."""
    from replay.jobs.compare import compare_run
    from replay.jobs.compare import render as render_comparison

    if len(run_ids) > 1:
        _compare_runs(ctx, run_ids, presets, as_json, html_path)
        return
    run_id = run_ids[0]

    comparison = compare_run(
        ctx.db,
        run_id,
        presets or ("none", "simcopilot", "syntax", "ide"),
        jobs=jobs,
        repo_paths=repo_paths,
        unsafe_no_sandbox=unsafe_no_sandbox,
    )
    if html_path is not None:
        from replay.reports.compare_html import page

        store = ctx.store()
        try:
            stored = {(o.task_id, o.postprocess): o for o in store.outcomes(run_id)}
            languages = {t.id: t.language for t in store.tasks(run_id)}
        finally:
            store.close()
        html_path.write_text(page(comparison, stored, languages), encoding="utf-8")
        err.print(f"the comparison with examples: {html_path}")
    if as_json:
        click.echo(json.dumps(comparison.to_json(), indent=2))
    else:
        render_comparison(comparison, out)


def _compare_runs(ctx: Context, run_ids: tuple[str, ...], presets: tuple[str, ...], as_json: bool, html_path: Path | None) -> None:
    """``compare`` of several runs: read from the store, nothing judged again."""
    from replay.reports.strategies import compare_runs, render

    if html_path is not None:
        raise click.UsageError("--html compares the presets of one run; for several runs use 'simpilot report RUN… --html FILE'")
    store = ctx.store()
    try:
        result = compare_runs(store, run_ids, presets)
    finally:
        store.close()
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
    else:
        render(result, out)


@cli.command()
@click.argument("run_ids", nargs=-1, required=True)
@click.option(
    "--postprocess", "-p", "preset", type=PresetType(), default="none", show_default=True, help="Compare the models under this preset."
)
@click.option("--markdown", "markdown_path", type=click.Path(dir_okay=False, path_type=Path), help="Also write the tables as markdown.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), help="Also write the tables and charts as HTML.")
@click.option("--json", "as_json", is_flag=True, help="Print everything as JSON instead of tables.")
@click.option("--resamples", type=click.IntRange(100), default=10_000, show_default=True, help="Bootstrap resamples.")
@click.option("--seed", type=int, default=0, show_default=True, help="Bootstrap seed.")
@pass_context
def models(
    ctx: Context,
    run_ids: tuple[str, ...],
    preset: str,
    markdown_path: Path | None,
    html_path: Path | None,
    as_json: bool,
    resamples: int,
    seed: int,
) -> None:
    """Compare the models of RUN_IDS (one run per model, on the same tasks) from the stored
    outcomes: pass@1 with 95% bootstrap intervals and pass@n over every sample, DevBench's line-0
    exact match and cosine, pass@1 per language and category, and paired tests between models
    (exact McNemar on sample 0, paired bootstrap on per-task pass@1) with how often neighbours
    swap places under the bootstrap."""
    from replay.reports import models as comparison
    from replay.reports.model_runs import load_model_runs

    store = ctx.store()
    try:
        runs, strata = load_model_runs(store, run_ids, preset)
    finally:
        store.close()
    try:
        result = comparison.compare_models(runs, strata, resamples=resamples, seed=seed)
    except ValueError as exc:
        raise SimpilotError(str(exc)) from None
    if markdown_path is not None:
        markdown_path.write_text(comparison.markdown(result), encoding="utf-8")
    if html_path is not None:
        html_path.write_text(
            f"<!doctype html><meta charset=utf-8><title>simpilot: models</title>{comparison.html(result)}", encoding="utf-8"
        )
    if as_json:
        click.echo(json.dumps(comparison.to_json(result), indent=2))
    else:
        comparison.render(result, out)


@cli.command()
@click.argument("run_ids", nargs=-1, required=True)
@click.option(
    "--postprocess", "-p", "presets", type=PresetType(), multiple=True, help="Score under these presets (repeat) [default: none]."
)
@click.option(
    "--models", "models_file", type=click.Path(dir_okay=False, path_type=Path), help="models.toml with prices [default: ./models.toml]."
)
@click.option(
    "--pause", type=click.FloatRange(0), default=500.0, show_default=True, help="How long the developer waits at the cursor (ms)."
)
@click.option("--debounce", type=click.FloatRange(0), default=75.0, show_default=True, help="Typing pause before a request goes out (ms).")
@click.option("--budget", type=click.FloatRange(0), help="Show an answer when it comes within this many ms (instead of the pause rule).")
@click.option(
    "--accept", type=click.Choice(["pass", "first_line"]), default="pass", show_default=True, help="When a shown answer counts as accepted."
)
@click.option(
    "--latency",
    "measure",
    type=click.Choice(["total", "first_token"]),
    default="total",
    show_default=True,
    help="Show at the last or first token.",
)
@click.option("--speed", type=click.FloatRange(0.1), default=5.0, show_default=True, help="Typing speed (characters per second).")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), help="Also write the charts and tables as HTML.")
@click.option("--markdown", "markdown_path", type=click.Path(dir_okay=False, path_type=Path), help="Also write the table as markdown.")
@click.option("--json", "as_json", is_flag=True, help="Print everything as JSON instead of tables.")
@pass_context
def scoreboard(
    ctx: Context,
    run_ids: tuple[str, ...],
    presets: tuple[str, ...],
    models_file: Path | None,
    pause: float,
    debounce: float,
    budget: float | None,
    accept: str,
    measure: str,
    speed: float,
    html_path: Path | None,
    markdown_path: Path | None,
    as_json: bool,
) -> None:
    """Is it right, is it fast enough to be shown, what does it cost: RUN_IDS side by side, per
    preset. pass@1; time to the first token and to the whole answer (p50/p90, also by the
    answer's length); a simulated editor (the developer pauses at the cursor, an answer is shown
    if it comes before they type on, accepted if shown and passing); keystrokes saved; cost per
    passing completion from models.toml's prices; the Pareto front; and (--html) the acceptance
    rate as the latency budget grows."""
    from replay.config.models import price_for
    from replay.reports import scoreboard as board
    from replay.reports.editor_clock import DEFAULT_BUDGETS_MS, ClockSettings

    settings = ClockSettings(speed, debounce, pause, budget, accept, measure)  # type: ignore[arg-type]
    store = ctx.store()
    try:
        result = board.build(
            store, run_ids, presets or ("none",), settings, lambda model: price_for(model, models_file), DEFAULT_BUDGETS_MS
        )
    finally:
        store.close()
    if markdown_path is not None:
        markdown_path.write_text(board.markdown(result) + "\n", encoding="utf-8")
    if html_path is not None:
        html_path.write_text(board.page(result), encoding="utf-8")
        err.print(f"the scoreboard with its charts: {html_path}")
    if as_json:
        click.echo(json.dumps(board.to_json(result), indent=2))
    else:
        click.echo(board.render(result))


# -- record -----------------------------------------------------------------------------------


@cli.command("record")
@click.argument("scenarios", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--model", "-m", required=True, help="The model to record (as for replay).")
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Recording folder, e.g. scenarios/recordings/NAME.",
)
@click.option(
    "--per-repo", type=click.IntRange(1, None), help="Record a deterministic sample of N tasks per repository (both kinds) [default: all]."
)
@click.option("--repo", "repo_paths", multiple=True, help="Where a repository is [default: where 'mark' found it, or the bundled one].")
@click.option("--models", "models_file", type=click.Path(dir_okay=False, path_type=Path), help="models.toml [default: ./models.toml].")
@click.option("--unsafe-no-sandbox", is_flag=True, help="Run without bubblewrap (nothing is executed when recording).")
@pass_context
def record_command(ctx: Context, scenarios, model, out_dir, per_repo, repo_paths, models_file, unsafe_no_sandbox) -> None:
    """Record MODEL's raw answers to the tasks of SCENARIOS, to replay later with
    --model recorded:FOLDER (resumes: recorded tasks are skipped)."""
    summary = record_answers(
        scenarios,
        model,
        out_dir,
        per_repo=per_repo,
        db=ctx.db,
        models_file=models_file,
        repo_paths=repo_paths,
        unsafe_no_sandbox=unsafe_no_sandbox,
        say=lambda line: err.print(line),
    )
    from replay.core.missing_answers import some

    errors = (
        f"; {len(summary.errors)} model error(s), not written and asked again on the next call: {some(summary.errors)}"
        if summary.errors
        else ""
    )
    err.print(f"{summary.recorded} answer(s) recorded, {summary.skipped} already there, in {summary.folder}{errors}")


# -- serve ------------------------------------------------------------------------------------


@cli.command()
@click.option(
    "--model",
    "-m",
    default="empty",
    show_default=True,
    help="oracle, empty, KIND:MODEL@URL (e.g. openai-chat:qwen@http://127.0.0.1:8000/v1), or a name from models.toml.",
)
@click.option("--postprocess", "-p", type=PresetType(), default="simcopilot", show_default=True, help="Preset applied to answers.")
@click.option(
    "--scenarios", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Scenario files (for the oracle)."
)
@click.option("--models", "models_file", type=click.Path(dir_okay=False, path_type=Path), help="models.toml [default: ./models.toml].")
@click.option("--log-file", type=click.Path(dir_okay=False), help="Write the server log here.")
@click.option(
    "--record",
    "record",
    type=click.Path(dir_okay=False),
    help="Append what the editor sends (and the answers) to this trace file, for 'replay --trace'.",
)
@click.option("--context", "context", help="Build prompts with this context strategy (NAME or NAME:BUDGET, see 'simpilot contexts').")
@click.option(
    "--contexts", "contexts_file", type=click.Path(dir_okay=False, path_type=Path), help="contexts.toml [default: ./contexts.toml]."
)
def serve(
    model: str,
    postprocess: str,
    scenarios: tuple[Path, ...],
    models_file: Path | None,
    log_file: str | None,
    record: str | None,
    context: str | None,
    contexts_file: Path | None,
) -> None:
    """Run the LSP bridge on stdio for an editor (textDocument/inlineCompletion)."""
    from lsp_bridge.__main__ import main as bridge_main

    spec = resolve_model(model, models_file, list(scenarios))
    args = ["--model-json", json.dumps(spec), "--postprocess", postprocess, "--preset-steps", ",".join(PRESETS[postprocess])]
    args += ["--log-file", log_file] if log_file else []
    if context:
        from lsp_bridge.contexts import ContextError
        from lsp_bridge.contexts.provider import ContextProvider

        (strategy,) = _strategies((context,), contexts_file)
        truths = [str(p) for p in scenarios] if strategy.needs_truth else []
        try:
            ContextProvider(strategy, truths)  # the bridge's own check, before the editor is waiting on it
        except ContextError as exc:
            raise SimpilotError(str(exc)) from None
        args += ["--context-json", json.dumps(strategy.to_json() | ({"scenarios": truths} if truths else {}))]
    bridge_main(args + (["--record", record] if record else []))


def main() -> None:
    try:
        cli.main(standalone_mode=False)
    except SimpilotError as exc:
        err.print(f"[red]error:[/] {escape(str(exc))}", highlight=False)  # messages may hold [brackets]
        sys.exit(exc.exit_status)
    except click.exceptions.Abort:
        err.print("aborted")
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        err.print("interrupted: stored results are kept; continue with --resume")
        sys.exit(130)
