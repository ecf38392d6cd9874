"""The scoreboard of real models on this machine: SmolLM2-135M through llama.cpp's server (built
by ``bash .ci/setup --servers``) and through simpilot's own local model server, live.

Starts both servers and records, through the bridge, each model route's answers to a
deterministic sample of the bundled tasks (``--per-repo`` per repository, both kinds):
llama.cpp's ``/infill`` and ``/v1/chat/completions``, and the local server's chat route, all
streamed. Recording runs no tests, so the models have the machine to themselves and the timings
(time to first token, total time, the endpoint's token counts) are the models' own. The
recordings are then replayed under ``none`` and ``simcopilot`` (their recorded timings given
again) and the scoreboard printed, with its HTML page written.

    .venv/bin/python benchmarks/scoreboard_live.py OUT [--per-repo 3] [--jobs 2] [--price-per-hour 0.10]

The price is an example: what a 2-core cloud machine like this one costs an hour. llama.cpp's
server gets one thread: with two on two cores, anything else running stalls it for seconds.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lsp_bridge.serving import llama_cache, llama_run  # noqa: E402
from replay.config.models import price_for  # noqa: E402
from replay.core.recordings import read_recordings  # noqa: E402
from replay.jobs.record import record  # noqa: E402
from replay.jobs.replay import run_replay  # noqa: E402
from replay.reports import scoreboard  # noqa: E402
from replay.reports.editor_clock import DEFAULT_BUDGETS_MS, ClockSettings  # noqa: E402
from replay.store import Store  # noqa: E402

SCENARIOS = sorted((ROOT / "scenarios").glob("*.jsonl"))
MODELS = """
[models.smollm2-llamacpp-infill]
kind = "llamacpp-infill"
base_url = "{llama}"
context_chars = 3000
max_tokens = 64
stream = true
concurrency = 1
timeout = 120
price_per_hour = {price}

[models.smollm2-llamacpp-chat]
kind = "openai-chat"
base_url = "{llama}/v1"
model = "smollm2"
context_chars = 2000
max_tokens = 128
stream = true
concurrency = 1
timeout = 120
price_per_hour = {price}

[models.smollm2-local-chat]
kind = "openai-chat"
base_url = "{local}"
model = "smollm2-135m-instruct"
context_chars = 2000
max_tokens = 128
stream = true
concurrency = 1
timeout = 600
price_per_hour = {price}
"""


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
    parser.add_argument("out", type=Path)
    parser.add_argument("--per-repo", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--price-per-hour", type=float, default=0.10)
    args = parser.parse_args()
    if llama_cache.find() is None:
        raise SystemExit("no llama.cpp server: run bash .ci/setup --servers first")
    args.out.mkdir(parents=True, exist_ok=True)
    db = args.out / "results.sqlite"
    config = args.out / "models.toml"
    names = ("smollm2-llamacpp-infill", "smollm2-llamacpp-chat", "smollm2-local-chat")
    local, local_url = start_local()
    try:
        with llama_run.start(ctx_size=4096, threads=1) as llama_url:  # two threads stall when anything else runs
            config.write_text(MODELS.format(llama=llama_url, local=local_url, price=args.price_per_hour), encoding="utf-8")
            for name in names:
                start = time.monotonic()
                summary = record(SCENARIOS, name, args.out / "recordings" / name, per_repo=args.per_repo, db=db, models_file=config)
                print(f"{name}: recorded in {time.monotonic() - start:.0f} s ({summary})", flush=True)
    finally:
        local.terminate()
        local.wait(30)
    run_ids = []
    for name in names:
        folder = args.out / "recordings" / name
        only = {a.task_id for a in read_recordings(folder)}
        Store(db).delete_run(f"live-{name}")
        run_ids.append(
            run_replay(db, tuple(SCENARIOS), f"recorded:{folder}", ("none", "simcopilot"), run_id=f"live-{name}", resume=False, jobs=args.jobs, only=only)
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


if __name__ == "__main__":
    main()
