"""How much model-like noise each preset undoes, on the whole bundled set.

Each task's ground truth is corrupted once by the noisy oracle (``postprocess/noise.py``: fences
and prose, indentation, brackets, re-generated lines, appended statements; each type on an equal
share of the tasks it applies to, seeded), every preset is applied, and a task counts as recovered
when the preset gives back the ground truth (Python exactly, Java up to white space between
tokens). Prints recovery with Wilson 95% intervals per type and preset. Targets: ``syntax`` >= 95%
of fence/prose, indentation and bracket corruptions and >= 80% of re-generated lines;
``simcopilot`` >= 80% of each; appended statements are reported, not targeted.

A corruption that leaves the ground truth unchanged would count as recovered by every preset: the
benchmark refuses to report when there is any (it exits with status 1 naming how many).

The results file holds each preset's recovery of each corruption type in per cent
(``recovered_<preset>_<type>``) and the targets, and the table ``recovery`` (per type and preset:
tasks, recovered, rate and the Wilson interval). ``--smoke``: one repository's tasks.

    .venv/bin/python benchmarks/noisy_recovery.py [--seed 0] [--smoke] [--results-dir DIR]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.results_file import add_arguments, write_results  # noqa: E402
from postprocess import PRESETS  # noqa: E402
from postprocess.noise import TYPES  # noqa: E402
from replay.core.scenarios import read_tasks  # noqa: E402
from replay.reports.recovery import measure  # noqa: E402

# preset -> corruption type -> the least recovery, in per cent, it must reach
TARGETS = {
    "syntax": {"fence_prose": 95, "indentation": 95, "bracket": 95, "regenerated": 80},
    "simcopilot": {"fence_prose": 80, "indentation": 80, "bracket": 80, "regenerated": 80},
}
SMOKE_REPOSITORY = "sparsela"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    add_arguments(parser)
    args = parser.parse_args()
    files = [ROOT / "scenarios" / f"{SMOKE_REPOSITORY}.jsonl"] if args.smoke else sorted((ROOT / "scenarios").glob("*.jsonl"))
    tasks = [t for path in files for t in read_tasks(path)]
    start = time.perf_counter()
    rows = {(r.preset, r.kind): r for r in measure(tasks, PRESETS, seed=args.seed)}
    unchanged = {kind: rows[(next(iter(PRESETS)), kind)].unchanged for kind in TYPES}
    if any(unchanged.values()):
        counts = ", ".join(f"{kind} {n}" for kind, n in unchanged.items() if n)
        sys.exit(f"corruptions that left the ground truth unchanged ({counts}): they would count as recovered, so nothing is reported")
    seconds = time.perf_counter() - start
    print(f"{len(tasks)} bundled tasks, seed {args.seed}, {seconds:.1f} s")
    print(f"{'corruption':<13}{'tasks':>6}" + "".join(f"{p:>22}" for p in PRESETS))
    for kind in TYPES:
        n = rows[(next(iter(PRESETS)), kind)].tasks
        cells = "".join(
            f"{rows[(p, kind)].recovered:>5} {100 * rows[(p, kind)].rate:5.1f}% [{100 * rows[(p, kind)].low:3.0f}–{100 * rows[(p, kind)].high:3.0f}]"
            for p in PRESETS
        )
        print(f"{kind:<13}{n:>6}{cells}")
    figures: dict[str, object] = {"tasks": len(tasks), "seed": args.seed, "seconds": round(seconds, 1)}
    figures |= {f"recovered_{p}_{kind}": round(100 * rows[(p, kind)].rate, 1) for p in PRESETS for kind in TYPES}
    figures |= {f"target_{p}_{kind}": pct for p, kinds in TARGETS.items() for kind, pct in kinds.items()}
    table = [
        [kind, p, rows[(p, kind)].tasks, rows[(p, kind)].recovered, round(100 * rows[(p, kind)].rate, 1),
         round(100 * rows[(p, kind)].low, 1), round(100 * rows[(p, kind)].high, 1), TARGETS.get(p, {}).get(kind)]
        for kind in TYPES
        for p in PRESETS
    ]
    write_results("noisy_recovery", args, figures, {"recovery": (["corruption", "preset", "tasks", "recovered", "rate", "low", "high", "target"], table)})


if __name__ == "__main__":
    main()
