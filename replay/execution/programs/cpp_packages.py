"""What C++ programs need: the libraries their ``#include`` lines name, installed and flagged.

A program's includes name libraries (:data:`LIBRARIES`: Eigen's include folder, ``-lssl
-lcrypto``, ``pkg-config`` for HarfBuzz, FreeType and OpenCV, ``python3-config`` for
``Python.h``...), each provided by Debian packages. :func:`needs` is pure; :func:`provision`
installs what is missing with apt-get, outside any sandbox, and writes every installed library's
compiler flags into its folder (:data:`FLAGS_FILE`), which :class:`Flags` reads for the runner
(or computes on this machine, once per process, without one).
"""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from replay.core.errors import SimpilotError

APT_TIMEOUT = 3600.0  # seconds for one apt-get command (OpenCV is hundreds of megabytes)
FLAGS_FILE = "cpp-flags.json"  # what provision writes into its folder for the runner
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]', re.M)


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
