"""Warm test servers: one resident, sandboxed process per work copy that runs many test runs.

Where a repository's tests take a fraction of a second, starting the interpreter or the JVM (and,
for Java, loading the compiler) is most of a run. A work copy therefore keeps a server that has
paid for that once:

* :class:`PytestServer` (``pytest_server.py``) forks a fresh child per run from an interpreter
  that has imported pytest but none of the repository's code;
* :class:`JUnitServer` (``SimpilotJUnit --serve``) compiles the edited file and runs the tests in
  a fresh class loader per run.

Both live inside the same sandbox as a one-off run (their CPU limit is per run: the pytest server
sets it on each child; a JVM that runs past its timeout is killed). A server that times out, dies
or has served ``MAX_RUNS`` runs is replaced by a new one before the next run, so nothing of one
run can leak into another beyond what a fresh process would see.
"""

from __future__ import annotations

import collections
import json
import math
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from replay.core.errors import SimpilotError
from replay.core.manifest import Manifest
from replay.execution.java_runner import toolchain
from replay.execution.proctree import descendants, process_cpu
from replay.execution.proof import new_token, parse
from replay.execution.sandbox import TAIL_BYTES, ProcessResult, Sandbox, exit_status, kill_group

START_TIMEOUT = 120.0  # a cold JVM on a loaded machine
GRACE = 10.0  # the pytest server enforces the timeout itself; this only catches a stuck server
MAX_RUNS = 200
CPU_POLL = 0.1  # how often a JUnit run's CPU time is looked at against its budget
TAIL_LINES = 400  # lines of a JUnit run's output kept for its tail (the runner sends a tail already)
PYTEST_SERVER = Path(__file__).with_name("pytest_server.py")
PYTEST_CRASHED = 70  # pytest_server.CRASHED: pytest itself raised during the run (it runs as a script, not imported)
DIED_MID_RUN = "in the middle of the run"  # how a run whose test process went away is reported


class _Resident:
    """A sandboxed process spoken to in lines; started lazily, replaced when it fails."""

    ready_line = b""

    def __init__(self, sandbox: Sandbox, workdir: Path, command: list[str], env: dict[str, str]):
        self.sandbox, self.workdir, self.command, self.env = sandbox, workdir, command, env
        self.proc: subprocess.Popen | None = None
        self.runs = 0
        self.starts = 0
        self._buffer = b""
        self._processes = 0  # the server's own processes (bubblewrap's init, the server)
        self._pids: list[int] = []  # the server's processes, whose CPU time a run's budget counts
        self.closed_output = False  # whether the last read ended because the server's output closed

    def _ensure(self) -> subprocess.Popen:
        if self.proc is not None and (self.proc.poll() is not None or self.runs >= MAX_RUNS):
            self.close()
        if self.proc is None:
            self.proc = self.sandbox.spawn(self.command, self.workdir, self._environment())
            self.runs, self._buffer = 0, b""
            self.starts += 1
            line = self._read_line(time.monotonic() + START_TIMEOUT)
            if line is None or line.strip() != self.ready_line:
                self.close()
                # Before any run and independent of the patched file: the set-up is broken.
                raise SimpilotError(
                    f"the warm test server ({' '.join(self.command[:2])} ...) did not start in {self.workdir.name}: {line!r}"
                )
            self._pids = [self.proc.pid, *descendants(self.proc.pid)]
            self._processes = len(self._pids) - 1
        return self.proc

    def _left_behind(self) -> bool:
        """Whether the last run left a process running beside the server (a daemon it started)."""
        return self.proc is not None and len(descendants(self.proc.pid)) > self._processes

    def _environment(self) -> dict[str, str]:
        return self.env

    def _read_line(self, deadline: float) -> bytes | None:
        """The next line of output, or None at end of output or past ``deadline``."""
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        self.closed_output = False
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                self.closed_output = True  # the server died: not a timeout
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def _send(self, line: str) -> float:
        proc = self._ensure()
        assert proc.stdin is not None
        self.runs += 1
        start = time.monotonic()
        try:
            proc.stdin.write(line.encode("utf-8") + b"\n")
            proc.stdin.flush()
        except OSError:
            pass  # it died: reading says so
        return start

    def _gone(self, start: float, timed_out: bool, tail: str, report: str = "", token: str = "", busy: bool = False) -> ProcessResult:
        """The result of a run during which the server stopped answering or was stopped (``busy``:
        for using up its CPU budget); the server is replaced. What the run reported before
        (``report``) is kept as its proof: never an end record."""
        proc = self.proc
        self.close()  # waits for the process: its status is known from here on
        status = proc.returncode if proc is not None and not timed_out else None  # None: it did not die
        code = exit_status(status, self.sandbox.enabled) if status is not None else -signal.SIGKILL
        why = "the tests did not finish in time" if timed_out else f"the test process exited (status {code}) {DIED_MID_RUN}"
        return ProcessResult(code, timed_out, time.monotonic() - start, (tail + "\n" + why).strip(), parse(report, token), busy=busy)

    def close(self) -> None:
        if self.proc is not None:
            kill_group(self.proc)
            for stream in (self.proc.stdin, self.proc.stdout):
                if stream is not None:
                    stream.close()
            self.proc = None


