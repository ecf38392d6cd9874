"""How long ``simpilot demo`` takes, and where the time goes. Target: under 3 minutes on 2 cores.

Runs the real command (``python -m replay demo``) in a throw-away folder, as a new user would
after set-up, and prints its wall-clock time, the machine's cores and load, and from the stored
outcomes: verdicts per run, how many were shared (one test run for several presets or runs), and
the timeouts with the test time they cost.

The results file (``benchmarks/results/demo_time.json``) holds ``wall_seconds`` and
``target_seconds``; the table ``runs`` (one row per run the demo stores: its tasks and how many
passed under ``simcopilot``, the preset every demo run has, on the first sample, and the pass rate
in per cent), from which the README's headline table is made; the table ``verdicts`` (every run and
preset: verdicts over all samples, distinct texts, timeouts); and ``devbench_pass_at_1``, the
pass@1 in per cent of each DevBench model the demo replays from DevBench's recordings (the mean
over its samples, as ``simpilot demo`` prints it), raw (``none``) and post-processed.

``--smoke`` runs the same command on a cut-down copy of the bundled scenarios (three tasks of one
repository with a recorded model's answers, two DevBench programs with one recorded model), the
demo's module pointed at it: every stage of the demo runs, in seconds rather than minutes.

    .venv/bin/python benchmarks/demo_time.py [--jobs N] [--smoke] [--results-dir DIR]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.results_file import add_arguments, write_results  # noqa: E402
from replay.core.recordings import read_recording_file, write_recording_file  # noqa: E402
from replay.core.scenarios import read_tasks, write_tasks  # noqa: E402
from replay.reports.model_comparison import compare_models  # noqa: E402
from replay.reports.model_runs import load_model_runs  # noqa: E402
from replay.store import Store  # noqa: E402

TARGET_SECONDS = 180
HEADLINE_PRESET = "simcopilot"  # the preset every run of the demo is judged under
DEVBENCH_PRESETS = ("none", "simcopilot")
DEVBENCH_FIXED = ("demo-devbench-oracle", "demo-devbench-empty")  # the DevBench runs that are not a recorded model

# Runs the command line with the demo's module reading its scenarios from another folder (argv[1]).
SMOKE_BOOT = (
    "import sys\nfrom pathlib import Path\nimport replay.jobs.demo as demo\n"
    "root = Path(sys.argv.pop(1))\ndemo.project_root = lambda: root\n"
    "from replay.cli import main\nmain()\n"
)


def smoke_project(base: Path) -> Path:
    """A folder laid out like the project's ``scenarios/`` with a few of its tasks: three of
    ``lpsolve`` that SmolLM2's recording answers, two DevBench Python programs and one DevBench
    model's recorded answers to them; the repositories are the bundled ones, where they are."""
    scenarios = base / "scenarios"
    source = ROOT / "scenarios"
    answers = read_recording_file(source / "recordings" / "smollm2" / "lpsolve.jsonl")
    answered = {a.task_id for a in answers}
    tasks = [t for t in read_tasks(source / "lpsolve.jsonl") if t.id in answered][:3]
    chosen = {t.id for t in tasks}
    write_tasks(scenarios / "lpsolve.jsonl", tasks)
    (scenarios / "repositories.json").write_text(f'{{"lpsolve": "{ROOT / "repos" / "lpsolve"}"}}\n', encoding="utf-8")
    write_recording_file(scenarios / "recordings" / "smollm2" / "lpsolve.jsonl", [a for a in answers if a.task_id in chosen])

    devbench = scenarios / "devbench"
    programs = read_tasks(source / "devbench" / "devbench-python.jsonl")[:2]
    picked = {t.id for t in programs}
    write_tasks(devbench / "devbench-python.jsonl", programs)
    (devbench / "repositories.json").write_text(
        f'{{"devbench-python": "{ROOT / "repos" / "devbench" / "devbench-python"}"}}\n', encoding="utf-8"
    )
    model = sorted(p for p in (source / "devbench" / "recordings").iterdir() if p.is_dir())[0]
    recorded = [a for a in read_recording_file(model / "devbench-python.jsonl") if a.task_id in picked]
    write_recording_file(devbench / "recordings" / model.name / "devbench-python.jsonl", recorded)
    return base


