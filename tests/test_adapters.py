"""The HTTP model adapters against a local server that speaks each wire format.

The server (a threaded ``http.server`` on 127.0.0.1, port 0) records every request body and
answers from a script of replies, so the tests see exactly what each adapter sends and how it
handles each endpoint fault: refused connection, timeout, 429 then success, 500, malformed JSON,
an answer without a completion, a 10 MB body.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from lsp_bridge.models import HTTP_KINDS, ModelError, check_spec, create_model, spec_from_json
from lsp_bridge.models.base import CompletionRequest
from lsp_bridge.models.cache import CachedModel, RawOutputStore
from lsp_bridge.models.endpoint import retry_after
from lsp_bridge.models.resolve import resolve_model
from lsp_bridge.repo_context import arrange_document
from replay.config.model_spec import spec_json
from replay.core.errors import SimpilotError

ANSWER = "a + b"
PRE = "def add(a, b):\n    return "
SUF = "\n\n\nprint(add(1, 2))\n"
SECRET = "EXPECTED_VALUE_FROM_TESTS"

PATHS = {"openai-chat": "/v1/chat/completions", "openai-completions": "/v1/completions", "llamacpp-infill": "/infill", "ollama": "/api/generate"}
KINDS = list(PATHS)


def wire_answer(kind: str, text: str) -> dict[str, Any]:
    """A successful answer in ``kind``'s wire format."""
    return {
        "openai-chat": {"id": "x", "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]},
        "openai-completions": {"id": "x", "choices": [{"index": 0, "text": text, "finish_reason": "stop"}]},
        "llamacpp-infill": {"content": text, "stop": True, "tokens_predicted": 3},
        "ollama": {"model": "m", "response": text, "done": True},
    }[kind]


def empty_answer(kind: str) -> dict[str, Any]:
    """A well-formed answer that holds no completion (no choices, no text field)."""
    return {"openai-chat": {"choices": []}, "openai-completions": {"choices": []}, "llamacpp-infill": {"stop": True}, "ollama": {"done": True}}[kind]


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    declare_length: bool = True


@dataclass
class FakeEndpoint:
    """A local server for one wire format: replies from ``script`` in order, then the normal
    answer; ``bodies`` holds every request body received, ``paths`` their paths."""

    kind: str
    answer: str = ANSWER
    script: list[Reply] = field(default_factory=list)
    bodies: list[dict[str, Any]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    stopping: threading.Event = field(default_factory=threading.Event)
    port: int = 0

    @property
    def base_url(self) -> str:
        root = f"http://127.0.0.1:{self.port}"
        return root + "/v1" if self.kind.startswith("openai") else root

    def spec(self, **settings: Any) -> dict[str, Any]:
        return {"kind": self.kind, "base_url": self.base_url, "model": "m", "retries": 0, "backoff": 0.01, **settings}

    def next_reply(self, path: str) -> Reply:
        if path != PATHS[self.kind]:
            return Reply(404, b'{"error": "not found"}')
        if self.script:
            return self.script.pop(0)
        return Reply(body=json.dumps(wire_answer(self.kind, self.answer)).encode())


@pytest.fixture(params=KINDS)
def endpoint(request: pytest.FixtureRequest) -> Iterator[FakeEndpoint]:
    yield from serve(FakeEndpoint(request.param))


def serve(fake: FakeEndpoint) -> Iterator[FakeEndpoint]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            fake.bodies.append(json.loads(self.rfile.read(length)))
            fake.paths.append(self.path)
            fake.headers.append(dict(self.headers))
            reply = fake.next_reply(self.path)
            if reply.delay and fake.stopping.wait(reply.delay):
                return
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if reply.declare_length:
                self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            try:
                self.wfile.write(reply.body)
            except OSError:
                pass  # the client gave up (the body cap): expected

        def log_message(self, format: str, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.handle_error = lambda request, address: None  # type: ignore[method-assign]
    fake.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        fake.stopping.set()
        server.shutdown()
        server.server_close()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "calc"
    files = {
        "simpilot.toml": '[repository]\nname = "calc"\nlanguage = "python"\nsources = ["calc"]\n'
                         'tests = ["tests"]\ntest_command = ["{python}", "-m", "pytest"]\n',
        "calc/core.py": PRE + ANSWER + SUF,
        "calc/util.py": "def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n",
        "tests/test_core.py": f"def test_add():\n    assert add(1, 2) == {SECRET}\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def doc_request(path: Path, prefix: str = PRE, suffix: str = SUF) -> CompletionRequest:
    return CompletionRequest(uri=path.as_uri(), path=path.as_posix(), language="python", text=prefix + suffix, offset=len(prefix),
                             line=prefix.count("\n"), character=len(prefix.rsplit("\n", 1)[-1]))


UNTITLED = CompletionRequest(uri="untitled:1", path="untitled:1", language="python", text=PRE + SUF, offset=len(PRE), line=1, character=11)


async def ask(spec: dict[str, Any], request: CompletionRequest = UNTITLED) -> str:
    model = create_model(spec_from_json(spec))
    try:
        return await model.complete(request)
    finally:
        await model.aclose()


# ------------------------------------------------------------------------------ wire formats


async def test_openai_completions_fim_body() -> None:
    for fake in serve(FakeEndpoint("openai-completions", answer="a + b<|endoftext|>junk")):
        assert await ask(fake.spec(fim_family="starcoder", max_tokens=64)) == ANSWER
        assert fake.paths == ["/v1/completions"]
        assert fake.bodies == [{
            "model": "m", "prompt": f"<fim_prefix>{PRE}<fim_suffix>{SUF}<fim_middle>", "max_tokens": 64, "temperature": 0.0,
            "stream": False, "stop": ["<|endoftext|>", "<file_sep>"],
        }]


async def test_openai_completions_suffix_body() -> None:
    for fake in serve(FakeEndpoint("openai-completions")):
        assert await ask(fake.spec(prompt_mode="suffix", stop=["\n\n"], temperature=0.2)) == ANSWER
        assert fake.bodies == [{"model": "m", "prompt": PRE, "suffix": SUF, "max_tokens": 512, "temperature": 0.2, "stream": False, "stop": ["\n\n"]}]


async def test_llamacpp_infill_body() -> None:
    for fake in serve(FakeEndpoint("llamacpp-infill")):
        assert await ask(fake.spec(model="", max_tokens=32)) == ANSWER
        assert fake.paths == ["/infill"]
        assert fake.bodies == [{"input_prefix": PRE, "input_suffix": SUF, "n_predict": 32, "temperature": 0.0, "stream": False}]


async def test_llamacpp_infill_sends_other_files_as_input_extra(repo: Path) -> None:
    for fake in serve(FakeEndpoint("llamacpp-infill")):
        assert await ask(fake.spec(fim_family="qwen"), doc_request(repo / "calc/core.py")) == ANSWER
        body = fake.bodies[0]
        assert body["input_extra"] == [{"filename": "calc/util.py", "text": "def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n"}]
        assert (body["input_prefix"], body["input_suffix"]) == (PRE, SUF)  # the files are not repeated in the prefix
        assert body["stop"] == ["<|endoftext|>", "<|fim_pad|>", "<|file_sep|>"]


async def test_ollama_suffix_body() -> None:
    for fake in serve(FakeEndpoint("ollama")):
        assert await ask(fake.spec(model="qwen2.5-coder:1.5b", max_tokens=100)) == ANSWER
        assert fake.paths == ["/api/generate"]
        assert fake.bodies == [{
            "model": "qwen2.5-coder:1.5b", "prompt": PRE, "suffix": SUF,
            "options": {"temperature": 0.0, "num_predict": 100}, "stream": False,
        }]


async def test_ollama_raw_fim_body() -> None:
    for fake in serve(FakeEndpoint("ollama", answer="a + b <EOT>")):
        assert await ask(fake.spec(fim_family="codellama")) == ANSWER
        assert fake.bodies == [{
            "model": "m", "prompt": f"<PRE> {PRE} <SUF>{SUF} <MID>", "raw": True,
            "options": {"temperature": 0.0, "num_predict": 512, "stop": [" <EOT>"]}, "stream": False,
        }]


async def test_openai_chat_body_is_unchanged() -> None:
    for fake in serve(FakeEndpoint("openai-chat", answer="```python\na + b\n```")):
        assert await ask(fake.spec(context_chars=0)) == "```python\na + b\n```"  # chat answers are post-processing's job
        body = fake.bodies[0]
        assert set(body) == {"model", "messages", "max_tokens", "temperature", "stream"}
        assert [m["role"] for m in body["messages"]] == ["system", "user"]
        assert body["messages"][1]["content"].endswith("\n\n" + arrange_document("python", PRE, SUF))  # the SimCopilot arrangement


async def test_every_kind_sends_repository_files_but_never_tests(endpoint: FakeEndpoint, repo: Path) -> None:
    assert await ask(endpoint.spec(model="m"), doc_request(repo / "calc/core.py")) == ANSWER
    sent = json.dumps(endpoint.bodies[0])
    assert "def clamp" in sent and SECRET not in sent


async def test_context_budget_limits_what_is_sent(endpoint: FakeEndpoint, repo: Path) -> None:
    await ask(endpoint.spec(context_chars=40), doc_request(repo / "calc/core.py"))
    sent = json.dumps(endpoint.bodies[0])
    assert "def clamp" not in sent and "return " in sent


async def test_api_key_is_read_from_the_named_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIMPILOT_TEST_KEY", "sk-test-123")
    for fake in serve(FakeEndpoint("openai-completions")):
        model = create_model(spec_from_json(fake.spec(api_key_env="SIMPILOT_TEST_KEY")))
        assert "sk-test-123" not in json.dumps(model.cache_identity())  # type: ignore[attr-defined]
        await model.complete(UNTITLED)
        await model.aclose()
        assert fake.headers[0]["Authorization"] == "Bearer sk-test-123"
    monkeypatch.delenv("SIMPILOT_TEST_KEY")
    with pytest.raises(ModelError, match="environment variable SIMPILOT_TEST_KEY .* is not set"):
        create_model(spec_from_json({"kind": "ollama", "base_url": "http://127.0.0.1:1", "model": "m", "api_key_env": "SIMPILOT_TEST_KEY"}))


async def test_concurrency_limits_requests_in_flight() -> None:
    import asyncio

    for fake in serve(FakeEndpoint("ollama")):
        fake.script = [Reply(body=json.dumps(wire_answer("ollama", "x")).encode(), delay=0.2) for _ in range(4)]
        model = create_model(spec_from_json(fake.spec(concurrency=1)))
        start = time.monotonic()
        answers = await asyncio.gather(*(model.complete(UNTITLED) for _ in range(4)))
        await model.aclose()
        assert answers == ["x"] * 4 and time.monotonic() - start >= 0.75  # one at a time


# ------------------------------------------------------------------------------ endpoint faults


async def test_connection_refused(endpoint: FakeEndpoint) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    spec = endpoint.spec(base_url=endpoint.base_url.replace(str(endpoint.port), str(port)), retries=1)
    with pytest.raises(ModelError, match=r"cannot connect to .*is the server running.*\(after 2 attempts\)"):
        await ask(spec)


async def test_timeout(endpoint: FakeEndpoint) -> None:
    endpoint.script = [Reply(body=b"{}", delay=5)]
    start = time.monotonic()
    with pytest.raises(ModelError, match=r"no answer from .* within 0.3 s"):
        await ask(endpoint.spec(timeout=0.3))
    assert time.monotonic() - start < 3


async def test_timeout_is_retried(endpoint: FakeEndpoint) -> None:
    endpoint.script = [Reply(body=b"{}", delay=5)]
    assert await ask(endpoint.spec(timeout=0.3, retries=1)) == ANSWER
    assert len(endpoint.bodies) == 2


async def test_429_then_success_honours_retry_after(endpoint: FakeEndpoint) -> None:
    endpoint.script = [Reply(429, b'{"error": "slow down"}', {"Retry-After": "1"})]
    start = time.monotonic()
    assert await ask(endpoint.spec(retries=2)) == ANSWER
    assert time.monotonic() - start >= 0.95  # waited as told, not the 0.01 s backoff
    assert len(endpoint.bodies) == 2 and endpoint.bodies[0] == endpoint.bodies[1]


async def test_500_is_retried_then_a_model_error(endpoint: FakeEndpoint) -> None:
    endpoint.script = [Reply(500, b"boom") for _ in range(3)]
    with pytest.raises(ModelError, match=r"answered HTTP 500 \(after 3 attempts\)"):
        await ask(endpoint.spec(retries=2))
    assert len(endpoint.bodies) == 3


async def test_500_then_success(endpoint: FakeEndpoint) -> None:
    endpoint.script = [Reply(503, b"busy")]
    assert await ask(endpoint.spec(retries=1)) == ANSWER


async def test_malformed_json(endpoint: FakeEndpoint) -> None:
    endpoint.script = [Reply(200, b"<html>not json</html>")]
    with pytest.raises(ModelError, match=r"malformed answer from .* \(not JSON.*check that base_url points at"):
        await ask(endpoint.spec(retries=2))
    assert len(endpoint.bodies) == 1  # not retried: the same server would answer the same


async def test_empty_choices(endpoint: FakeEndpoint) -> None:
    endpoint.script = [Reply(200, json.dumps(empty_answer(endpoint.kind)).encode())]
    with pytest.raises(ModelError, match="answered without a completion"):
        await ask(endpoint.spec())


async def test_completion_that_is_not_text(endpoint: FakeEndpoint) -> None:
    endpoint.answer = None  # type: ignore[assignment]
    with pytest.raises(ModelError, match="not text"):
        await ask(endpoint.spec())


@pytest.mark.parametrize("declared", [True, False], ids=["with-content-length", "without-content-length"])
async def test_10_mb_body(endpoint: FakeEndpoint, declared: bool) -> None:
    huge = json.dumps(wire_answer(endpoint.kind, "x" * (10 << 20))).encode()
    endpoint.script = [Reply(200, huge, declare_length=declared)]
    with pytest.raises(ModelError, match="over the 8388608-byte limit"):
        await ask(endpoint.spec())


async def test_client_errors_are_not_retried_and_say_what_to_check(endpoint: FakeEndpoint) -> None:
    endpoint.script = [Reply(401, b'{"error": "bad key"}')]
    with pytest.raises(ModelError, match=r"HTTP 401.*check api_key_env"):
        await ask(endpoint.spec(retries=3))
    assert len(endpoint.bodies) == 1


async def test_wrong_base_url_says_so(endpoint: FakeEndpoint) -> None:
    with pytest.raises(ModelError, match=r"HTTP 404.*check base_url"):
        await ask(endpoint.spec(base_url=f"http://127.0.0.1:{endpoint.port}/wrong"))


def test_retry_after_header_forms() -> None:
    assert retry_after("2") == 2.0
    assert retry_after(None) == retry_after("") == retry_after("soon") == retry_after("-1") == 0.0
    assert 5 < retry_after(time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 10))) <= 10


# ------------------------------------------------------------------------------ the raw-output cache


async def test_cache_answers_an_identical_request_without_the_endpoint(tmp_path: Path) -> None:
    db = tmp_path / "raw.sqlite"
    for fake in serve(FakeEndpoint("openai-completions", answer="a + b<|endoftext|>")):
        spec = fake.spec(fim_family="starcoder", cache_db=str(db))
        assert await ask(spec) == ANSWER
        assert await ask({**spec, "timeout": 5, "retries": 2, "concurrency": 1}) == ANSWER  # transport settings: same key
        assert len(fake.bodies) == 1
        assert await ask({**spec, "max_tokens": 10}) == ANSWER  # another setting: another key
        assert await ask({**spec, "fim_family": "qwen"}) == ANSWER
        assert await ask(spec, CompletionRequest("untitled:2", "untitled:2", "python", "x = 1", 4, 0, 4)) == ANSWER  # another prompt
        assert len(fake.bodies) == 4
    store = RawOutputStore(db)
    rows = store.all()
    store.close()
    assert len(rows) == 4
    first = next(r for r in rows if r.body == fake.bodies[0])
    assert first.prompt == f"<fim_prefix>{PRE}<fim_suffix>{SUF}<fim_middle>"
    assert json.loads(first.raw) == wire_answer("openai-completions", "a + b<|endoftext|>")  # raw, uncleaned
    assert first.identity["kind"] == "openai-completions" and "timeout" not in first.identity


async def test_cache_survives_the_endpoint_going_away(tmp_path: Path) -> None:
    spec: dict[str, Any] = {}
    for fake in serve(FakeEndpoint("ollama")):
        spec = fake.spec(cache_db=str(tmp_path / "raw.sqlite"))
        assert await ask(spec) == ANSWER
    assert await ask(spec) == ANSWER  # the server is gone; the stored answer is used


async def test_cache_does_not_store_failures(tmp_path: Path) -> None:
    for fake in serve(FakeEndpoint("llamacpp-infill")):
        fake.script = [Reply(200, b"not json")]
        spec = fake.spec(model="", cache_db=str(tmp_path / "raw.sqlite"))
        with pytest.raises(ModelError, match="malformed"):
            await ask(spec)
        assert await ask(spec) == ANSWER
        assert len(fake.bodies) == 2


async def test_cache_shares_identical_requests_in_flight(tmp_path: Path) -> None:
    import asyncio

    for fake in serve(FakeEndpoint("ollama")):
        fake.script = [Reply(body=json.dumps(wire_answer("ollama", ANSWER)).encode(), delay=0.3)]
        model = create_model(spec_from_json(fake.spec(cache_db=str(tmp_path / "raw.sqlite"))))
        assert isinstance(model, CachedModel)
        answers = await asyncio.gather(*(model.complete(UNTITLED) for _ in range(3)))
        await model.aclose()
        assert answers == [ANSWER] * 3 and len(fake.bodies) == 1


# ------------------------------------------------------------------------------ settings


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        pytest.param({"kind": "ollama", "base_url": "http://h:1", "model": "m", "temprature": 0}, "unknown setting.*temprature", id="typo"),
        pytest.param({"kind": "ollama", "model": "m"}, "needs base_url", id="no-url"),
        pytest.param({"kind": "ollama", "base_url": "h:1", "model": "m"}, "base_url must be an http", id="url-scheme"),
        pytest.param({"kind": "ollama", "base_url": "http://h:1"}, "needs model", id="no-model"),
        pytest.param({"kind": "openai-completions", "base_url": "http://h:1", "model": "m", "prompt_mode": "fim"}, "needs fim_family", id="fim-without-family"),
        pytest.param({"kind": "openai-completions", "base_url": "http://h:1", "model": "m", "fim_family": "gpt"}, "fim_family must be one of", id="bad-family"),
        pytest.param({"kind": "openai-chat", "base_url": "http://h:1", "model": "m", "prompt_mode": "fim"}, "cannot use prompt_mode 'fim'", id="chat-fim"),
        pytest.param({"kind": "llamacpp-infill", "base_url": "http://h:1", "prompt_mode": "suffix"}, "cannot use prompt_mode", id="infill-suffix"),
        pytest.param({"kind": "ollama", "base_url": "http://h:1", "model": "m", "temperature": "hot"}, "temperature must be", id="temperature"),
        pytest.param({"kind": "ollama", "base_url": "http://h:1", "model": "m", "retries": -1}, "retries must be", id="retries"),
        pytest.param({"kind": "ollama", "base_url": "http://h:1", "model": "m", "concurrency": 0}, "concurrency must be", id="concurrency"),
        pytest.param({"kind": "ollama", "base_url": "http://h:1", "model": "m", "stop": [""]}, "stop must be", id="empty-stop"),
        pytest.param({"kind": "ollama", "base_url": "http://h:1", "model": "m", "api_key_env": "sk-abc123"}, "NAME of an environment variable", id="key-not-name"),
        pytest.param({"kind": "ollama", "base_url": "http://h:1", "model": "m", "fim_other_files": "yes"}, "fim_other_files must be", id="bool"),
        pytest.param({"kind": "mystery"}, "unknown model kind 'mystery'", id="kind"),
    ],
)
def test_bad_settings_are_clear_model_errors(spec: dict[str, Any], message: str) -> None:
    with pytest.raises(ModelError, match=message):
        check_spec(spec_from_json(spec))
    with pytest.raises(ModelError, match=message):
        create_model(spec_from_json(spec))


