"""Running untrusted code: the one place that starts a process on model-written code.

Policy (this *is* a security boundary, unlike evalplus's guard):

* bubblewrap gives the process a read-only view of the whole system, a private ``/tmp``, a
  writable work folder and nothing else writable; no network (``--unshare-net``); its own PID
  namespace, so when the sandbox's first process dies every process it started dies with it;
* ``prlimit`` caps CPU seconds, address space, file size and process count;
* a wall-clock timeout kills the whole process group;
* the environment is rebuilt from scratch, so secrets in the caller's environment never reach it;
* output goes to a file (not a pipe held in memory) and only its tail is kept.

Without bubblewrap, model output is not run unless the caller explicitly chose
``unsafe_no_sandbox`` (``--unsafe-no-sandbox`` on the command line).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import SimpilotError

TAIL_BYTES = 4000


@dataclass(frozen=True, slots=True)
class Limits:
    cpu_seconds: int = 300
    memory_bytes: int = 4 << 30
    file_bytes: int = 256 << 20
    processes: int = 512


@dataclass(frozen=True, slots=True)
class ProcessResult:
    returncode: int
    timed_out: bool
    duration_s: float
    output_tail: str


@dataclass(frozen=True, slots=True)
class Sandbox:
    """How to run a command in a work folder. ``enabled=False`` runs it bare (unsafe)."""

    enabled: bool = True
    limits: Limits = Limits()
    prlimit: bool = True  # looked up once here, not on every test run

    @classmethod
    def create(cls, unsafe_no_sandbox: bool = False, limits: Limits | None = None) -> Sandbox:
        has_prlimit = shutil.which("prlimit") is not None
        if unsafe_no_sandbox:
            return cls(enabled=False, limits=limits or Limits(), prlimit=has_prlimit)
        if shutil.which("bwrap") is None:
            raise SimpilotError(
                "bubblewrap (bwrap) is not installed, and simpilot runs model-written code only inside it: "
                "install it (Debian/Ubuntu: apt-get install bubblewrap) or pass --unsafe-no-sandbox to run unprotected"
            )
        return cls(enabled=True, limits=limits or Limits(), prlimit=has_prlimit)

    def argv(self, command: list[str], workdir: Path, cpu_limit: bool = True) -> list[str]:
        """The command line running ``command`` confined to ``workdir``. ``cpu_limit=False`` is
        for resident servers, which outlive many runs: they limit each run's CPU themselves."""
        limits = self.limits
        prefix = [
            "prlimit",
            f"--cpu={limits.cpu_seconds if cpu_limit else 'unlimited'}",
            f"--as={limits.memory_bytes}",
            f"--fsize={limits.file_bytes}",
            f"--nproc={limits.processes}",
            "--",
        ] if self.prlimit else []
        if not self.enabled:
            return prefix + command
        wd = str(workdir)
        args = [
            "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
        ]
        # Interpreters that live under /tmp (a venv made there) must stay visible under the tmpfs,
        # and so must simpilot's own code: the tests' interpreter loads its pytest plugin.
        own_code = str(Path(__file__).resolve().parents[2])
        for keep in sorted({sys.prefix, sys.base_prefix, os.path.dirname(sys.executable), own_code}):
            if keep.startswith("/tmp/") and os.path.exists(keep):
                args += ["--ro-bind", keep, keep]
        args += [
            "--bind", wd, wd,
            "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--die-with-parent", "--new-session", "--chdir", wd,
        ]
        return prefix + args + ["--"] + command

    def environment(self, workdir: Path, env: dict[str, str] | None = None) -> dict[str, str]:
        """The whole environment of a sandboxed command: nothing is inherited but ``PATH``."""
        return {
            "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
            "HOME": str(workdir),
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "TMPDIR": "/tmp" if self.enabled else str(workdir),
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONHASHSEED": "0",
            "PYTHONUNBUFFERED": "1",
            **(env or {}),
        }

    def run(self, command: list[str], workdir: Path, timeout: float, env: dict[str, str] | None = None) -> ProcessResult:
        """Run ``command`` in ``workdir``; never raises for what the command does."""
        start = time.monotonic()
        with tempfile.TemporaryFile() as out:
            proc = subprocess.Popen(
                self.argv(command, workdir),
                cwd=workdir,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=self.environment(workdir, env),
                start_new_session=True,
            )
            timed_out = False
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
            finally:
                kill_group(proc)
            duration = time.monotonic() - start
            out.seek(0, os.SEEK_END)
            size = out.tell()
            out.seek(max(0, size - TAIL_BYTES))
            tail = out.read().decode("utf-8", "replace")
        return ProcessResult(proc.returncode if not timed_out else -signal.SIGKILL, timed_out, duration, tail)

    def spawn(self, command: list[str], workdir: Path, env: dict[str, str] | None = None) -> subprocess.Popen:
        """Start a resident ``command`` in ``workdir`` (a warm test server) with pipes on its
        standard input and output; the caller ends it with :func:`kill_group`."""
        return subprocess.Popen(
            self.argv(command, workdir, cpu_limit=False),
            cwd=workdir,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=self.environment(workdir, env),
            start_new_session=True,
        )


def kill_group(proc: subprocess.Popen) -> None:
    """Kill everything ``proc`` started, even processes that outlived it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
