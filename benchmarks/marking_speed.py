"""Marking speed: source lines per second of ``mark_repository`` (parse, candidates, selection,
labels and distances; no test runs) on a large generated repository per language, in one process
and with one worker per core (as ``simpilot mark`` runs it), side by side.

The input is made from the bundled repositories' source files, copied into many packages so the
repository is large (``--lines``) while the code stays realistic. Prints lines/s per language;
the target is 50,000 lines/s or more. The figures are wall-clock times, so the load average of
the machine is printed before and after: on a busy machine they mean little.

The results file holds lines per second per language, in one process and with one worker per
core (``<language>_lines_per_second_1``, ``<language>_lines_per_second_<workers>``), the target,
and the table ``languages`` (lines, files, tasks, workers, seconds, lines/s). ``--smoke``: about
5,000 lines per language, one round.

    .venv/bin/python benchmarks/marking_speed.py [--lines 200000] [--repeat 3] [--smoke] [--results-dir DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.results_file import add_arguments, write_results  # noqa: E402
from replay.config.manifest import load_manifest, project_root  # noqa: E402
from replay.marking import mark_repository  # noqa: E402

TARGET_LINES_PER_SECOND = 50_000
SMOKE_LINES, SMOKE_REPEAT = 5_000, 1

BUNDLED = {"python": ["lpsolve", "minisql", "ordtree", "sparsela", "textindex"], "java": ["btreemap", "sparsemat", "variates"]}


def generate(language: str, target_lines: int, base: Path) -> Path:
    """A repository of at least ``target_lines`` source lines, built from the bundled sources."""
    repo = base / f"big-{language}"
    src = repo / "src"
    files = []
    for name in BUNDLED[language]:
        manifest = load_manifest(project_root() / "repos" / name / "simpilot.toml")
        files += [(manifest.root / p).read_text() for p in manifest.source_files()]
    lines, copy = 0, 0
    while lines < target_lines:
        for i, text in enumerate(files):
            if language == "python":
                (src / f"pkg{copy}").mkdir(parents=True, exist_ok=True)
                (src / f"pkg{copy}" / f"mod{i}.py").write_text(text)
            else:
                folder = src / f"p{copy}"
                folder.mkdir(parents=True, exist_ok=True)
                (folder / f"F{i}.java").write_text(text)
            lines += text.count("\n")
        copy += 1
    (repo / "tests").mkdir()
    (repo / "simpilot.toml").write_text(
        f'[repository]\nname = "big-{language}"\nlanguage = "{language}"\nsources = ["src"]\ntests = ["tests"]\ntest_command = ["true"]\n'
    )
    return repo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=None, help="[default: 200000; 5000 with --smoke]")
    parser.add_argument("--repeat", type=int, default=None, help="[default: 3; 1 with --smoke]")
    add_arguments(parser)
    args = parser.parse_args()
    args.lines = args.lines or (SMOKE_LINES if args.smoke else 200_000)
    args.repeat = args.repeat or (SMOKE_REPEAT if args.smoke else 3)
    workers = max(2, os.cpu_count() or 1)
    load_before = os.getloadavg()[0]
    figures: dict[str, object] = {"target_lines_per_second": TARGET_LINES_PER_SECOND, "repeat": args.repeat, "workers": workers}
    rows = []
    base = Path(tempfile.mkdtemp(prefix="simpilot-bench-"))
    print(f"load average before: {load_before:.2f}")
    try:
        for language in ("python", "java"):
            repo = generate(language, args.lines, base)
            manifest = load_manifest(repo / "simpilot.toml")
            best = {1: float("inf"), workers: float("inf")}
            for _ in range(args.repeat):
                for n in best:  # alternate, so that machine noise hits both alike
                    start = time.perf_counter()
                    result = mark_repository(manifest, seed=0, workers=n)
                    best[n] = min(best[n], time.perf_counter() - start)
            print(f"{language:6} {result.lines:>8,} lines in {result.files:>4} files, {len(result.tasks):>6,} tasks (best of {args.repeat}):")
            for n, seconds in best.items():
                print(f"       {n} worker(s): {seconds:6.2f} s = {result.lines / seconds:>9,.0f} lines/s")
                rows.append([language, result.lines, result.files, len(result.tasks), n, round(seconds, 2), round(result.lines / seconds)])
                figures[f"{language}_lines_per_second_{n}"] = round(result.lines / seconds, -2)
            figures[f"{language}_lines"] = result.lines
    finally:
        shutil.rmtree(base, ignore_errors=True)
    load_after = os.getloadavg()[0]
    print(f"load average after: {load_after:.2f}")
    figures |= {"load_before": round(load_before, 1), "load_after": round(load_after, 1)}
    columns = ["language", "lines", "files", "tasks", "workers", "seconds", "lines_per_second"]
    write_results("marking_speed", args, figures, {"languages": (columns, rows)})


if __name__ == "__main__":
    main()