def run_table(db: Path) -> tuple[list[list[object]], list[list[object]], list[str]]:
    """The ``runs`` and ``verdicts`` rows from the stored outcomes (printed as they are made),
    and the run ids in the order the demo made them."""
    runs_rows: list[list[object]] = []
    verdict_rows: list[list[object]] = []
    with sqlite3.connect(db) as con:
        runs = [r for (r,) in con.execute("SELECT run_id FROM runs ORDER BY created, run_id")]
        for run in runs:
            verdicts, texts = con.execute(
                "SELECT COUNT(*), COUNT(DISTINCT task_id || char(0) || COALESCE(processed, '')) FROM outcomes WHERE run_id=?", (run,)
            ).fetchone()
            timeouts, timeout_time = con.execute(
                "SELECT COUNT(*), COALESCE(SUM(duration_s), 0) FROM outcomes WHERE run_id=? AND status='timeout'", (run,)
            ).fetchone()
            print(f"  {run}: {verdicts} verdicts on {texts} distinct texts; {timeouts} timeouts ({timeout_time:.1f} s of test time)")
            presets = [p for (p,) in con.execute("SELECT DISTINCT postprocess FROM outcomes WHERE run_id=? ORDER BY postprocess", (run,))]
            for preset in presets:
                tasks, passed = con.execute(
                    "SELECT COUNT(*), COALESCE(SUM(status='pass'), 0) FROM outcomes WHERE run_id=? AND postprocess=? AND sample=0",
                    (run, preset),
                ).fetchone()
                n, p_texts, p_timeouts = con.execute(
                    "SELECT COUNT(*), COUNT(DISTINCT task_id || char(0) || COALESCE(processed, '')), COALESCE(SUM(status='timeout'), 0) "
                    "FROM outcomes WHERE run_id=? AND postprocess=?",
                    (run, preset),
                ).fetchone()
                verdict_rows.append([run, preset, tasks, passed, percent(passed, tasks), n, p_texts, p_timeouts])
            headline = HEADLINE_PRESET if HEADLINE_PRESET in presets else presets[0]
            row = next(r for r in verdict_rows if r[0] == run and r[1] == headline)
            runs_rows.append([run, row[2], row[3], row[4]])
    return runs_rows, verdict_rows, runs


def percent(part: int, whole: int) -> float:
    return round(100 * part / whole, 1) if whole else 0.0


def devbench_models(db: Path, run_ids: list[str]) -> list[list[object]]:
    """Each recorded DevBench model's pass@1 (per cent, the mean over its samples) per preset,
    computed as ``simpilot demo`` computes the table it prints."""
    recorded = [r for r in run_ids if r.startswith("demo-devbench-") and r not in DEVBENCH_FIXED]
    if not recorded:
        return []
    rows: list[list[object]] = []
    store = Store(db)
    try:
        for preset in DEVBENCH_PRESETS:
            runs, strata = load_model_runs(store, recorded, preset)
            for model in compare_models(runs, strata, resamples=2_000).models:
                rows.append([model.model, preset, round(100 * model.pass_at_1, 1)])
    finally:
        store.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    add_arguments(parser)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="simpilot-demo-time-") as tmp:
        db = Path(tmp) / "runs" / "simpilot.db"
        command = [sys.executable, "-m", "replay"]
        if args.smoke:
            command = [sys.executable, "-c", SMOKE_BOOT, str(smoke_project(Path(tmp) / "project"))]
        load_before = os.getloadavg()[0]
        start = time.monotonic()
        proc = subprocess.run([*command, "--db", str(db), "demo", "--jobs", str(args.jobs)], cwd=tmp, capture_output=True, text=True)
        wall = time.monotonic() - start
        if proc.returncode != 0:
            sys.exit(f"simpilot demo failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
        load_after = os.getloadavg()[0]
        print(
            f"simpilot demo{' (smoke: a cut-down copy of the scenarios)' if args.smoke else ''}: {wall:.1f} s wall-clock on "
            f"{os.cpu_count()} cores with --jobs {args.jobs} (load average {load_before:.1f} before, {load_after:.1f} after; "
            f"target under {TARGET_SECONDS} s)"
        )
        runs, verdicts, run_ids = run_table(db)
        models = devbench_models(db, run_ids)
    for model, preset, pass_at_1 in models:
        print(f"  DevBench {model}, {preset}: pass@1 {pass_at_1}%")
    figures = {
        "wall_seconds": round(wall, 1),
        "target_seconds": TARGET_SECONDS,
        "jobs": args.jobs,
        "load_before": round(load_before, 1),
        "load_after": round(load_after, 1),
        "runs": len(runs),
        "verdicts": sum(int(row[5]) for row in verdicts),
        "runs_preset": HEADLINE_PRESET,
    }
    tables = {
        "runs": (["run", "tasks", "passed", "pass_rate"], runs),
        "verdicts": (["run", "preset", "tasks", "passed", "pass_rate", "verdicts", "distinct_texts", "timeouts"], verdicts),
        "devbench_pass_at_1": (["model", "preset", "pass_at_1"], models),
    }
    write_results("demo_time", args, figures, tables)


if __name__ == "__main__":
    main()
