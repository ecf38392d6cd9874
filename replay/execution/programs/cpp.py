"""C++ programs: compiled by g++ inside the sandbox, linked with simpilot's launcher, then run.

DevBench's C++ checks are ``assert`` calls (``<cassert>``; ``NDEBUG`` is never defined, and a
program that defines it or redefines ``assert`` is refused, since that switches its checks off).

How a run proves a pass. The program is linked with a small C object of simpilot's
(:data:`LAUNCHER_SOURCE`, compiled once per machine and compiler into simpilot's cache) and with
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
(:data:`LIBRARIES`: Eigen's include folder, ``-lssl -lcrypto``, ``pkg-config`` for HarfBuzz,
FreeType and OpenCV, ``python3-config`` for ``Python.h``...), computed once outside the sandbox,
or read from the flags file :func:`provision` wrote. A compile error fails the run with
:data:`COMPILE_ERROR` and g++'s first error line. A runner keeps each program's binary (or its
compile error) by the hash of its source and flags: the gate runs the same program twice and
compiles it once. Compilation has its own time limit (:data:`COMPILE_TIMEOUT`); the run's
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
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from replay.core.errors import SimpilotError
from replay.core.paths import cache_root
from replay.execution.programs import COMPILE_ERROR, PROGRAM_TEST, Program
from replay.execution.proof.check import ENV, Channel, Proof
from replay.execution.run_end import oom_kill_message
from replay.execution.runners.warm import cpu_budget
from replay.execution.sandbox.bubblewrap import ProcessResult, Sandbox, with_budget

LANGUAGE = "cpp"
STANDARD_FLAGS = ("-std=c++17", "-O1", "-pthread", "-fdiagnostics-color=never")
COMPILE_TIMEOUT = 300.0  # seconds for one g++ run (Eigen- and Boost-heavy programs take many)
COMPILE_OUTPUT = 64000  # bytes of g++'s output kept from its start, where its first error is
APT_TIMEOUT = 3600.0  # seconds for one apt-get command (OpenCV is hundreds of megabytes)
FLAGS_FILE = "cpp-flags.json"  # what provision writes into its folder for the runner
BINARY = "program"
LAUNCHER_SOURCE = r"""
/* simpilot's C++ launcher: reports whether the program's main returned 0 through the proof
   channel (see replay/execution/programs/cpp.py). Linked first, with -Wl,--wrap=main. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOKEN_MAX 128
#define RECORD_MAX 1024

extern int __real_main(int argc, char **argv, char **envp);

static char token[TOKEN_MAX + 1];
static int report = -1;
static pid_t owner;
static int returned;
static int status;

static void put(const char *text, size_t size) {
    while (size > 0) {
        ssize_t written = write(report, text, size);
        if (written < 0) {
            if (errno == EINTR) continue;
            return;
        }
        text += written;
        size -= (size_t)written;
    }
}

static void finish(void) {
    char records[RECORD_MAX];
    int size;
    if (report < 0 || getpid() != owner) return; /* a forked child's exit says nothing */
    if (returned && status == 0) {
        size = snprintf(records, sizeof records,
                        "%s\t{\"event\": \"start\"}\n"
                        "%s\t{\"event\": \"test\", \"id\": \"@TEST@\", \"outcome\": \"passed\"}\n"
                        "%s\t{\"event\": \"end\"}\n",
                        token, token, token);
    } else if (returned) {
        size = snprintf(records, sizeof records,
                        "%s\t{\"event\": \"start\"}\n"
                        "%s\t{\"event\": \"test\", \"id\": \"@TEST@\", \"outcome\": \"failed\"}\n"
                        "%s\t{\"event\": \"error\", \"message\": \"ExitFailure: main returned %d\"}\n",
                        token, token, token, status);
    } else {
        size = snprintf(records, sizeof records,
                        "%s\t{\"event\": \"start\"}\n"
                        "%s\t{\"event\": \"test\", \"id\": \"@TEST@\", \"outcome\": \"failed\"}\n"
                        "%s\t{\"event\": \"error\", \"message\": \"SystemExit: exit() was called before main returned,"
                        " so the checks after it did not run\"}\n",
                        token, token, token);
    }
    if (size > 0 && size < (int)sizeof records) put(records, (size_t)size);
    close(report);
    report = -1;
}

