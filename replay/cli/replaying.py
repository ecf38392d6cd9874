"""``simpilot replay``, ``record``, ``serve`` and ``demo``: the commands that ask a model."""

from __future__ import annotations

from pathlib import Path

import click

import replay.cli.options as options
from replay.cli.group import cli, pass_db
from replay.jobs.demo import demo as demo_job
from replay.jobs.record import record_and_say
from replay.jobs.replay import ReplayOptions
from replay.jobs.replay_command import ReplayRequest
from replay.jobs.replay_command import replay as replay_job
from replay.jobs.serve import serve as serve_job
from replay.jobs.startup import OptionError

MODEL_HELP = "oracle, empty, KIND:MODEL@URL (e.g. openai-chat:qwen@http://127.0.0.1:8000/v1), or a name from models.toml."


@cli.command()
@options.scenario_files(required=False)
@click.option(
    "--model",
    "-m",
    "models",
    required=True,
    multiple=True,
    help=f"{MODEL_HELP} Repeat it to replay several models, one run each, executing an answer they share once.",
)
@click.option(
    "--postprocess",
    "-p",
    "presets",
    type=options.PresetType(),
    multiple=True,
    help="Post-processing presets [default: none and simcopilot].",
)
@click.option("--run", "run_id", help="Run id [default: MODEL-timestamp].")
@click.option("--resume", is_flag=True, help="Continue an existing run: skip what is stored, re-ask model errors.")
@options.jobs()
@options.repo_paths("Where a repository is (folder with simpilot.toml, or manifest) [default: where 'mark' found it, or the bundled one].")
@options.models_file()
@click.option("--server-command", help="Language server to drive instead of simpilot's bridge (a shell-style command line).")
@options.full_suite("Run each repository's whole test command instead of the tests selected per task.")
@options.unsafe_no_sandbox("Run model output without bubblewrap (not recommended).")
@click.option(
    "--session", is_flag=True, help="Ask as a developer typing down each file would: one open document per file, edited between requests."
)
@click.option(
    "--trace",
    "trace",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Instead of SCENARIOS: replay an editor trace (serve --record) and compare MODEL's answers with what was accepted.",
)
@options.as_json("With --trace: print the comparison as JSON.")
@options.choice(
    "--executor",
    "executor",
    ["local", "ray"],
    "Where the tests run: threads here, or --jobs actors on a Ray cluster (pip install 'simpilot[ray]').",
)
@click.option("--address", help="With --executor ray: a running cluster's address or 'auto' [default: start a local Ray instance].")
@options.verbose()
@click.option(
    "--context",
    "contexts",
    multiple=True,
    help="Context strategy the bridge builds prompts with (NAME or NAME:BUDGET; see 'simpilot contexts'). Repeat it for one run per strategy.",
)
@options.contexts_file()
@pass_db
def replay(db: Path, jobs, resume, repo_paths, models_file, unsafe_no_sandbox, full_suite, **given) -> None:
    """Ask MODEL, through the LSP bridge, for every task in SCENARIOS and test the answers (or,
    with --trace, for every request a developer accepted in a recorded editor session)."""
    run = ReplayOptions(jobs, resume, repo_paths, models_file, unsafe_no_sandbox, full_suite)
    try:
        replay_job(db, ReplayRequest(options=run, **given))
    except OptionError as exc:
        raise click.BadParameter(str(exc), param_hint=exc.hint) from None


@cli.command("record")
@options.scenario_files()
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
@options.repo_paths()
@options.models_file()
@options.unsafe_no_sandbox("Run without bubblewrap (nothing is executed when recording).")
@pass_db
def record_command(db: Path, scenarios, model, out_dir, **given) -> None:
    """Record MODEL's raw answers to the tasks of SCENARIOS, to replay later with
    --model recorded:FOLDER (resumes: recorded tasks are skipped)."""
    record_and_say(scenarios, model, out_dir, db=db, **given)


@cli.command()
@click.option("--model", "-m", default="empty", show_default=True, help=MODEL_HELP)
@click.option("--postprocess", "-p", type=options.PresetType(), default="simcopilot", show_default=True, help="Preset applied to answers.")
@click.option(
    "--scenarios", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Scenario files (for the oracle)."
)
@options.models_file()
@click.option("--log-file", type=click.Path(dir_okay=False), help="Write the server log here.")
@click.option(
    "--record",
    "record",
    type=click.Path(dir_okay=False),
    help="Append what the editor sends (and the answers) to this trace file, for 'replay --trace'.",
)
@click.option("--context", "context", help="Build prompts with this context strategy (NAME or NAME:BUDGET, see 'simpilot contexts').")
@options.contexts_file()
def serve(model: str, postprocess: str, scenarios: tuple[Path, ...], **given) -> None:
    """Run the LSP bridge on stdio for an editor (textDocument/inlineCompletion)."""
    serve_job(model, postprocess, scenarios, **given)


@cli.command()
@options.jobs()
@options.full_suite("Run each repository's whole test command instead of the selected tests.")
@options.unsafe_no_sandbox()
@options.verbose()
@pass_db
def demo(db: Path, jobs: int, full_suite: bool, unsafe_no_sandbox: bool, verbose: bool) -> None:
    """Replay the bundled scenarios with the oracle and the empty model, and a real model's
    recorded answers (scenarios/recordings/), then report."""
    demo_job(db, jobs=jobs, full_suite=full_suite, unsafe_no_sandbox=unsafe_no_sandbox, verbose=verbose)
