"""Work copies: a task's code can never leave a trace for the next task, even one that forges
the size and modification time of a file it changed."""

from __future__ import annotations

import sys
from pathlib import Path

from replay.execution.sandbox import Sandbox
from replay.execution.workcopy import WorkCopy
from replay.core.manifest import open_repository

TAMPER = """
import os
TARGET = {target!r}
stat = os.stat(TARGET)
with open(TARGET, "r+b") as f:  # same size, other bytes
    data = f.read()
    f.seek(0)
    f.write(data.replace(b"assert", b"pass;  "[: len(b"assert")]))
os.utime(TARGET, ns=(stat.st_atime_ns, stat.st_mtime_ns))
"""


def test_a_forged_edit_elsewhere_in_the_copy_rebuilds_it(tiny_repo: Path) -> None:
    manifest = open_repository(str(tiny_repo))
    copy = WorkCopy(manifest, Sandbox.create())
    try:
        victim = copy.root / "tests" / "test_stats.py"
        before = victim.read_bytes()
        script = copy.root / "tamper.py"
        with copy.patched("tiny/stats.py", (copy.root / "tiny" / "stats.py").read_bytes()):
            script.write_text(TAMPER.format(target=str(victim)), encoding="utf-8")
            result = Sandbox.create().run([sys.executable, str(script)], copy.root, 30, {})
            assert result.returncode == 0, result.output_tail
            script.unlink()
            assert victim.read_bytes() != before and len(victim.read_bytes()) == len(before)
        assert copy.rebuilds == 1
        assert victim.read_bytes() == before
    finally:
        copy.close()


def test_an_untouched_run_keeps_the_copy(tiny_repo: Path) -> None:
    copy = WorkCopy(open_repository(str(tiny_repo)), Sandbox.create())
    try:
        for _ in range(3):
            with copy.patched("tiny/stats.py", b"# replaced\n"):
                pass
        assert copy.rebuilds == 0
        assert (copy.root / "tiny" / "stats.py").read_bytes() == (tiny_repo / "tiny" / "stats.py").read_bytes()
    finally:
        copy.close()
