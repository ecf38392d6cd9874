"""The warm pytest server runs each test run as a fresh ``python -m pytest`` would: it sees the
copy's files as they are now, keeps nothing of one run in the next, stops a run at its timeout
without dying, survives a run that kills it, and leaves no process behind."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from replay.execution.runners.warm import PytestServer, pytest_args
from replay.execution.sandbox.bubblewrap import Sandbox

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is installed by .ci/setup")

ENV = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
ARGS = ["-q", "-p", "no:cacheprovider", "tests"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "calc.py").write_text("def double(x):\n    return 2 * x\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(
        "from pkg import calc\n\n"
        "def test_double():\n    assert calc.double(2) == 4\n\n"
        "def test_fresh_module():\n    assert not hasattr(calc, 'touched')\n    calc.touched = True\n"
    )
    return tmp_path


@pytest.fixture
def server(repo: Path):
    server = PytestServer(Sandbox.create(), repo, ENV)
    yield server
    server.close()


def test_each_run_sees_the_files_as_they_are_now_and_starts_fresh(server: PytestServer, repo: Path) -> None:
    first = server.run(ARGS, {}, 20)
    assert first.returncode == 0 and "2 passed" in first.output_tail
    # a module-level change made by the first run is gone: every run imports the code anew
    again = server.run(ARGS, {}, 20)
    assert again.returncode == 0 and "2 passed" in again.output_tail
    # same size and modification time as the original: only the content tells them apart
    calc = repo / "pkg" / "calc.py"
    stat = calc.stat()
    calc.write_text("def double(x):\n    return 3 * x\n")
    os.utime(calc, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    broken = server.run(ARGS, {}, 20)
    assert broken.returncode == 1 and "test_double" in broken.output_tail
    assert server.starts == 1


def test_environment_of_a_run_reaches_the_tests_only_for_that_run(server: PytestServer, repo: Path) -> None:
    (repo / "tests" / "test_env.py").write_text("import os\n\ndef test_env():\n    assert os.environ.get('PROBE') == 'yes'\n")
    assert server.run(ARGS, {"PROBE": "yes"}, 20).returncode == 0
    assert server.run(ARGS, {}, 20).returncode == 1


def test_a_run_past_its_timeout_is_killed_and_the_server_goes_on(server: PytestServer, repo: Path) -> None:
    (repo / "tests" / "test_loop.py").write_text("def test_loop():\n    while True:\n        pass\n")
    start = time.monotonic()
    result = server.run(ARGS, {}, 2)
    assert result.timed_out and time.monotonic() - start < 10
    (repo / "tests" / "test_loop.py").unlink()
    assert server.run(ARGS, {}, 20).returncode == 0
    assert server.starts == 1


def test_a_busy_loop_is_stopped_by_its_cpu_budget_and_sleeping_is_not(server: PytestServer, repo: Path) -> None:
    """The CPU budget stops code that computes forever, long before the wall-clock limit; code
    that waits spends no CPU time and runs to its end."""
    (repo / "tests" / "test_loop.py").write_text("def test_loop():\n    while True:\n        pass\n")
    busy = server.run(ARGS, {}, 60, cpu=1)
    assert busy.timed_out and busy.busy and busy.cpu_s is not None and busy.cpu_s > 0.5
    (repo / "tests" / "test_loop.py").write_text("import time\n\ndef test_wait():\n    time.sleep(1.5)\n")
    waited = server.run(ARGS, {}, 60, cpu=1)
    assert waited.returncode == 0 and not waited.busy and waited.cpu_s < 1
    assert server.starts == 1  # the server itself goes on


def test_a_run_that_kills_the_server_is_reported_and_the_next_run_gets_a_new_one(server: PytestServer, repo: Path) -> None:
    (repo / "tests" / "test_kill.py").write_text("import os, signal\n\ndef test_kill():\n    os.kill(os.getppid(), signal.SIGKILL)\n")
    result = server.run(ARGS, {}, 20)
    assert result.returncode != 0 and not result.timed_out
    (repo / "tests" / "test_kill.py").unlink()
    assert server.run(ARGS, {}, 20).returncode == 0
    assert server.starts == 2


def test_no_process_outlives_its_run(server: PytestServer, repo: Path) -> None:
    marker = repo / "late.txt"
    (repo / "late.py").write_text(f"import time\ntime.sleep(1.5)\nopen({str(marker)!r}, 'w').write('x')\n")
    (repo / "tests" / "test_daemon.py").write_text(
        "import subprocess, sys\n\ndef test_daemon():\n    subprocess.Popen([sys.executable, 'late.py'], start_new_session=True)\n"
    )
    assert server.run(ARGS, {}, 20).returncode == 0
    time.sleep(3)
    assert not marker.exists()


def test_only_this_interpreter_running_pytest_as_a_module_is_served() -> None:
    assert pytest_args([sys.executable, "-m", "pytest", "-q", "tests"]) == ["-q", "tests"]
    assert pytest_args(["pytest", "-q"]) is None
    assert pytest_args(["/other/python", "-m", "pytest"]) is None


def test_scratch_places_are_emptied_after_each_run(server: PytestServer, repo: Path) -> None:
    """What a run leaves in the sandbox's /tmp or /dev/shm is gone before the next run; a name of
    the harness's own there is reported as tampering."""
    (repo / "tests" / "test_plant.py").write_text(
        "import os\n\n"
        "def test_plant():\n"
        "    seen = sorted(os.listdir('/tmp')) + sorted(os.listdir('/dev/shm'))\n"
        "    os.makedirs('/tmp/deep/er', exist_ok=True)\n"
        "    open('/tmp/deep/er/file', 'w').write('x')\n"
        "    os.chmod('/tmp/deep', 0)\n"
        "    open('/dev/shm/left', 'w').write('x')\n"
        "    assert 'deep' not in seen and 'left' not in seen, seen\n"
    )
    args = ["-q", "-p", "no:cacheprovider", "tests/test_plant.py"]
    first = server.run(args, {}, 20)
    assert first.returncode == 0, first.output_tail
    again = server.run(args, {}, 20)
    assert again.returncode == 0, again.output_tail  # it did not see the first run's files
    assert server.starts == 1  # emptied, not replaced
    (repo / "tests" / "test_plant.py").write_text("def test_plant():\n    open('/tmp/simpilot-rewritten', 'w').write('x')\n")
    planted = server.run(args, {}, 20)
    assert planted.proof is not None and planted.proof.tampered == ("planted-scratch /tmp/simpilot-rewritten",)


def test_a_run_leaving_ipc_objects_gets_a_new_sandbox(server: PytestServer, repo: Path) -> None:
    (repo / "tests" / "test_ipc.py").write_text(
        "import ctypes\n\ndef test_ipc():\n    assert ctypes.CDLL(None).shmget(0, 4096, 0o1600) >= 0\n"  # IPC_PRIVATE | IPC_CREAT
    )
    args = ["-q", "-p", "no:cacheprovider", "tests/test_ipc.py"]
    assert server.run(args, {}, 20).returncode == 0
    assert server.proc is None  # replaced before the next run
    assert server.run(args, {}, 20).returncode == 0 and server.starts == 2
