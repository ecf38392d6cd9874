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
import dataclasses
import hmac
import json
import math
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

from replay.config.manifest import Manifest
from replay.core.errors import SimpilotError
from replay.environments.commands import suite_env
from replay.execution.inside.proctree import descendants, process_cpu
from replay.execution.inside.server_protocol import READY, SANDBOXED
from replay.execution.proof.check import Answer, new_token, parse, sign, with_tampering
from replay.execution.run_end import how_it_ended
from replay.execution.runners.junit import toolchain
from replay.execution.sandbox.bubblewrap import TAIL_BYTES, ProcessResult, Sandbox, exit_status, kill_group, memory_kills

START_TIMEOUT = 120.0  # a cold JVM on a loaded machine
GRACE = 10.0  # the pytest server enforces the timeout itself; this only catches a stuck server
MAX_RUNS = 200
CPU_POLL = 0.1  # how often a JUnit run's CPU time is looked at against its budget
TAIL_LINES = 400  # lines of a JUnit run's output kept for its tail (the runner sends a tail already)
PYTEST_SERVER = Path(__file__).resolve().parents[1] / "inside" / "pytest_server.py"
DIED_MID_RUN = "in the middle of the run"  # how a run whose test process went away is reported
# Where a JVM's request channel is made: a folder every sandbox replaces with one of its own, so
# that no other sandbox sees the socket, and a short path (a socket's may have 107 bytes at most)
CHANNEL_FOLDER = "/tmp"
MAX_LINE = 1 << 16  # a longer line of a JVM's output keeps its end only
DRAIN_READS = 16  # reads of a JVM's output after its run ended, at most (a pipe holds 64 KiB)
EXIT_GRACE = 5.0  # how long a JVM whose channel closed may take to end before it is killed


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
        self._oom_kills = 0  # the sandbox's out-of-memory kills before the current run

    def _ensure(self) -> subprocess.Popen:
        if self.proc is not None and (self.proc.poll() is not None or self.runs >= MAX_RUNS):
            self.close()
        if self.proc is None:
            self.runs, self._buffer = 0, b""
            self.starts += 1
            line = self._start(time.monotonic() + START_TIMEOUT)
            if self.proc is None or line is None or line.strip() != self.ready_line:
                self.close()
                # Before any run and independent of the patched file: the set-up is broken.
                raise SimpilotError(
                    f"the warm test server ({' '.join(self.command[:2])} ...) did not start in {self.workdir.name}: {line!r}"
                )
            self._pids = [self.proc.pid, *descendants(self.proc.pid)]
            self._processes = len(self._pids) - 1
        return self.proc

    def _start(self, deadline: float) -> bytes | None:
        """Start the server (``self.proc``) and return its first line, which says it is ready
        (None: it said nothing by ``deadline``)."""
        self.proc = self.sandbox.spawn(self.command, self.workdir, self._environment())
        return self._read_line(deadline)

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
        self._oom_kills = memory_kills(self._ensure())
        self.runs += 1
        start = time.monotonic()
        try:
            self._write(line.encode("utf-8") + b"\n")
        except OSError:
            pass  # it died: reading says so
        return start

    def _write(self, request: bytes) -> None:
        """Hand the running server a request (on its standard input)."""
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(request)
        self.proc.stdin.flush()

    def _run_oom_kills(self) -> int:
        """The processes the out-of-memory killer ended during the current run."""
        return memory_kills(self.proc) - self._oom_kills if self.proc is not None else 0

    def _gone(
        self,
        start: float,
        timed_out: bool,
        tail: str,
        report: str = "",
        token: str = "",
        busy: bool = False,
        cpu: tuple[float, float] | None = None,
    ) -> ProcessResult:
        """The result of a run during which the server stopped answering or was stopped (``busy``:
        for using up its CPU budget, ``cpu``: that budget and what the run used); the server is
        replaced. What the run reported before (``report``) is kept as its proof: never an end
        record. How the run ended is decided by the rule (``run_end.py``)."""
        proc = self.proc
        oom_kills = self._run_oom_kills()  # before the sandbox's cgroups go with the server
        self.close()  # waits for the process: its status is known from here on
        status = proc.returncode if proc is not None and not timed_out else None  # None: it did not die
        code = exit_status(status, self.sandbox.enabled) if status is not None else -signal.SIGKILL
        budget, used = cpu if cpu is not None else (None, None)
        end = how_it_ended(code, wall_timed_out=timed_out and not busy, cpu_budget=budget, cpu_used=used, oom_kills=oom_kills)
        why = end.describe() if end.timed_out or end.out_of_memory else f"the test process exited (status {code}) {DIED_MID_RUN}"
        proof = parse(report, token)
        return ProcessResult(code, end.timed_out, time.monotonic() - start, (tail + "\n" + why).strip(), proof, used, end.busy, end=end)

    def close(self) -> None:
        if self.proc is not None:
            kill_group(self.proc)
            for stream in (self.proc.stdin, self.proc.stdout):
                if stream is not None:
                    stream.close()
            self.proc = None