static int take_token(int fd) {
    size_t size = 0;
    while (size < TOKEN_MAX) {
        ssize_t got = read(fd, token + size, TOKEN_MAX - size);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        size += (size_t)got;
    }
    token[size] = '\0';
    if (size == 0) return 0;
    for (size_t i = 0; i < size; i++) {
        char c = token[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return 0;
    }
    return 1;
}

__attribute__((constructor(101))) static void simpilot_launch(void) {
    const char *spec = getenv("@ENV@");
    int token_fd, report_fd, writer;
    char path[64];
    if (spec == NULL || sscanf(spec, "%d:%d", &token_fd, &report_fd) != 2) return;
    unsetenv("@ENV@");
    int ok = take_token(token_fd);
    close(token_fd);
    if (!ok) {
        close(report_fd);
        return;
    }
    /* write-only from here on: what the report holds cannot be read back by the program */
    snprintf(path, sizeof path, "/proc/self/fd/%d", report_fd);
    writer = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (writer >= 0) {
        close(report_fd);
    } else {
        writer = report_fd;
    }
    report = fcntl(writer, F_DUPFD_CLOEXEC, 200); /* out of the way of the program's own descriptors */
    if (report >= 0) {
        close(writer);
    } else {
        report = writer;
    }
    owner = getpid();
    if (atexit(finish) != 0) {
        close(report);
        report = -1;
    }
}

int __wrap_main(int argc, char **argv, char **envp) {
    int result = __real_main(argc, argv, envp);
    status = result;
    returned = 1;
    return result;
}
""".replace("@ENV@", ENV).replace("@TEST@", PROGRAM_TEST)

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]', re.M)
# Switching the checks off: NDEBUG turns every assert into nothing, as does a redefined assert
# (``#undef NDEBUG``, which turns them on, is fine).
_DISABLES_CHECKS = re.compile(r"^[ \t]*#[ \t]*(?:define[ \t]+(?:NDEBUG|assert)|undef[ \t]+assert)\b", re.M)
_FIRST_ERROR = re.compile(r"^(?!collect2:).*?\b(?:fatal )?error: .*$", re.M)
_LINK_ERROR = re.compile(r"^.*(?:undefined reference to|multiple definition of|cannot find -l).*$", re.M)
_ASSERTION = re.compile(r"^(?:(?:\S*/)?" + BINARY + r": )?(.*Assertion [`'].*' failed\.?)\s*$", re.M)
_UNCAUGHT = re.compile(r"terminate called after throwing an instance of '([^']+)'(?:\s*\n\s*what\(\):\s*(.*))?")


@dataclass(frozen=True, slots=True)
class Library:
    """A library the programs may include, the Debian packages that provide it, and where its
    compiler flags come from (fixed ones, ``pkg-config`` modules, or a ``*-config`` command)."""

    name: str
    packages: tuple[str, ...]
    headers: tuple[str, ...] = ()  # exact include names (``sqlite3.h``)
    prefixes: tuple[str, ...] = ()  # include name prefixes (``openssl/``)
    cflags: tuple[str, ...] = ()
    libs: tuple[str, ...] = ()
    pkgconfig: tuple[str, ...] = ()
    config: tuple[str, ...] = ()  # a command printing the include flags, then the link flags with --libs

    def included_by(self, include: str) -> bool:
        return include in self.headers or include.startswith(self.prefixes)


# Boost's system library is header-only since 1.69 (asio needs no -lboost_system); thread,
# filesystem and the others named here are not.
LIBRARIES: tuple[Library, ...] = (
    Library("eigen", ("libeigen3-dev",), prefixes=("Eigen/", "unsupported/Eigen/"), cflags=("-I/usr/include/eigen3",)),
    Library("openssl", ("libssl-dev",), prefixes=("openssl/",), libs=("-lssl", "-lcrypto")),
    Library("sqlite3", ("libsqlite3-dev",), headers=("sqlite3.h", "sqlite3ext.h"), libs=("-lsqlite3",)),
    Library("harfbuzz", ("libharfbuzz-dev",), headers=("hb.h", "hb-ft.h"), prefixes=("harfbuzz/",), pkgconfig=("harfbuzz",)),
    Library("freetype", ("libfreetype-dev",), headers=("ft2build.h",), prefixes=("freetype/", "freetype2/"), pkgconfig=("freetype2",)),
    Library("boost", ("libboost-dev",), prefixes=("boost/",)),
    Library("boost_thread", ("libboost-thread-dev",), prefixes=("boost/thread",), libs=("-lboost_thread",)),
    Library("boost_filesystem", ("libboost-filesystem-dev",), prefixes=("boost/filesystem",), libs=("-lboost_filesystem",)),
    Library("boost_regex", ("libboost-regex-dev",), prefixes=("boost/regex",), libs=("-lboost_regex",)),
    Library(
        "boost_program_options", ("libboost-program-options-dev",), prefixes=("boost/program_options",), libs=("-lboost_program_options",)
    ),
    Library("nlohmann_json", ("nlohmann-json3-dev",), prefixes=("nlohmann/",)),
    Library("armadillo", ("libarmadillo-dev",), headers=("armadillo",), prefixes=("armadillo_bits/",), libs=("-larmadillo",)),
    Library("opencv", ("libopencv-dev",), prefixes=("opencv2/",), pkgconfig=("opencv4",)),
    Library("python", ("python3-dev",), headers=("Python.h",), config=("python3-config", "--includes", "--embed")),
    Library("zlib", ("zlib1g-dev",), headers=("zlib.h",), libs=("-lz",)),
    Library("curl", ("libcurl4-openssl-dev",), prefixes=("curl/",), libs=("-lcurl",)),
)
_BY_NAME = {library.name: library for library in LIBRARIES}


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


# -- what the programs need ------------------------------------------------------------------------


def includes(source: str) -> list[str]:
    """The names a program's ``#include`` lines name, in order."""
    return _INCLUDE.findall(source)


def libraries(source: str) -> list[Library]:
    """The libraries of :data:`LIBRARIES` a program includes."""
    names = includes(source)
    return [library for library in LIBRARIES if any(library.included_by(name) for name in names)]


def needs(sources: Iterable[str]) -> list[str]:
    """The Debian packages the programs' includes need (installed or not: the lock pins them all)."""
    return sorted({package for source in sources for library in libraries(source) for package in library.packages})


def installed_versions(packages: Iterable[str]) -> dict[str, str]:
    """package -> version of those of ``packages`` that dpkg has installed (all of them
    unknown where there is no dpkg)."""
    names = sorted(set(packages))
    if not names or shutil.which("dpkg-query") is None:
        return {}
    proc = subprocess.run(
        ["dpkg-query", "-W", "-f", "${Package}\t${db:Status-Abbrev}\t${Version}\n", *names], capture_output=True, text=True
    )
    found: dict[str, str] = {}
    for line in proc.stdout.splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and parts[1].startswith("ii") and parts[2]:
            found[parts[0].partition(":")[0]] = parts[2]
    return found


def provision(needed: Iterable[str], folder: Path) -> dict[str, str]:
    """Install those of ``needed`` (Debian packages, from :func:`needs`) that are not installed yet with apt-get, outside any
    sandbox, and write the compiler flags of every installed library into ``folder`` for
    :func:`runner`. Returns package -> installed version (the lock)."""
    packages = sorted(set(needed))
    absent = [package for package in packages if package not in installed_versions(packages)]
    if absent and shutil.which("dpkg-query") is not None:
        _apt_install(absent)
    lock = installed_versions(packages)
    absent = [package for package in packages if package not in lock]
    if absent:
        raise SimpilotError(f"apt-get did not install {', '.join(absent)}: install them yourself (apt-get install {' '.join(absent)})")
    folder.mkdir(parents=True, exist_ok=True)
    flags = {}
    for library in LIBRARIES:
        if _available(library):
            cflags, libs = _flags_of(library)
            flags[library.name] = {"cflags": cflags, "libs": libs}
    (folder / FLAGS_FILE).write_text(json.dumps({"libraries": flags}, indent=1))
    return lock


def _apt_install(packages: list[str]) -> None:
    """apt-get install, with one ``apt-get update`` and a retry when the package lists are stale."""
    command = ["apt-get", "install", "-y", "--no-install-recommends", "-o", "DPkg::Lock::Timeout=600", *packages]
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise SimpilotError(
            f"C++ programs here need the Debian packages {', '.join(packages)}: install them as root ({shlex.join(command)})"
        )
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    proc = _apt(command, env)
    if proc.returncode != 0 and ("Unable to locate package" in proc.stdout or "no installation candidate" in proc.stdout):
        _apt(["apt-get", "update", "-o", "DPkg::Lock::Timeout=600"], env)
        proc = _apt(command, env)
    if proc.returncode != 0:
        tail = "\n".join(proc.stdout.strip().splitlines()[-8:])
        raise SimpilotError(f"{shlex.join(command)} failed (status {proc.returncode}); fix it and retry:\n{tail}")


def _apt(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=APT_TIMEOUT)
    except subprocess.TimeoutExpired as exc:
        raise SimpilotError(f"{shlex.join(command)} did not finish in {APT_TIMEOUT:.0f} s: run it yourself") from exc


# -- compiler flags --------------------------------------------------------------------------------


def _available(library: Library) -> bool:
    """Whether the library's packages are installed (then its flags can be computed)."""
    return all(package in installed_versions(library.packages) for package in library.packages) if library.packages else True


def _flags_of(library: Library) -> tuple[list[str], list[str]]:
    """A library's (compile flags, link flags), asking pkg-config or its config command."""
    cflags, libs = list(library.cflags), list(library.libs)
    if library.pkgconfig and shutil.which("pkg-config"):
        cflags += _words(["pkg-config", "--cflags", *library.pkgconfig])
        libs += _words(["pkg-config", "--libs", *library.pkgconfig])
    if library.config:
        tool = _config_tool(library.config[0])
        if tool is not None:
            cflags += _words([tool, *library.config[1:2]])
            libs += _words([tool, *library.config[2:], "--libs"])
    return _unique(f for f in cflags if f not in ("-DNDEBUG",)), _unique(libs)


def _config_tool(name: str) -> str | None:
    """A ``*-config`` command, the system's first: a shim of a version manager (pyenv) would
    point at headers and libraries under a home folder that the sandbox hides."""
    system = Path("/usr/bin") / name
    return str(system) if system.is_file() else shutil.which(name)


def _words(command: list[str]) -> list[str]:
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return shlex.split(proc.stdout) if proc.returncode == 0 else []


def _unique(flags: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(flags))


@functools.cache
def _computed_flags(name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A library's flags computed on this machine (once per process), without a flags file."""
    cflags, libs = _flags_of(_BY_NAME[name])
    return tuple(cflags), tuple(libs)


@dataclass(frozen=True, slots=True)
class Flags:
    """Compiler flags per library: the provisioned folder's file, else computed here."""

    provisioned: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=dict)

    @classmethod
    def load(cls, environment: Path | None) -> Flags:
        path = environment / FLAGS_FILE if environment is not None else None
        if path is None or not path.is_file():
            return cls()
        try:
            data = json.loads(path.read_text())["libraries"]
            return cls({name: (tuple(v["cflags"]), tuple(v["libs"])) for name, v in data.items()})
        except (ValueError, KeyError, TypeError) as exc:
            raise SimpilotError(f"{path} is not a C++ flags file ({exc}): delete the folder and provision it again") from exc

    def of(self, library: Library) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return self.provisioned.get(library.name) or _computed_flags(library.name)

    def for_source(self, source: str) -> tuple[list[str], list[str]]:
        """(compile flags, link flags) for a program; each folder of ``-I``/``-L`` as a word of
        its own, so that the sandbox shows it when it lies in a hidden folder."""
        cflags: list[str] = []
        libs: list[str] = []
        for library in libraries(source):
            c, lib = self.of(library)
            cflags += c
            libs += lib
        return _split_paths(_unique(cflags)), _split_paths(_unique(libs))


def _split_paths(flags: list[str]) -> list[str]:
    out: list[str] = []
    for flag in flags:
        for option in ("-I", "-L", "-isystem"):
            if flag.startswith(option) and flag[len(option) :].startswith("/"):
                out += [option, flag[len(option) :]]
                break
        else:
            out.append(flag)
    return out


# -- running ---------------------------------------------------------------------------------------


CONCURRENT_RUNNER = True  # one CppRunner serves every run at once (see ``programs.concurrent``)


@dataclass(frozen=True, slots=True)
class _Build:
    """A compiled program: its binary, or the failed compilation's result."""

    binary: Path | None
    failure: ProcessResult | None = None


class CppRunner:
    """Compiles each distinct program once (in the sandbox), runs it in a fresh folder per run.
    Safe to call from several threads at once (:data:`CONCURRENT_RUNNER`): one runner serves
    every run of the language, so a program compiled for one run is there for all the others."""

    def __init__(self, sandbox: Sandbox, flags: Flags, workdir: Path | None = None):
        self.sandbox, self.flags = sandbox, flags
        self.tools = toolchain()
        if workdir is not None:
            workdir.mkdir(parents=True, exist_ok=True)
        self.root = Path(tempfile.mkdtemp(prefix="simpilot-cpp-", dir=workdir))
        self._builds: dict[str, _Build] = {}
        self._lock = threading.Lock()
        self._building: dict[str, threading.Lock] = {}  # per program: the first run compiles, the others wait
        self.compilations = 0  # how many times g++ ran (the rest came from the cache)

    def run(self, program: Program, timeout: float, cpu: float | None = None) -> ProcessResult:
        """Compile ``program`` (or take its binary from the cache), then run it."""
        if _DISABLES_CHECKS.search(program.source):
            message = f"{COMPILE_ERROR}the program defines NDEBUG or redefines assert, which switches its checks off"
            return ProcessResult(1, False, 0.0, message, failed_proof(message))
        build = self._build(program)
        if build.binary is None:
            assert build.failure is not None
            return build.failure
        return self._execute(build.binary, timeout, cpu)

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
        self._builds.clear()

    # compilation

    def _build(self, program: Program) -> _Build:
        cflags, libs = self.flags.for_source(program.source)
        source_name = _source_name(program.name)
        key = hashlib.sha256(
            json.dumps([program.source, source_name, cflags, libs, self.tools.version, str(self.tools.launcher)]).encode()
        ).hexdigest()
        with self._lock:
            building = self._building.setdefault(key, threading.Lock())
        with building:
            if key not in self._builds:
                build = self._compile(program.source, source_name, cflags, libs, key)
                if build.failure is not None and build.failure.timed_out:
                    return build  # the machine may have been busy: not remembered
                self._builds[key] = build
            return self._builds[key]

    def _compile(self, source: str, source_name: str, cflags: list[str], libs: list[str], key: str) -> _Build:
        folder = self.root / "build" / key[:24]
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        (folder / source_name).write_text(source, encoding="utf-8")
        command = [
            self.tools.compiler,
            *STANDARD_FLAGS,
            *cflags,
            str(self.tools.launcher),  # first: its constructor runs before the program's of the same priority
            source_name,
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
            return _Build(binary)
        if result.timed_out:
            message = f"{COMPILE_ERROR}g++ did not finish in {COMPILE_TIMEOUT:.0f} s"
        else:
            message = COMPILE_ERROR + first_compile_error(result.output or result.output_tail)
        return _Build(
            None, ProcessResult(result.returncode, result.timed_out, result.duration_s, result.output_tail, failed_proof(message))
        )

    # running

    def _execute(self, binary: Path, timeout: float, cpu: float | None) -> ProcessResult:
        return run_once(self.sandbox, self.root, [str(binary)], timeout, cpu, {}, failure_message)


Describe = Callable[[ProcessResult, Proof, float, int | None], str]  # why a run failed


def run_once(
    sandbox: Sandbox, root: Path, command: list[str], timeout: float, cpu: float | None, env: dict[str, str], describe: Describe
) -> ProcessResult:
    """Run a built program once, with the proof channel, in a fresh empty folder under ``root``
    (removed afterwards: nothing a run writes is there for the next). ``cpu``: the run's budget
    of CPU seconds. A run that did not prove a pass gets one failed test and one error, named by
    ``describe(result, proof, timeout, budget)`` (``budget``: set when the budget ran out)."""
    scratch = Path(tempfile.mkdtemp(prefix="run-", dir=root))
    budget = cpu_budget(cpu, sandbox.limits.cpu_seconds) if cpu is not None else None
    if budget is not None and sandbox.prlimit:
        # soft limit at the budget (SIGXCPU: the run was busy), the hard limit a second later
        command = ["prlimit", f"--cpu={budget}:{budget + 1}", "--", *command]
    try:
        with Channel() as channel:
            result = sandbox.run(command, scratch, timeout, env=env, channel=channel)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if budget is not None and sandbox.prlimit:
        result = with_budget(result, budget)  # the run's own limit, inside the sandbox's
    proof = result.proof or Proof()
    if not result.timed_out and proof.finished and proof.outcomes == {PROGRAM_TEST: "passed"} and not proof.errors:
        return result
    message = describe(result, proof, timeout, budget if result.busy else None)
    return ProcessResult(
        result.returncode,
        result.timed_out,
        result.duration_s,
        result.output_tail,
        failed_proof(message, proof),
        busy=result.busy,
        end=result.end,
    )


def first_compile_error(output: str) -> str:
    """g++'s first error line (a link error when the compiler found none), else the last line."""
    for pattern in (_FIRST_ERROR, _LINK_ERROR):
        found = pattern.search(output)
        if found:
            return found.group(0).strip()
    lines = [line for line in output.splitlines() if line.strip()]
    return lines[-1].strip() if lines else "g++ failed without a message"


def failure_message(result: ProcessResult, proof: Proof, timeout: float, budget: int | None = None) -> str:
    """Why a run that did not pass failed, led by the error's class: the launcher's record
    (``ExitFailure``, ``SystemExit``), else what the exit status and the output show."""
    if budget is not None:
        return f"TimeoutError: the program used up its CPU budget of {budget} s"
    if result.timed_out:
        return f"TimeoutError: the program did not finish in {timeout:g} s"
    if (killed := oom_kill_message(result.end)) is not None:
        return killed
    if proof.errors:
        return proof.errors[0]
    code = result.returncode
    if code == -signal.SIGABRT:
        return _abort_message(result.output_tail)
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
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


def failed_proof(message: str, proof: Proof | None = None) -> Proof:
    """The proof of a failed run: the one program test failed, with one error."""
    proof = proof or Proof()
    return Proof({PROGRAM_TEST: "failed"}, {}, (message,), (), proof.started, False)


def _source_name(name: str) -> str:
    """The file name the program is compiled under (g++'s messages name it): the program's
    own, as a .cpp file, when it is a plain name."""
    stem = Path(name).stem
    return f"{stem}.cpp" if re.fullmatch(r"[\w-]+", stem) and stem != BINARY else "main.cpp"


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
    "LIBRARIES",
    "CppRunner",
    "Flags",
    "Library",
    "failed_proof",
    "failure_message",
    "first_compile_error",
    "includes",
    "installed_versions",
    "libraries",
    "missing",
    "needs",
    "provision",
    "run_once",
    "runner",
    "toolchain",
]
