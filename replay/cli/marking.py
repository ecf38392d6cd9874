"""``simpilot mark`` and ``simpilot import …``: the commands that make validated tasks."""

from __future__ import annotations

from pathlib import Path

import click

import replay.cli.options as options
from replay.cli.group import cli
from replay.jobs.import_devbench import CATEGORIES, LANGUAGES, DevBenchRequest, import_devbench_answers, import_devbench_command
from replay.jobs.import_lines import import_lines as import_lines_job
from replay.jobs.mark import MarkRequest
from replay.jobs.mark import mark as mark_job


@cli.command()
@click.argument("repos", nargs=-1, required=True)
@options.scenario_folder()
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
@options.full_suite("Validate with each repository's whole test command instead of the tests selected per hole.")
@click.option(
    "--decisions",
    is_flag=True,
    help="Mark decision places instead of holes: where nothing should be suggested, and where one line is right and more is "
    "wrong (--per-kind of each per file [default: 6]); write them to a folder of their own, e.g. --out scenarios/decisions.",
)
@options.jobs()
@options.unsafe_no_sandbox()
def mark(**given) -> None:
    """Mark holes in REPOS (folders with simpilot.toml, or manifest files) and validate them.

    A task is written only if the tests pass on the untouched code and fail with the hole filled
    by a neutral filler, both twice (a filler that does not compile is followed by a throwing probe).
    Each task stores the tests selected for it (those that execute its lines; for Java the test
    methods a throwing probe in the hole makes fail); replays run only those.

    With --decisions a "no_suggestion" place (the ground truth is empty) is kept when a plausible
    addition there (the line again, the next line, a return) compiles and fails its tests, twice;
    a "one_line" place when the line passes the usual gate and the line plus such an addition fails.
    """
    mark_job(MarkRequest(**given))


@cli.group("import")
def import_group() -> None:
    """Import holes made elsewhere as validated tasks."""


@import_group.command("lines")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--repo", required=True, help="The repository (a folder with simpilot.toml, or a manifest file).")
@options.scenario_folder()
@options.jobs()
@options.unsafe_no_sandbox()
@options.full_suite("Validate with the repository's whole test command instead of the tests selected per hole.")
@options.choice(
    "--format",
    "file_format",
    ["simpilot", "simcopilot"],
    "FILE's format: simpilot's hole list, or SimCopilot's <Language>_tasks_checkpoints.json (its programs are files of --repo).",
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
    import_lines_job(
        file, repo, out, jobs=jobs, unsafe_no_sandbox=unsafe_no_sandbox, full_suite=full_suite, simcopilot=file_format == "simcopilot"
    )


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
@click.option("--languages", help=f"Comma-separated, from {', '.join(LANGUAGES)} [default: all].")
@click.option("--categories", help=f"Comma-separated, from {', '.join(CATEGORIES)} [default: all].")
@click.option("--limit", type=click.IntRange(1), help="At most this many instances per language and category.")
@click.option("--provision", is_flag=True, help="First install the packages the programs use (PyPI, npm, Debian), cached and pinned.")
@options.jobs("program")
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
@options.unsafe_no_sandbox("Run programs without bubblewrap (not recommended).")
def import_devbench_cmd(languages: str | None, categories: str | None, **given) -> None:
    """Import DevBench's instances from FOLDER (a DevBench checkout, its benchmark/ folder, or a
    folder of <language>/<category>.jsonl) as validated single-program tasks.

    Each instance becomes a program file (prefix, golden completion, suffix) of a repository
    devbench-<language> in OUT, its assertions a check file never shown to the model. The gate
    keeps an instance when its golden completion passes three times and the empty answer fails every
    run (up to 45, side by side, as a time budget allows: enough to catch one passing one run in seven);
    OUT/devbench-gate.json lists the others by reason (toolchain_missing, needs_network,
    golden_fails, passes_empty, flaky). Replay OUT/devbench-<language>.jsonl like any scenario file.
    """
    chosen = _names(languages, LANGUAGES, "languages")
    import_devbench_command(DevBenchRequest(languages=chosen, categories=_names(categories, CATEGORIES, "categories"), **given))


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
    import_devbench_answers(folder, out, models)
