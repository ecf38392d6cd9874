"""A warm pytest: imports pytest once, then forks a fresh child for every test run.

Starting the interpreter and importing pytest costs more than running a handful of selected
tests, so each work copy keeps one of these servers inside its sandbox. Every run is a child
forked from the server *before* any of the repository's code was imported: it sees the work
copy's files as they are now (the patched one included), so a run is exactly ``python -m pytest
ARGS`` in the copy, without the start-up.

The request carries pytest's arguments (``"args": [...]``); the protocol, the proof channel and
the clean-up after each run are ``forkserve.py``'s. The run's proof reporter is
``pytest_proof.py``.

This file runs in the tests' interpreter inside the sandbox, as a script: it imports nothing of
simpilot's packages, only its sibling modules ``forkserve`` and ``proctree`` (standard library
only), found in this script's folder, which is ``sys.path[0]``.
"""

from __future__ import annotations

import gc
import hashlib
import importlib
import importlib.util
import marshal
import os
import py_compile
import sys
import traceback

import forkserve
import pytest

# Known by those names only to this script: a test's ``import proctree`` finds the repository's own.
for _name in ("forkserve", "proctree"):
    del sys.modules[_name]

REWRITTEN = os.path.join(forkserve.SCRATCH, "simpilot-rewritten")


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


def _child(request: dict, env: dict[str, str], cpu: int, private: list[int]) -> None:
    """Become ``python -m pytest ARGS`` in the work copy; never returns."""
    code = CRASHED
    try:
        forkserve.enter_child(env, cpu, private)
        args = request["args"]
        sys.path[0] = os.getcwd()  # what ``python -m`` puts first
        sys.argv = [pytest.__file__, *args]
        code = int(pytest.main(args))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        traceback.print_exc()
    finally:
        forkserve.leave_child(code)


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
    forkserve.serve(sys.stdin, answers, "--sandboxed" in sys.argv[1:], _child)
