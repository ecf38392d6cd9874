"""A warm pytest: imports pytest once, then forks a fresh child for every test run.

Starting the interpreter and importing pytest costs more than running a handful of selected
tests, so each work copy keeps one of these servers inside its sandbox. Every run is a child
forked from the server *before* any of the repository's code was imported: it sees the work
copy's files as they are now (the patched one included), so a run is exactly ``python -m pytest
ARGS`` in the copy, without the start-up.

Protocol, one JSON object a line: the request ``{"args": [...], "env": {...}, "timeout": s,
"cpu": s, "token": "..."}`` on standard input; the answer ``{"returncode": n, "timed_out": b,
"duration": s, "cpu": s, "tail": "...", "report": "..."}`` on standard output (``cpu``: the CPU
seconds the run used; at the request's ``cpu`` budget the kernel stops it with SIGXCPU). ``report`` is what the
run's proof reporter wrote (``pytest_proof.py``): the child gets the token through a pipe and
writes to an anonymous file, and it never holds the descriptor this server answers on, so
nothing a run prints or writes can become an answer. A run that outlasts ``timeout`` is killed with its whole
process group, and after every run any process it left behind in the sandbox is killed too
(``--sandboxed``: only inside the sandbox's own PID namespace).

This file runs in the tests' interpreter inside the sandbox, as a script: it imports nothing of
simpilot's packages, only its sibling module ``proctree`` (standard library only), found in this
script's folder, which is ``sys.path[0]``.
"""

from __future__ import annotations

import gc
import hashlib
import importlib
import importlib.util
import json
import marshal
import os
import py_compile
import resource
import select
import signal
import sys
import time
import traceback

import proctree
import pytest

# Known by that name only to this script: a test's ``import proctree`` finds the repository's own.
del sys.modules["proctree"]

TAIL_BYTES = 4000
# The sandbox's private /tmp; without a sandbox, a folder of this server's own (not the copy)
SCRATCH = os.environ.pop("SIMPILOT_SCRATCH", "/tmp")
OUTPUT = os.path.join(SCRATCH, "simpilot-pytest-output")
REWRITTEN = os.path.join(SCRATCH, "simpilot-rewritten")


def _cache_rewritten_tests() -> None:
    """Keep pytest's assert-rewritten test modules across runs, keyed by their source's hash.

    Rewriting the asserts of the test files is most of what a warm run still costs, and the test
    files do not change between runs. pytest would cache the result itself, but only when byte-code
    may be written, which stays off: a timestamp ``.pyc`` of the patched source file could be
    stale. Keyed by content, this cache cannot be.
    """
    try:
        from _pytest.assertion import rewrite
    except ImportError:  # another pytest layout: run without the cache
        return
    original = getattr(rewrite, "_rewrite_test", None)
    if original is None:
        return
    os.makedirs(REWRITTEN, exist_ok=True)

    def cached(fn, config):
        source = fn.read_bytes()
        digest = hashlib.sha256(str(fn).encode() + b"\0" + source).hexdigest()
        path = os.path.join(REWRITTEN, digest)
        try:
            with open(path, "rb") as f:
                return importlib.util.source_hash(source), marshal.load(f)
        except (OSError, EOFError, ValueError, TypeError):
            pass
        result = original(fn, config)
        partial = f"{path}.{os.getpid()}"
        with open(partial, "wb") as f:
            marshal.dump(result[1], f)
        os.replace(partial, path)
        return result

    rewrite._rewrite_test = cached


CRASHED = 70  # the exit status of a run in which pytest itself raised (warm.py reads it)


def _child(args: list[str], env: dict[str, str], cpu: int, cwd: str, private: list[int]) -> None:
    """Become ``python -m pytest ARGS`` in ``cwd``; never returns. ``private``: the server's own
    descriptors (where it answers), closed first."""
    code = CRASHED
    try:
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
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))  # SIGXCPU at the budget: a busy loop
        os.environ.update(env)
        sys.path[0] = cwd  # what ``python -m`` puts first
        sys.argv = [pytest.__file__, *args]
        code = int(pytest.main(args))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _wait(pid: int, timeout: float) -> tuple[int, bool, float]:
    """The child's exit code (negative: killed by that signal), whether it timed out, and the
    CPU seconds it used."""
    pidfd = os.pidfd_open(pid)
    try:
        ready, _, _ = select.select([pidfd], [], [], timeout)
    finally:
        os.close(pidfd)
    timed_out = not ready
    if timed_out:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    _, status, usage = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), timed_out, usage.ru_utime + usage.ru_stime


def _kill_strays() -> None:
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
        _reap()
        time.sleep(0.005)
    _reap()


def _reap() -> None:
    """Collect those that were our children."""
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG) == (0, 0):
                break
        except ChildProcessError:
            break


def _tail() -> str:
    try:
        with open(OUTPUT, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - TAIL_BYTES))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _channel(token: str) -> tuple[int, int]:
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


def _report(fd: int) -> str:
    size = os.fstat(fd).st_size
    return os.pread(fd, size, 0).decode("utf-8", "replace") if size else ""


def serve(requests, answers, sandboxed: bool) -> None:
    cwd = os.getcwd()
    private = [answers.fileno()]  # standard input is replaced in the child anyway
    for line in requests:
        request = json.loads(line)
        start = time.monotonic()
        token_fd, report_fd = _channel(str(request.get("token", "")))
        env = {**request.get("env", {}), "SIMPILOT_PROOF": f"{token_fd}:{report_fd}"}
        pid = os.fork()
        if pid == 0:
            _child(request["args"], env, int(request.get("cpu", 300)), cwd, private)
        os.close(token_fd)
        returncode, timed_out, cpu = _wait(pid, float(request["timeout"]))
        duration = time.monotonic() - start
        if sandboxed:  # outside a PID namespace, /proc lists the whole machine
            _kill_strays()
        report = _report(report_fd)
        os.close(report_fd)
        answer = {"returncode": returncode, "timed_out": timed_out, "duration": duration, "cpu": cpu, "tail": _tail(), "report": report}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


def _preload_plugins() -> None:
    """Import pytest's built-in plugins once here rather than in every run."""
    try:
        from _pytest.config import default_plugins
    except ImportError:
        return
    for name in default_plugins:
        try:
            importlib.import_module(f"_pytest.{name}")
        except ImportError:
            pass


def _precompile(root: str) -> None:
    """Byte-code for the work copy's modules in their ``__pycache__``, checked against the
    source's hash on every import: a patched file is compiled afresh (and not written, byte-code
    writing stays off), the others load without compiling. A timestamp ``.pyc`` could be stale."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                try:
                    py_compile.compile(path, doraise=True, invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
                except (py_compile.PyCompileError, OSError, ValueError):
                    pass  # imported from source, as usual


if __name__ == "__main__":
    # Answers go to a private copy of standard output: nothing a run prints can corrupt them.
    answers = os.fdopen(os.dup(1), "w")
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    _preload_plugins()
    _cache_rewritten_tests()  # installed once here, inherited by every run
    _precompile(os.getcwd())
    gc.freeze()  # what the server imported is never collected again: cheaper runs, fewer copied pages
    answers.write('{"ready": true}\n')
    answers.flush()
    serve(sys.stdin, answers, sandboxed="--sandboxed" in sys.argv[1:])
