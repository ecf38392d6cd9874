"""How long ``simpilot demo`` takes, and where the time goes. Target: under 3 minutes on 2 cores.

Runs the real command (``python -m replay demo``) in a throw-away folder, as a new user would
after set-up, and prints its wall-clock time, the machine's cores and load, and from the stored
outcomes: verdicts per run, how many were shared (one test run for several presets or runs), and
the timeouts with the test time they cost.

    .venv/bin/python benchmarks/demo_time.py [--jobs N]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="simpilot-demo-time-") as tmp:
        db = Path(tmp) / "runs" / "simpilot.db"
        load_before = os.getloadavg()[0]
        start = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "replay", "--db", str(db), "demo", "--jobs", str(args.jobs)],
                              cwd=tmp, capture_output=True, text=True)
        wall = time.monotonic() - start
        if proc.returncode != 0:
            sys.exit(f"simpilot demo failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
        print(f"simpilot demo: {wall:.1f} s wall-clock on {os.cpu_count()} cores with --jobs {args.jobs} "
              f"(load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after)")
        with sqlite3.connect(db) as con:
            runs = [r for (r,) in con.execute("SELECT run_id FROM runs ORDER BY created, run_id")]
            for run in runs:
                verdicts, texts = con.execute(
                    "SELECT COUNT(*), COUNT(DISTINCT task_id || char(0) || COALESCE(processed, '')) FROM outcomes WHERE run_id=?", (run,)).fetchone()
                timeouts, timeout_time = con.execute(
                    "SELECT COUNT(*), COALESCE(SUM(duration_s), 0) FROM outcomes WHERE run_id=? AND status='timeout'", (run,)).fetchone()
                print(f"  {run}: {verdicts} verdicts on {texts} distinct texts; {timeouts} timeouts ({timeout_time:.1f} s of test time)")


if __name__ == "__main__":
    main()