def test_registry_builds_every_http_kind() -> None:
    for kind in HTTP_KINDS:
        model = create_model(spec_from_json({"kind": kind, "base_url": "http://127.0.0.1:1", "model": "m"}))
        assert model.kind == kind  # type: ignore[attr-defined]


def test_models_toml_and_inline_specs(tmp_path: Path) -> None:
    config = tmp_path / "models.toml"
    config.write_text(
        '[models.sc2]\nkind = "openai-completions"\nbase_url = "http://127.0.0.1:8000/v1"\nmodel = "bigcode/starcoder2-3b"\n'
        'fim_family = "starcoder"\ncache_db = "cache/sc2.sqlite"\n'
        '[models.typo]\nkind = "ollama"\nbase_url = "http://127.0.0.1:11434"\nmodel = "m"\nmax_token = 5\n'
    )
    spec = resolve_model("sc2", config, [])
    assert spec_json(spec)["cache_db"] == str(tmp_path / "cache" / "sc2.sqlite")
    assert create_model(spec).name == "bigcode/starcoder2-3b"
    with pytest.raises(SimpilotError, match=r"models.toml: models\.typo\.max_token: unknown key"):
        resolve_model("typo", config, [])
    assert spec_json(resolve_model("ollama:qwen2.5-coder:1.5b@http://127.0.0.1:11434", None, [])) == {
        "kind": "ollama", "model": "qwen2.5-coder:1.5b", "base_url": "http://127.0.0.1:11434"}
    assert resolve_model("llamacpp-infill:@http://127.0.0.1:8080", None, []).kind == "llamacpp-infill"


async def test_text_with_a_lone_surrogate_is_sent_and_cached(tmp_path: Path) -> None:
    text = 's = "\ud800"\nx = '
    odd = CompletionRequest("untitled:3", "untitled:3", "python", text, len(text), 1, 4)
    for fake in serve(FakeEndpoint("ollama")):
        spec = fake.spec(cache_db=str(tmp_path / "raw.sqlite"))
        assert await ask(spec, odd) == ANSWER
        assert await ask(spec, odd) == ANSWER
        assert fake.bodies == [{**fake.bodies[0], "prompt": text}] and len(fake.bodies) == 1
