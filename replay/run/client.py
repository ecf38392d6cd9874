"""The replay side of the LSP conversation: start a language server and ask it for completions.

It speaks plain LSP over stdio (pygls's client), so it drives simpilot's bridge or any other
server that answers ``textDocument/inlineCompletion``. Documents are opened, asked about and
closed one task at a time per URI; different files are asked concurrently.
Session and trace replay instead hold a document open and edit it between requests
(:meth:`BridgeClient.open_document`), as an editor does.

The server's standard error goes to the client's log file (``core/paths.py``: ``runs/logs/``),
opened at the first byte the server writes, so that a quiet server leaves no empty file behind.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from replay import __version__
from replay.core.errors import SimpilotError
from replay.core.paths import remove_if_empty
from replay.core.records import PROMPT_METHOD, TIMING_METHOD, Position, PromptRecord, RecordError, Timing

REQUEST_TIMEOUT_S = 900.0


def bridge_command() -> list[str]:
    return [sys.executable, "-m", "lsp_bridge"]


class BridgeClient:
    def __init__(self, command: list[str], init_options: dict[str, Any], roots: list[Path], log: Path | None = None):
        self.command = command
        self.init_options = init_options
        self.roots = roots
        self.log = log
        self.client = LanguageClient("simpilot-replay", __version__)
        self.server_info: types.ServerInfo | None = None
        self.pid: int | None = None
        self._locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._version = 0
        self._drain: asyncio.Task | None = None
        self._timings: dict[tuple[str, int, int], Timing] = {}  # (uri, line, character) -> the bridge's latest timing

        def on_timing(params: Any) -> None:  # a plain function: pygls marks what it registers
            self._on_timing(params)

        self.client.feature(TIMING_METHOD)(on_timing)
        self._prompts: dict[tuple[str, int, int], PromptRecord] = {}  # (uri, line, character) -> how the bridge built the prompt

        def on_prompt(params: Any) -> None:
            self._on_prompt(params)

        self.client.feature(PROMPT_METHOD)(on_prompt)

    def _on_prompt(self, params: Any) -> None:
        """How the bridge built the prompt it is about to answer (:data:`~replay.core.records.PROMPT_METHOD`,
        sent only with a context strategy); a malformed one is ignored."""
        _keep_at(self._prompts, params, "prompt", PromptRecord.from_json)

    def prompt_at(self, uri: str, cursor: Position) -> PromptRecord | None:
        """The prompt record the bridge sent with its latest answer at ``cursor`` of ``uri`` (taken: once)."""
        return self._prompts.pop((uri, cursor.line, cursor.character), None)

    def _on_timing(self, params: Any) -> None:
        """The bridge's timing of an answer it is about to send (:data:`~replay.core.records.TIMING_METHOD`);
        another server never sends one, and a malformed one is ignored."""
        _keep_at(self._timings, params, "timing", Timing.from_json)

    def timing_at(self, uri: str, cursor: Position) -> Timing | None:
        """The timing the bridge sent with its latest answer at ``cursor`` of ``uri`` (taken: once)."""
        return self._timings.pop((uri, cursor.line, cursor.character), None)

    async def __aenter__(self) -> BridgeClient:
        try:
            await self.client.start_io(*self.command)
        except OSError as exc:
            raise SimpilotError(f"cannot start the language server {self.command[0]!r}: {exc}") from None
        server = self.client._server
        self.pid = server.pid if server else None
        if server is not None and server.stderr is not None:
            self._drain = asyncio.create_task(self._drain_stderr(server.stderr))
        folders = [types.WorkspaceFolder(uri=r.as_uri(), name=r.name) for r in self.roots]
        params = types.InitializeParams(
            capabilities=types.ClientCapabilities(
                text_document=types.TextDocumentClientCapabilities(inline_completion=types.InlineCompletionClientCapabilities())
            ),
            process_id=None,
            root_uri=folders[0].uri if folders else None,
            workspace_folders=folders or None,
            initialization_options=self.init_options,
        )
        try:
            result = await asyncio.wait_for(self.client.initialize_async(params), 60)
        except Exception as exc:
            await self._stop()
            raise SimpilotError(f"the language server did not initialize: {exc}") from None
        caps = result.capabilities
        if not caps.inline_completion_provider:
            await self._stop()
            raise SimpilotError(f"the language server {self.command!r} does not offer textDocument/inlineCompletion")
        self.server_info = result.server_info
        self.client.initialized(types.InitializedParams())
        return self

    async def _drain_stderr(self, stream: asyncio.StreamReader) -> None:
        sink = None  # opened at the first chunk: a bridge that says nothing leaves no file
        try:
            while chunk := await stream.read(65536):
                if self.log is None:
                    continue
                if sink is None:
                    self.log.parent.mkdir(parents=True, exist_ok=True)
                    sink = self.log.open("ab")
                sink.write(chunk)
                sink.flush()
        finally:
            if sink:
                sink.close()
            remove_if_empty(self.log)

    async def complete(self, uri: str, language: str, text: str, cursor: Position) -> tuple[str | None, str | None, float]:
        """``(raw text, error, latency in ms)`` for one request at ``cursor`` of a document
        holding ``text``. Errors from the server are returned, not raised; a dead server raises."""
        texts, error, latency = await self.complete_all(uri, language, text, cursor)
        return (texts[0] if texts else None), error, latency

    async def complete_all(self, uri: str, language: str, text: str, cursor: Position) -> tuple[list[str], str | None, float]:
        """Like :meth:`complete`, with every item the server listed (one per sample), in order."""
        texts, error, latency, _ = await self.complete_timed(uri, language, text, cursor)
        return texts, error, latency

    async def complete_timed(
        self, uri: str, language: str, text: str, cursor: Position
    ) -> tuple[list[str], str | None, float, Timing | None]:
        """Like :meth:`complete_all`, with the bridge's timing of the model's answer (None from
        a server that sends none, or for a model that does not measure itself)."""
        async with self.open_document(uri, language, text) as document:
            return await document.ask_timed(cursor)

    @asynccontextmanager
    async def open_document(self, uri: str, language: str, text: str) -> AsyncIterator[OpenDocument]:
        """Keep one document open for several requests (session replay, trace replay): didOpen
        now, didClose on leaving. Other requests for ``uri`` wait until then."""
        async with self._locks[uri]:
            self._version += 1
            doc = types.TextDocumentItem(uri=uri, language_id=language, version=self._version, text=text)
            self.client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=doc))
            try:
                yield OpenDocument(self, uri)
            finally:
                if not self.client.stopped:
                    self.client.text_document_did_close(
                        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
                    )

    async def _stop(self) -> None:
        try:
            await self.client.stop()
        except Exception:
            pass
        if self._drain:
            self._drain.cancel()

    async def __aexit__(self, *exc: object) -> None:
        if not self.client.stopped:
            try:
                await asyncio.wait_for(self.client.shutdown_async(None), 10)
                self.client.exit(None)
            except Exception:
                pass
        await self._stop()


class OpenDocument:
    """A document held open by :meth:`BridgeClient.open_document`: change it and ask about it."""

    def __init__(self, bridge: BridgeClient, uri: str):
        self.bridge = bridge
        self.uri = uri

    def change(self, changes: list[types.TextDocumentContentChangeEvent]) -> None:
        """One didChange notification carrying ``changes`` (incremental or whole-document)."""
        self.bridge._version += 1
        doc = types.VersionedTextDocumentIdentifier(uri=self.uri, version=self.bridge._version)
        self.bridge.client.text_document_did_change(types.DidChangeTextDocumentParams(text_document=doc, content_changes=changes))

    async def ask(
        self, cursor: Position, trigger_kind: types.InlineCompletionTriggerKind = types.InlineCompletionTriggerKind.Invoked
    ) -> tuple[str | None, str | None, float]:
        """``(raw text, error, latency in ms)`` for one request at ``cursor``, with the same error
        rules as :meth:`BridgeClient.complete`."""
        texts, error, latency = await self.ask_all(cursor, trigger_kind)
        return (texts[0] if texts else None), error, latency

    async def ask_all(
        self, cursor: Position, trigger_kind: types.InlineCompletionTriggerKind = types.InlineCompletionTriggerKind.Invoked
    ) -> tuple[list[str], str | None, float]:
        """Like :meth:`ask`, with the text of every item listed, in order."""
        texts, error, latency, _ = await self.ask_timed(cursor, trigger_kind)
        return texts, error, latency

    async def ask_timed(
        self, cursor: Position, trigger_kind: types.InlineCompletionTriggerKind = types.InlineCompletionTriggerKind.Invoked
    ) -> tuple[list[str], str | None, float, Timing | None]:
        """Like :meth:`ask_all`, with the bridge's timing of the answer (it comes just before it)."""
        client = self.bridge.client
        params = types.InlineCompletionParams(
            text_document=types.TextDocumentIdentifier(uri=self.uri),
            position=types.Position(line=cursor.line, character=cursor.character),
            context=types.InlineCompletionContext(trigger_kind=trigger_kind),
        )
        start = time.perf_counter()
        try:
            result = await asyncio.wait_for(client.text_document_inline_completion_async(params), REQUEST_TIMEOUT_S)
            texts, error = _insert_texts(result), None
        except TimeoutError:
            texts, error = [], f"no answer from the language server within {REQUEST_TIMEOUT_S:g} s"
        except Exception as exc:  # a JSON-RPC error response, or the server died
            if client.stopped:
                raise SimpilotError(f"the language server exited: {exc}; results so far are stored, resume with --resume") from None
            texts, error = [], str(exc) or type(exc).__name__
        latency = (time.perf_counter() - start) * 1000
        if not texts and error is None:
            error = "the language server answered no completion item"
        return texts, error, latency, self.bridge.timing_at(self.uri, cursor)


_T = TypeVar("_T")


def _keep_at(kept: dict[tuple[str, int, int], _T], params: Any, field: str, parse: Callable[[Any], _T]) -> None:
    """Keep ``params[field]``, parsed, under the document place (uri, line, character) the
    notification names; a malformed notification is ignored."""
    try:
        data = _plain(params)
        key = (data["uri"], int(data["position"]["line"]), int(data["position"]["character"]))
        kept[key] = parse(data[field])
    except (KeyError, TypeError, ValueError, RecordError):
        return


def _plain(value: Any) -> Any:
    """Notification parameters as plain dicts and lists, whatever objects the client made of them."""
    if hasattr(value, "_asdict"):
        value = value._asdict()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _insert_texts(result: types.InlineCompletionList | Sequence[types.InlineCompletionItem] | None) -> list[str]:
    items = result.items if isinstance(result, types.InlineCompletionList) else result
    return [item.insert_text if isinstance(item.insert_text, str) else item.insert_text.value for item in items or ()]
