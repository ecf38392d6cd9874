"""Reference runs: one untouched run per file, covering the union of its tasks' tests, whose time
bounds how long a filled-in run may take."""

from __future__ import annotations

import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest

from replay.config.manifest import RepoCatalog, open_repository
from replay.core.records import Kind, Position, Span, Task
from replay.execution.judge import Evaluator
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.execution.scheduling.references import ReferenceRuns

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is installed by .ci/setup")


class CountingEvaluator(Evaluator):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.calls: list[tuple[str, ...] | None] = []
        self._count_lock = threading.Lock()

    def run_tests(self, manifest, path=None, content=None, tests=None, full_suite=None, timeout=None):
        with self._count_lock:
            self.calls.append(tests)
        return super().run_tests(manifest, path, content, tests, full_suite, timeout)


def _task(path: str, tests: tuple[str, ...] | None, n: int) -> Task:
    at = Position(n, 0)
    return Task(
        id=f"tinyrepo:{path}:{n}", repo="tinyrepo", language="python", path=path, kind=Kind.INFILL, construct="statements",
        block=True, span=Span(0, 0, at, at), indent="", ground_truth="", file_sha256="", lines_removed=1, tests=tests,
    )


def test_one_run_per_file_with_the_union_of_its_tasks_tests(tiny_repo: Path) -> None:
    manifest = open_repository(tiny_repo)
    a = _task("tiny/stats.py", ("tests/test_stats.py::test_mean",), 1)
    b = _task("tiny/stats.py", ("tests/test_stats.py::test_clamp", "tests/test_stats.py::test_mean"), 2)
    with CountingEvaluator(RepoCatalog([manifest]), Sandbox.create(), jobs=2) as evaluator:
        references = ReferenceRuns(evaluator, [a, b])
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(references.get, [a, b, a, b]))
        assert evaluator.calls == [("tests/test_stats.py::test_clamp", "tests/test_stats.py::test_mean")]
        assert len({id(r) for r in results}) == 1 and references.passed(a)
        assert "2 passed" in results[0].output_tail
        took = results[0].duration_s
        assert references.timeout(a, 5, 0.0) == pytest.approx(5 * took)
        assert references.timeout(a, 5, 7.0) == 7.0  # the floor
        assert references.timeout(a, 1e6, 0.0) == manifest.timeout  # the manifest's cap


def test_a_task_without_selected_tests_makes_its_file_run_everything(tiny_repo: Path) -> None:
    manifest = open_repository(tiny_repo)
    a = _task("tiny/stats.py", ("tests/test_stats.py::test_mean",), 1)
    with CountingEvaluator(RepoCatalog([manifest]), Sandbox.create(), jobs=1) as evaluator:
        references = ReferenceRuns(evaluator, [a, replace(a, id="other", tests=None)])
        assert "5 passed" in references.get(a).output_tail
        assert evaluator.calls == [None]


def test_failing_tests_on_the_untouched_code_get_the_manifests_timeout(tiny_repo: Path) -> None:
    (tiny_repo / "tests" / "test_broken.py").write_text("def test_broken():\n    assert False\n")
    manifest = open_repository(tiny_repo)
    a = _task("tiny/stats.py", ("tests/test_broken.py::test_broken",), 1)
    with Evaluator(RepoCatalog([manifest]), Sandbox.create(), jobs=1) as evaluator:
        references = ReferenceRuns(evaluator, [a])
        assert not references.passed(a)
        assert references.timeout(a, 5, 0.0) == manifest.timeout


def test_a_jvm_run_gets_more_cpu_time_before_it_counts_as_a_busy_loop(tiny_repo: Path) -> None:
    """A JVM's CPU time holds the in-memory compilation of the edited file and the JIT's threads,
    over a second on a cold JVM: a Java task's first run, and the rule's floor, give it
    ``REPLAY_MIN_CPU_JVM``; a Python task keeps ``REPLAY_MIN_CPU``."""
    from replay.execution.scheduling.limits import first_limits
    from replay.execution.scheduling.references import REPLAY_MIN_CPU, REPLAY_MIN_CPU_JVM, min_cpu

    python = _task("tiny/core.py", None, 1)
    java = replace(python, language="java", path="src/A.java")
    assert (min_cpu(python), min_cpu(java)) == (REPLAY_MIN_CPU, REPLAY_MIN_CPU_JVM) and REPLAY_MIN_CPU_JVM >= 5.0
    catalog = RepoCatalog([open_repository(tiny_repo)])
    assert (first_limits(catalog, python).cpu, first_limits(catalog, java).cpu) == (REPLAY_MIN_CPU, REPLAY_MIN_CPU_JVM)
