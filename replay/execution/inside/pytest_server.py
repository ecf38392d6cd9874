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
simpilot's packages, only its sibling modules ``forkserve``, ``proctree`` and ``server_protocol`` (standard library
only), found in this script's folder, which is ``sys.path[0]``.
"""

from __future__ import annotations

import gc
import importlib
import importlib.machinery
import os
import pathlib
import re
import sys
import traceback
import types

import forkserve
import pytest
import server_protocol

# Known by those names only to this script: a test's ``import proctree`` finds the repository's own.
for _name in ("forkserve", "proctree", "server_protocol"):
    del sys.modules[_name]

# The server's caches live in its own memory: a run is a forked child, which gets a copy of them
# and can change only that copy. Nothing of them is a file the code under test could replace.
_TEST_FILE = re.compile(r"(test_.*|.*_test|conftest)\.py")


def _source_files(root: str) -> list[str]:
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
        found += [os.path.join(folder, name) for name in files if name.endswith(".py")]
    return found


def _cache_rewritten_tests(paths: list[str]) -> None:
    """Rewrite the asserts of the copy's test modules once, here, and let every run take them
    from memory when the test file's bytes are still the same.

    Rewriting the asserts of the test files is most of what a warm run still costs, and the test
    files do not change between runs. pytest would cache the result itself in ``__pycache__``, but
    only when byte-code may be written, and it trusts a cached file by its source's size and
    modification time, both of which a run can forge. A repository that turns on
    ``enable_assertion_pass_hook`` is rewritten in each run, as pytest would.
    """
    try:
        from _pytest.assertion import rewrite
    except ImportError:  # another pytest layout: run without the cache
        return
    original = getattr(rewrite, "_rewrite_test", None)
    if original is None:
        return
    cache: dict[str, tuple[bytes, tuple]] = {}
    for path in paths:
        if _TEST_FILE.fullmatch(os.path.basename(path)):
            try:
                with open(path, "rb") as f:
                    source = f.read()
                cache[path] = (source, original(pathlib.Path(path), None))
            except Exception:  # noqa: BLE001 - a file pytest could not rewrite either: left to the run
                pass

    def cached(fn, config):
        found = cache.get(str(fn))
        if found is not None and (config is None or not config.getini("enable_assertion_pass_hook")) and fn.read_bytes() == found[0]:
            return found[1]
        return original(fn, config)

    rewrite._rewrite_test = cached


def _cache_compiled(paths: list[str]) -> None:
    """Compile the copy's modules once, here; a run's import takes the code from memory when the
    file's bytes are the same (the patched file is compiled afresh). Byte-code is never written
    to or read from the copy: a ``.pyc`` there is checked against its source by its header only."""
    compiled: dict[str, tuple[bytes, types.CodeType]] = {}
    for path in paths:
        try:
            with open(path, "rb") as f:
                source = f.read()
            compiled[path] = (source, compile(source, path, "exec", dont_inherit=True))
        except (SyntaxError, ValueError, OSError):
            pass  # imported from source, as usual
    original = importlib.machinery.SourceFileLoader.source_to_code

    def source_to_code(self, data, path, *, _optimize=-1):
        found = compiled.get(path) if isinstance(path, str) else None
        if found is not None and _optimize == -1 and data == found[0]:
            return found[1]
        return original(self, data, path, _optimize=_optimize)

    importlib.machinery.SourceFileLoader.source_to_code = source_to_code  # type: ignore[method-assign]


CRASHED = server_protocol.PYTEST_CRASHED  # the exit status of a run in which pytest itself raised


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


if __name__ == "__main__":
    # Answers go to a private copy of standard output: nothing a run prints can corrupt them.
    answers = os.fdopen(os.dup(1), "w")
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    _preload_plugins()
    import ctypes  # noqa: F401 - the reporter makes each run non-dumpable with it: loaded once here

    sources = _source_files(os.getcwd())
    _cache_rewritten_tests(sources)  # installed once here, inherited by every run
    _cache_compiled(sources)
    gc.freeze()  # what the server imported is never collected again: cheaper runs, fewer copied pages
    answers.write(server_protocol.READY + "\n")
    answers.flush()
    forkserve.serve(sys.stdin, answers, server_protocol.SANDBOXED in sys.argv[1:], _child)
