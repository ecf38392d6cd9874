"""The forking server both warm Python servers share: one fresh child per run, forked from a
resident interpreter that paid for its start-up once.

Protocol, one JSON object a line: a request on standard input (``timeout``, ``cpu``, ``token``,
``env`` and what the server's own ``child`` function needs), an answer ``{"returncode": n,
"timed_out": b, "duration": s, "cpu": s, "tail": "...", "report": "..."}`` on standard output
(``cpu``: the CPU seconds the run used; at the request's ``cpu`` budget the kernel stops it with
SIGXCPU). ``report`` is what the run wrote to its proof channel: the child gets the token through a
pipe and writes to an anonymous file, and it never holds the descriptor the server answers on, so
nothing a run prints or writes can become an answer. A run that outlasts ``timeout`` is killed with
its whole process group, and after every run any process it left behind in the sandbox is killed
too (``sandboxed``: only inside the sandbox's own PID namespace).

Standard library only, and ``proctree`` beside it: the servers run as scripts in the tests' or the
programs' interpreter inside the sandbox (this folder is their ``sys.path[0]``).
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sys
import time
from collections.abc import Callable
from typing import Any

import proctree

TAIL_BYTES = 4000
# The sandbox's private /tmp; without a sandbox, a folder of this server's own (not the copy)
SCRATCH = os.environ.pop("SIMPILOT_SCRATCH", "/tmp")
OUTPUT = os.path.join(SCRATCH, "simpilot-run-output")

# ``child(request, env, cpu, private)``: becomes the run and never returns
Child = Callable[[dict[str, Any], dict[str, str], int, list[int]], None]


def enter_child(env: dict[str, str], cpu: int, private: list[int]) -> None:
    """What every run's child does first: close the server's own descriptors (``private``), lead
    a process group of its own, write its output to the run's output file, read nothing, stop at
    its CPU budget (SIGXCPU: a busy loop) and take the run's environment."""
    for fd in private:
        os.close(fd)
    os.setpgid(0, 0)
    fd = os.open(OUTPUT, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    os.environ.update(env)


def leave_child(code: int) -> None:
    """End a run's child with ``code``, its output flushed; never returns."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def wait(pid: int, timeout: float) -> tuple[int, bool, float]:
    """The child's exit code (negative: killed by that signal), whether it timed out, and the
    CPU seconds it used."""
    ended = proctree.ended(pid, timeout)
    if ended is None:
        raise OSError("the warm Python server needs pidfds (Linux 5.3 or newer)")
    timed_out = not ended
    if timed_out:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    _, status, usage = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), timed_out, usage.ru_utime + usage.ru_stime


def kill_strays() -> None:
    """Kill every process of the sandbox but this server and its ancestors (a test may have left
    a daemon behind, even in a process group of its own), until none is left: a fork bomb forks
    faster than one pass over ``/proc`` kills. Where the only ancestor is the namespace's init,
    ``kill(-1)`` reaches all the others at once, which a forking process cannot outrun."""
    keep = proctree.ancestors(os.getpid())
    for _ in range(200):
        strays = proctree.living(keep)  # zombies left out: they are dead already
        if not strays:
            break
        if keep <= {1, os.getpid()}:
            try:
                os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proctree.kill(strays)
        reap()
        time.sleep(0.005)
    reap()


def reap() -> None:
    """Collect those that were our children."""
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG) == (0, 0):
                break
        except ChildProcessError:
            break


def tail() -> str:
    try:
        with open(OUTPUT, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - TAIL_BYTES))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def channel(token: str) -> tuple[int, int]:
    """The proof channel of one run: a pipe holding ``token`` (read end) and an anonymous,
    append-only report file."""
    read, write = os.pipe()
    os.write(write, token.encode())
    os.close(write)
    try:
        report = os.open(SCRATCH, os.O_TMPFILE | os.O_RDWR | os.O_APPEND, 0o600)
    except OSError:
        report = os.open(os.path.join(SCRATCH, f"simpilot-proof-{os.getpid()}"), os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
        os.unlink(os.path.join(SCRATCH, f"simpilot-proof-{os.getpid()}"))
    return read, report


def report(fd: int) -> str:
    size = os.fstat(fd).st_size
    return os.pread(fd, size, 0).decode("utf-8", "replace") if size else ""


def serve(requests, answers, sandboxed: bool, child: Child) -> None:
    """Answer each request with one run of ``child`` in a fresh fork."""
    private = [answers.fileno()]  # standard input is replaced in the child anyway
    for line in requests:
        request = json.loads(line)
        start = time.monotonic()
        token_fd, report_fd = channel(str(request.get("token", "")))
        env = {**request.get("env", {}), "SIMPILOT_PROOF": f"{token_fd}:{report_fd}"}
        pid = os.fork()
        if pid == 0:
            child(request, env, int(request.get("cpu", 300)), private)
        os.close(token_fd)
        returncode, timed_out, cpu = wait(pid, float(request["timeout"]))
        duration = time.monotonic() - start
        if sandboxed:  # outside a PID namespace, /proc lists the whole machine
            kill_strays()
        written = report(report_fd)
        os.close(report_fd)
        answer = {"returncode": returncode, "timed_out": timed_out, "duration": duration, "cpu": cpu, "tail": tail(), "report": written}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()
