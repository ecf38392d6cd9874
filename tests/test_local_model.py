"""The local model server: its wire format (always), and the real model behind it (marker
``local_model``; needs the ``local`` extra and the weights package, which ``.ci/setup`` installs:
skipped without them on a developer's machine, a failure in CI, where a skip would hide that the
real model was never asked)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from lsp_bridge.models.base import CompletionRequest
from lsp_bridge.models.openai_chat import ChatSettings, OpenAIChatModel
from lsp_bridge.serving.openai_wire import (
    BadRequest,
    GenerationParams,
    cut_at_stop,
    fim_tokens,
    parse_messages,
    parse_params,
    parse_prompt,
    parse_suffix,
    with_suffix,
)
from tests.local_model_server import local_model_server, needs_model


def test_params_default_and_validated() -> None:
    assert parse_params({}) == GenerationParams(256, ())
    assert parse_params({"max_tokens": 8, "stop": "\n\n", "temperature": 0}) == GenerationParams(8, ("\n\n",))
    assert parse_params({"max_completion_tokens": 4, "stop": ["a", "b"]}) == GenerationParams(4, ("a", "b"))


@pytest.mark.parametrize(
    "body, message",
    [
        pytest.param({"temperature": 0.7}, "greedily only", id="sampling"),
        pytest.param({"max_tokens": 0}, "max_tokens", id="no-tokens"),
        pytest.param({"max_tokens": True}, "max_tokens", id="bool-tokens"),
        pytest.param({"stop": [""]}, "stop", id="empty-stop"),
        pytest.param({"n": 2}, "one choice", id="several-choices"),
        pytest.param({"stream": "yes"}, "stream must be true or false", id="stream-not-a-bool"),
    ],
)
def test_params_refused(body: dict, message: str) -> None:
    with pytest.raises(BadRequest, match=message):
        parse_params(body)


def test_messages_and_prompt() -> None:
    parts = {"messages": [{"role": "user", "content": [{"type": "text", "text": "def "}, {"type": "text", "text": "f():"}]}]}
    assert parse_messages(parts) == [{"role": "user", "content": "def f():"}]
    with pytest.raises(BadRequest, match="non-empty list"):
        parse_messages({"messages": []})
    assert parse_prompt({"prompt": ["x = "]}) == "x = "
    with pytest.raises(BadRequest, match="one string"):
        parse_prompt({"prompt": ["a", "b"]})


def test_a_suffix_is_placed_with_the_models_fim_tokens_or_refused() -> None:
    """Never a silent drop: a model with FIM tokens gets the suffix in its own layout, one
    without them refuses the request, saying what to send instead."""
    starcoder = {"<fim_prefix>", "<fim_suffix>", "<fim_middle>", "def"}
    tokens = fim_tokens(starcoder)
    assert tokens == ("<fim_prefix>", "<fim_suffix>", "<fim_middle>")
    assert with_suffix("def f():\n    ", "\n    return x\n", tokens, "m") == "<fim_prefix>def f():\n    <fim_suffix>\n    return x\n<fim_middle>"
    assert fim_tokens({"<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>"}) == ("<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>")
    assert fim_tokens({"<fim_prefix>", "<fim_suffix>"}) is None  # half a set is no set
    assert with_suffix("x = ", "", None, "m") == "x = "  # no suffix: nothing to place
    with pytest.raises(BadRequest, match="smollm2 has no fill-in-the-middle tokens.*openai-chat"):
        with_suffix("x = ", "\nprint(x)\n", None, "smollm2")
    assert parse_suffix({}) == "" and parse_suffix({"suffix": "y"}) == "y"
    with pytest.raises(BadRequest, match="suffix must be a string"):
        parse_suffix({"suffix": ["y"]})


def test_answer_cut_at_the_earliest_stop() -> None:
    assert cut_at_stop("a = 1\n```\nprose\n\n", ("\n\n", "```")) == ("a = 1\n", True)
    assert cut_at_stop("a = 1", ("```",)) == ("a = 1", False)


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with local_model_server(tmp_path_factory.mktemp("local_model")) as url:
        yield url


@pytest.mark.local_model
@needs_model
@pytest.mark.slow
async def test_simpilot_asks_the_local_model(server_url: str, tmp_path: Path) -> None:
    """simpilot's own openai-chat adapter, unchanged, gets an answer from the real model."""
    models = httpx.get(f"{server_url}/models", timeout=10).json()
    model_id = models["data"][0]["id"]
    document = "def mean(xs):\n    \n"
    request = CompletionRequest(f"file://{tmp_path}/stats.py", f"{tmp_path}/stats.py", "python", document, 18, 1, 4)
    model = OpenAIChatModel(ChatSettings(base_url=server_url, model=model_id, max_tokens=24, context_chars=0, timeout=600, retries=0))
    try:
        answer = await model.complete(request)
    finally:
        await model.aclose()
    assert isinstance(answer, str) and answer.strip()


