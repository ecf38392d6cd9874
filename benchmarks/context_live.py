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

    .venv/bin/python benchmarks/context_live.py OUT [--per-repo 2] [--context file:512 --context definitions:512] [--smoke] [--results-dir DIR]

The results file holds, per strategy, the tasks, the pass rate per preset in per cent, the mean
similarity and the prompts' median tokens (``<strategy>_*``), and the tables ``strategies`` (one
row per run and preset: tasks, passed, interval, prompt tokens) and ``against_first`` (each later
strategy against the first, task by task). ``--smoke``: two tasks, answers of at most 16 tokens,
into a temporary folder; without the local model it stops naming what is missing (status 0 with
``--smoke`` outside CI, where ``CI`` is not ``true``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402
from scoreboard_live import LOCAL_INSTALL, local_model_missing, smoke_scenarios, start_local, unavailable  # noqa: E402  (the same local server)

from benchmarks.results_file import add_arguments, write_results  # noqa: E402
from lsp_bridge.contexts import resolve  # noqa: E402
from replay.core.scenarios import read_tasks  # noqa: E402
from replay.jobs.replay import run_replay  # noqa: E402
from replay.reports.strategies import compare_runs, render  # noqa: E402
from replay.store import Store  # noqa: E402

SCENARIOS = sorted((ROOT / "scenarios").glob("*.jsonl"))
SMOKE_TASKS, SMOKE_MAX_TOKENS = 2, 16
MODELS = """
[models.smollm2]
kind = "openai-chat"
base_url = "{url}"
model = "smollm2-135m-instruct"
max_tokens = {max_tokens}
temperature = 0
concurrency = 1
timeout = 600
retries = 1
cache_db = "answers.sqlite"
"""


def key(name: str) -> str:
    """A strategy's name as part of a figure's name: ``file:512`` -> ``file_512``."""
    return name.replace(":", "_")


def sample(per_repo: int, scenarios: list[Path]) -> set[str]:
    """The first ``per_repo`` tasks of each kind of every repository of ``scenarios``, by id."""
    chosen: set[str] = set()
    for path in scenarios:
        tasks = sorted(read_tasks(path), key=lambda t: t.id)
        for kind in ("infill", "completion"):
            chosen |= set([t.id for t in tasks if t.kind.value == kind][:per_repo])
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, nargs="?", help="where the database, models.toml and answers go [a temporary folder with --smoke]")
    parser.add_argument("--per-repo", type=int, default=2, help="tasks of each kind per repository")
    parser.add_argument("--context", action="append", help="a strategy (NAME or NAME:BUDGET); repeat [default: file:512 definitions:512]")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    add_arguments(parser)
    args = parser.parse_args()
    if args.out is None and not args.smoke:
        parser.error("give OUT, or --smoke")
    missing = local_model_missing()
    if missing:
        unavailable(f"the local model needs {', '.join(missing)}: {LOCAL_INSTALL}", args.smoke)
    with tempfile.TemporaryDirectory(prefix="simpilot-context-live-") as scratch:
        args.out = args.out or Path(scratch)
        live(args)


def live(args: argparse.Namespace) -> None:
    """Replay under each strategy, print the comparison and write the results file."""
    strategies = [resolve(choice) for choice in (args.context or ["file:512", "definitions:512"])]
    args.out.mkdir(parents=True, exist_ok=True)
    db = args.out / "results.sqlite"
    scenarios = smoke_scenarios(args.out / "scenarios", SMOKE_TASKS) if args.smoke else SCENARIOS
    only = sample(SMOKE_TASKS if args.smoke else args.per_repo, scenarios)
    max_tokens = SMOKE_MAX_TOKENS if args.smoke else 128
    seconds: dict[str, float] = {}
    server, url = start_local()
    run_ids = []
    try:
        (args.out / "models.toml").write_text(MODELS.format(url=url, max_tokens=max_tokens), encoding="utf-8")
        for strategy in strategies:
            run_id = f"live-{strategy.name.replace(':', '-')}"
            Store(db).delete_run(run_id)
            start = time.monotonic()
            run_ids.append(
                run_replay(
                    db,
                    tuple(scenarios),
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
            seconds[strategy.name] = time.monotonic() - start
            print(f"{strategy.name}: {len(only)} tasks in {seconds[strategy.name]:.0f} s", flush=True)
    finally:
        server.terminate()
        server.wait(30)
    figures: dict[str, object] = {"tasks": len(only), "strategies": len(strategies), "max_tokens": max_tokens}
    store = Store(db)
    try:
        console = Console(width=100)
        compared = compare_runs(store, run_ids)
        render(compared, console)
        for strategy, run_id in zip(strategies, run_ids, strict=True):
            metrics = store.metrics(run_id)
            indel = [m.indel_similarity for (_, preset), m in metrics.items() if preset == "none"]
            prompts = [c.prompt for c in store.completions(run_id).values() if c.prompt is not None]
            similarity, tokens = statistics.mean(indel), statistics.median(p.tokens for p in prompts)
            build_ms = statistics.median(p.build_ms for p in prompts)
            print(f"{run_id}: mean indel similarity (none) {similarity:.3f}; prompt tokens median {tokens:.0f}, build ms median {build_ms:.2f}")
            name = key(strategy.name)
            figures |= {f"{name}_indel_similarity": round(similarity, 3), f"{name}_prompt_tokens": round(tokens),
                        f"{name}_build_ms": round(build_ms, 2), f"{name}_seconds": round(seconds[strategy.name])}
    finally:
        store.close()
    rows, against = [], []
    for preset in compared.presets:
        for row in preset.rows:
            rate = round(100 * row.passed / row.tasks, 1) if row.tasks else 0.0
            rows.append([row.strategy, preset.preset, row.tasks, row.passed, rate, round(100 * row.interval[0], 1), round(100 * row.interval[1], 1),
                         None if row.prompt_tokens is None else round(row.prompt_tokens)])
            figures[f"{key(row.strategy)}_{preset.preset}_pass_rate"] = rate
        for c in preset.against_first:
            against.append([preset.preset, c.first.run_id, c.second.run_id, c.paired, c.summary])
    write_results("context_live", args, figures, {
        "strategies": (["strategy", "preset", "tasks", "passed", "pass_rate", "low", "high", "prompt_tokens"], rows),
        "against_first": (["preset", "first", "second", "paired", "summary"], against),
    })


if __name__ == "__main__":
    main()
