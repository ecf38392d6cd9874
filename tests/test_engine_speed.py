"""``benchmarks/engine_speed.py`` times each selected test on its own: its timed run of the suite
must name the tests exactly as the tasks' selections name them, or the benchmark stops with
"selected test … was not seen in the timed run of the suite".

The selections come from the coverage run (``replay.validation.selection``), which runs the
repository's own pytest command, so pytest chooses the rootdir and the node ids are relative to
it. A repository whose ``pytest.ini`` sits in ``tests/`` has its ids relative to that folder; the
timed run once forced ``--rootdir .`` and named the same tests ``tests/test_x.py::...``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from replay.config.manifest import open_repository, project_root
from replay.core.records import Kind, Position, Span, Task
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.validation.selection import python_selection

pytestmark = pytest.mark.e2e


def _engine_speed() -> ModuleType:
    """The benchmark script as a module (benchmarks/ is no package)."""
    path = project_root() / "benchmarks" / "engine_speed.py"
    spec = importlib.util.spec_from_file_location("engine_speed", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("engine_speed", module)
    spec.loader.exec_module(module)
    return module


def test_the_timed_suite_names_tests_as_the_selection_does_with_a_pytest_ini_in_tests(tiny_repo: Path) -> None:
    (tiny_repo / "tests" / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    manifest = open_repository(tiny_repo)
    sandbox = Sandbox.create()
    selection = python_selection(manifest, sandbox)
    selected = {test for lines in selection.lines.values() for tests in lines.values() for test in tests}
    assert "test_stats.py::test_mean" in selected  # relative to tests/, where the ini file is

    engine_speed = _engine_speed()
    durations = engine_speed.suite_durations(manifest, sandbox)
    assert selected <= set(durations), sorted(selected - set(durations))
    assert all(seconds >= 0 for seconds in durations.values())

    span = Span(0, 1, Position(0, 0), Position(0, 1))
    task = Task(
        "t", "tinyrepo", "python", "tiny/stats.py", Kind.INFILL, "statements", True, span, "", "x", "", 1, tests=tuple(sorted(selected))
    )
    assert engine_speed.tests_seconds([task], durations) == pytest.approx(sum(durations[t] for t in selected))
