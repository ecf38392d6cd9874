"""The LSP bridge: a pygls language server answering ``textDocument/inlineCompletion``.

pygls owns the protocol and keeps the workspace's documents up to date (didOpen, didChange,
didClose) before any handler runs; the handlers here only read them. Each handler is short:
document → request → model → (post-process) → LSP items.
"""

from __future__ import annotations

import logging

from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError
from pygls.lsp.server import LanguageServer

from postprocess import HoleContext, run_preset
from replay import __version__

from .conversions import lsp_inline_items, lsp_request
from .models import Model, ModelError, create_model
from .options import BridgeOptions, merge_options

logger = logging.getLogger(__name__)


class BridgeServer(LanguageServer):
    def __init__(self, defaults: BridgeOptions):
        super().__init__("simpilot-bridge", __version__)
        self.defaults = defaults
        self.options = defaults
        self.model: Model | None = None
        self.model_problem: str | None = None

    def report_server_error(self, error: Exception, source: object) -> None:
        logger.error("%s", error)  # never pop messages at the user for errors already answered


def _configure(ls: BridgeServer, raw_options: object) -> None:
    ls.options, problems = merge_options(ls.defaults, raw_options)
    try:
        ls.model = create_model(ls.options.model)
        ls.model_problem = None
    except ModelError as exc:
        ls.model, ls.model_problem = None, str(exc)
        problems.append(f"model not available: {exc}")
    for problem in problems:
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=f"simpilot: {problem}"))


def build_server(defaults: BridgeOptions | None = None) -> BridgeServer:
    server = BridgeServer(defaults or BridgeOptions())

    @server.feature(types.INITIALIZE)
    def initialize(ls: BridgeServer, params: types.InitializeParams) -> None:
        _configure(ls, params.initialization_options)

    @server.feature(types.TEXT_DOCUMENT_INLINE_COMPLETION, types.InlineCompletionOptions())
    async def inline_completion(ls: BridgeServer, params: types.InlineCompletionParams) -> types.InlineCompletionList:
        document = ls.workspace.get_text_document(params.text_document.uri)
        request = lsp_request(document, params.position)
        if ls.model is None:
            raise JsonRpcInternalError(f"model_error: {ls.model_problem or 'no model configured'}")
        try:
            text = await ls.model.complete(request)
        except ModelError as exc:
            raise JsonRpcInternalError(f"model_error: {exc}") from None
        if ls.options.postprocess is not None:
            ctx = HoleContext(request.language, request.prefix, request.suffix)
            text = run_preset(ls.options.postprocess, text, ctx).text
        return lsp_inline_items(text, params.position)

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: BridgeServer, params: None) -> None:
        if ls.model is not None:
            await ls.model.aclose()

    return server
