"""Context strategies on every bundled task, without a model: identifier recall at four token
budgets, tokens spent, and the build time of one request (median and p95, each repository's index
built once beforehand and its time printed apart). Target: p95 ≤ 20 ms per request.

    .venv/bin/python benchmarks/context_build.py [--budget N]... [--tokenizer tokenizer.json]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lsp_bridge.contexts import STRATEGIES, strategy  # noqa: E402
from replay.config.locations import catalog_for  # noqa: E402
from replay.jobs.contexts import BUDGETS, measure, variants  # noqa: E402
from replay.jobs.replay import load_tasks  # noqa: E402
from replay.reports.contexts import index_note, p95, recall_markdown, tokenizers  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=int, action="append", help="token budget (repeat it) [default: 1024 2048 4096 8192]")
    parser.add_argument("--tokenizer", help="count with this tokenizer.json instead of the estimate")
    args = parser.parse_args()
    scenarios = tuple(sorted((ROOT / "scenarios").glob("*.jsonl")))
    tasks = load_tasks(scenarios)
    chosen = [strategy(s.name, s.builder, s.budget, args.tokenizer) for s in STRATEGIES.values()]
    start = time.perf_counter()
    rows, index_ms = measure(tasks, catalog_for(scenarios), variants(chosen, args.budget or BUDGETS))
    elapsed = time.perf_counter() - start
    scored = len({r.task.id for r in rows if r.names})
    times = [r.build_ms for r in rows]
    print(f"{len(tasks)} tasks ({scored} whose ground truth uses a repository name), {len(rows)} contexts built in {elapsed:.1f} s")
    print(f"tokens: {'; '.join(tokenizers(rows))}")
    print(index_note(index_ms))
    print(f"build time per request, every strategy and budget: median {statistics.median(times):.2f} ms, p95 {p95(times):.2f} ms")
    print()
    print(recall_markdown(rows))


if __name__ == "__main__":
    main()
