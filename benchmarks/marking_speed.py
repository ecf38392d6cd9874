"""Marking speed: source lines per second of ``mark_repository`` (parse, candidates, selection,
labels and distances; no test runs) on a large generated repository per language, in one process
and with one worker per core (as ``simpilot mark`` runs it), side by side.

The input is made from the bundled repositories' source files, copied into many packages so the
repository is large (``--lines``) while the code stays realistic. Prints lines/s per language;
the target is 50,000 lines/s or more. The figures are wall-clock times, so the load average of
the machine is printed before and after: on a busy machine they mean little.

    .venv/bin/python benchmarks/marking_speed.py [--lines 200000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from replay.config.manifest import load_manifest, project_root
from replay.marking import mark_repository

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
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    workers = max(2, os.cpu_count() or 1)
    base = Path(tempfile.mkdtemp(prefix="simpilot-bench-"))
    print(f"load average before: {os.getloadavg()[0]:.2f}")
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
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
