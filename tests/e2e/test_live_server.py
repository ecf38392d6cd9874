"""The bridge as an editor's assistant: superseded and cancelled requests, incremental edits,
accept/show notifications written to a trace, and malformed protocol input."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_bridge.trace import read_trace
from replay.core.scenarios import document_text
from tests.conftest import tiny_scenario

from .conftest import chat_endpoint

pytestmark = pytest.mark.e2e

BRIDGE = [sys.executable, "-m", "lsp_bridge"]
REQUEST_CANCELLED = -32800
SLOW_S = 3.0


@pytest.fixture
def slow_model() -> Iterator[dict]:
    """An OpenAI-compatible chat endpoint that takes SLOW_S seconds to say ``pass``."""
    with chat_endpoint(lambda prompt: "pass", delay=SLOW_S) as url:
        yield {"kind": "openai-chat", "base_url": url, "model": "slow", "context_chars": 0}


async def started(command: list[str], options: dict | None) -> LanguageClient:
    client = await ClientServerConfig(server_command=command).start()
    caps = types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(inline_completion=types.InlineCompletionClientCapabilities())
    )
    await client.initialize_session(types.InitializeParams(capabilities=caps, initialization_options=options))
    return client


def params(uri: str, line: int, character: int) -> types.InlineCompletionParams:
    return types.InlineCompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=line, character=character),
        context=types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Automatic),
    )


def opened(client: LanguageClient, uri: str, text: str) -> None:
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))


async def test_a_new_request_for_a_document_supersedes_the_one_still_running(slow_model: dict) -> None:
    client = await started(BRIDGE, {"model": slow_model})
    try:
        uri = "file:///tmp/simpilot-live/a.py"
        opened(client, uri, "def f():\n    \n")
        first = asyncio.ensure_future(client.text_document_inline_completion_async(params(uri, 1, 4)))
        await asyncio.sleep(1.0)
        second = await client.text_document_inline_completion_async(params(uri, 1, 4))
        assert second.items[0].insert_text.strip() == "pass"
        with pytest.raises(JsonRpcException) as cancelled:
            await first
        assert cancelled.value.code == REQUEST_CANCELLED
    finally:
        await client.shutdown_session()
        await client.stop()


async def test_cancel_request_stops_a_running_completion(slow_model: dict) -> None:
    client = await started(BRIDGE, {"model": slow_model})
    try:
        uri = "file:///tmp/simpilot-live/b.py"
        opened(client, uri, "def f():\n    \n")
        start = time.monotonic()
        # (pytest-lsp's send_request_async is a coroutine: it sends only once it runs)
        pending = asyncio.ensure_future(client.protocol.send_request_async(types.TEXT_DOCUMENT_INLINE_COMPLETION, params(uri, 1, 4), msg_id="ask-1"))
        await asyncio.sleep(1.0)
        client.protocol.notify("$/cancelRequest", types.CancelParams(id="ask-1"))
        with pytest.raises(JsonRpcException) as cancelled:
            await pending
        assert cancelled.value.code == REQUEST_CANCELLED and time.monotonic() - start < SLOW_S
    finally:
        await client.shutdown_session()
        await client.stop()


@pytest.fixture
def scenario(tiny_repo: Path, tmp_path: Path):
    tasks, path = tiny_scenario(tiny_repo, tmp_path, per_kind=2)
    return tiny_repo, path, tasks


async def test_incremental_edits_accept_and_show_are_traced(scenario, tmp_path: Path) -> None:
    repo, path, tasks = scenario
    task = tasks[0]
    trace = tmp_path / "session.trace.jsonl"
    client = await started([*BRIDGE, "--record", str(trace)], {"model": {"kind": "oracle", "scenarios": [str(path)]}})
    uri = (repo / task.path).as_uri()
    document = document_text(task, (repo / task.path).read_bytes())
    try:
        # open with the first line missing, then type it in with an incremental change
        first_line, rest = document.split("\n", 1)
        opened(client, uri, rest)
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)), text=first_line + "\n")],
        ))
        result = await client.text_document_inline_completion_async(params(uri, task.cursor.line, task.cursor.character))
        item = result.items[0]
        assert item.insert_text == task.ground_truth
        assert item.command is not None and item.command.command == "simpilot.didAccept" and list(item.command.arguments) == [uri, task.ground_truth]
        client.protocol.notify("textDocument/didShowCompletion", {"item": {"insertText": item.insert_text}})  # no URI: the latest answer's
        await client.workspace_execute_command_async(types.ExecuteCommandParams(command=item.command.command, arguments=item.command.arguments))
        client.protocol.notify("simpilot/didReject", {"uri": uri, "text": "nope"})
        client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    finally:
        await client.shutdown_session()
        await client.stop()
    events = read_trace(trace)
    kinds = [e.event for e in events]
    assert kinds == ["open", "change", "complete", "shown", "accept", "reject", "close"]
    complete = events[2]
    assert complete.items == (task.ground_truth,) and complete.uri == uri and complete.request_id is not None
    assert (complete.line, complete.character) == (task.cursor.line, task.cursor.character)
    assert events[3].uri == uri and events[4].text == task.ground_truth and events[4].uri == uri
    assert events[1].changes[0].range == ((0, 0), (0, 0)) and events[1].changes[0].text == first_line + "\n"


def frame(payload: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(payload) + payload


def read_message(stream) -> dict:
    length = None
    while True:
        line = stream.readline()
        if not line:
            raise EOFError("the server closed its output")
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    return json.loads(stream.read(length))


def test_the_server_survives_malformed_protocol_input() -> None:
    proc = subprocess.Popen(BRIDGE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: dict | bytes) -> None:
        proc.stdin.write(frame(message if isinstance(message, bytes) else json.dumps(message).encode()))
        proc.stdin.flush()

    def answer(msg_id: int) -> dict:
        while True:
            message = read_message(proc.stdout)
            if message.get("id") == msg_id:
                return message

    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
        assert "capabilities" in answer(1)["result"]
        send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        send(b"{this is not json")
        send({"jsonrpc": "2.0", "id": 2, "method": "no/such/method", "params": {}})
        assert answer(2)["error"]["code"] == -32601
        send({"jsonrpc": "2.0", "id": 3, "method": "textDocument/inlineCompletion", "params": {"textDocument": 42}})
        assert "error" in answer(3)
        send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": "file:///x.py", "languageId": "python", "version": 1, "text": "x = 1\n"}}})
        send({"jsonrpc": "2.0", "id": 4, "method": "textDocument/inlineCompletion",
              "params": {"textDocument": {"uri": "file:///x.py"}, "position": {"line": 1, "character": 0}, "context": {"triggerKind": 1}}})
        assert answer(4)["result"]["items"][0]["insertText"] == ""
    finally:
        proc.kill()
        proc.wait()
