"""C++ programs: compiled by g++ inside the sandbox, linked with simpilot's launcher, then run.

DevBench's C++ checks are ``assert`` calls (``<cassert>``; ``NDEBUG`` is never defined, and a
program that defines it or redefines ``assert`` is refused, since that switches its checks off).

How a run proves a pass. The program is linked with a small C object of simpilot's
(``inside/cpp_launcher.c``, compiled once per machine and compiler into simpilot's cache) and with
``-Wl,--wrap=main``: the linker sends the C runtime's call of ``main`` to the launcher's
``__wrap_main``, which calls the program's own ``main`` (``__real_main``). Wrapping at link time
is sound where renaming by ``-Dmain=...`` is not: the preprocessor renames every identifier spelt
``main`` (a member, a variable, a method of a class), the linker only the C symbol that the C
runtime calls. Before that:

* a constructor of priority 101 (the first that programs may use; the launcher's object comes
  first on the link line, so it runs before a program's constructor of the same priority, and
  before every ordinary static constructor) takes the run's token from the pipe named by
  ``$SIMPILOT_PROOF``, removes the variable, reopens the report file write-only (the program
  cannot read back what is written there) and registers an ``atexit`` handler;
* ``__wrap_main`` notes that ``main`` returned, and with what;
* the ``atexit`` handler (registered before any of the program's, so it runs after all of them and
  after the destructors of static objects) writes ``start``, ``test`` ``passed`` and ``end`` only
  when ``main`` returned 0. When ``main`` returned another value it writes a failure
  (``ExitFailure``); when ``exit()`` ran before ``main`` returned, a ``SystemExit`` failure (the
  name every harness gives an early exit).

``abort()``, a failed ``assert`` (SIGABRT), an uncaught exception, any other signal, ``_exit()``
and ``quick_exit()`` reach no handler: no record, so no pass. The runner then names the failure
from the exit status and the output: ``AssertionError: <the assertion line glibc printed>``,
``runtime_error: <what()> (std::runtime_error)`` for an exception, the signal's name. A deliberately hostile program shares the launcher's
memory and can always reach the token (as with every in-process reporter); the launcher guards
against programs that end early, not against ones written to forge records.

Compilation. ``g++ -std=c++17 -O1 -pthread`` plus what the program's ``#include`` lines need
(``cpp_packages.py``), computed once outside the sandbox, or read from the flags file
:func:`provision` wrote. A compile error fails the run with
:data:`COMPILE_ERROR` and g++'s first error line. A runner keeps each program's binary (or its
compile error) by the hash of its source and flags (``compiled.py``). Compilation has its own time limit (:data:`COMPILE_TIMEOUT`); the run's
``timeout`` and ``cpu`` budget are the program's.

No warm mode: ``warm`` is accepted and ignored. Starting a compiled program costs a millisecond or
two; the time goes into compiling it (a fraction of a second to many seconds with Eigen), and each
program is a different translation unit that no resident process can keep compiled. What can be
reused is: the launcher (once per machine), the flags (once per process), a program's binary
(once per runner).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import shutil
import signal
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from replay.core.errors import SimpilotError
from replay.core.paths import cache_root
from replay.execution.programs import COMPILE_ERROR, PROGRAM_TEST, Program, launcher_text, signal_name
from replay.execution.programs.compiled import (
    COMPILE_OUTPUT,
    Build,
    Builds,
    build_failure,
    last_line,
    refused,
    run_once,
    source_name,
    stopped,
)
from replay.execution.programs.cpp_packages import Flags, libraries, needs, provision
from replay.execution.programs.scratch import runner_home
from replay.execution.proof.check import ENV, Proof
from replay.execution.sandbox.bubblewrap import ProcessResult, Sandbox

LANGUAGE = "cpp"
STANDARD_FLAGS = ("-std=c++17", "-O1", "-pthread", "-fdiagnostics-color=never")
COMPILE_TIMEOUT = 300.0  # seconds for one g++ run (Eigen- and Boost-heavy programs take many)
BINARY = "program"
LAUNCHER_SOURCE = launcher_text("cpp_launcher.c", ENV=ENV, TEST=PROGRAM_TEST)

# Switching the checks off: NDEBUG turns every assert into nothing, as does a redefined assert
# (``#undef NDEBUG``, which turns them on, is fine).
_DISABLES_CHECKS = re.compile(r"^[ \t]*#[ \t]*(?:define[ \t]+(?:NDEBUG|assert)|undef[ \t]+assert)\b", re.M)
_FIRST_ERROR = re.compile(r"^(?!collect2:).*?\b(?:fatal )?error: .*$", re.M)
_LINK_ERROR = re.compile(r"^.*(?:undefined reference to|multiple definition of|cannot find -l).*$", re.M)
_ASSERTION = re.compile(r"^(?:(?:\S*/)?" + BINARY + r": )?(.*Assertion [`'].*' failed\.?)\s*$", re.M)
_UNCAUGHT = re.compile(r"terminate called after throwing an instance of '([^']+)'(?:\s*\n\s*what\(\):\s*(.*))?")


# -- the toolchain ---------------------------------------------------------------------------------


def missing(language: str) -> str | None:
    """Why the machine cannot run ``language``'s programs (None: it can)."""
    if language != LANGUAGE:
        return f"the C++ harness runs cpp programs, not {language}"
    if shutil.which("g++") is None:
        return "C++ programs need g++: install it (Debian/Ubuntu: apt-get install g++)"
    return None


