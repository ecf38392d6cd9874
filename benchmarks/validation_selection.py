"""Validation time with and without test selection, side by side on the bundled repositories.

Both modes run the whole gate of ``simpilot mark`` on the same candidates (same seed): baseline
runs, then the neutral filler twice per task. *Without selection* every run is the repository's own
test command (``--full-suite``: the whole pytest suite; for Java ``run-tests.sh``, which compiles
everything and runs every test class). *With selection* a run executes only the tests selected for
the hole (coverage contexts for Python, referencing test classes for Java — Java additionally
recompiles just the edited file, in one JVM with the test run); the time to collect coverage
is included. Prints each repository's times, the totals and their ratio.

    .venv/bin/python benchmarks/validation_selection.py [--repos lpsolve btreemap] [--jobs 2]
"""

from __future__ import annotations

import argparse
import time

from replay.config.manifest import RepoCatalog, open_repository, project_root
from replay.core.records import Kind
from replay.execution.judge import Evaluator
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.validation.gate import mark_validated

ALL = ["lpsolve", "minisql", "ordtree", "sparsela", "textindex", "btreemap", "sparsemat", "variates"]


def validate(name: str, full_suite: bool, jobs: int, sandbox: Sandbox, per_kind: int) -> tuple[float, int, int]:
    manifest = open_repository(project_root() / "repos" / name)
    start = time.perf_counter()
    with Evaluator(RepoCatalog([manifest]), sandbox, jobs, full_suite=full_suite) as evaluator:
        marked, report = mark_validated(manifest, evaluator, seed=0, per_kind=per_kind, kinds={Kind.INFILL, Kind.COMPLETION}, jobs=jobs)
    return time.perf_counter() - start, len(marked.tasks), len(report.kept)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", nargs="*", default=ALL)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--per-kind", type=int, default=6)
    args = parser.parse_args()
    sandbox = Sandbox.create()
    totals = {False: 0.0, True: 0.0}
    print(f"{'repository':12} {'candidates':>10} {'full suite':>12} {'kept':>5} {'selected':>10} {'kept':>5} {'ratio':>6}")
    for i, name in enumerate(args.repos):
        # alternate the order so that machine noise does not favour one mode
        order = (True, False) if i % 2 else (False, True)
        timings = {}
        for full in order:
            timings[full] = validate(name, full, args.jobs, sandbox, args.per_kind)
            totals[full] += timings[full][0]
        (tf, n, kf), (ts, _, ks) = timings[True], timings[False]
        print(f"{name:12} {n:>10} {tf:>10.1f} s {kf:>5} {ts:>8.1f} s {ks:>5} {tf / ts:>5.1f}×", flush=True)
    print(f"{'total':12} {'':>10} {totals[True]:>10.1f} s {'':>5} {totals[False]:>8.1f} s {'':>5} {totals[True] / totals[False]:>5.1f}×")


if __name__ == "__main__":
    main()
