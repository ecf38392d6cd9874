"""Tokenizer for the SQL subset understood by minisql."""

import bisect
import re
from dataclasses import dataclass

from .errors import SQLSyntaxError

KEYWORDS = frozenset({
    "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "AS",
    "ORDER", "BY", "ASC", "DESC", "LIMIT", "OFFSET", "GROUP",
    "INNER", "JOIN", "ON", "INSERT", "INTO", "VALUES", "CREATE", "TABLE",
    "NULL", "IS", "TRUE", "FALSE",
})

# Longest spellings first so that "<=" is preferred over "<".
OPERATORS = ("<>", "!=", "<=", ">=", "||", "=", "<", ">", "+", "-", "*", "/", "%")
PUNCTUATION = "(),.;"

_NUMBER_RE = re.compile(r"(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
# \w is Unicode-aware, so identifiers such as "café" are accepted.
_IDENT_RE = re.compile(r"[^\W\d]\w*")


@dataclass(frozen=True)
class Token:
    """One lexical token; ``kind`` is KEYWORD, IDENT, NUMBER, STRING, OP, PUNCT or EOF."""

    kind: str
    value: object
    pos: int
    end: int

    def matches(self, kind, value=None):
        """True when the token has *kind* and, if given, *value*."""
        if self.kind != kind:
            return False
        return value is None or self.value == value


class SourceMap:
    """Translates absolute character offsets into 1-based (line, column) pairs."""

    def __init__(self, text):
        self.line_starts = [0]
        for index, char in enumerate(text):
            if char == "\n":
                self.line_starts.append(index + 1)

    def locate(self, pos):
        line = bisect.bisect_right(self.line_starts, pos)
        return line, pos - self.line_starts[line - 1] + 1


def _read_quoted(text, start, quote, source):
    """Read a literal opened at *start*; a doubled quote stands for itself."""
    pieces = []
    pos = start + 1
    while True:
        end = text.find(quote, pos)
        if end == -1:
            raise SQLSyntaxError("unterminated quoted literal", *source.locate(start))
        pieces.append(text[pos:end])
        if text.startswith(quote * 2, end):
            pieces.append(quote)
            pos = end + 2
        else:
            return "".join(pieces), end + 1


def _number_value(literal):
    if any(marker in literal for marker in ".eE"):
        return float(literal)
    return int(literal)


def tokenize(text):
    """Split *text* into tokens, ending with EOF. Keywords are upper-cased, bare
    identifiers lower-cased; double-quoted identifiers keep their spelling."""
    source = SourceMap(text)
    tokens = []
    pos = 0
    while pos < len(text):
        char = text[pos]
        if char.isspace():
            pos += 1
            continue
        if text.startswith("--", pos):
            newline = text.find("\n", pos)
            pos = len(text) if newline == -1 else newline + 1
            continue
        number = _NUMBER_RE.match(text, pos)
        word = _IDENT_RE.match(text, pos)
        operator = next((op for op in OPERATORS if text.startswith(op, pos)), None)
        if number:
            kind, value, end = "NUMBER", _number_value(number.group(0)), number.end()
        elif char in "'\"":
            value, end = _read_quoted(text, pos, char, source)
            if char == '"' and not value:
                raise SQLSyntaxError("empty quoted identifier", *source.locate(pos))
            kind = "STRING" if char == "'" else "IDENT"
        elif word:
            value, end = word.group(0), word.end()
            kind = "KEYWORD" if value.upper() in KEYWORDS else "IDENT"
            value = value.upper() if kind == "KEYWORD" else value.lower()
        elif operator is not None:
            kind, value, end = "OP", operator, pos + len(operator)
        elif char in PUNCTUATION:
            kind, value, end = "PUNCT", char, pos + 1
        else:
            raise SQLSyntaxError(f"unexpected character {char!r}", *source.locate(pos))
        tokens.append(Token(kind, value, pos, end))
        pos = end
    tokens.append(Token("EOF", None, len(text), len(text)))
    return tokens
