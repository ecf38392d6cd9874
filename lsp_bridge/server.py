"""The LSP bridge: a pygls language server answering ``textDocument/inlineCompletion``.

pygls owns the protocol and keeps the workspace's documents up to date (didOpen, didChange,
didClose, full or incremental) before any handler runs; the handlers here only read them. Each
handler is short: document → request → model → (post-process) → LSP items.

For a real editor it also behaves as an assistant should: a request for a document supersedes
the one still running for it (that one is cancelled, as ``$/cancelRequest`` would), each item
carries a ``simpilot.didAccept`` command the editor runs on accept, and Copilot's
``textDocument/didShowCompletion`` plus ``simpilot/didAccept`` / ``simpilot/didReject``
notifications are taken. With a trace file (``simpilot serve --record``) everything the editor
sent and the server answered is written down for ``simpilot replay --trace``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from postprocess import HoleContext, run_preset
from replay import __version__
from replay.core.records import PROMPT_METHOD, TIMING_METHOD, Timing

from .contexts import ContextError, Strategy
from .contexts.provider import ContextProvider
from .conversions import lsp_inline_items, lsp_request
from .models import Model, ModelError, create_model, spec_from_json
from .models.base import answers
from .options import BridgeOptions, merge_options
from .trace import TraceWriter, json_changes

logger = logging.getLogger(__name__)


ACCEPT_COMMAND = "simpilot.didAccept"


class BridgeProtocol(LanguageServerProtocol):
    """pygls's protocol, plus an error answer to a request whose parameters do not fit its method:
    pygls only logs those, and the editor would wait for an answer for ever."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if "id" in data and "method" in data:
                self._send_response(data["id"], error=exc.to_response_error())
            raise


class BridgeServer(LanguageServer):
    def __init__(self, defaults: BridgeOptions, trace: TraceWriter | None = None):
        super().__init__("simpilot-bridge", __version__, protocol_cls=BridgeProtocol)
        self.defaults = defaults
        self.options = defaults
        self.model: Model | None = None
        self.model_problem: str | None = None
        self.contexts: ContextProvider | None = None  # the context strategy, when one is set
        self.context_problem: str | None = None
        self.trace = trace
        self.running: dict[str, asyncio.Task[Any]] = {}  # document URI -> its completion in progress
        self.last_answered: str | None = None  # the URI of the latest answer (what "shown" refers to)

    def record(self, event: str, **fields: Any) -> None:
        if self.trace is not None:
            self.trace.record(event, **fields)

    def report_server_error(self, error: Exception, source: object) -> None:
        logger.error("%s", error)  # never pop messages at the user for errors already answered


def _configure(ls: BridgeServer, raw_options: object) -> None:
    ls.options, problems = merge_options(ls.defaults, raw_options)
    try:
        ls.model = create_model(spec_from_json(ls.options.model))
        ls.model_problem = None
    except ModelError as exc:
        ls.model, ls.model_problem = None, str(exc)
        problems.append(f"model not available: {exc}")
    ls.contexts, ls.context_problem = None, None
    if ls.options.context is not None:
        try:
            spec = ls.options.context
            ls.contexts = ContextProvider(Strategy.from_json(spec), [str(p) for p in spec.get("scenarios") or []])
        except ContextError as exc:
            ls.context_problem = str(exc)
            problems.append(f"context strategy not available: {exc}")
    for problem in problems:
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=f"simpilot: {problem}"))


