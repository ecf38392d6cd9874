"""Timing and token counts of every request: streamed and whole answers of each HTTP kind, the
raw-output store and recordings giving the original timing again, the results store keeping it,
and the bridge telling its client (``simpilot/timing``) before each answer."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from lsp_bridge.models import create_model, spec_from_json
from lsp_bridge.models.base import CompletionRequest
from lsp_bridge.models.cache import CachedModel, RawOutputStore
from replay.core.recordings import RecordedAnswer
from replay.core.records import Completion, Timing
from replay.store import Store

PRE = "def add(a, b):\n    return "
SUF = "\n\nprint(add(1, 2))\n"
REQUEST = CompletionRequest("file:///tmp/calc.py", "/tmp/calc.py", "python", PRE + SUF, len(PRE), 1, 11)
PIECES = ["a", " +", " b"]
GAP = 0.15  # seconds before the first piece of text, and between pieces


def events(kind: str, usage: bool) -> list[bytes]:
    """A streamed answer of ``kind`` giving ``PIECES``: server-sent events (OpenAI, llama.cpp)
    or JSON lines (Ollama); the last event carries the token counts when ``usage``."""
    if kind == "ollama":
        lines = [{"model": "m", "response": p, "done": False} for p in PIECES]
        last = {"model": "m", "response": "", "done": True} | ({"prompt_eval_count": 12, "eval_count": 3} if usage else {})
        return [json.dumps(x).encode() + b"\n" for x in [*lines, last]]
    if kind == "llamacpp-infill":
        chunks = [{"content": p, "stop": False} for p in PIECES]
        chunks.append({"content": "", "stop": True} | ({"timings": {"prompt_n": 12, "predicted_n": 3}} if usage else {}))
    elif kind == "openai-completions":
        chunks = [{"choices": [{"index": 0, "text": p, "finish_reason": None}]} for p in PIECES]
        chunks.append({"choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 3}} if usage else {"choices": []})
    else:
        first = [{"choices": [{"index": 0, "delta": {"role": "assistant"}}]}]  # no text yet: not the first token
        chunks = first + [{"choices": [{"index": 0, "delta": {"content": p}}]} for p in PIECES]
        chunks.append({"choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 3}} if usage else {"choices": []})
    out = [b": keep-alive\n\n"] + [b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks]
    return out + ([b"data: [DONE]\n\n"] if kind.startswith("openai") else [])


def whole(kind: str, usage: bool) -> bytes:
    text = "".join(PIECES)
    body: dict[str, Any] = {
        "openai-chat": {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]},
        "openai-completions": {"choices": [{"index": 0, "text": text}]},
        "llamacpp-infill": {"content": text, "stop": True},
        "ollama": {"model": "m", "response": text, "done": True},
    }[kind]
    if usage:
        body |= {
            "openai-chat": {"usage": {"prompt_tokens": 12, "completion_tokens": 3}},
            "openai-completions": {"usage": {"prompt_tokens": 12, "completion_tokens": 3}},
            "llamacpp-infill": {"tokens_evaluated": 12, "tokens_predicted": 3},
            "ollama": {"prompt_eval_count": 12, "eval_count": 3},
        }[kind]
    return json.dumps(body).encode()


class Server:
    """Answers every POST as the request's ``stream`` field asks: whole, or event by event with
    :data:`GAP` seconds before each event that carries text."""

    def __init__(self, kind: str, usage: bool = True):
        self.kind, self.usage, self.requests = kind, usage, 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                server.requests += 1
                self.send_response(200)
                if not body.get("stream"):
                    answer = whole(server.kind, server.usage)
                    self.send_header("Content-Length", str(len(answer)))
                    self.end_headers()
                    self.wfile.write(answer)
                    return
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for event in events(server.kind, server.usage):
                    if any(piece.encode() in event for piece in PIECES):
                        time.sleep(GAP)
                    self.wfile.write(event)
                    self.wfile.flush()

            def log_message(self, format: str, *args: Any) -> None:
                return None

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        threading.Thread(target=self.http.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def spec(self, **settings: Any) -> dict[str, Any]:
        root = f"http://127.0.0.1:{self.http.server_address[1]}"
        url = root + "/v1" if self.kind.startswith("openai") else root
        return {"kind": self.kind, "base_url": url, "model": "m", "retries": 0, "context_chars": 0} | settings

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()


KINDS = ["openai-chat", "openai-completions", "llamacpp-infill", "ollama"]


@pytest.fixture(params=KINDS)
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    made = Server(request.param)
    yield made
    made.close()


async def test_a_streamed_answer_is_the_whole_answer_and_its_first_token_is_timed(server: Server) -> None:
    model = create_model(spec_from_json(server.spec(stream=True)))
    try:
        texts, timing = await model.complete_timed(REQUEST)
    finally:
        await model.aclose()
    assert texts == ["a + b"]
    assert timing.streamed and not timing.replayed and timing.attempts == 1
    assert timing.first_token_ms is not None
    # the first piece waited one gap, the whole answer three
    assert GAP * 1000 <= timing.first_token_ms < timing.total_ms
    assert timing.total_ms >= 3 * GAP * 1000
    assert (timing.prompt_tokens, timing.answer_tokens, timing.tokens) == (12, 3, "usage")


async def test_a_whole_answer_has_no_first_token_time_and_the_endpoints_counts(server: Server) -> None:
    model = create_model(spec_from_json(server.spec()))
    try:
        texts, timing = await model.complete_timed(REQUEST)
    finally:
        await model.aclose()
    assert texts == ["a + b"] and not timing.streamed and timing.first_token_ms is None
    assert (timing.prompt_tokens, timing.answer_tokens, timing.tokens) == (12, 3, "usage")


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_counts_the_endpoint_did_not_send_are_estimated_and_labelled(stream: bool) -> None:
    server = Server("openai-completions", usage=False)
    model = create_model(spec_from_json(server.spec(stream=stream, prompt_mode="suffix")))
    try:
        _, timing = await model.complete_timed(REQUEST)
    finally:
        await model.aclose()
        server.close()
    # a token per four characters, rounded up: the prompt is the prefix (26 characters), the answer "a + b" (5)
    assert (timing.prompt_tokens, timing.answer_tokens, timing.tokens) == (7, 2, "estimate")


async def test_the_raw_output_store_gives_the_original_timing_again(tmp_path: Path) -> None:
    server = Server("openai-completions")
    store = RawOutputStore(tmp_path / "raw.sqlite")
    inner = create_model(spec_from_json(server.spec(stream=True, prompt_mode="suffix")))
    model = CachedModel(inner, store)  # type: ignore[arg-type]
    try:
        first_texts, first = await model.complete_timed(REQUEST)
        again_texts, again = await model.complete_timed(REQUEST)
    finally:
        await model.aclose()
        server.close()
    assert server.requests == 1 and again_texts == first_texts == ["a + b"]
    assert first is not None and again is not None and not first.replayed and again.replayed
    assert (again.total_ms, again.first_token_ms, again.prompt_tokens) == (first.total_ms, first.first_token_ms, first.prompt_tokens)


def test_a_raw_output_store_from_before_timings_opens_and_answers_untimed(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    old = sqlite3.connect(path)
    old.execute(
        "CREATE TABLE raw_outputs (key TEXT PRIMARY KEY, model TEXT NOT NULL, identity TEXT NOT NULL, body TEXT NOT NULL,"
        " prompt TEXT NOT NULL, raw TEXT NOT NULL, created TEXT NOT NULL)"
    )
    old.execute("INSERT INTO raw_outputs VALUES ('k', 'm', '{}', '{}', 'p', 'r', '2026-01-01')")
    old.commit()
    old.close()
    stored = RawOutputStore(path).get("k")
    assert stored is not None and stored.raw == "r" and stored.timing is None


def test_recordings_and_the_results_store_keep_the_timing(tmp_path: Path) -> None:
    timing = Timing(412.5, 120.25, 3.0, 812, 17, "usage", 1, True)
    answer = RecordedAnswer("t", "r", "a.py", "infill", 1, 2, "f", "d", "raw", 415.0, "m", {}, 0, timing)
    assert RecordedAnswer.from_dict(json.loads(json.dumps(answer.to_dict()))).timing == timing
    untimed = RecordedAnswer("t", "r", "a.py", "infill", 1, 2, "f", "d", "raw", 415.0, "m")
    assert "timing" not in untimed.to_dict() and RecordedAnswer.from_dict(untimed.to_dict()).timing is None

    store = Store(tmp_path / "results.sqlite")
    store.add_completions("run", [Completion("t", "raw", None, 415.0, {}, 0, timing), Completion("u", "raw", None, 2.0)])
    kept = store.samples("run")
    assert kept["t"][0].timing == timing and kept["u"][0].timing is None


async def test_the_bridge_tells_its_client_how_the_model_answered(tmp_path: Path) -> None:
    """Through the real bridge (a subprocess speaking LSP): the timing arrives with the answer,
    once, and an answer from a model that does not time itself comes without one."""
    import sys

    from replay.core.records import Position
    from replay.run.client import BridgeClient

    server = Server("openai-completions")
    document = tmp_path / "calc.py"
    document.write_text(PRE + SUF, encoding="utf-8")
    cursor = Position(1, 11)
    try:
        spec = server.spec(stream=True, prompt_mode="suffix")
        async with BridgeClient([sys.executable, "-m", "lsp_bridge"], {"model": spec, "postprocess": None}, [tmp_path]) as client:
            texts, error, latency, timing = await client.complete_timed(document.as_uri(), "python", PRE + SUF, cursor)
            assert client.timing_at(document.as_uri(), cursor) is None  # taken with its answer
        async with BridgeClient([sys.executable, "-m", "lsp_bridge"], {"model": {"kind": "empty"}, "postprocess": None}, [tmp_path]) as plain:
            untimed = await plain.complete_timed(document.as_uri(), "python", PRE + SUF, cursor)
    finally:
        server.close()
    assert texts == ["a + b"] and error is None
    assert timing is not None and timing.streamed and timing.tokens == "usage" and timing.answer_tokens == 3
    assert timing.first_token_ms is not None and timing.first_token_ms < timing.total_ms <= latency
    assert untimed[3] is None
