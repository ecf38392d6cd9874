"""Context strategies with a real model on this machine: SmolLM2-135M, live, on the same tasks
under two or more strategies, compared task by task.

Starts simpilot's local model server (SmolLM2-135M-Instruct on the CPU, the ``local`` extra and
the weights package that ``.ci/setup`` installs) and replays a deterministic sample of the bundled
tasks (``--per-repo`` per repository, ordered by id) once per strategy through the bridge, each
prompt built by the strategy (``replay --context``) and stored with its answer. Then prints what
``simpilot compare`` prints for the runs (pass rates, paired McNemar tests, prompt tokens) and,
per strategy, the answers' similarity to the ground truth and the prompts' identifier recall
(``simpilot contexts``) on the same tasks. The endpoint's raw-output store (``cache_db``) keeps
every answer: a second run of the script asks the model nothing.

    .venv/bin/python benchmarks/context_live.py OUT [--per-repo 2] [--context file:512 --context definitions:512]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402
from scoreboard_live import start_local  # noqa: E402  (the same local server, started the same way)

from lsp_bridge.contexts import resolve  # noqa: E402
from replay.core.scenarios import read_tasks  # noqa: E402
from replay.jobs.replay import run_replay  # noqa: E402
from replay.reports.strategies import compare_runs, render  # noqa: E402
from replay.store import Store  # noqa: E402

SCENARIOS = sorted((ROOT / "scenarios").glob("*.jsonl"))
MODELS = """
[models.smollm2]
kind = "openai-chat"
base_url = "{url}"
model = "smollm2-135m-instruct"
max_tokens = 128
temperature = 0
concurrency = 1
timeout = 600
retries = 1
cache_db = "answers.sqlite"
"""


def sample(per_repo: int) -> set[str]:
    """The first ``per_repo`` tasks of each kind of every bundled repository, by id."""
    chosen: set[str] = set()
    for path in SCENARIOS:
        tasks = sorted(read_tasks(path), key=lambda t: t.id)
        for kind in ("infill", "completion"):
            chosen |= set([t.id for t in tasks if t.kind.value == kind][:per_repo])
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--per-repo", type=int, default=2, help="tasks of each kind per repository")
    parser.add_argument("--context", action="append", help="a strategy (NAME or NAME:BUDGET); repeat [default: file:512 definitions:512]")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    strategies = [resolve(choice) for choice in (args.context or ["file:512", "definitions:512"])]
    args.out.mkdir(parents=True, exist_ok=True)
    db = args.out / "results.sqlite"
    only = sample(args.per_repo)
    server, url = start_local()
    run_ids = []
    try:
        (args.out / "models.toml").write_text(MODELS.format(url=url), encoding="utf-8")
        for strategy in strategies:
            run_id = f"live-{strategy.name.replace(':', '-')}"
            Store(db).delete_run(run_id)
            start = time.monotonic()
            run_ids.append(
                run_replay(
                    db,
                    tuple(SCENARIOS),
                    "smollm2",
                    ("none", "simcopilot"),
                    run_id=run_id,
                    resume=False,
                    jobs=args.jobs,
                    models_file=args.out / "models.toml",
                    only=only,
                    context=strategy,
                )
            )
            print(f"{strategy.name}: {len(only)} tasks in {time.monotonic() - start:.0f} s", flush=True)
    finally:
        server.terminate()
        server.wait(30)
    store = Store(db)
    try:
        console = Console(width=100)
        render(compare_runs(store, run_ids), console)
        for run_id in run_ids:
            metrics = store.metrics(run_id)
            indel = [m.indel_similarity for (_, preset), m in metrics.items() if preset == "none"]
            prompts = [c.prompt for c in store.completions(run_id).values() if c.prompt is not None]
            print(
                f"{run_id}: mean indel similarity (none) {statistics.mean(indel):.3f}; prompt tokens median "
                f"{statistics.median(p.tokens for p in prompts):.0f}, build ms median {statistics.median(p.build_ms for p in prompts):.2f}"
            )
    finally:
        store.close()


if __name__ == "__main__":
    main()
