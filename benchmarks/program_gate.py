"""The DevBench gate with the warm runners and with a fresh process per program, side by side.

For each language, the same instances go through the program gate (golden completion three
times, the empty answer up to 45: ``repetition.py``) once with the warm runners (Python: a forking server; Java: a resident JVM
compiling in memory; JavaScript: one node process, a worker per run) and once with a fresh
process per program, in alternating order. Prints the wall-clock time of each, the ratio, and
whether the two ways gave every instance the same gate result. Target: warm at least 3x faster.

Some of DevBench's programs spend seconds in ``time.sleep`` or ``setTimeout`` themselves, which no
runner can shorten (both ways let other runs go while they wait: ``admission.py``); so the script
also prints the median time of one program run each way (the run itself, not its wait for a
slot), the totals over the runs that took under half a second both ways (the programs whose cost
is the harness's rather than their own), the longest run (no gate is shorter), the most runs
that went at once, the runs stopped at a limit, how many runners were made, and a timeline of the
runs going and allowed. ``--save DIR`` writes each way's gate result per instance, to compare
runs of the script.

    .venv/bin/python benchmarks/program_gate.py [--folder DEVBENCH] [--languages python,java,javascript]
        [--limit N] [--jobs J] [--provision] [--rounds R] [--save DIR]

``--folder`` defaults to the sample bundled with the tests; ``--limit`` is per category.

The results file holds, per language, both ways' seconds and the ratio (``<language>_warm_seconds``,
``<language>_fresh_seconds``, ``<language>_speedup``), the target speed-up, and the input
(``input``: the folder, relative to the project when it is inside it); the tables ``languages``
(instances, kept, both ways' seconds, speed-up, same results, most runs at once) and ``one_run``
(per language: median of one program run each way, the runs under half a second both ways and
their totals, the longest run). ``--smoke``: Python, one instance per category.

    .venv/bin/python benchmarks/program_gate.py [--smoke] [--results-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.results_file import add_arguments, write_results  # noqa: E402
from replay.config.manifest import RepoCatalog  # noqa: E402
from replay.execution import programs  # noqa: E402
from replay.execution.judge import Evaluator  # noqa: E402
from replay.execution.sandbox.bubblewrap import Sandbox  # noqa: E402
from replay.importers.devbench import read_instances, task_for  # noqa: E402
from replay.jobs.import_devbench import provisioned, write_repository  # noqa: E402
from replay.validation.program_gate import validate_programs  # noqa: E402

TARGET_SPEEDUP = 3
SMOKE_LANGUAGES, SMOKE_LIMIT = "python", 1


class TimedRunner:
    """A runner noting how long each of its runs took (the run itself, not the wait for a slot),
    by (program, source, attempt)."""

    def __init__(self, runner, times: dict[tuple[str, str, int], float], stopped: list[tuple[str, float, bool]]):
        self.runner, self.times, self.stopped = runner, times, stopped

    def run(self, program, timeout, cpu=None):
        start = time.monotonic()
        result = self.runner.run(program, timeout, cpu)
        elapsed = time.monotonic() - start
        attempt = sum(1 for key in list(self.times) if key[:2] == (program.name, program.source))
        self.times[(program.name, program.source, attempt)] = elapsed
        if result.timed_out:
            self.stopped.append((program.name, elapsed, result.busy))
        return result

    def __getattr__(self, name):
        return getattr(self.runner, name)


class Timeline:
    """How many runs went, and how many the admission allowed, sampled every ``EVERY`` seconds."""

    EVERY = 2.0

    def __init__(self, admission):
        self.admission, self.samples, self._done = admission, [], threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._done.wait(self.EVERY):
            self.samples.append((self.admission.running, self.admission.allowed))

    def stop(self) -> None:
        self._done.set()
        self._thread.join()

    def __str__(self) -> str:
        return " ".join(f"{running}/{allowed}" for running, allowed in self.samples)


def gate(language: str, instances: list, folder: Path, environment: Path | None, warm: bool, jobs: int) -> tuple[float, dict, dict, int]:
    manifest = write_repository(folder / f"devbench-{language}", language, instances, environment)
    tasks = [task_for(i)[1] for i in instances]
    times: dict[tuple[str, str, int], float] = {}
    stopped: list[tuple[str, float, bool]] = []
    made = programs.runner
    programs.runner = lambda *args, **kwargs: TimedRunner(made(*args, **kwargs), times, stopped)
    try:
        start = time.monotonic()
        with Evaluator(RepoCatalog([manifest]), Sandbox.create(), jobs, warm=warm) as evaluator:
            timeline = Timeline(evaluator.programs.admission)
            try:
                report = validate_programs(evaluator, tasks, jobs)
            finally:
                timeline.stop()
            most = evaluator.programs.admission.most
            runners = len(evaluator.programs._all)
        elapsed = time.monotonic() - start
    finally:
        programs.runner = made
    results = {t.id: "kept" for t in report.kept} | {d.task.id: d.reason for d in report.dropped}
    longest = sorted(((seconds, key[0]) for key, seconds in times.items()), reverse=True)[:6]
    print(
        f"  {'warm' if warm else 'fresh':5s} {elapsed:6.1f} s; {len(stopped)} runs stopped at a limit "
        f"({sum(busy for _, _, busy in stopped)} for CPU time), {sum(s for _, s, _ in stopped):.1f} s between them; the longest runs: "
        + ", ".join(f"{name} {seconds:.1f} s" for seconds, name in longest)
        + f"; {runners} runners made; runs going / allowed every {Timeline.EVERY:g} s: {timeline}",
        flush=True,
    )
    return elapsed, results, times, most


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", type=Path, default=ROOT / "tests" / "data" / "devbench")
    parser.add_argument("--languages", default=None, help="comma-separated [default: python,java,javascript; python with --smoke]")
    parser.add_argument("--limit", type=int, default=None, help="instances per category (6 categories; 0: all) [default: 5; 1 with --smoke]")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--provision", action="store_true", help="install the programs' packages first (cached)")
    parser.add_argument("--rounds", type=int, default=1, help="gates per way, alternating; the best time is kept")
    parser.add_argument("--save", type=Path, help="write each language's gate results (instance -> kept or reason) here, per way")
    add_arguments(parser)
    args = parser.parse_args()
    args.languages = args.languages or (SMOKE_LANGUAGES if args.smoke else "python,java,javascript")
    if args.limit is None:
        args.limit = SMOKE_LIMIT if args.smoke else 5
    folder = args.folder.resolve()
    figures: dict[str, object] = {
        "input": str(folder.relative_to(ROOT)) if folder.is_relative_to(ROOT) else folder.name,
        "limit_per_category": args.limit or "all",
        "jobs": args.jobs,
        "rounds": args.rounds,
        "provisioned": args.provision,
        "target_speedup": TARGET_SPEEDUP,
        "load_before": round(os.getloadavg()[0], 1),
    }
    language_rows: list[list[object]] = []
    run_rows: list[list[object]] = []
    print(f"{os.cpu_count()} cores, --jobs {args.jobs}, {args.limit} instances per category, load {os.getloadavg()[0]:.1f}")
    for language in args.languages.split(","):
        instances = read_instances(args.folder, [language], limit=args.limit or None)
        environment = provisioned(language, instances)[0] if args.provision else None
        with tempfile.TemporaryDirectory(prefix="simpilot-program-gate-") as tmp:
            times: dict[bool, float] = {}
            verdicts: dict[bool, dict] = {}
            runs_by_way: dict[bool, dict] = {}
            most: dict[bool, int] = {}
            for warm in (True, False) * args.rounds:  # alternate: each way's best
                elapsed, results, run_times, most[warm] = gate(language, instances, Path(tmp), environment, warm, args.jobs)
                times[warm] = min(times.get(warm, elapsed), elapsed)
                verdicts[warm] = results
                if args.save is not None:
                    args.save.mkdir(parents=True, exist_ok=True)
                    (args.save / f"{language}-{'warm' if warm else 'fresh'}.json").write_text(json.dumps(results, indent=0, sort_keys=True))
                runs_by_way[warm] = run_times
        same = sum(verdicts[True][k] == verdicts[False][k] for k in verdicts[True])
        kept = sum(v == "kept" for v in verdicts[True].values())
        runs = len(instances)
        print(
            f"{language:11s} {runs:4d} instances ({kept} kept): warm {times[True]:6.1f} s ({times[True] / runs:.3f} s/instance), "
            f"fresh {times[False]:6.1f} s ({times[False] / runs:.3f} s/instance), warm {times[False] / times[True]:.1f}x faster; "
            f"same gate result for {same}/{runs}; at most {most[True]} / {most[False]} runs at once"
        )
        speedup = times[False] / times[True]
        figures |= {f"{language}_warm_seconds": round(times[True], 1), f"{language}_fresh_seconds": round(times[False], 1),
                    f"{language}_speedup": round(speedup, 1), f"{language}_instances": runs, f"{language}_same": same}
        language_rows.append([language, runs, kept, round(times[True], 1), round(times[False], 1), round(speedup, 1), same, most[True], most[False]])
        common = sorted(set(runs_by_way[True]) & set(runs_by_way[False]))
        if common:
            warm_runs = [runs_by_way[True][k] for k in common]
            fresh_runs = [runs_by_way[False][k] for k in common]
            quick = [(w, f) for w, f in zip(warm_runs, fresh_runs, strict=True) if w < 0.5 and f < 0.5]
            quick_warm, quick_fresh = sum(w for w, _ in quick), sum(f for _, f in quick)
            print(
                f"{'':11s} one run: median warm {statistics.median(warm_runs) * 1000:.0f} ms, fresh {statistics.median(fresh_runs) * 1000:.0f} ms "
                f"({statistics.median(fresh_runs) / max(statistics.median(warm_runs), 1e-9):.1f}x); "
                f"{len(quick)}/{len(common)} runs under 0.5 s both ways: warm {quick_warm:.1f} s, fresh {quick_fresh:.1f} s "
                f"({quick_fresh / max(quick_warm, 1e-9):.1f}x); the other runs: warm {sum(warm_runs) - quick_warm:.1f} s, "
                f"fresh {sum(fresh_runs) - quick_fresh:.1f} s; the longest run: warm {max(warm_runs):.1f} s, fresh {max(fresh_runs):.1f} s"
            )
            run_rows.append([
                language, len(common), round(statistics.median(warm_runs) * 1000), round(statistics.median(fresh_runs) * 1000),
                len(quick), round(quick_warm, 1), round(quick_fresh, 1), round(max(warm_runs), 1), round(max(fresh_runs), 1),
            ])
    tables = {
        "languages": (["language", "instances", "kept", "warm_seconds", "fresh_seconds", "speedup", "same", "most_warm", "most_fresh"], language_rows),
        "one_run": (["language", "runs", "median_warm_ms", "median_fresh_ms", "quick_runs", "quick_warm_seconds", "quick_fresh_seconds",
                     "longest_warm_seconds", "longest_fresh_seconds"], run_rows),
    }
    write_results("program_gate", args, figures, tables)


if __name__ == "__main__":
    main()
