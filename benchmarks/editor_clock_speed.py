"""What the simulated editor clock adds to a replay, per request: simulating every request under
the default settings, summarising, and the whole budget curve (ten budgets), on synthetic
requests with answers and latencies like a real model's. Target: under 1 ms per request.

The results file holds the requests, the best round's milliseconds, the microseconds per request
(``microseconds_per_request``) and the target (``target_microseconds``), and the table
``rounds`` (every round's time). ``--smoke``: a thousand requests, two rounds.

    .venv/bin/python benchmarks/editor_clock_speed.py [--requests 100000] [--rounds 5] [--smoke] [--results-dir DIR]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.results_file import add_arguments, write_results  # noqa: E402
from replay.reports.editor_clock import DEFAULT_BUDGETS_MS, ClockSettings, TaskInput, budget_curve, simulate, summarise  # noqa: E402

TRUTHS = ["total += x", "return self._items[index]", "for key, value in pairs.items():\n    out[key] = value", "i++;", "}"]
TARGET_MICROSECONDS = 1000
SMOKE_REQUESTS, SMOKE_ROUNDS = 1000, 2


def requests(n: int, seed: int = 0) -> list[TaskInput]:
    rng = random.Random(seed)
    made = []
    for i in range(n):
        truth = rng.choice(TRUTHS)
        answer = None if rng.random() < 0.05 else (truth if rng.random() < 0.4 else truth[: rng.randrange(len(truth) + 1)] + "x")
        total = rng.lognormvariate(6.0, 0.8)  # a median near 400 ms, a long tail
        made.append(TaskInput(f"t{i}", answer, truth, answer == truth, total, total * rng.uniform(0.1, 0.6)))
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=None, help="[default: 100000; 1000 with --smoke]")
    parser.add_argument("--rounds", type=int, default=None, help="the best of this many rounds is kept [default: 5; 2 with --smoke]")
    add_arguments(parser)
    args = parser.parse_args()
    n = args.requests or (SMOKE_REQUESTS if args.smoke else 100_000)
    rounds = args.rounds or (SMOKE_ROUNDS if args.smoke else 5)
    tasks = requests(n)
    settings = ClockSettings()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        summarise(simulate(tasks, settings), settings)
        budget_curve(tasks, settings, DEFAULT_BUDGETS_MS)
        times.append(time.perf_counter() - start)
    best = min(times)
    per = best / len(tasks) * 1e6
    print(
        f"{len(tasks):,} requests: simulate + summarise + a {len(DEFAULT_BUDGETS_MS)}-budget curve in {best * 1000:.0f} ms, "
        f"{per:.1f} µs per request (target: under {TARGET_MICROSECONDS:,} µs)"
    )
    figures = {
        "requests": len(tasks),
        "rounds": rounds,
        "budgets": len(DEFAULT_BUDGETS_MS),
        "best_ms": round(best * 1000),
        "microseconds_per_request": round(per, 1),
        "target_microseconds": TARGET_MICROSECONDS,
    }
    tables = {"rounds": (["round", "ms"], [[i + 1, round(t * 1000, 1)] for i, t in enumerate(times)])}
    write_results("editor_clock_speed", args, figures, tables)


if __name__ == "__main__":
    main()
