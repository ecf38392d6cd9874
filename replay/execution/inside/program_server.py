"""Running one Python program and proving that it ran to its end: a launcher and a forking server.

``python program_server.py --run PROGRAM [--cpu SECONDS]`` runs one program (a fresh process per
program);
``python program_server.py [--sandboxed] [--preload a,b]`` is the warm server (``forkserve.py``'s
protocol; the request names the program, ``"program": path``), which forks a fresh child per run
from an interpreter that has imported the standard library modules and installed packages the
programs use (``--preload``), never a program's own code.

A run: take the run's token from the proof channel (``$SIMPILOT_PROOF``) before any of the
program's code runs, then run the program as ``python PROGRAM`` would (``__name__ ==
"__main__"``, ``sys.argv == [PROGRAM]``, the program's folder first on ``sys.path``, the working
folder the program's folder). Only when the program's code returned normally — its last
statements, the checks, ran — does the launcher write ``start``, ``test program passed`` and
``end``. ``sys.exit`` (any status), ``os._exit`` or an uncaught exception give no passing record:
a failed run writes ``test program failed`` and ``error`` with the exception's class and message.
Like pytest's reporter, the launcher shares its process with the code it judges; the token is
dropped from its variables before the program starts.

Standard library only (it runs in the programs' interpreter inside the sandbox).
"""

from __future__ import annotations

import builtins
import gc
import importlib
import json
import os
import resource
import sys
import traceback
import types

import forkserve
import proof_channel
import server_protocol

# Known by those names only to this script: a program's ``import proctree`` finds its own.
for _name in ("forkserve", "proctree", "proof_channel", "server_protocol"):
    del sys.modules[_name]

TEST = "program"
FAILED = 1  # the exit status of a run that did not pass (the proof, not the status, is what counts)


def _records(token: str, fd: int | None, *records: dict) -> None:
    if fd is None or not token:
        return
    os.write(fd, "".join(f"{token}\t{json.dumps(r)}\n" for r in records).encode())


def _described(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"SystemExit: the program exited (status {exc.code!r}) before its end: its checks did not all run"
    if isinstance(exc, SyntaxError):
        return f"compile error: {type(exc).__name__}: {exc.msg} (line {exc.lineno})"
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ").rstrip()


def run_program(path: str) -> int:
    """Run the program at ``path`` as ``python PATH`` would, reporting through the proof
    channel; the exit status to end with."""
    key, fd = proof_channel.open_channel()
    token = key.decode()
    path = os.path.abspath(path)
    folder = os.path.dirname(path)
    os.chdir(folder)
    sys.argv = [path]
    sys.path[0] = folder
    main = types.ModuleType("__main__")
    main.__file__ = path
    main.__builtins__ = builtins  # type: ignore[attr-defined]
    sys.modules["__main__"] = main
    with open(path, "rb") as f:
        source = f.read()
    outcome: dict = {"event": "test", "id": TEST, "outcome": "failed"}
    failure = None
    try:
        code = compile(source, path, "exec")
        _records(token, fd, {"event": "start"})
        secret = (token, fd)
        token, fd = "", None  # not in this frame while the program runs
        try:
            exec(code, main.__dict__)
        finally:
            token, fd = secret
            del secret
    except BaseException as exc:  # the program's failure, whatever it is
        failure = _described(exc)
        if not isinstance(exc, SystemExit):
            traceback.print_exc()
    if failure is None:
        outcome["outcome"] = "passed"
        _records(token, fd, outcome, {"event": "end"})
        return 0
    _records(token, fd, {"event": "start"}, outcome, {"event": "error", "message": failure}, {"event": "end"})
    return FAILED


def _child(request: dict, env: dict[str, str], cpu: int, private: list[int]) -> None:
    """Become ``python PROGRAM`` for one run; never returns."""
    code = FAILED
    try:
        forkserve.enter_child(env, cpu, private)
        code = run_program(request["program"])
    except BaseException:
        traceback.print_exc()
    finally:
        forkserve.leave_child(code)


def _preload(names: list[str]) -> None:
    """Import the modules the programs use (the standard library's and installed packages', never
    a program's own) once here rather than in every run; one that fails to import is left out."""
    null = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(2)
    os.dup2(null, 2)
    try:
        for name in names:
            try:
                importlib.import_module(name)
            except BaseException:  # noqa: B036 - a module may raise anything while importing
                pass
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


if __name__ == "__main__":
    arguments = sys.argv[1:]
    if arguments[:1] == ["--run"]:
        code = FAILED
        if "--cpu" in arguments:  # the run's CPU budget: SIGXCPU when used up (a busy loop)
            seconds = int(arguments[arguments.index("--cpu") + 1])
            hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
            if hard != resource.RLIM_INFINITY:  # the sandbox's own limit stays the ceiling
                seconds, hard = min(seconds, hard), min(seconds + 1, hard)
            resource.setrlimit(resource.RLIMIT_CPU, (seconds, hard if hard != resource.RLIM_INFINITY else seconds + 1))
        try:
            code = run_program(arguments[1])
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
        sys.exit(code)
    answers = os.fdopen(os.dup(1), "w")
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    if "--preload" in arguments:
        _preload([n for n in arguments[arguments.index("--preload") + 1].split(",") if n])
    gc.freeze()  # what the server imported is never collected again: cheaper runs, fewer copied pages
    answers.write(server_protocol.READY + "\n")
    answers.flush()
    forkserve.serve(sys.stdin, answers, server_protocol.SANDBOXED in arguments, _child)
