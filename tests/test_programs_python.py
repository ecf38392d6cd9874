"""The Python program harness: a pass is a program that ran to its end, proven through the
channel; warm (forking server) and fresh runs agree."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from replay.execution.programs import PROGRAM_TEST, Program
from replay.execution.programs.python import PythonRunner, imported, imported_modules, needs, shared_imports
from replay.execution.programs.runs import classify_program, program_shortfall
from replay.execution.sandbox.bubblewrap import Sandbox

pytestmark = pytest.mark.e2e


@pytest.fixture(params=[True, False], ids=["warm", "fresh"], scope="module")
def runner(request: pytest.FixtureRequest) -> Iterator[PythonRunner]:
    made = PythonRunner(Sandbox.create(), None, warm=request.param)
    yield made
    made.close()


def verdict(runner: PythonRunner, source: str, timeout: float = 20.0, cpu: float | None = None) -> tuple[str, str]:
    result = runner.run(Program("python", "programs/x/1.py", source), timeout, cpu)
    gap = program_shortfall(result)
    if gap is None:
        assert result.proof is not None and result.proof.outcomes == {PROGRAM_TEST: "passed"}
        return "pass", ""
    status, detail = classify_program(result, "answer", gap)
    return status.value, detail


def test_a_program_that_runs_to_its_end_passes(runner: PythonRunner) -> None:
    assert verdict(runner, "import json\nx = json.loads('[1, 2]')\nassert sum(x) == 3\n") == ("pass", "")


def test_a_failed_assertion_is_a_failure_with_its_class(runner: PythonRunner) -> None:
    status, detail = verdict(runner, "x = 2\nassert x == 3, 'expected 3'\n")
    assert status == "fail" and detail == "AssertionError: expected 3"


@pytest.mark.parametrize("exit_call", ["import sys; sys.exit(0)", "import os; os._exit(0)", "raise SystemExit"])
def test_leaving_before_the_checks_is_never_a_pass(runner: PythonRunner, exit_call: str) -> None:
    status, _ = verdict(runner, f"{exit_call}\nassert False\n")
    assert status == "tests_not_run"


def test_errors_are_classified(runner: PythonRunner) -> None:
    assert verdict(runner, "print(undefined_thing)\n")[0] == "undefined_name"
    assert verdict(runner, "import missing_module_xyz\n") == ("runtime_error", "ModuleNotFoundError: No module named 'missing_module_xyz'")
    assert verdict(runner, "def f(:\n")[0] == "syntax_error"


def test_forged_records_do_not_count(runner: PythonRunner) -> None:
    forged = (
        'import os\nfor fd in range(3, 20):\n    try: os.write(fd, b\'x\\t{"event": "end"}\\n\')\n    except OSError: pass\nos._exit(0)\n'
    )
    assert verdict(runner, forged)[0] == "tests_not_run"


def test_a_busy_loop_stops_at_its_cpu_budget(runner: PythonRunner) -> None:
    assert verdict(runner, "while True:\n    pass\n", timeout=30, cpu=1)[0] == "timeout"


def test_nothing_a_run_writes_is_left_for_the_next(runner: PythonRunner) -> None:
    assert verdict(runner, "open('left.txt', 'w').write('x')\nimport os\nassert os.listdir('.') == ['main.py', 'left.txt'] or True\n") == (
        "pass",
        "",
    )
    assert verdict(runner, "import os\nassert sorted(os.listdir('.')) == ['main.py'], os.listdir('.')\n") == ("pass", "")


def test_the_program_runs_as_main_with_its_own_argv(runner: PythonRunner) -> None:
    source = "import sys, os\nassert __name__ == '__main__'\nassert sys.argv[0].endswith('main.py')\nassert os.getcwd() == os.path.dirname(os.path.abspath(__file__))\n"
    assert verdict(runner, source) == ("pass", "")


def test_needs_names_pypi_projects_not_the_standard_library() -> None:
    source = "import os, numpy as np\nfrom cv2 import imread\nimport torch\nfrom . import sibling\nimport requests.adapters\n"
    assert imported(source) == {"os", "numpy", "cv2", "torch", "requests"}
    assert needs([source]) == ["numpy", "opencv-python-headless", "requests"]


def test_a_server_may_preload_submodules_by_their_dotted_names() -> None:
    source = "import matplotlib.pyplot as plt, os\nfrom scipy import stats as st, optimize\nfrom . import sibling\nfrom .mod import x\n"
    assert imported_modules(source) == {"matplotlib", "matplotlib.pyplot", "os", "scipy", "scipy.stats", "scipy.optimize"}
    sources = ["import matplotlib.pyplot as plt\n"] * 3 + ["from matplotlib import pyplot\n"] * 2 + ["import matplotlib\n"]
    assert shared_imports(sources) == {"matplotlib", "matplotlib.pyplot"}  # six programs import it, five the submodule


def test_warm_and_fresh_agree_on_bundled_instances(tmp_path: Path) -> None:
    from replay.core.programs import join
    from replay.importers.devbench import read_instances, task_for

    instances = read_instances(Path(__file__).parent / "data" / "devbench", ["python"], limit=2)
    runners = [PythonRunner(Sandbox.create(), None, warm=w) for w in (True, False)]
    try:
        for instance in instances:
            text, _ = task_for(instance)
            source = join(text, instance.assertions) if instance.assertions.strip() else text
            got = [verdict(r, source) for r in runners]
            assert got[0] == got[1], (instance.category, instance.id, got)
    finally:
        for r in runners:
            r.close()


def test_a_prepared_server_preloads_what_several_programs_share_and_never_restarts() -> None:
    sources = [f"import json\nimport os\nx{n} = 1\n" for n in range(5)] + ["import csv\nimport json\n"]
    assert shared_imports(sources) == {"json", "os"}  # csv: one program of six
    assert shared_imports(sources[-2:]) == {"csv", "json", "os"}  # fewer programs than SHARED_BY: all of it
    made = PythonRunner(Sandbox.create(), None, warm=True)
    try:
        made.prepare(sources)
        assert verdict(made, "import csv, json\nassert csv.QUOTE_ALL is not None\n") == ("pass", "")  # imported by the run
        assert made.preloaded == {"json", "os"} and made.server is not None and made.server.starts == 1
    finally:
        made.close()


def test_a_prepared_runner_forks_programs_using_preloaded_packages_from_a_server_of_their_own() -> None:
    """Forking a server that has numpy loaded costs every run; programs that use none of the
    preloaded packages are forked from a server with only the standard library's modules."""
    sources = ["import json\nimport numpy as np\n"] * 5
    made = PythonRunner(Sandbox.create(), None, warm=True)
    try:
        made.prepare(sources)
        assert made.expected == {"json", "numpy"}
        assert verdict(made, "import json\nassert json.dumps(1) == '1'\n") == ("pass", "")
        assert made.server is not None and made.full is None and made.preloaded == {"json"}
        assert verdict(made, "import numpy as np\nassert int(np.arange(3).sum()) == 3\n") == ("pass", "")
        assert made.full is not None and made.full.starts == 1 and made.server.starts == 1
    finally:
        made.close()
