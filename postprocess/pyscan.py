"""A small Python lexer for post-processing: which lines start inside a string or a bracket.

The standard ``tokenize`` module gives up on the incomplete, messy text models produce; this scanner
never fails. It is what makes the steps string- and comment-aware (the
reference cleaner dropped every line after a triple-quoted line).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LineState:
    in_string: bool  # the line starts inside a triple-quoted string: its text is data, not code
    continued: bool  # the line continues a bracketed or backslash-continued logical line

    @property
    def logical_start(self) -> bool:
        return not self.in_string and not self.continued


def scan(text: str) -> list[LineState]:
    """One LineState per line of ``text`` (``text.split("\\n")``)."""
    states = [LineState(False, False)]
    quote = ""  # current string delimiter: ', ", ''' or """
    depth = 0
    i, n = 0, len(text)
    backslash = False
    while i < n:
        ch = text[i]
        if quote:
            if ch == "\\" and i + 1 < n:
                if text[i + 1] == "\n":  # an escaped newline continues the string on the next line
                    states.append(LineState(True, True))
                i += 2
                continue
            if text.startswith(quote, i):
                i += len(quote)
                quote = ""
                continue
            if ch == "\n":
                if len(quote) == 1:  # unterminated single-quoted string: recover at the line end
                    quote = ""
                states.append(LineState(bool(quote), depth > 0))
            i += 1
            continue
        if ch == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if ch in "'\"":
            quote = ch * 3 if text.startswith(ch * 3, i) else ch
            i += len(quote)
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif ch == "\\" and i + 1 < n and text[i + 1] == "\n":
            backslash = True
        elif ch == "\n":
            states.append(LineState(False, depth > 0 or backslash))
            backslash = False
        i += 1
    return states
