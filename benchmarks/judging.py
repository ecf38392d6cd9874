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
        [--smoke] [--results-dir DIR]

Re-running resumes the stored runs (nothing is judged twice).

The results file holds the times, the outcomes and the executions (``replay_seconds``,
``compare_seconds``, ``outcomes_judged``, ``executions_within_runs``, ``executed``...), and the
tables ``models`` (per model and preset: pass@1 in per cent with its interval, pass@n, DevBench's
line-0 EM and cosine), ``languages`` (the same per model and language, preset ``none``) and
``presets`` (each preset against ``none`` per model: passes, McNemar p). ``--smoke`` judges the
DevBench sample bundled in ``scenarios/devbench`` (laid out as an import: scenario files and
``recordings/``): Python only, one model, into a temporary database.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.results_file import add_arguments, write_results  # noqa: E402
from replay.jobs.compare import compare_run, render  # noqa: E402
from replay.jobs.replay import ReplayOptions, run_models  # noqa: E402
from replay.reports.model_comparison import ModelComparison, ModelRun, compare_models  # noqa: E402
from replay.reports.model_runs import load_model_runs  # noqa: E402
from replay.reports.model_text import markdown  # noqa: E402
from replay.run.progress import err  # noqa: E402
from replay.store import Store  # noqa: E402

PRESETS = ("none", "simcopilot")  # replayed: every sample judged under each
COMPARED = ("none", "simcopilot", "syntax", "ide")  # then compared on the stored answers, with their ablations
SMOKE_INPUT = ROOT / "scenarios" / "devbench"  # the bundled sample, laid out as an import
SMOKE_LANGUAGES = "python"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("imported", type=Path, nargs="?", help="the --out folder of 'simpilot import devbench … --answers'")
    parser.add_argument("--db", type=Path, help="results database [default: IMPORTED/judging.db]")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--models", help="comma-separated [default: every folder in IMPORTED/recordings]")
    parser.add_argument("--languages", help="comma-separated [default: every devbench-<language>.jsonl]")
    parser.add_argument("--prefix", default="devbench", help="run ids are PREFIX-MODEL")
    add_arguments(parser)
    args = parser.parse_args()
    if args.imported is None and not args.smoke:
        parser.error("give the imported folder, or --smoke to judge the bundled DevBench sample")
    with tempfile.TemporaryDirectory(prefix="simpilot-judging-") as scratch:
        if args.smoke:
            args.imported = args.imported or SMOKE_INPUT
            args.db = args.db or Path(scratch) / "judging.db"
            args.languages = args.languages or SMOKE_LANGUAGES
        judge(args)


