"""An answer whose test allocates past the sandbox's memory limit, run for real (bubblewrap, the
warm pytest server, the limits' rule of the replay) and stored: its outcome is ``out_of_memory``,
never a timeout, whether the allocation fails at the address-space limit (a ``MemoryError``) or
the memory cgroup's out-of-memory killer ends the processes that hold the memory (as root, where
the sandbox has cgroups of its own)."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from replay.config.manifest import RepoCatalog, open_repository
from replay.core.records import Status, Task
from replay.execution.judge import Evaluator
from replay.execution.sandbox.bubblewrap import Limits, Sandbox
from replay.execution.sandbox.cgroups import parents
from replay.execution.scheduling.limits import judge_here
from replay.execution.scheduling.references import ReferenceRuns
from replay.run.pipeline import outcome
from replay.store import Store

from ..conftest import tiny_scenario

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is installed by .ci/setup"),
]

MEMORY = 320 << 20  # the sandbox's memory limit here: the address space of each process, and all together
# One allocation past the address-space limit: Python raises MemoryError
ONE_BLOCK = "block = bytearray(1 << 30)"
# Four processes each within the address-space limit (120 MB each), together past the memory
# cgroup's: its out-of-memory killer ends some (SIGKILL), and the test fails on what is left
FOUR_PROCESSES = """
import os, time
children = []
for _ in range(4):
    pid = os.fork()
    if pid == 0:
        try:
            blocks = []
            for _ in range(15):
                block = bytearray(8 << 20)
                for i in range(0, len(block), 4096):
                    block[i] = 1
                blocks.append(block)
            time.sleep(5)
        finally:
            os._exit(0)
    children.append(pid)
codes = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children]
raise RuntimeError(f'children ended with {codes}')
"""


def _memory_cgroup() -> bool:
    return os.geteuid() == 0 and any("memory" in controllers for _, controllers in parents())


def _answer(task: Task, code: str) -> str:
    """``code`` run where the hole is (through ``exec`` with globals of its own, so it fits any
    statement hole and its comprehensions see its imports), then the hole's own code."""
    return f"exec({code!r}, {{}})\n{task.indent}{task.ground_truth}"


@pytest.mark.parametrize(
    ("code", "oom_killer"),
    [(ONE_BLOCK, False), (FOUR_PROCESSES, True)],
    ids=["MemoryError at the address-space limit", "the memory cgroup's OOM killer"],
)
@pytest.mark.slow
def test_a_test_allocating_past_the_memory_limit_is_stored_as_out_of_memory(
    tiny_repo: Path, tmp_path: Path, code: str, oom_killer: bool
) -> None:
    if oom_killer and not _memory_cgroup():
        pytest.skip("the sandbox gets a memory cgroup of its own only as root, where one can be made")
    tasks, _ = tiny_scenario(tiny_repo, tmp_path, per_kind=10)
    # a statement in mean(), which every test file's first test calls
    task = next(t for t in tasks if t.block and t.path == "tiny/stats.py" and t.span.start.line in range(10, 16))
    text = _answer(task, code)
    sandbox = Sandbox.create(limits=Limits(memory_bytes=MEMORY))
    with Evaluator(RepoCatalog([open_repository(tiny_repo)]), sandbox, jobs=1) as evaluator:
        assert judge_here(evaluator, ReferenceRuns(evaluator, [task]), task, task.ground_truth).status is Status.PASS
        verdict = judge_here(evaluator, ReferenceRuns(evaluator, [task]), task, text)
    db = tmp_path / "runs.db"
    store = Store(db)
    try:
        store.add_outcome("oom", outcome(task, "none", text, (), verdict))
        (stored,) = store.outcomes("oom")
    finally:
        store.close()
    with sqlite3.connect(db) as con:
        (status,) = con.execute("SELECT status FROM outcomes WHERE run_id='oom'").fetchone()
    assert status == "out_of_memory" and stored.status is Status.OUT_OF_MEMORY, (verdict.status, verdict.detail, verdict.output_tail[-600:])
    assert "ran out of memory" in stored.detail
    assert ("out-of-memory killer" in stored.detail) == oom_killer
    assert verdict.proven  # a failure the gate may count: the test's own failed result, or the kernel's count
