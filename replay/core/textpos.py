"""Offsets and positions. LSP positions count UTF-16 code units; tree-sitter counts UTF-8 bytes;
Python strings count code points. Every conversion between them lives here."""

from __future__ import annotations

from replay.core.records import Position


def utf16_len(text: str) -> int:
    """Number of UTF-16 code units in ``text`` (characters outside the BMP count twice)."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def position_at(text: str, offset: int) -> Position:
    """The LSP position of code-point ``offset`` in ``text``."""
    line = text.count("\n", 0, offset)
    line_start = text.rfind("\n", 0, offset) + 1
    return Position(line, utf16_len(text[line_start:offset]))


def char_offset(source: bytes, byte_offset: int) -> int:
    """The code-point offset of a UTF-8 byte offset (which must fall on a character boundary)."""
    return len(source[:byte_offset].decode("utf-8"))
