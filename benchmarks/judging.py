"""The whole judging job of DevBench's recorded answers: every model, every sample, two presets.

Input: the folder of ``simpilot import devbench ../devbench --provision --answers --out DIR``
(its ``devbench-<language>.jsonl`` scenario files and ``recordings/<model>/``). The script replays
every model's recorded answers through the bridge in one command (``run_models``: one run per
model, one evaluator, so an answer several models or samples or presets share is executed once),
then ``simpilot compare`` on each run (the presets' ablation: which step fixed or broke what),
and prints:

- the wall-clock time of the replay and of the comparisons, on this machine;
- how many outcomes were judged, how many executions a run would make sharing equal texts
  within itself only, and how many were made sharing them across the models too;
- the model table (``simpilot models``) as markdown, per preset, for the README.

    .venv/bin/python benchmarks/judging.py DIR [--db DIR/judging.db] [--jobs 2] [--models a,b] [--languages python,java]

Re-running resumes the stored runs (nothing is judged twice).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from replay.reports import models as comparison  # noqa: E402
from replay.reports.model_runs import load_model_runs  # noqa: E402
from replay.run.compare import compare_run, render  # noqa: E402
from replay.run.driver import run_models  # noqa: E402
from replay.run.progress import err  # noqa: E402
from replay.store import Store  # noqa: E402

PRESETS = ("none", "simcopilot")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("imported", type=Path, help="the --out folder of 'simpilot import devbench … --answers'")
    parser.add_argument("--db", type=Path, help="results database [default: IMPORTED/judging.db]")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--models", help="comma-separated [default: every folder in IMPORTED/recordings]")
    parser.add_argument("--languages", help="comma-separated [default: every devbench-<language>.jsonl]")
    parser.add_argument("--prefix", default="devbench", help="run ids are PREFIX-MODEL")
    args = parser.parse_args()
    db = args.db or args.imported / "judging.db"
    recordings = args.imported / "recordings"
    models = args.models.split(",") if args.models else sorted(p.name for p in recordings.iterdir() if p.is_dir())
    scenarios = sorted(args.imported.glob("devbench-*.jsonl"))
    if args.languages:
        scenarios = [p for p in scenarios if p.stem.removeprefix("devbench-") in args.languages.split(",")]
    print(f"{os.cpu_count()} cores, --jobs {args.jobs}; {len(models)} models × {len(scenarios)} languages × presets {', '.join(PRESETS)}")

    start = time.monotonic()
    run_ids, evaluator = run_models(
        db,
        tuple(scenarios),
        tuple(f"recorded:{recordings / m}" for m in models),
        PRESETS,
        run_prefix=args.prefix,
        resume=True,
        jobs=args.jobs,
    )
    replayed = time.monotonic() - start

    start = time.monotonic()
    comparisons = [compare_run(db, run_id, PRESETS, jobs=args.jobs) for run_id in run_ids]
    compared = time.monotonic() - start

    store = Store(db)
    try:
        outcomes = [o for run_id in run_ids for o in store.outcomes(run_id, sample=None) if o.postprocess in PRESETS]
        within = sum(len({(o.task_id, o.processed) for o in store.outcomes(run_id, sample=None) if o.postprocess in PRESETS}) for run_id in run_ids)
        tables = {}
        for preset in PRESETS:
            runs, strata = load_model_runs(store, run_ids, preset)
            tables[preset] = comparison.compare_models(runs, strata)
    finally:
        store.close()
    judged = [o for o in outcomes if o.processed is not None]
    print(f"replay of {len(run_ids)} runs: {replayed:.0f} s; compare (ablations) of {len(run_ids)} runs: {compared:.0f} s")
    print(
        f"{len(judged)} outcomes judged ({len(outcomes) - len(judged)} model errors); a run sharing equal texts within itself only "
        f"would execute {within}; executed sharing across the models too: {evaluator.executed} "
        f"({evaluator.asked} verdicts asked this time; {evaluator.asked - evaluator.executed} served from another model's run)"
    )
    for preset, result in tables.items():
        print(f"\n### models, preset {preset}\n")
        print(comparison.markdown(result))
    for c in comparisons:
        render(c, err)


if __name__ == "__main__":
    main()
