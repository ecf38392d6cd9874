"""LSP positions count UTF-16 code units: an emoji before the cursor counts twice."""

from __future__ import annotations

from lsprotocol import types
from pygls.workspace import TextDocument

from lsp_bridge.conversions import lsp_request


def test_offsets_through_the_utf16_codec() -> None:
    text = 'def f():\n    s = "🙂é"; return g(s)\n'
    doc = TextDocument("file:///tmp/a.py", text, language_id="python")
    col = len('    s = "🙂é"; ') + 1  # one more UTF-16 unit for the emoji
    req = lsp_request(doc, types.Position(line=1, character=col))
    assert req.suffix.startswith("return g(s)")
    assert req.path == "/tmp/a.py" and req.language == "python"
