"""The sandbox contains what it runs: no network, nothing writable outside the work folder, no
secrets from the environment, and a timeout that takes every child process with it."""

from __future__ import annotations

import os
import shutil
import socket
import sys
import tempfile
import time
from pathlib import Path

import pytest

from replay.execution.sandbox.bubblewrap import Sandbox

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is installed by .ci/setup")


def run(code: str, workdir: Path, timeout: float = 20):
    return Sandbox.create().run([sys.executable, "-c", code], workdir, timeout)


def test_writes_inside_the_work_folder_only(tmp_path: Path) -> None:
    outside = Path.home() / f".simpilot-sandbox-probe-{os.getpid()}"
    code = f"open('inside.txt','w').write('ok')\ntry:\n    open({str(outside)!r},'w').write('x')\n    print('WROTE')\nexcept OSError as e:\n    print('BLOCKED', e.errno)"
    result = run(code, tmp_path)
    assert (tmp_path / "inside.txt").read_text() == "ok"
    assert "BLOCKED" in result.output_tail and not outside.exists()


PROBE = """import socket
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2).close()
    print("CONNECTED")
except OSError as e:
    print("BLOCKED", e)
"""


def test_no_network(tmp_path: Path) -> None:
    """A port that listens on the host's loopback: the same probe reaches it when run bare (so a
    refusal is not the port's doing) and not from inside the sandbox, whose network namespace has
    no way to the host, not even its loopback."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        server.settimeout(5)
        probe = PROBE.format(port=server.getsockname()[1])
        bare = Sandbox.create(unsafe_no_sandbox=True).run([sys.executable, "-c", probe], tmp_path, 20)
        assert "CONNECTED" in bare.output_tail, bare.output_tail
        server.accept()[0].close()  # the control's connection arrived
        boxed = run(probe, tmp_path)
        assert "BLOCKED" in boxed.output_tail and "CONNECTED" not in boxed.output_tail, boxed.output_tail
        server.settimeout(0.5)
        with pytest.raises(TimeoutError):
            server.accept()  # and none from inside the sandbox


def test_secrets_do_not_reach_the_sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    result = run("import os; print(sorted(k for k in os.environ if 'KEY' in k))", tmp_path)
    assert "[]" in result.output_tail


def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    marker = f"{300 + os.getpid() % 1000}.{time.time_ns() % 10**6}"  # a sleep only this test starts
    code = f"import subprocess, time\nsubprocess.Popen(['sleep', '{marker}'], start_new_session=True)\nopen('started','w').close()\ntime.sleep(300)"
    start = time.monotonic()
    result = run(code, tmp_path, timeout=3)
    assert result.timed_out and time.monotonic() - start < 15
    assert (tmp_path / "started").exists()
    time.sleep(0.5)
    leftovers = [p for p in os.listdir("/proc") if p.isdigit() and _cmdline(p) == f"sleep\x00{marker}\x00"]
    assert leftovers == []


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text()
    except OSError:
        return ""


def test_missing_bubblewrap_is_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    from replay.core.errors import SimpilotError

    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(SimpilotError, match="--unsafe-no-sandbox"):
        Sandbox.create()


def test_an_interpreter_in_a_hidden_folder_runs(tmp_path: Path) -> None:
    """A checkout (and its venv) under /tmp or a home folder, which the sandbox hides: what the
    command needs is bound back, a folder and a path inside it included."""
    import venv

    env = tmp_path / "checkout" / ".venv"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(env)
    python = env / "bin" / "python"
    work = tmp_path / "work"
    work.mkdir()
    result = Sandbox.create().run([str(python), "-c", "import sys; print('ran', sys.argv[1])", str(env)], work, 30, {})
    assert result.returncode == 0, result.output_tail
    assert f"ran {env}" in result.output_tail


def test_an_answer_cannot_read_the_ground_truth_on_disk(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """The original file (which holds the hole's ground truth), simpilot's scenarios and its
    results database lie outside the work copy: a run that looks for them finds nothing, while the
    system's programs and the interpreter's own files stay readable. Run bare, the same probe
    reads every one of them, so a refusal is the sandbox's doing."""
    # outside /tmp and the home folders, which a sandbox hides anyway: a folder that only the
    # sandbox's choice of what to show keeps out of sight
    outside = Path(tempfile.mkdtemp(prefix="simpilot-original-", dir="/var/tmp"))
    request.addfinalizer(lambda: shutil.rmtree(outside, ignore_errors=True))
    original = outside / "repository" / "lib.py"
    original.parent.mkdir()
    original.write_text("def answer():\n    return 42  # the ground truth\n")
    checkout = Path(__file__).resolve().parents[1]
    secrets = [str(original), str(checkout / "scenarios"), str(checkout / "README.md"), str(checkout / "tests")]
    probe = (
        "import os, sys\n"
        f"for path in {secrets!r}:\n"
        "    print('SEEN' if os.path.exists(path) else 'ABSENT', path)\n"
        "print('SYSTEM', os.path.exists('/usr/bin/env'), os.path.exists(os.__file__))\n"
    )
    work = tmp_path / "work"
    work.mkdir()
    bare = Sandbox.create(unsafe_no_sandbox=True).run([sys.executable, "-c", probe], work, 30)
    assert bare.output_tail.count("SEEN") == len(secrets), bare.output_tail
    boxed = run(probe, work)
    assert boxed.returncode == 0, boxed.output_tail
    assert "SEEN" not in boxed.output_tail and boxed.output_tail.count("ABSENT") == len(secrets), boxed.output_tail
    assert "SYSTEM True True" in boxed.output_tail, boxed.output_tail