@pytest.mark.local_model
@needs_model
@pytest.mark.slow
def test_raw_completion_and_refusals(server_url: str) -> None:
    body = {"model": "x", "prompt": "def add(a, b):\n    return", "max_tokens": 8, "stop": ["\n\n"]}
    answer = httpx.post(f"{server_url}/completions", json=body, timeout=600).json()
    choice = answer["choices"][0]
    assert choice["finish_reason"] in ("stop", "length") and 0 < answer["usage"]["completion_tokens"] <= 8
    assert "\n\n" not in choice["text"]
    again = httpx.post(f"{server_url}/completions", json=body, timeout=600).json()
    assert again["choices"][0]["text"] == choice["text"]  # greedy: what recording and replaying rely on
    refused = httpx.post(f"{server_url}/chat/completions", json={"messages": [{"role": "user", "content": "hi"}], "temperature": 1}, timeout=60)
    assert refused.status_code == 400 and "greedily" in refused.json()["error"]["message"]
    # SmolLM2 has no FIM tokens: a suffix is refused, streamed or not, never answered without it
    for stream in (False, True):
        with_suffix_body = body | {"suffix": "\n\nprint(add(1, 2))\n", "stream": stream}
        refused = httpx.post(f"{server_url}/completions", json=with_suffix_body, timeout=60)
        assert refused.status_code == 400 and "no fill-in-the-middle tokens" in refused.json()["error"]["message"]


@pytest.mark.local_model
@needs_model
@pytest.mark.slow
async def test_simpilots_suffix_mode_gets_the_refusal_as_a_model_error(server_url: str, tmp_path: Path) -> None:
    """openai-completions with prompt_mode = "suffix" sends the code after the cursor as
    ``suffix``: the local server refuses it and simpilot reports why, as a model error."""
    from lsp_bridge.models import create_model, spec_from_json
    from lsp_bridge.models.base import ModelError

    document = "def mean(xs):\n    \n    return total / len(xs)\n"
    request = CompletionRequest(f"file://{tmp_path}/stats.py", f"{tmp_path}/stats.py", "python", document, 18, 1, 4)
    spec = {"kind": "openai-completions", "base_url": server_url, "model": "x", "prompt_mode": "suffix", "max_tokens": 8, "retries": 0}
    model = create_model(spec_from_json(spec))
    try:
        with pytest.raises(ModelError, match="no fill-in-the-middle tokens"):
            await model.complete(request)
    finally:
        await model.aclose()


@pytest.mark.local_model
@needs_model
@pytest.mark.slow
async def test_a_streamed_answer_is_the_whole_answer_with_its_first_token_timed(server_url: str, tmp_path: Path) -> None:
    """stream = true: server-sent events whose pieces add up to the greedy answer, the token
    counts in the last event; through simpilot's adapters, with the time to the first token."""
    from lsp_bridge.models import create_model, spec_from_json

    body = {"model": "x", "prompt": "def add(a, b):\n    return", "max_tokens": 12, "stop": ["\n\n"]}
    whole = httpx.post(f"{server_url}/completions", json=body, timeout=600).json()
    lines = []
    with httpx.stream("POST", f"{server_url}/completions", json=body | {"stream": True}, timeout=600) as response:
        assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
        lines = [line[6:] for line in response.iter_lines() if line.startswith("data: ")]
    assert lines[-1] == "[DONE]"
    events = [json.loads(line) for line in lines[:-1]]
    assert "".join(e["choices"][0]["text"] for e in events if e["choices"]) == whole["choices"][0]["text"]
    assert events[-1]["usage"] == whole["usage"]

    document = "def mean(xs):\n    \n"
    request = CompletionRequest(f"file://{tmp_path}/stats.py", f"{tmp_path}/stats.py", "python", document, 18, 1, 4)
    spec = {"kind": "openai-chat", "base_url": server_url, "model": "x", "max_tokens": 16, "context_chars": 0, "timeout": 600, "retries": 0}
    streamed, plain = create_model(spec_from_json(spec | {"stream": True})), create_model(spec_from_json(spec))
    try:
        (texts, timing), (same, untimed) = await streamed.complete_timed(request), await plain.complete_timed(request)
    finally:
        await streamed.aclose()
        await plain.aclose()
    assert texts == same and timing.streamed and timing.tokens == "usage" and timing.answer_tokens == untimed.answer_tokens
    assert timing.first_token_ms is not None and timing.first_token_ms <= timing.total_ms
    assert untimed.first_token_ms is None
