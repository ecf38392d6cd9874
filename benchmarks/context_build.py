"""Context strategies on every bundled task, without a model: identifier recall at four token
budgets, tokens spent, and the build time of one request (median and p95, each repository's index
built once beforehand and its time printed apart). Target: p95 ≤ 20 ms per request.

The results file holds the tasks, the build time per request over every strategy and budget
(``median_ms``, ``p95_ms``, ``target_p95_ms``), and the tables ``strategies`` (per strategy and
budget: recall in per cent of the tasks whose ground truth uses a repository name, tokens, build
time) and ``index`` (each repository's index build time). ``--smoke``: one repository's first
five tasks at one budget.

    .venv/bin/python benchmarks/context_build.py [--budget N]... [--tokenizer tokenizer.json] [--smoke] [--results-dir DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.results_file import add_arguments, write_results  # noqa: E402
from lsp_bridge.contexts import STRATEGIES, strategy  # noqa: E402
from replay.config.locations import catalog_for  # noqa: E402
from replay.jobs.contexts import BUDGETS, measure, variants  # noqa: E402
from replay.jobs.replay import load_tasks  # noqa: E402
from replay.reports.contexts import index_note, overall, p95, recall_markdown, tokenizers  # noqa: E402

TARGET_P95_MS = 20
SMOKE_REPOSITORY, SMOKE_TASKS, SMOKE_BUDGET = "sparsela", 5, 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=int, action="append", help="token budget (repeat it) [default: 1024 2048 4096 8192]")
    parser.add_argument("--tokenizer", help="count with this tokenizer.json instead of the estimate")
    add_arguments(parser)
    args = parser.parse_args()
    scenarios = tuple(sorted((ROOT / "scenarios").glob("*.jsonl")))
    if args.smoke:
        scenarios = (ROOT / "scenarios" / f"{SMOKE_REPOSITORY}.jsonl",)
    tasks = load_tasks(scenarios)
    budgets = args.budget or ([SMOKE_BUDGET] if args.smoke else BUDGETS)
    if args.smoke:
        tasks = tasks[:SMOKE_TASKS]
    chosen = [strategy(s.name, s.builder, s.budget, args.tokenizer) for s in STRATEGIES.values()]
    start = time.perf_counter()
    rows, index_ms = measure(tasks, catalog_for(scenarios), variants(chosen, budgets))
    elapsed = time.perf_counter() - start
    scored = len({r.task.id for r in rows if r.names})
    times = [r.build_ms for r in rows]
    median_ms, p95_ms = statistics.median(times), p95(times)
    print(f"{len(tasks)} tasks ({scored} whose ground truth uses a repository name), {len(rows)} contexts built in {elapsed:.1f} s")
    print(f"tokens: {'; '.join(tokenizers(rows))}")
    print(index_note(index_ms))
    print(f"build time per request, every strategy and budget: median {median_ms:.2f} ms, p95 {p95_ms:.2f} ms (target: p95 <= {TARGET_P95_MS} ms)")
    print()
    print(recall_markdown(rows))
    figures = {
        "tasks": len(tasks),
        "scored_tasks": scored,
        "contexts": len(rows),
        "seconds": round(elapsed, 1),
        "median_ms": round(median_ms, 2),
        "p95_ms": round(p95_ms, 2),
        "target_p95_ms": TARGET_P95_MS,
        "tokenizer": "; ".join(tokenizers(rows)),
    }
    cells = [
        [c.strategy, c.budget, c.tasks, c.scored, None if c.recall is None else round(100 * c.recall, 1), round(c.tokens), round(c.median_ms, 2), round(c.p95_ms, 2)]
        for c in overall(rows)
    ]
    tables = {
        "strategies": (["strategy", "budget", "tasks", "scored", "recall", "tokens", "median_ms", "p95_ms"], cells),
        "index": (["repository", "index_ms"], [[repo, round(ms)] for repo, ms in sorted(index_ms.items())]),
    }
    write_results("context_build", args, figures, tables)


if __name__ == "__main__":
    main()
