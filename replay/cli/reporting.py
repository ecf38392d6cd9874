"""``simpilot report``, ``compare``, ``models``, ``scoreboard``, ``tasks`` and ``contexts``: the
commands that read stored runs or scenario files and print what they measure."""

from __future__ import annotations

from pathlib import Path

import click

import replay.cli.options as options
from replay.cli.group import cli, pass_db
from replay.jobs.compare import compare as compare_job
from replay.jobs.contexts import contexts as contexts_job
from replay.jobs.models import models as models_job
from replay.jobs.report import PRINT, ReportRequest
from replay.jobs.report import report as report_job
from replay.jobs.scoreboard import ScoreboardRequest
from replay.jobs.scoreboard import scoreboard as scoreboard_job
from replay.jobs.startup import OptionError
from replay.jobs.tasks import tasks as tasks_job

HTML_REPORT_HELP = "Write one self-contained HTML report (charts, sortable tables, every task) to FILE."
CSV_HELP = "Write outcomes, strata, taxonomy, comparisons and flips as CSV files into DIR."


@cli.command()
@click.argument("runs", nargs=-1)
@click.option(
    "--json",
    "json_out",
    is_flag=False,
    flag_value=PRINT,
    default=None,
    metavar="[FILE]",
    help="Write the report as JSON to FILE; '--json' alone (last) prints it.",
)
# a path of the wrong kind (a folder as FILE, a file as DIR) is refused by the job, in one line
@click.option("--html", "html_out", type=click.Path(path_type=Path), metavar="FILE", help=HTML_REPORT_HELP)
@click.option("--csv", "csv_dir", type=click.Path(path_type=Path), metavar="DIR", help=CSV_HELP)
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
@pass_db
def report(db: Path, **given) -> None:
    """Pass rates with 95% intervals by stratum, error taxonomy, similarity and comparisons for
    RUNS [default: the latest run]. Text on stdout unless a file output is asked for.

    Missing folders on the way to --html FILE, --json FILE and --csv DIR are created; a path
    that cannot be written (a folder given as FILE, a file as DIR or on the way, a folder that
    is not writable) is refused in one line, exit status 2, before anything is built or written.
    Each file is written atomically (the old file or the new one, never half of one)."""
    try:
        report_job(db, ReportRequest(**given))
    except OptionError as exc:
        raise click.BadParameter(str(exc), param_hint=exc.hint) from None


@cli.command()
@click.argument("run_ids", metavar="RUN [RUN…]", nargs=-1, required=True)
@options.presets(
    "Presets to compare, the first is the baseline [default: none simcopilot syntax ide; with several runs, those they share]."
)
@options.jobs()
@options.repo_paths()
@options.unsafe_no_sandbox("Run model output without bubblewrap (not recommended).")
@options.as_json("Print the comparison as JSON.")
@options.written_file("--html", "Also write a page with the tasks each step fixed or broke.")
@pass_db
def compare(db: Path, run_ids: tuple[str, ...], presets: tuple[str, ...], html_path: Path | None, **given) -> None:
    """Compare post-processing presets on RUN's stored raw answers (the model is not asked
    again): pass rates, paired differences with exact McNemar p-values, and what each step fixed
    and broke. Outcomes for new presets are judged by the tests and stored in RUN.

    With several RUNs (one per context strategy, from 'replay --context A --context B'), compare
    the runs instead, from their stored outcomes: per preset, each run's pass rate with its
    interval and prompt tokens, and each run against the first, paired task by task (exact
    McNemar), overall and per stratum."""
    if len(run_ids) > 1 and html_path is not None:
        raise click.UsageError("--html compares the presets of one run; for several runs use 'simpilot report RUN… --html FILE'")
    compare_job(db, run_ids, presets, html_path=html_path, **given)


@cli.command()
@click.argument("run_ids", nargs=-1, required=True)
@click.option(
    "--postprocess",
    "-p",
    "preset",
    type=options.PresetType(),
    default="none",
    show_default=True,
    help="Compare the models under this preset.",
)
@options.written_file("--markdown", "Also write the tables as markdown.")
@options.written_file("--html", "Also write the tables and charts as HTML.")
@options.as_json()
@click.option("--resamples", type=click.IntRange(100), default=10_000, show_default=True, help="Bootstrap resamples.")
@click.option("--seed", type=int, default=0, show_default=True, help="Bootstrap seed.")
@pass_db
def models(db: Path, run_ids: tuple[str, ...], preset: str, **given) -> None:
    """Compare the models of RUN_IDS (one run per model, on the same tasks) from the stored
    outcomes: pass@1 with 95% bootstrap intervals and pass@n over every sample, DevBench's line-0
    exact match and cosine, pass@1 per language and category, and paired tests between models
    (exact McNemar on sample 0, paired bootstrap on per-task pass@1) with how often neighbours
    swap places under the bootstrap."""
    models_job(db, run_ids, preset, **given)


@cli.command()
@click.argument("run_ids", nargs=-1, required=True)
@options.presets("Score under these presets (repeat) [default: none].")
@options.models_file("models.toml with prices [default: ./models.toml].")
@click.option(
    "--pause", type=click.FloatRange(0), default=500.0, show_default=True, help="How long the developer waits at the cursor (ms)."
)
@click.option("--debounce", type=click.FloatRange(0), default=75.0, show_default=True, help="Typing pause before a request goes out (ms).")
@click.option("--budget", type=click.FloatRange(0), help="Show an answer when it comes within this many ms (instead of the pause rule).")
@options.choice("--accept", "accept", ["pass", "first_line"], "When a shown answer counts as accepted.")
@options.choice("--latency", "measure", ["total", "first_token"], "Show at the last or first token.")
@click.option("--speed", type=click.FloatRange(0.1), default=5.0, show_default=True, help="Typing speed (characters per second).")
@options.written_file("--html", "Also write the charts and tables as HTML.")
@options.written_file("--markdown", "Also write the table as markdown.")
@options.as_json()
@pass_db
def scoreboard(db: Path, **given) -> None:
    """Is it right, is it fast enough to be shown, what does it cost: RUN_IDS side by side, per
    preset. pass@1; time to the first token and to the whole answer (p50/p90, also by the
    answer's length); a simulated editor (the developer pauses at the cursor, an answer is shown
    if it comes before they type on, accepted if shown and passing); keystrokes saved; cost per
    passing completion from models.toml's prices; the Pareto front; and (--html) the acceptance
    rate as the latency budget grows."""
    scoreboard_job(db, ScoreboardRequest(**given))


@cli.command()
@options.scenario_files()
def tasks(scenarios: tuple[Path, ...]) -> None:
    """Count the tasks in SCENARIOS by language: kinds, constructs and the eight categories."""
    tasks_job(scenarios)


@cli.command("contexts")
@options.scenario_files()
@click.option("--strategy", "-s", "chosen", multiple=True, help="Context strategy (NAME; repeat it) [default: every built-in one].")
@click.option("--budget", "budgets", type=click.IntRange(1), multiple=True, help="Token budget (repeat it) [default: 1024 2048 4096 8192].")
@options.contexts_file()
@options.repo_paths()
@options.as_json("Print everything (every task too) as JSON instead of tables.")
@options.written_file("--html", "Also write the tables as HTML.")
def contexts_command(scenarios, chosen, budgets, **given) -> None:
    """Measure context strategies without a model: for every task, whether the prompt holds the
    definitions of the repository names the answer uses (identifier recall), the tokens it
    spends and how long it takes to build, by budget and by stratum."""
    contexts_job(scenarios, chosen, budgets, **given)