class ForkServer(_Resident):
    """A server of ``forkserve.py``'s protocol: a fresh child forked per run."""

    ready_line = b'{"ready": true}'

    def request(self, payload: dict, timeout: float, cpu: float | None = None) -> ProcessResult:
        """One run of ``payload`` (what the server's child needs); the proof is what the run
        wrote with a fresh token. ``cpu``: the run's CPU-time budget (whole seconds, the
        kernel's granularity), else the sandbox's."""
        token = new_token()
        budget = cpu_budget(cpu, self.sandbox.limits.cpu_seconds)
        start = self._send(json.dumps({**payload, "timeout": timeout, "cpu": budget, "token": token}))
        line = self._read_line(start + timeout + GRACE)
        if line is None:
            return self._gone(start, timed_out=not self.closed_output, tail="")
        answer = json.loads(line)
        proof = parse(answer.get("report", ""), token)
        used = float(answer.get("cpu", 0.0))
        # the kernel signals SIGXCPU at the budget, SIGKILL a second later (the hard limit)
        code = answer["returncode"]
        busy = cpu is not None and (code == -signal.SIGXCPU or (code == -signal.SIGKILL and used >= budget))
        return ProcessResult(code, answer["timed_out"] or busy, time.monotonic() - start, answer["tail"], proof, used, busy)


class PytestServer(ForkServer):
    """``python -m pytest ARGS`` in a work copy without the interpreter's start-up. ``python`` is
    the repository's test interpreter (its ``[environment]``'s, else simpilot's own)."""

    def __init__(self, sandbox: Sandbox, workdir: Path, env: dict[str, str], python: str = sys.executable):
        command = [python, str(PYTEST_SERVER), *(["--sandboxed"] if sandbox.enabled else [])]
        super().__init__(sandbox, workdir, command, env)
        self._scratch: str | None = None

    def _environment(self) -> dict[str, str]:
        if self.sandbox.enabled:  # /tmp is the sandbox's own
            return self.env
        # without a sandbox the server needs a scratch folder of its own, outside the copy
        self._scratch = tempfile.mkdtemp(prefix="simpilot-pytest-")
        return {**self.env, "SIMPILOT_SCRATCH": self._scratch}

    def close(self) -> None:
        super().close()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def run(self, args: list[str], env: dict[str, str], timeout: float, cpu: float | None = None) -> ProcessResult:
        """One pytest run (see :meth:`ForkServer.request`)."""
        return self.request({"args": args, "env": env}, timeout, cpu)


class JvmServer(_Resident):
    """A resident JVM of simpilot's speaking the runner's line protocol: a request is one line of
    tab-separated arguments ending with ``--token TOKEN``; the answer is the run's output, its
    records (prefixed by the token) and ``SIMPILOT-EXIT TOKEN STATUS``."""

    ready_line = b"SIMPILOT-READY"

    def run(self, args: list[str], timeout: float, cpu: float | None = None) -> ProcessResult:
        """One run. Its records and its last line carry a fresh token: a line the tests print
        (even straight to the JVM's standard output) cannot end the run or count as a result,
        and what an earlier run left in the stream is skipped. ``cpu``: the run's budget of the
        JVM's CPU seconds (a busy loop uses it up long before the wall-clock ``timeout``)."""
        token = new_token()
        start = self._send("\t".join([*args, "--token", token]))
        cpu_start = process_cpu(self._pids)
        lines: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)  # what the tests print, last lines only
        records: list[str] = []
        restart = False
        deadline = start + timeout
        exit_line = f"SIMPILOT-EXIT {token} "
        while True:
            line = self._read_line(deadline if cpu is None else min(deadline, time.monotonic() + CPU_POLL))
            if line is None:
                now = time.monotonic()
                busy = cpu is not None and not self.closed_output and process_cpu(self._pids) - cpu_start >= cpu
                if cpu is not None and not self.closed_output and now < deadline and not busy:
                    continue
                timed_out = not self.closed_output
                return self._gone(start, timed_out, "\n".join(list(lines)[-40:]), "\n".join(records), token, busy=busy)
            text = line.decode("utf-8", "replace")
            if text.startswith(token):
                records.append(text)
            elif text.startswith("SIMPILOT-RESTART"):
                restart = True
            elif text.startswith(exit_line) and text[len(exit_line) :].strip().lstrip("-").isdigit():
                code = int(text[len(exit_line) :])
                used = process_cpu(self._pids) - cpu_start
                result = ProcessResult(
                    code, False, time.monotonic() - start, "\n".join(lines)[-TAIL_BYTES:], parse("\n".join(records), token), used
                )
                if restart or self._left_behind():  # a fresh JVM, and its sandbox, for the next run
                    self.close()
                return result
            else:
                lines.append(text)


class JUnitServer(JvmServer):
    """simpilot's JUnit runner kept warm: compiler, launcher and JIT loaded once."""

    def __init__(self, sandbox: Sandbox, workdir: Path, manifest: Manifest):
        super().__init__(sandbox, workdir, toolchain().server_command(manifest), manifest.test_env())


def cpu_budget(cpu: float | None, limit: int) -> int:
    """Whole CPU seconds for a run: ``cpu`` rounded up (RLIMIT_CPU counts whole seconds), at
    most the sandbox's ``limit``."""
    return limit if cpu is None else max(1, min(limit, math.ceil(cpu)))


def pytest_args(argv: list[str], python: str = sys.executable) -> list[str] | None:
    """The arguments of ``argv`` when it is ``<python> -m pytest ARGS`` with the server's
    interpreter ``python`` (what the pytest server can run), else None."""
    if len(argv) >= 3 and argv[0] == python and argv[1:3] == ["-m", "pytest"]:
        return argv[3:]
    return None