class ForkServer(_Resident):
    """A server of ``forkserve.py``'s protocol: a fresh child forked per run."""

    ready_line = READY.encode()

    def request(self, payload: dict, timeout: float, cpu: float | None = None, answer: Answer | None = None) -> ProcessResult:
        """One run of ``payload`` (what the server's child needs); the proof is what the run
        wrote with a fresh token. ``cpu``: the run's CPU-time budget (whole seconds, the
        kernel's granularity), else the sandbox's. ``answer``: where the answer's lines are, for
        the reporter's audit hook. A run after which the server could not make its sandbox's
        scratch places clean again gets a new server (and sandbox) for the next run."""
        token = new_token()
        budget = cpu_budget(cpu, self.sandbox.limits.cpu_seconds)
        place = dataclasses.asdict(answer) if answer is not None else None
        start = self._send(json.dumps({**payload, "timeout": timeout, "cpu": budget, "token": token, "answer": place}))
        line = self._read_line(start + timeout + GRACE)
        if line is None:
            return self._gone(start, timed_out=not self.closed_output, tail="")
        answer_line = json.loads(line)
        oom_kills = self._run_oom_kills()
        if answer_line.get("restart"):
            self.close()
        return self._result(answer_line, token, start, budget, oom_kills)

    def _result(self, answer: dict, token: str, start: float, budget: int, oom_kills: int = 0) -> ProcessResult:
        proof = parse(answer.get("report", ""), token)
        planted = [f"planted-scratch {path}" for path in answer.get("planted") or ()]
        if planted:  # the run wrote where the server keeps its own things
            proof = with_tampering(proof, planted)
        used = float(answer.get("cpu", 0.0))
        # the kernel signals SIGXCPU at the budget, SIGKILL a second later (the hard limit)
        code = answer["returncode"]
        end = how_it_ended(code, wall_timed_out=answer["timed_out"], cpu_budget=budget, cpu_used=used, oom_kills=oom_kills)
        return ProcessResult(code, end.timed_out, time.monotonic() - start, answer["tail"], proof, used, end.busy, end=end)


class PytestServer(ForkServer):
    """``python -m pytest ARGS`` in a work copy without the interpreter's start-up. ``python`` is
    the repository's test interpreter (its ``[environment]``'s, else simpilot's own)."""

    def __init__(self, sandbox: Sandbox, workdir: Path, env: dict[str, str], python: str = sys.executable):
        command = [python, str(PYTEST_SERVER), *([SANDBOXED] if sandbox.enabled else [])]
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

    def run(
        self, args: list[str], env: dict[str, str], timeout: float, cpu: float | None = None, answer: Answer | None = None
    ) -> ProcessResult:
        """One pytest run (see :meth:`ForkServer.request`)."""
        return self.request({"args": args, "env": env}, timeout, cpu, answer)


class _Lines:
    """The complete lines of one stream (a pipe or a socket), read when ``select`` says it has
    something: a partial line waits for its end. A line longer than ``MAX_LINE`` keeps its end
    only, so output without newlines cannot fill simpilot's memory."""

    def __init__(self, fd: int):
        self.fd = fd
        self.closed = False
        self._partial = b""

    def fileno(self) -> int:
        return self.fd

    def read(self) -> list[bytes]:
        chunk = os.read(self.fd, 65536)
        if not chunk:
            self.closed = True
            lines, self._partial = [self._partial] if self._partial else [], b""
            return lines
        *lines, rest = (self._partial + chunk).split(b"\n")
        self._partial = rest[-MAX_LINE:]
        return lines


@dataclasses.dataclass
class _Channel:
    """A resident JVM's request channel, on which it answers, and its standard output."""

    connection: socket.socket
    answers: _Lines
    output: _Lines
    pending: collections.deque[tuple[bytes, bool]] = dataclasses.field(default_factory=collections.deque)  # (line, on the channel)


