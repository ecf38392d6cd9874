"""The ``simpilot`` group: the options every command shares (the results database, the user's
presets), and ``main``, which turns a job's error into one line and an exit status."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.markup import escape

from replay.jobs.output import DEFAULT_DB, err
from replay.jobs.startup import SimpilotError, __version__, load_user_presets

pass_db = click.pass_obj  # the results database (--db)


@click.group(context_settings={"auto_envvar_prefix": "SIMPILOT", "help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=DEFAULT_DB,
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
    ctx.obj = db
    load_user_presets(presets_file)


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