def build_server(defaults: BridgeOptions | None = None, trace: TraceWriter | None = None) -> BridgeServer:
    server = BridgeServer(defaults or BridgeOptions(), trace)

    @server.feature(types.INITIALIZE)
    def initialize(ls: BridgeServer, params: types.InitializeParams) -> None:
        _configure(ls, params.initialization_options)

    @server.feature(types.TEXT_DOCUMENT_INLINE_COMPLETION, types.InlineCompletionOptions())
    async def inline_completion(ls: BridgeServer, params: types.InlineCompletionParams) -> types.InlineCompletionList:
        uri = params.text_document.uri
        request_id = ls.protocol.msg_id
        current = asyncio.current_task()
        superseded = ls.running.get(uri)
        if superseded is not None and superseded is not current and not superseded.done():
            superseded.cancel()  # the editor has moved on: its answer would only be thrown away
        if current is not None:
            ls.running[uri] = current
        start = time.perf_counter()
        try:
            texts, timing = await _answers(ls, params)
        except asyncio.CancelledError:
            ls.record("cancel", request_id=request_id)
            _send_timing(ls, params, Timing((time.perf_counter() - start) * 1000, cancelled=True))
            raise
        finally:
            if current is not None and ls.running.get(uri) is current:
                del ls.running[uri]
        result = lsp_inline_items(texts, params.position, ACCEPT_COMMAND, uri)
        if timing is not None:
            _send_timing(ls, params, timing)
        ls.last_answered = uri
        ls.record(
            "complete",
            request_id=request_id,
            uri=uri,
            line=params.position.line,
            character=params.position.character,
            trigger_kind=int(params.context.trigger_kind),
            items=[item.insert_text for item in result.items],
            latency_ms=round((time.perf_counter() - start) * 1000, 3),
        )
        return result

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: BridgeServer, params: types.DidOpenTextDocumentParams) -> None:
        doc = params.text_document
        ls.record("open", uri=doc.uri, language_id=doc.language_id, version=doc.version, text=doc.text)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: BridgeServer, params: types.DidChangeTextDocumentParams) -> None:
        if ls.trace is not None:
            changes = json_changes(params.content_changes)
            ls.record("change", uri=params.text_document.uri, version=params.text_document.version, changes=changes)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: BridgeServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.record("close", uri=params.text_document.uri)

    @server.feature(DID_SHOW_COMPLETION)
    def did_show(ls: BridgeServer, params: Any) -> None:
        item = getattr(params, "item", None)
        ls.record("shown", uri=_uri_of(item) or ls.last_answered, text=_text_of(item))

    @server.feature(DID_ACCEPT)
    def did_accept(ls: BridgeServer, params: Any) -> None:
        ls.record("accept", uri=getattr(params, "uri", None), text=_text_of(params))

    @server.feature(DID_REJECT)
    def did_reject(ls: BridgeServer, params: Any) -> None:
        ls.record("reject", uri=getattr(params, "uri", None), text=_text_of(params))

    @server.command(ACCEPT_COMMAND)
    def accept_command(ls: BridgeServer, uri: str, text: str) -> None:
        ls.record("accept", uri=uri, text=text)

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: BridgeServer, params: None) -> None:
        if ls.model is not None:
            await ls.model.aclose()
        if ls.trace is not None:
            ls.trace.close()

    return server


# Copilot's notification when the editor shows an item; simpilot's own for the developer's verdict
DID_SHOW_COMPLETION = "textDocument/didShowCompletion"
DID_ACCEPT = "simpilot/didAccept"
DID_REJECT = "simpilot/didReject"


def _send_timing(ls: BridgeServer, params: types.InlineCompletionParams, timing: Timing) -> None:
    """Tell the client how the model answered the request at ``params`` (``TIMING_METHOD``), just
    before the answer itself: LSP's completion items have no place for it."""
    position = {"line": params.position.line, "character": params.position.character}
    ls.protocol.notify(TIMING_METHOD, {"uri": params.text_document.uri, "position": position, "timing": timing.to_json()})


async def _answers(ls: BridgeServer, params: types.InlineCompletionParams) -> tuple[list[str], Timing | None]:
    """The (post-processed) model answers at ``params``' position: one, or one per sample; and
    how the model gave them, when it says."""
    document = ls.workspace.get_text_document(params.text_document.uri)
    request = lsp_request(document, params.position)
    if ls.model is None:
        raise JsonRpcInternalError(f"model_error: {ls.model_problem or 'no model configured'}")
    if ls.context_problem is not None:
        raise JsonRpcInternalError(f"model_error: {ls.context_problem}")
    if ls.contexts is not None:
        try:
            built = await ls.contexts.build(request)
        except ContextError as exc:
            raise JsonRpcInternalError(f"model_error: {exc}") from None
        request = dataclasses.replace(request, context=built)
        position = {"line": params.position.line, "character": params.position.character}
        ls.protocol.notify(PROMPT_METHOD, {"uri": params.text_document.uri, "position": position, "prompt": built.record().to_json()})
    try:
        texts, timing = await answers(ls.model, request)
    except ModelError as exc:
        raise JsonRpcInternalError(f"model_error: {exc}") from None
    if ls.options.postprocess is not None:
        ctx = HoleContext(request.language, request.prefix, request.suffix)
        texts = [run_preset(ls.options.postprocess, text, ctx).text for text in texts]
    return texts, timing


def _text_of(item: Any) -> str | None:
    """The inserted text of a notification's item, whichever spelling the editor used."""
    for name in ("insert_text", "insertText", "text"):
        value = getattr(item, name, None)
        if isinstance(value, str):
            return value
    return None


def _uri_of(item: Any) -> str | None:
    command = getattr(item, "command", None)
    arguments = getattr(command, "arguments", None)
    if isinstance(arguments, (list, tuple)) and arguments and isinstance(arguments[0], str):
        return arguments[0]
    return getattr(item, "uri", None)