class JvmServer(_Resident):
    """A resident JVM of simpilot's, spoken to in one of two dialects. A request is one line of
    tab-separated arguments ending with ``--token KEY``, a fresh key per run.

    * On a channel of its own (``channelled``: ``SimpilotJUnit --serve``): the request goes over
      a Unix socket that the JVM connects to once at start-up, which simpilot then removes, so
      that nothing started later in the sandbox can connect; standard input is closed, standard
      output is plain output. The answers, on the socket, are the run's records signed with the
      key (``proof.sign``), the last of them ``{"event":"exit","status":N,"restart":WHY}``: only
      that record, verified, ends the run, and a ``restart`` in it has the JVM replaced.
    * The older dialect, on standard input and output (DevBench's program servers, whose records
      carry the key in clear): records are lines prefixed by the key, a run ends with
      ``SIMPILOT-EXIT KEY STATUS``, a line ``SIMPILOT-RESTART`` before it asks for a new JVM.

    A line that looks signed (``MAC<TAB>...``) goes to the run's proof wherever it comes from,
    so that one the tests print with a forged MAC shows as tampering. Either way the JVM's first
    answer, once it is warm, is ``ready_line``.
    """

    ready_line = b"SIMPILOT-READY"
    channelled = False  # a class default too: a subclass may be made without this __init__
    _channel: _Channel | None = None

    def __init__(self, sandbox: Sandbox, workdir: Path, command: list[str], env: dict[str, str], channelled: bool = False):
        super().__init__(sandbox, workdir, command, env)
        self.channelled = channelled

    def run(self, args: list[str], timeout: float, cpu: float | None = None) -> ProcessResult:
        """One run. Its records and its end carry a fresh key: a line the tests print (even
        straight to the JVM's standard output) cannot end the run or count as a result, and what
        an earlier run left in the stream is skipped. ``cpu``: the run's budget of the JVM's CPU
        seconds (a busy loop uses it up long before the wall-clock ``timeout``)."""
        token = new_token()
        start = self._send("\t".join([*args, "--token", token]))
        cpu_start = process_cpu(self._pids)
        lines: collections.deque[bytes] = collections.deque(maxlen=TAIL_LINES)  # what the tests print, last lines only
        records: list[str] = []
        restart = False

        def take(line: bytes, answer: bool) -> None:
            """File a line that does not end the run: for the proof (a signed line from anywhere:
            a forged one is evidence), as a request for a new JVM, or as the run's output."""
            nonlocal restart
            text = line.decode("utf-8", "replace")
            if (len(text) > 64 and text[64] == "\t") or (answer and not self.channelled and text.startswith(token)):
                records.append(text)
            elif answer and not self.channelled and text.startswith("SIMPILOT-RESTART"):
                restart = True
            else:
                lines.append(line)

        deadline = start + timeout
        while True:
            got = self._next(deadline if cpu is None else min(deadline, time.monotonic() + CPU_POLL))
            if got is None:
                now = time.monotonic()
                busy = cpu is not None and not self.closed_output and process_cpu(self._pids) - cpu_start >= cpu
                if cpu is not None and not self.closed_output and now < deadline and not busy:
                    continue
                timed_out = not self.closed_output
                for left in self._drain(EXIT_GRACE if self.closed_output else 0.0):
                    take(left, False)
                spent = (cpu, process_cpu(self._pids) - cpu_start) if busy and cpu is not None else None
                return self._gone(start, timed_out, _text(list(lines)[-40:]), "\n".join(records), token, busy, spent)
            line, answer = got
            text = line.decode("utf-8", "replace") if answer else ""
            end = self._end(text, token) if answer else None
            if end is None:
                take(line, answer)
                continue
            code, fresh = end
            records.append(text)
            used = process_cpu(self._pids) - cpu_start
            for left in self._drain():
                take(left, False)
            proof = parse("\n".join(records), token)
            ending = how_it_ended(code, oom_kills=self._run_oom_kills())  # it answered: not stopped for its CPU time
            tail = _text(lines)[-TAIL_BYTES:]
            result = ProcessResult(code, ending.timed_out, time.monotonic() - start, tail, proof, used, ending.busy, end=ending)
            if restart or fresh or self._left_behind():  # a fresh JVM, and its sandbox, for the next run
                self.close()
            return result

    def _end(self, text: str, token: str) -> tuple[int, bool] | None:
        """The exit status of the run that the answer ``text`` ends and whether the JVM asks to
        be replaced, or None when ``text`` does not end the run."""
        if not self.channelled:
            exit_line = f"SIMPILOT-EXIT {token} "
            if text.startswith(exit_line) and text[len(exit_line) :].strip().lstrip("-").isdigit():
                return int(text[len(exit_line) :]), False
            return None
        mac, _, body = text.partition("\t")
        if not hmac.compare_digest(sign(token, body)[:64].encode(), mac.encode()):
            return None
        try:
            record = json.loads(body)
        except ValueError:
            return None
        if not isinstance(record, dict) or record.get("event") != "exit" or type(record.get("status")) is not int:
            return None
        return record["status"], record.get("restart") is not None

    def _start(self, deadline: float) -> bytes | None:
        """Start the JVM; in the first dialect, with its channel: a listening socket in a private
        folder of :data:`CHANNEL_FOLDER`, which the sandbox binds in (it is on the command line),
        whose one connection is accepted before the socket is removed."""
        if not self.channelled:
            return super()._start(deadline)
        folder = tempfile.mkdtemp(prefix="simpilot-jvm-", dir=CHANNEL_FOLDER)
        path = os.path.join(folder, "channel")
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
                listener.bind(path)
                listener.listen(1)
                self.proc = self.sandbox.spawn([*self.command, "--channel", path], self.workdir, self._environment())
                assert self.proc.stdin is not None and self.proc.stdout is not None
                self.proc.stdin.close()  # requests come on the channel: the tests find standard input empty
                connection = self._accept(listener, deadline)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        if connection is None:
            return None
        self._channel = _Channel(connection, _Lines(connection.fileno()), _Lines(self.proc.stdout.fileno()))
        while (got := self._next(deadline)) is not None:
            line, answer = got
            if answer:
                return line
        return None  # what the JVM printed before it was ready is not any run's output

    def _accept(self, listener: socket.socket, deadline: float) -> socket.socket | None:
        """The first connection made by a process of this server (the folder is private; the
        peer's process is checked all the same, so that nothing else can pose as the runner),
        or None when the server ends or ``deadline`` passes first."""
        assert self.proc is not None
        while self.proc.poll() is None and (left := deadline - time.monotonic()) > 0:
            if select.select([listener], [], [], min(left, CPU_POLL))[0]:
                connection, _ = listener.accept()
                peer = struct.unpack("3i", connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))[0]
                if peer == self.proc.pid or peer in descendants(self.proc.pid):
                    return connection
                connection.close()
        return None

    def _write(self, request: bytes) -> None:
        if self._channel is None:
            super()._write(request)
        else:
            self._channel.connection.sendall(request)

    def _next(self, deadline: float) -> tuple[bytes, bool] | None:
        """The server's next line and whether it is an answer (on the channel; in the older
        dialect every line is); None when its answers end or past ``deadline``."""
        if self._channel is None:
            line = self._read_line(deadline)
            return None if line is None else (line, True)
        channel = self._channel
        self.closed_output = False
        while not channel.pending:
            if channel.answers.closed:
                self.closed_output = True  # the server died: not a timeout
                return None
            left = deadline - time.monotonic()
            streams = [s for s in (channel.answers, channel.output) if not s.closed]
            ready = select.select(streams, [], [], left)[0] if left > 0 else []
            if not ready:
                return None
            for stream in ready:
                channel.pending.extend((line, stream is channel.answers) for line in stream.read())
        return channel.pending.popleft()

    def _drain(self, wait: float = 0.0) -> list[bytes]:
        """The output the JVM wrote that is not read yet: what is there now (the runner flushes
        its output before it answers; a thread left writing is cut short), or with ``wait``, all
        of it up to its end, for at most ``wait`` seconds. A JVM whose channel closed is exiting:
        once its output has ended too, so has the sandbox, and its exit status is known."""
        if self._channel is None:
            return []
        channel = self._channel
        lines = [line for line, answer in channel.pending if not answer]
        channel.pending.clear()
        deadline, reads = time.monotonic() + wait, 0
        while not channel.output.closed and (reads < DRAIN_READS or time.monotonic() < deadline):
            if not select.select([channel.output], [], [], max(0.0, deadline - time.monotonic()))[0]:
                break
            lines += channel.output.read()
            reads += 1
        return lines

    def close(self) -> None:
        super().close()
        if self._channel is not None:
            self._channel.connection.close()
            self._channel = None


class JUnitServer(JvmServer):
    """simpilot's JUnit runner kept warm: compiler, launcher and JIT loaded once. It answers on a
    channel of its own (see :class:`JvmServer`) and, in a sandbox, empties its ``/tmp`` after
    each run."""

    def __init__(self, sandbox: Sandbox, workdir: Path, manifest: Manifest):
        super().__init__(sandbox, workdir, toolchain().server_command(manifest, sandbox.enabled), suite_env(manifest), channelled=True)


def _text(lines: Iterable[bytes]) -> str:
    return b"\n".join(lines).decode("utf-8", "replace")


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
