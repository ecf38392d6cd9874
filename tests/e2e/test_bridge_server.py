"""The bridge as a real language server, driven over stdio by pytest-lsp's client."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from replay.core.scenarios import document_text
from tests.conftest import tiny_scenario

from .conftest import chat_endpoint, simpilot

pytestmark = pytest.mark.e2e


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "lsp_bridge"]))
async def client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


async def start(client: LanguageClient, options: dict | None) -> types.InitializeResult:
    caps = types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(inline_completion=types.InlineCompletionClientCapabilities())
    )
    return await client.initialize_session(types.InitializeParams(capabilities=caps, initialization_options=options))


async def ask(client: LanguageClient, uri: str, text: str, line: int, character: int) -> types.InlineCompletionList:
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
    return await client.text_document_inline_completion_async(
        types.InlineCompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
            context=types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Invoked),
        )
    )


@pytest.fixture
def scenario(tiny_repo: Path, tmp_path: Path):
    tasks, path = tiny_scenario(tiny_repo, tmp_path, per_kind=3)
    return tiny_repo, path, tasks


async def test_advertises_inline_completion(client: LanguageClient) -> None:
    result = await start(client, None)
    assert result.capabilities.inline_completion_provider
    assert result.server_info is not None and result.server_info.name == "simpilot-bridge"


async def test_oracle_answers_each_task_by_document_and_position(client: LanguageClient, scenario) -> None:
    repo, path, tasks = scenario
    await start(client, {"model": {"kind": "oracle", "scenarios": [str(path)]}})
    original = (repo / tasks[0].path).read_bytes()
    for task in tasks:
        uri = (repo / task.path).as_uri()
        result = await ask(client, uri, document_text(task, original), task.cursor.line, task.cursor.character)
        assert result.items[0].insert_text == task.ground_truth
        assert result.items[0].range.start == result.items[0].range.end == types.Position(line=task.cursor.line, character=task.cursor.character)


async def test_oracle_refuses_a_document_it_does_not_know(client: LanguageClient, scenario) -> None:
    repo, path, tasks = scenario
    await start(client, {"model": {"kind": "oracle", "scenarios": [str(path)]}})
    task = tasks[0]
    original = (repo / task.path).read_bytes()
    with pytest.raises(Exception, match="model_error: oracle: no task"):
        await ask(client, (repo / task.path).as_uri(), document_text(task, original) + "\n# edited", task.cursor.line, task.cursor.character)
    # the server is still serving after an error
    result = await ask(client, (repo / task.path).as_uri(), document_text(task, original), task.cursor.line, task.cursor.character)
    assert result.items[0].insert_text == task.ground_truth


async def test_bad_options_warn_and_fall_back(client: LanguageClient) -> None:
    await start(client, {"model": "not-an-object", "postprocess": "nonsense"})
    # the warnings are sent before the initialize response, so they have arrived by now
    warnings = [m.message for m in client.messages if m.type == types.MessageType.Warning]
    assert any("model must be an object" in w for w in warnings)
    assert any("unknown post-processing preset 'nonsense'" in w for w in warnings)
    result = await ask(client, "file:///tmp/x.py", "def f():\n    \n", 1, 4)
    assert result.items[0].insert_text == ""


async def test_postprocess_applied_when_configured(client: LanguageClient, scenario) -> None:
    repo, path, tasks = scenario
    await start(client, {"model": {"kind": "oracle", "scenarios": [str(path)]}, "postprocess": "simcopilot"})
    task = tasks[0]
    original = (repo / task.path).read_bytes()
    result = await ask(client, (repo / task.path).as_uri(), document_text(task, original), task.cursor.line, task.cursor.character)
    assert result.items[0].insert_text == task.ground_truth  # post-processing leaves the truth alone


FILE_ONLY = json.dumps({"name": "file:256", "builder": "file", "budget": 256})


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "lsp_bridge", "--context-json", FILE_ONLY]))
async def file_context_client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


async def test_serve_builds_prompts_with_its_context_strategy(file_context_client: LanguageClient, scenario) -> None:
    """``simpilot serve --context file:256``: the editor's requests reach the model with the
    strategy's prompt (the edited file alone, within 256 tokens), not the adapter's default,
    which would put the repository's other files first."""
    repo, _, tasks = scenario
    seen: list[str] = []
    with chat_endpoint(lambda prompt: seen.append(prompt) or "pass") as url:
        await start(file_context_client, {"model": {"kind": "openai-chat", "base_url": url, "model": "m", "retries": 0}})
        task = tasks[0]
        original = (repo / task.path).read_bytes()
        result = await ask(file_context_client, (repo / task.path).as_uri(), document_text(task, original), task.cursor.line, task.cursor.character)
    assert result.items[0].insert_text == "pass"
    assert seen and "<<<HOLE>>>" in seen[0] and "# file: " not in seen[0]


def test_serve_refuses_a_strategy_that_reads_the_ground_truth() -> None:
    done = simpilot("serve", "--context", "oracle_definitions")
    assert done.returncode != 0 and "ground truth" in done.stderr