@dataclass(frozen=True, slots=True)
class Toolchain:
    """g++ and the launcher object built with it."""

    compiler: str
    version: str  # ``g++ --version``'s first line: part of every binary's cache key
    launcher: Path  # launcher.o


@functools.cache
def toolchain() -> Toolchain:
    """g++ and simpilot's launcher, checked and built once per process (the launcher once per
    machine and compiler, in simpilot's cache)."""
    compiler = shutil.which("g++")
    if compiler is None:
        raise SimpilotError("C++ programs need g++: install it (Debian/Ubuntu: apt-get install g++)")
    version = subprocess.run([compiler, "--version"], capture_output=True, text=True).stdout.partition("\n")[0]
    key = hashlib.sha256((LAUNCHER_SOURCE + version + compiler).encode()).hexdigest()[:16]
    home = cache_root() / "cpp" / key
    if not (home / "launcher.o").is_file():
        _build_launcher(home, compiler)
    return Toolchain(compiler, version, home / "launcher.o")


def _build_launcher(home: Path, compiler: str) -> None:
    """Compile the launcher into ``home`` (staged in a folder beside it, then renamed: a
    concurrent builder's copy wins and is identical)."""
    home.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=home.parent) as tmp:
        work = Path(tmp)
        (work / "launcher.c").write_text(LAUNCHER_SOURCE)
        staged = work / "out"
        staged.mkdir()
        command = [compiler, "-x", "c", "-std=gnu11", "-O2", "-fPIC", "-Wall", "-c", "launcher.c", "-o", str(staged / "launcher.o")]
        proc = subprocess.run(command, cwd=work, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SimpilotError(f"could not compile simpilot's C++ launcher with {compiler}: {proc.stderr.strip()[-400:]}")
        try:
            staged.rename(home)
        except OSError:  # another process built it first
            pass


# -- running ---------------------------------------------------------------------------------------


CONCURRENT_RUNNER = True  # one CppRunner serves every run at once (see ``programs.concurrent``)


class CppRunner:
    """Compiles each distinct program once (in the sandbox), runs it in a fresh folder per run.
    Safe to call from several threads at once (:data:`CONCURRENT_RUNNER`): one runner serves
    every run of the language, so a program compiled for one run is there for all the others."""

    def __init__(self, sandbox: Sandbox, flags: Flags, workdir: Path | None = None):
        self.sandbox, self.flags = sandbox, flags
        self.tools = toolchain()
        self.root = runner_home("simpilot-cpp-", workdir)
        self._builds = Builds()
        self._lock = threading.Lock()
        self.compilations = 0  # how many times g++ ran (the rest came from the cache)

    def run(self, program: Program, timeout: float, cpu: float | None = None) -> ProcessResult:
        """Compile ``program`` (or take its binary from the cache), then run it."""
        if _DISABLES_CHECKS.search(program.source):
            return refused(f"{COMPILE_ERROR}the program defines NDEBUG or redefines assert, which switches its checks off")
        build = self._build(program)
        if build.binary is None:
            assert build.failure is not None
            return build.failure
        return run_once(self.sandbox, self.root, [str(build.binary)], timeout, cpu, {}, failure_message)

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
        self._builds.clear()

    def _build(self, program: Program) -> Build:
        cflags, libs = self.flags.for_source(program.source)
        name = source_name(program.name, ".cpp", BINARY, "main.cpp")
        key = hashlib.sha256(
            json.dumps([program.source, name, cflags, libs, self.tools.version, str(self.tools.launcher)]).encode()
        ).hexdigest()
        return self._builds.get(key, lambda: self._compile(program.source, name, cflags, libs, key))

    def _compile(self, source: str, name: str, cflags: list[str], libs: list[str], key: str) -> Build:
        folder = self.root / "build" / key[:24]
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        (folder / name).write_text(source, encoding="utf-8")
        command = [
            self.tools.compiler,
            *STANDARD_FLAGS,
            *cflags,
            str(self.tools.launcher),  # first: its constructor runs before the program's of the same priority
            name,
            "-o",
            BINARY,
            "-Wl,--wrap=main",
            *libs,
        ]
        with self._lock:
            self.compilations += 1
        result = self.sandbox.run(command, folder, COMPILE_TIMEOUT, keep_output=COMPILE_OUTPUT)
        binary = folder / BINARY
        if result.returncode == 0 and not result.timed_out and binary.is_file():
            return Build(binary)
        if result.timed_out:
            message = f"{COMPILE_ERROR}g++ did not finish in {COMPILE_TIMEOUT:.0f} s"
        else:
            message = COMPILE_ERROR + first_compile_error(result.output or result.output_tail)
        return build_failure(result, message)


def first_compile_error(output: str) -> str:
    """g++'s first error line (a link error when the compiler found none), else the last line."""
    for pattern in (_FIRST_ERROR, _LINK_ERROR):
        found = pattern.search(output)
        if found:
            return found.group(0).strip()
    return last_line(output, "g++ failed without a message")


def failure_message(result: ProcessResult, proof: Proof, timeout: float, budget: int | None = None) -> str:
    """Why a run that did not pass failed, led by the error's class: the launcher's record
    (``ExitFailure``, ``SystemExit``), else what the exit status and the output show."""
    said = stopped(result, proof, timeout, budget)
    if said is not None:
        return said
    code = result.returncode
    if code == -signal.SIGABRT:
        return _abort_message(result.output_tail)
    if code < 0:
        name = signal_name(code)
        return f"{name}: the program was killed by signal {-code} ({signal.strsignal(-code) or name})"
    return f"SystemExit: the program ended (status {code}) without returning from main, so its checks did not all run"


def _abort_message(output: str) -> str:
    """A SIGABRT's cause: a failed assert (glibc's line), an uncaught exception, else abort()."""
    assertions = _ASSERTION.findall(output)
    if assertions:
        return "AssertionError: " + assertions[-1].strip()
    uncaught = _UNCAUGHT.findall(output)
    if uncaught:
        kind, what = uncaught[-1]
        return _exception_message(kind, what.strip() or "uncaught exception")
    if "terminate called without an active exception" in output:
        return "std::terminate: called without an active exception (a joinable std::thread destroyed?)"
    return "SIGABRT: the program aborted (abort() or a failed check)"


def _exception_message(kind: str, what: str) -> str:
    """``runtime_error: what (std::runtime_error)``: the class's own name first, as error
    records name a class (``error_class`` reads a name up to the first colon), then its scope."""
    short = kind.rsplit("::", 1)[-1]
    return f"{short}: {what}" + (f" ({kind})" if short != kind else "")


def runner(language: str, sandbox: Sandbox, environment: Path | None = None, warm: bool = False, workdir: Path | None = None) -> CppRunner:
    """A runner of C++ programs. ``environment``: :func:`provision`'s folder (its flags file).
    ``warm`` is ignored (see the module's documentation). ``workdir``: where the runner keeps
    its binaries and run folders (a temporary folder when None)."""
    reason = missing(language)
    if reason is not None:
        raise SimpilotError(reason)
    del warm  # no resident process can keep compilation warm
    return CppRunner(sandbox, Flags.load(environment), workdir)


__all__ = [
    "CppRunner",
    "failure_message",
    "first_compile_error",
    "libraries",
    "missing",
    "needs",
    "provision",
    "runner",
    "toolchain",
]
