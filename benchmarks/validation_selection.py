"""Validation time with and without test selection, side by side on the bundled repositories.

Both modes run the whole gate of ``simpilot mark`` on the same candidates (same seed): baseline
runs, then the neutral filler twice per task. *Without selection* every run is the repository's own
test command (``--full-suite``: the whole pytest suite; for Java ``run-tests.sh``, which compiles
everything and runs every test class). *With selection* a run executes only the tests selected for
the hole (coverage contexts for Python, referencing test classes for Java — Java additionally
recompiles just the edited file, in one JVM with the test run); the time to collect coverage
is included. Prints each repository's times, the totals and their ratio.

The results file holds the totals of both modes and their ratio (``ratio``: full suite / selected)
and the table ``repositories`` (per repository: candidates, each mode's seconds and kept tasks,
the ratio). ``--smoke``: the tests' tiny Python repository, one candidate per kind.

    .venv/bin/python benchmarks/validation_selection.py [--repos lpsolve btreemap] [--jobs 2] [--smoke] [--results-dir DIR]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.results_file import add_arguments, write_results  # noqa: E402
from replay.config.manifest import RepoCatalog, open_repository, project_root  # noqa: E402
from replay.core.records import Kind  # noqa: E402
from replay.execution.judge import Evaluator  # noqa: E402
from replay.execution.sandbox.bubblewrap import Sandbox  # noqa: E402
from replay.validation.gate import mark_validated  # noqa: E402

SMOKE_REPOSITORY = project_root() / "tests" / "data" / "tinyrepo"  # a handful of tests: seconds, not minutes
SMOKE_PER_KIND = 1
ALL = ["lpsolve", "minisql", "ordtree", "sparsela", "textindex", "btreemap", "sparsemat", "variates"]


def validate(name: str, full_suite: bool, jobs: int, sandbox: Sandbox, per_kind: int) -> tuple[float, int, int]:
    """One mode's gate on a bundled repository (by name) or a repository folder."""
    manifest = open_repository(project_root() / "repos" / name if "/" not in name else Path(name))
    start = time.perf_counter()
    with Evaluator(RepoCatalog([manifest]), sandbox, jobs, full_suite=full_suite) as evaluator:
        marked, report = mark_validated(manifest, evaluator, seed=0, per_kind=per_kind, kinds={Kind.INFILL, Kind.COMPLETION}, jobs=jobs)
    return time.perf_counter() - start, len(marked.tasks), len(report.kept)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", nargs="*", default=None, help="names of bundled repositories, or folders [default: every bundled one; tests/data/tinyrepo with --smoke]")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--per-kind", type=int, default=None, help="candidates per kind [default: 6; 1 with --smoke]")
    add_arguments(parser)
    args = parser.parse_args()
    args.repos = args.repos or ([str(SMOKE_REPOSITORY)] if args.smoke else ALL)
    args.per_kind = args.per_kind or (SMOKE_PER_KIND if args.smoke else 6)
    rows = []
    sandbox = Sandbox.create()
    totals = {False: 0.0, True: 0.0}
    print(f"{'repository':12} {'candidates':>10} {'full suite':>12} {'kept':>5} {'selected':>10} {'kept':>5} {'ratio':>6}")
    for i, repo in enumerate(args.repos):
        name = Path(repo).name
        # alternate the order so that machine noise does not favour one mode
        order = (True, False) if i % 2 else (False, True)
        timings = {}
        for full in order:
            timings[full] = validate(repo, full, args.jobs, sandbox, args.per_kind)
            totals[full] += timings[full][0]
        (tf, n, kf), (ts, _, ks) = timings[True], timings[False]
        print(f"{name:12} {n:>10} {tf:>10.1f} s {kf:>5} {ts:>8.1f} s {ks:>5} {tf / ts:>5.1f}×", flush=True)
        rows.append([name, n, round(tf, 1), kf, round(ts, 1), ks, round(tf / ts, 1)])
    ratio = totals[True] / totals[False]
    print(f"{'total':12} {'':>10} {totals[True]:>10.1f} s {'':>5} {totals[False]:>8.1f} s {'':>5} {ratio:>5.1f}×")
    figures = {
        "repositories": len(args.repos),
        "per_kind": args.per_kind,
        "jobs": args.jobs,
        "candidates": sum(row[1] for row in rows),
        "full_suite_seconds": round(totals[True], 1),
        "selected_seconds": round(totals[False], 1),
        "ratio": round(ratio, 1),
    }
    columns = ["repository", "candidates", "full_suite_seconds", "full_suite_kept", "selected_seconds", "selected_kept", "ratio"]
    write_results("validation_selection", args, figures, {"repositories": (columns, rows)})


if __name__ == "__main__":
    main()
