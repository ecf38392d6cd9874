"""What the simulated editor clock adds to a replay, per request: simulating every request under
the default settings, summarising, and the whole budget curve (ten budgets), on synthetic
requests with answers and latencies like a real model's. Target: under 1 ms per request.

    .venv/bin/python benchmarks/editor_clock_speed.py [--requests 100000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from replay.reports.editor_clock import DEFAULT_BUDGETS_MS, ClockSettings, TaskInput, budget_curve, simulate, summarise  # noqa: E402

TRUTHS = ["total += x", "return self._items[index]", "for key, value in pairs.items():\n    out[key] = value", "i++;", "}"]


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
    parser.add_argument("--requests", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5, help="the best of this many rounds is kept")
    args = parser.parse_args()
    tasks = requests(args.requests)
    settings = ClockSettings()
    best = float("inf")
    for _ in range(args.rounds):
        start = time.perf_counter()
        summarise(simulate(tasks, settings), settings)
        budget_curve(tasks, settings, DEFAULT_BUDGETS_MS)
        best = min(best, time.perf_counter() - start)
    per = best / len(tasks) * 1e6
    print(f"{len(tasks):,} requests: simulate + summarise + a {len(DEFAULT_BUDGETS_MS)}-budget curve in {best * 1000:.0f} ms, {per:.1f} µs per request (target: under 1,000 µs)")


if __name__ == "__main__":
    main()
