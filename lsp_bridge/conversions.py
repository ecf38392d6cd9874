"""Conversions between LSP types and the bridge's own, in one place.

LSP positions are 0-based lines and UTF-16 code units; the bridge's offsets are Python code-point
offsets into the document text. pygls's position codec does the UTF-16 arithmetic.
"""

from __future__ import annotations

from lsprotocol import types
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from .models.base import CompletionRequest


def lsp_request(document: TextDocument, position: types.Position) -> CompletionRequest:
    """The bridge's request for an inline completion at ``position`` in ``document``."""
    offset = document.offset_at_position(position)
    path = to_fs_path(document.uri) or document.uri
    return CompletionRequest(
        uri=document.uri,
        path=path.replace("\\", "/"),
        language=document.language_id or "python",
        text=document.source,
        offset=offset,
        line=position.line,
        character=position.character,
    )


def lsp_inline_items(text: str, position: types.Position, accept_command: str | None = None, uri: str | None = None) -> types.InlineCompletionList:
    """One inline item inserting ``text`` at ``position`` (an empty range: nothing is replaced).
    With ``accept_command`` the item carries that command (arguments: the document URI and the
    text), which the editor runs when the developer accepts it, as Copilot's items do."""
    command = types.Command(title="accepted", command=accept_command, arguments=[uri, text]) if accept_command else None
    item = types.InlineCompletionItem(insert_text=text, range=types.Range(start=position, end=position), command=command)
    return types.InlineCompletionList(items=[item])
