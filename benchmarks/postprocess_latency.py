"""Per-completion latency of each post-processing preset on a real model's stored answers.

Takes the answers recorded in ``scenarios/recordings/FOLDER`` (SmolLM2-135M by default: fences,
prose, re-generated lines — the messy text post-processing exists for), builds each task's hole
context as the bridge does, and times every preset on every answer, ``--rounds`` times in an
interleaved order so machine noise hits every preset alike. Prints median, p90, p99 and max per
preset. Targets: median <= 0.5 ms and p99 <= 5 ms for ``simcopilot`` and ``ide``.

The results file holds each preset's median and p99 (``<preset>_median_ms``, ``<preset>_p99_ms``),
the targets, and the table ``presets`` (median, p90, p99, max per preset). ``--smoke``: the
first twenty answers, two rounds.

    .venv/bin/python benchmarks/postprocess_latency.py [--folder scenarios/recordings/smollm2] [--rounds 20] [--smoke] [--results-dir DIR]
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

from benchmarks.results_file import add_arguments, write_results  # noqa: E402
from postprocess import PRESETS, run_preset  # noqa: E402
from replay.core.recordings import read_recordings  # noqa: E402
from replay.core.scenarios import hole_context, read_tasks  # noqa: E402

TARGET_MEDIAN_MS, TARGET_P99_MS = 0.5, 5
TARGETED = ("simcopilot", "ide")
SMOKE_ANSWERS, SMOKE_ROUNDS = 20, 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", type=Path, default=ROOT / "scenarios" / "recordings" / "smollm2")
    parser.add_argument("--rounds", type=int, default=None, help="[default: 20; 2 with --smoke]")
    add_arguments(parser)
    args = parser.parse_args()
    args.rounds = args.rounds or (SMOKE_ROUNDS if args.smoke else 20)

    tasks = {t.id: t for path in sorted((ROOT / "scenarios").glob("*.jsonl")) for t in read_tasks(path)}
    answers = [a for a in read_recordings(args.folder) if a.task_id in tasks and a.raw is not None]
    if args.smoke:
        answers = answers[:SMOKE_ANSWERS]
    files: dict[tuple[str, str], bytes] = {}
    cases = []
    for answer in answers:
        task = tasks[answer.task_id]
        key = (task.repo, task.path)
        if key not in files:
            files[key] = (ROOT / "repos" / task.repo / task.path).read_bytes()
        cases.append((answer.raw, hole_context(task, files[key])[1]))
    presets = list(PRESETS)
    for name in presets:  # warm-up: imports, parsers, regex caches
        for raw, ctx in cases[:5]:
            run_preset(name, raw, ctx)
    samples: dict[str, list[float]] = {name: [] for name in presets}
    clock = time.perf_counter_ns
    for round_ in range(args.rounds):
        order = presets[round_ % len(presets):] + presets[: round_ % len(presets)]
        for raw, ctx in cases:
            for name in order:
                start = clock()
                run_preset(name, raw, ctx)
                samples[name].append((clock() - start) / 1e6)
    print(f"{len(cases)} recorded answers from {args.folder.relative_to(ROOT) if args.folder.is_relative_to(ROOT) else args.folder}, "
          f"{args.rounds} rounds; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'preset':<12}{'median ms':>11}{'p90 ms':>9}{'p99 ms':>9}{'max ms':>9}   target (median / p99)")
    figures: dict[str, object] = {"answers": len(cases), "rounds": args.rounds, "target_median_ms": TARGET_MEDIAN_MS, "target_p99_ms": TARGET_P99_MS}
    rows = []
    for name in presets:
        xs = sorted(samples[name])
        q = statistics.quantiles(xs, n=100, method="inclusive")
        target = f"{TARGET_MEDIAN_MS} / {TARGET_P99_MS} ms" if name in TARGETED else "-"
        median = statistics.median(xs)
        print(f"{name:<12}{median:>11.3f}{q[89]:>9.3f}{q[98]:>9.3f}{xs[-1]:>9.3f}   {target}")
        rows.append([name, round(median, 3), round(q[89], 3), round(q[98], 3), round(xs[-1], 3)])
        figures[f"{name}_median_ms"] = round(median, 3)
        figures[f"{name}_p99_ms"] = round(q[98], 3)
    write_results("postprocess_latency", args, figures, {"presets": (["preset", "median_ms", "p90_ms", "p99_ms", "max_ms"], rows)})


if __name__ == "__main__":
    main()
