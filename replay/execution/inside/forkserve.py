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

Nothing of one run reaches the next through the server. The request's key goes into the run's
token pipe and is removed from the request before the fork, so the child's copy of the server's
memory does not hold it; the child reads nothing from the server's standard input and cannot
write its answers. The server is not dumpable: no process of the sandbox can read its memory or
reopen its descriptors. The run's output goes to an anonymous file of its own. After the run,
everything it left in the sandbox's writable scratch places (``/tmp``, ``/dev/shm``) is deleted;
what cannot be deleted, or System V IPC objects left behind, make the answer say ``"restart":
true``, and the caller replaces the server (and with it the sandbox).

Standard library only, and ``proctree`` beside it: the servers run as scripts in the tests' or the
programs' interpreter inside the sandbox (this folder is their ``sys.path[0]``).
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import shutil
import signal
import stat
import sys
import time
from collections.abc import Callable
from typing import Any

import proctree

TAIL_BYTES = 4000
# The sandbox's private /tmp; without a sandbox, a folder of this server's own (not the copy)
SCRATCH = os.environ.pop("SIMPILOT_SCRATCH", "/tmp")
SCRATCH_PLACES = ("/tmp", "/dev/shm")  # writable places of the sandbox outside the work copy
_output = -1  # the current run's output file (anonymous), set by ``serve`` before each fork

# ``child(request, env, cpu, private)``: becomes the run and never returns
Child = Callable[[dict[str, Any], dict[str, str], int, list[int]], None]


def enter_child(env: dict[str, str], cpu: int, private: list[int]) -> None:
    """What every run's child does first: close the server's own descriptors (``private``), lead
    a process group of its own, write its output to the run's output file, read nothing, stop at
    its CPU budget (SIGXCPU: a busy loop) and take the run's environment."""
    for fd in private:
        os.close(fd)
    os.setpgid(0, 0)
    os.dup2(_output, 1)
    os.dup2(_output, 2)
    os.close(_output)
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


def tail(fd: int) -> str:
    size = os.fstat(fd).st_size
    start = max(0, size - TAIL_BYTES)
    return os.pread(fd, size - start, start).decode("utf-8", "replace") if size else ""


def anonymous() -> int:
    """An append-only file of the scratch folder that has no name (``O_TMPFILE``), so that no
    run can open, replace or plant it by name."""
    try:
        return os.open(SCRATCH, os.O_TMPFILE | os.O_RDWR | os.O_APPEND, 0o600)
    except OSError:
        path = os.path.join(SCRATCH, f"simpilot-{os.getpid()}-{time.monotonic_ns()}")
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_NOFOLLOW, 0o600)
        os.unlink(path)
        return fd


def channel(token: str, answer: object = None) -> tuple[int, int]:
    """The proof channel of one run: a pipe holding ``token`` and, on a second line, where the
    answer's lines are (read end), and an anonymous, append-only report file."""
    read, write = os.pipe()
    os.write(write, (token + ("\n" + json.dumps(answer) + "\n" if answer else "")).encode())
    os.close(write)
    return read, anonymous()


def report(fd: int) -> str:
    size = os.fstat(fd).st_size
    return os.pread(fd, size, 0).decode("utf-8", "replace") if size else ""


def scrub() -> tuple[bool, list[str]]:
    """Delete everything in the scratch places (a run's files must not meet the next run). Says
    whether they are clean now (False when something is left: files that could not be deleted,
    System V IPC objects; then the sandbox itself must be replaced), and which of the deleted
    names were the harness's own (``simpilot*``): a run has no business there, so that is
    reported as tampering. The sandbox's own mounts (the work copy is bound below ``/tmp`` when
    it lives there) and the folders leading to them are not scratch: kept."""
    mounts = _mount_points()
    kept = {os.path.dirname(m) for m in mounts}
    for mount in mounts:  # every folder on the way to a mount point
        while mount not in ("/", ""):
            mount = os.path.dirname(mount)
            kept.add(mount)
    planted = [os.path.join(place, name) for place in SCRATCH_PLACES for name in _names(place) if name.startswith("simpilot")]
    clean = all([_scrub(place, mounts, kept) for place in SCRATCH_PLACES if os.path.isdir(place)])
    for kind in ("shm", "msg", "sem"):
        try:
            with open(f"/proc/sysvipc/{kind}") as f:
                if len(f.read().splitlines()) > 1:  # a header line, then one line per object
                    clean = False
        except OSError:
            pass
    return clean, [p for p in planted if p not in kept and p not in mounts]


def _names(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def _scrub(folder: str, mounts: set[str], kept: set[str]) -> bool:
    clean = True
    try:
        names = os.listdir(folder)
    except OSError:
        return False
    for name in names:
        path = os.path.join(folder, name)
        if path in mounts:
            continue
        try:
            if path in kept:
                clean = _scrub(path, mounts, kept) and clean
            elif stat.S_ISDIR(os.lstat(path).st_mode):
                _writable_tree(path)
                shutil.rmtree(path)
            else:
                os.unlink(path)
        except OSError:
            clean = False
    return clean


def _mount_points() -> set[str]:
    """The mount points of this process's mount namespace (``/proc/self/mountinfo``)."""
    found = set()
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                fields = line.split()
                if len(fields) > 4:
                    found.add(fields[4].replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\"))
    except OSError:
        pass
    return found


def _writable_tree(root: str) -> None:
    """Give the owner back the rights a run took from its own folders, so they can be deleted."""
    try:
        os.chmod(root, 0o700)
    except OSError:
        pass
    for folder, dirs, _ in os.walk(root):
        for name in dirs:
            path = os.path.join(folder, name)
            try:
                if not os.path.islink(path):
                    os.chmod(path, 0o700)
            except OSError:
                pass


def non_dumpable() -> None:
    """``PR_SET_DUMPABLE`` 0: other processes of the same user (a shell a run started) cannot
    read this process's memory or open its descriptors through ``/proc``. Forked children
    inherit it."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def serve(requests, answers, sandboxed: bool, child: Child) -> None:
    """Answer each request with one run of ``child`` in a fresh fork."""
    global _output
    non_dumpable()
    private = [answers.fileno()]  # standard input is replaced in the child anyway
    while line := requests.readline():
        request = json.loads(line)
        line = ""  # the key is in the pipe only: not in the memory the child is forked with
        start = time.monotonic()
        token_fd, report_fd = channel(str(request.pop("token", "")), request.pop("answer", None))
        _output = anonymous()
        env = {**request.get("env", {}), "SIMPILOT_PROOF": f"{token_fd}:{report_fd}"}
        pid = os.fork()
        if pid == 0:
            child(request, env, int(request.get("cpu", 300)), private)
        os.close(token_fd)
        returncode, timed_out, cpu = wait(pid, float(request["timeout"]))
        duration = time.monotonic() - start
        clean = True
        planted: list[str] = []
        if sandboxed:  # outside a PID namespace, /proc lists the whole machine, and /tmp is the host's
            kill_strays()
            clean, planted = scrub()
        written = report(report_fd)
        os.close(report_fd)
        output = tail(_output)
        os.close(_output)
        answer = {"returncode": returncode, "timed_out": timed_out, "duration": duration, "cpu": cpu, "tail": output, "report": written}
        answers.write(json.dumps({**answer, "restart": not clean, "planted": planted}) + "\n")
        answers.flush()
