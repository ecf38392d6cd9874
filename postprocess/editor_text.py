"""Text as an editor holds and saves it.

A model's answer is a JSON string, and JSON can carry what UTF-8 cannot: a lone surrogate
(``\\ud800``), which some servers send when they cut a character in two. An editor's strings are
UTF-16: it joins a high and a low surrogate into their character and shows and saves any other as
U+FFFD. The post-processors and the tests work on that text; the store keeps the answer as it came.
"""

from __future__ import annotations


def as_saved(text: str) -> str:
    """``text`` as an editor writes it to a UTF-8 file: surrogate pairs joined, lone surrogates
    replaced by U+FFFD; any other text unchanged."""
    if text.isascii():
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