def judge(args: argparse.Namespace) -> None:
    """Replay, compare, print and write the results file (see the module's docstring)."""
    db = args.db or args.imported / "judging.db"
    recordings = args.imported / "recordings"
    models = args.models.split(",") if args.models else sorted(p.name for p in recordings.iterdir() if p.is_dir())
    if args.smoke and not args.models:
        models = models[:1]
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
        ReplayOptions(jobs=args.jobs, resume=True),
        run_prefix=args.prefix,
    )
    replayed = time.monotonic() - start

    start = time.monotonic()
    comparisons = [compare_run(db, run_id, COMPARED, jobs=args.jobs) for run_id in run_ids]
    compared = time.monotonic() - start

    store = Store(db)
    try:
        per_run = [[o for o in store.outcomes(run_id, sample=None) if o.postprocess in PRESETS] for run_id in run_ids]
        outcomes = [o for mine in per_run for o in mine]
        within = sum(len({(o.task_id, o.processed) for o in mine}) for mine in per_run)
        tables = {}
        by_language: dict[str, dict[str, ModelComparison]] = {}
        for preset in PRESETS:
            runs, strata = load_model_runs(store, run_ids, preset)
            tables[preset] = compare_models(runs, strata)
            by_language[preset] = {}
            for language in sorted({s["language"] for s in strata.values()}):
                mine = [
                    ModelRun(r.model, r.run_id, {t: v for t, v in r.samples.items() if strata[t]["language"] == language})
                    for r in runs
                ]
                by_language[preset][language] = compare_models(mine, strata, by=())
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
        print(markdown(result))
    print("\n### per model and language, preset none\n")
    print(language_table(by_language[PRESETS[0]]))
    print("\n### presets against none, per model (sample 0, exact McNemar; the steps' fixed / broke on sample 0 and on all samples)\n")
    print(preset_table(comparisons))
    for c in comparisons:
        render(c, err)
    figures = {
        "models": len(models),
        "languages": len(scenarios),
        "jobs": args.jobs,
        "replay_seconds": round(replayed),
        "compare_seconds": round(compared),
        "outcomes": len(outcomes),
        "outcomes_judged": len(judged),
        "model_errors": len(outcomes) - len(judged),
        "executions_within_runs": within,
        "executed": evaluator.executed,
        "verdicts_asked": evaluator.asked,
        "served_from_another_run": evaluator.asked - evaluator.executed,
    }
    model_rows = [
        [m.model, preset, m.tasks, round(100 * m.pass_at_1, 1), round(100 * m.low, 1), round(100 * m.high, 1), round(100 * m.pass_at_n, 1),
         round(100 * m.line0_any, 1), round(m.cosine, 3)]
        for preset, result in tables.items()
        for m in result.models
    ]
    language_rows = [
        [m.model, language, m.tasks, round(100 * m.pass_at_1, 1), round(100 * m.low, 1), round(100 * m.high, 1), round(100 * m.pass_at_n, 1),
         round(100 * m.line0_any, 1), round(m.cosine, 3)]
        for language, result in by_language[PRESETS[0]].items()
        for m in result.models
    ]
    preset_rows = [
        [c.model.rsplit("/", 1)[-1], r.preset, c.rows[0].passed, r.passed, r.n, r.only_this, r.only_first, float(f"{r.p_value:.3g}")]
        for c in comparisons
        for r in c.rows[1:]
    ]
    scores = ["tasks", "pass_at_1", "low", "high", "pass_at_n", "line0_any", "cosine"]
    write_results("judging", args, figures, {
        "models": (["model", "preset", *scores], model_rows),
        "languages": (["model", "language", *scores], language_rows),
        "presets": (["model", "preset", "passed_none", "passed", "tasks", "only_preset", "only_none", "mcnemar_p"], preset_rows),
    })


def language_table(results: dict[str, ModelComparison]) -> str:
    """One row per (model, language): pass@1 with its interval, pass@n, DevBench's line-0 EM
    (any sample) and cosine: each language compared on its own."""
    rows = [
        "| model | language | tasks | pass@1 [95% CI] | pass@5 | line-0 EM, any of 5 (DevBench) | cosine (DevBench) |",
        "|---|---|---:|---|---:|---:|---:|",
    ]
    models = [m.model for m in next(iter(results.values())).models]
    for model in sorted(models):
        for language, result in results.items():
            m = next(x for x in result.models if x.model == model)
            rows.append(
                f"| {model} | {language} | {m.tasks} | {100 * m.pass_at_1:.1f} [{100 * m.low:.1f}–{100 * m.high:.1f}] | "
                f"{100 * m.pass_at_n:.1f} | {100 * m.line0_any:.1f} | {m.cosine:.3f} |"
            )
    return "\n".join(rows)


def preset_table(comparisons) -> str:
    """Per model and preset: its passes against none's on sample 0 with the exact McNemar p, and
    each of its steps' fixed / broke (sample 0; over every sample)."""
    rows = [
        "| model | preset | pass (none → preset) | + / − | McNemar p | steps that changed a verdict: fixed / broke (sample 0; all samples) |"
    ]
    rows.append("|---|---|---|---:|---:|---|")
    for c in comparisons:
        name = c.model.rsplit("/", 1)[-1]
        for r in c.rows[1:]:
            steps = ", ".join(
                f"{s.step} {s.fixed}/{s.broke} ({s.fixed_samples}/{s.broke_samples})"
                for s in c.steps
                if s.language is None and s.preset == r.preset and (s.fixed or s.broke or s.fixed_samples or s.broke_samples)
            )
            rows.append(
                f"| {name} | {r.preset} | {c.rows[0].passed} → {r.passed} of {r.n} | +{r.only_this} / −{r.only_first} | {r.p_value:.3g} | {steps or '—'} |"
            )
    return "\n".join(rows)


if __name__ == "__main__":
    main()
