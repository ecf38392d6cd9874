"""Conversions between LSP types and the bridge's own, in one place.

LSP positions are 0-based lines and UTF-16 code units; the bridge's offsets are Python code-point
offsets into the document text.
"""

from __future__ import annotations

import re

from lsprotocol import types
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from .models.base import CompletionRequest

_LINE_END = re.compile(r"\r\n|\r|\n")  # LSP's line ends, and only those


def lsp_offset(text: str, line: int, character: int) -> int:
    """The code-point offset of an LSP position (0-based line, UTF-16 units) in ``text``.

    Not pygls's ``offset_at_position``: it splits lines as ``str.splitlines`` does, also at form
    feeds, U+2028 and other characters LSP does not count as line ends, which would put the
    cursor a line off in such files. Past the end of a line or of the text, the end is used."""
    start = 0
    for _ in range(line):
        end = _LINE_END.search(text, start)
        if end is None:
            return len(text)
        start = end.end()
    stop = _LINE_END.search(text, start)
    limit = stop.start() if stop else len(text)
    offset, units = start, 0
    while offset < limit and units < character:
        units += 2 if ord(text[offset]) > 0xFFFF else 1
        offset += 1
    return offset


def lsp_request(document: TextDocument, position: types.Position) -> CompletionRequest:
    """The bridge's request for an inline completion at ``position`` in ``document``."""
    offset = lsp_offset(document.source, position.line, position.character)
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


def lsp_inline_items(
    texts: list[str], position: types.Position, accept_command: str | None = None, uri: str | None = None
) -> types.InlineCompletionList:
    """One inline item per text, each inserting it at ``position`` (an empty range: nothing is
    replaced), in the order given (an editor shows the first and cycles through the others).
    With ``accept_command`` each item carries that command (arguments: the document URI and the
    text), which the editor runs when the developer accepts it, as Copilot's items do."""
    items = []
    for text in texts:
        command = types.Command(title="accepted", command=accept_command, arguments=[uri, text]) if accept_command else None
        items.append(types.InlineCompletionItem(insert_text=text, range=types.Range(start=position, end=position), command=command))
    return types.InlineCompletionList(items=items)
