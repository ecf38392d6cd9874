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


def test_only_lsp_line_ends_count() -> None:
    # a form feed, U+2028 and a lone CR: str.splitlines (and pygls) split at the first two as well
    text = "a = 1  # p\x0cq\u2028r\nb = 2\rc = 3\r\nd = 4\n"
    doc = TextDocument("file:///tmp/b.py", text, language_id="python")
    assert lsp_request(doc, types.Position(line=1, character=0)).suffix.startswith("b = 2")
    assert lsp_request(doc, types.Position(line=2, character=4)).suffix.startswith("3\r\nd")
    assert lsp_request(doc, types.Position(line=3, character=99)).suffix == "\n"  # past the line's end
    assert lsp_request(doc, types.Position(line=9, character=0)).suffix == ""  # past the text's end
