"""The results file every benchmark writes: what it measured, and when, where and at which commit.

The documentation quotes measured figures only from these files (``docs/hooks/figures.py`` puts
them into the pages at build time, and ``tests/test_docs_figures.py`` fails when a page quotes a
figure that no results file holds), so each file names the script that wrote it, its arguments,
the date, the commit (and whether the tree had changes) and the machine.

A file is ``benchmarks/results/<name>.json``::

    {"script": "benchmarks/demo_time.py", "argv": [...], "date": "2026-11-28T16:30:00+00:00",
     "commit": "48ea215...", "dirty": false, "smoke": false,
     "machine": {"cores": 2, "cpu": "...", "memory_gib": 23.4, "system": "Linux 6.1", "python": "3.11.2"},
     "figures": {"wall_seconds": 122.5, ...},
     "tables": {"runs": {"columns": ["run", "verdicts"], "rows": [["oracle", 564]]}}}

``figures`` maps a name to a number or a short string, rounded as the documentation should quote
it; ``tables`` holds whole tables. A smoke run (``--smoke``: a tiny input, so that CI keeps every
script working) writes to a temporary folder unless told where, never over the real results.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The two options every benchmark takes: ``--smoke`` and ``--results-dir``."""
    parser.add_argument("--smoke", action="store_true",
                        help="a quick run on a tiny input, to check that the script still works; its results are not the real ones")
    parser.add_argument("--results-dir", type=Path, default=None,
                        help="where to write the results file (default: benchmarks/results, or a temporary folder with --smoke)")


def machine() -> dict[str, Any]:
    """The machine, as a reader needs it to weigh a figure: cores, processor, memory, system, Python."""
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory_gib = None
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
        memory_gib = round(pages * size / 2**30, 1)
    except (ValueError, OSError):
        pass
    return {"cores": os.cpu_count(), "cpu": cpu, "memory_gib": memory_gib,
            "system": f"{platform.system()} {platform.release()}", "python": platform.python_version()}


def commit() -> tuple[str | None, bool]:
    """The commit of the working tree, and whether it had uncommitted changes to tracked files
    (results files aside: they are what benchmarks write, not what they measure)."""
    def git(*args: str) -> str | None:
        try:
            proc = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return proc.stdout.strip() if proc.returncode == 0 else None
    head = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)benchmarks/results")
    return head, bool(status)


def results_dir(args: argparse.Namespace) -> Path:
    """Where this run's results file goes (see ``add_arguments``)."""
    if args.results_dir is not None:
        return Path(args.results_dir)
    if args.smoke:
        import tempfile
        return Path(tempfile.mkdtemp(prefix="simpilot-bench-smoke-"))
    if "PYTEST_CURRENT_TEST" in os.environ:  # a test's run would write over the measured results
        raise SystemExit("a benchmark run from a test writes its results with --results-dir or --smoke, never into benchmarks/results")
    return RESULTS


def write_results(name: str, args: argparse.Namespace, figures: Mapping[str, Any],
                  tables: Mapping[str, tuple[Sequence[str], Sequence[Sequence[Any]]]] | None = None) -> Path:
    """Write ``<results dir>/<name>.json`` with the provenance above, and return its path."""
    head, dirty = commit()
    script = Path(sys.argv[0]).resolve()
    try:
        script_name = str(script.relative_to(ROOT))
    except ValueError:
        script_name = script.name
    record = {
        "script": script_name,
        "argv": sys.argv[1:],
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": head,
        "dirty": dirty,
        "smoke": bool(getattr(args, "smoke", False)),
        "machine": machine(),
        "figures": dict(figures),
        "tables": {key: {"columns": list(columns), "rows": [list(row) for row in rows]}
                   for key, (columns, rows) in (tables or {}).items()},
    }
    folder = results_dir(args)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    print(f"results: {path}")
    return path
