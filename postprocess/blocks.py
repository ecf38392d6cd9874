"""Which Python blocks enclose the cursor, and whether an answer's lines fit them.

A line of Python may start at the indentation of any block still open above it, or one level
deeper right after a block opener (a logical line ending with ``:``); the next code line after
the hole must fit what the answer leaves open. Post-processing uses this to tell an answer that
is already right in the editor's view (returned exactly) from one written in another frame (to be
moved): the answer is judged where it will land, between the prefix and the suffix, never from an
assumption about the hole's shape.

Python's rules are not quite enough: a statement after a ``return`` in the same block, a
``return`` outside a function, or module code glued to the end of the function the answer began in
are legal or nearly so, yet no file means them; they are what an answer written in the wrong frame
looks like, so they do not fit.

Only the end of the prefix is read (latency): the lines since the nearest column-0 ``def`` or
``class`` within ``WINDOW_LINES`` lines, else since the first statement header in those lines, are
lexed (strings, brackets, continuations); the blocks opened further up are taken from the
indentation of the compound statements above. With no such line in reach (the middle of a long
literal), the blocks are unknown and nothing is judged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

WINDOW_LINES = 120  # lexed lines of prefix at most (latency: the lexer runs in Python)
SEED_CHARS = 40_000  # how far above the window the enclosing compound statements are looked for
SEED_CHUNK = 4_000  # read upwards this many characters at a time
SUFFIX_LINES = 12  # the suffix is read up to its first code line, at most this many lines on

# line kinds: where a physical line starts
START, CONTINUED, IN_STRING = 0, 1, 2

_TOKEN = re.compile(r"""("{3}|'{3}|"|')|(#)|(\\\n)|([(\[{])|([)\]}])|(\n)""")
_STRING_END = {
    '"""': re.compile(r'(?:[^"\\]+|\\[\s\S]|"(?!""))*(""")?'),
    "'''": re.compile(r"(?:[^'\\]+|\\[\s\S]|'(?!''))*(''')?"),
    '"': re.compile(r'(?:[^"\\\n]+|\\[\s\S])*(")?'),
    "'": re.compile(r"(?:[^'\\\n]+|\\[\s\S])*(')?"),
}
# a compound statement's header on one line, as prose in a docstring hardly looks
_HEADER = re.compile(
    r"(?:async[ \t]+)?def[ \t]+\w+[ \t]*\(|class[ \t]+\w+[ \t]*[(:]"
    r"|(?:(?:(?:async[ \t]+)?(?:for|with)|if|elif|while|match|case)[ \t(]|except\b).*:[ \t]*(?:#.*)?$"
    r"|(?:try|else|finally)[ \t]*:[ \t]*(?:#.*)?$"
)
_KEYWORDS = r"(?:(?:async[ \t]+)?(?:def|for|with)|class|if|elif|else|while|try|except|finally|match|case)\b"
_COMPOUND = re.compile(r"^([ \t]*)" + _KEYWORDS, re.M)


def width(ws: str) -> int:
    """Columns of an indentation, tabs to the next multiple of 8 as Python counts them."""
    return len(ws.expandtabs(8))


@dataclass(slots=True)
class Lexer:
    """Where a text leaves strings and brackets, so that a later text can be lexed on from there."""

    quote: str = ""  # the open string's delimiter
    depth: int = 0  # open brackets
    backslash: bool = False  # the last line ended with a continuation backslash

    def kind(self) -> int:
        """The kind of a line that starts in this state."""
        return IN_STRING if self.quote else CONTINUED if self.depth or self.backslash else START

    def lines(self, text: str) -> list[tuple[int, int, bool]]:
        """(start offset, kind, ends with ``:`` outside comments) of each physical line of
        ``text``; the state moves on to the end of ``text``."""
        out: list[tuple[int, int, bool]] = []
        start, kind, comment, i, n = 0, self.kind(), -1, 0, len(text)
        self.backslash = False
        while i < n:
            if self.quote:
                m = _STRING_END[self.quote].match(text, i)
                assert m is not None  # every pattern also matches the empty string
                # an open triple-quoted string runs to the end (a trailing lone backslash too)
                j = m.end() if m.group(1) or len(self.quote) == 1 else n
                nl = text.find("\n", i, j)
                while nl >= 0:  # the lines a multi-line string spans start inside it
                    out.append((start, kind, False))
                    start, kind = nl + 1, IN_STRING
                    nl = text.find("\n", nl + 1, j)
                if m.group(1) or len(self.quote) == 1:
                    self.quote = ""  # closed, or a one-line string left open at the line's end
                i = j
                continue
            m = _TOKEN.search(text, i)
            if m is None:
                break
            i = m.end()
            group = m.lastindex
            if group == 1:
                self.quote = m.group(1)
            elif group == 2:
                comment = m.start()
                nl = text.find("\n", i)
                i = n if nl < 0 else nl
            elif group == 4:
                self.depth += 1
            elif group == 5:
                self.depth = max(0, self.depth - 1)
            else:
                end = m.start() if comment < start else comment
                out.append((start, kind, text[start:end].rstrip().endswith(":")))
                self.backslash = group == 3
                start, kind, comment = i, self.kind(), -1
        end = n if comment < start else comment
        out.append((start, kind, text[start:end].rstrip().endswith(":")))
        return out


_WORD = re.compile(r"(?:async[ \t]+)?([A-Za-z_]\w*)(?:[ \t]+([A-Za-z_]\w*))?")
_BODY = {"def": "def", "class": "class", "for": "loop", "while": "loop"}  # else "block"
_TERMINAL = frozenset(("return", "raise", "continue", "break"))
_NEEDS_DEF = frozenset(("return", "yield"))
_NEEDS_LOOP = frozenset(("continue", "break"))
# lines that may close a function or class body without a blank line before them
_CLOSES_DEF = frozenset(("def", "class", "elif", "else", "except", "finally", "case"))


def first_word(body: str) -> str:
    """The statement's keyword or first name (``async`` skipped), ``@`` for a decorator."""
    if body.startswith("@"):
        return "@"
    m = _WORD.match(body)
    return m.group(1) if m else ""


def _body_of(body: str) -> str:
    """What a block opened by the logical line starting with ``body`` is the body of:
    ``"def NAME"``, ``"class NAME"``, ``"loop"`` or ``"block"``."""
    m = _WORD.match(body)
    if m is None:
        return "block"
    kind = _BODY.get(m.group(1), "block")
    return f"{kind} {m.group(2)}" if kind in ("def", "class") and m.group(2) else kind


def _kind(body_of: str) -> str:
    """``"def"`` of ``"def NAME"``."""
    return body_of.split(" ", 1)[0]


@dataclass(slots=True)
class Frame:
    """The blocks open at a point of a file, and what the last logical line said about the next."""

    stack: list[int] = field(default_factory=lambda: [0])  # indentation of each open block, outermost first
    bodies: list[str] = field(default_factory=lambda: ["module"])  # what each block is the body of
    opener: str = ""  # what the last logical line opened a block for ("def NAME", "loop"…), or ""
    line: str = ""  # the first line of the last logical line, without its indentation
    word: str = ""  # its first word
    gap: bool = True  # a blank or comment line since the last logical line
    units: set[int] = field(default_factory=set)  # the steps by which the file indents a new block
    tabs: bool | None = None  # the file indents with tabs (None: no indented line seen)
    kept: int = 1  # how many of the outermost blocks are the prefix's own, still open

    def copy(self) -> Frame:
        """A copy for judging a text typed here: every open block is the prefix's."""
        return Frame(
            list(self.stack), list(self.bodies), self.opener, self.line, self.word, self.gap, set(self.units), self.tabs, len(self.stack)
        )

    def unit(self) -> int:
        """The usual step of a new block: the file's smallest, else four columns."""
        return min(self.units) if self.units else 4

    def follow(self, ws: str, body: str) -> None:
        """Take a logical line of the file as it is (the prefix is what it is)."""
        w = width(ws)
        if ws and self.tabs is None:
            self.tabs = ws[0] == "\t"
        if self.opener and w > self.stack[-1]:
            self.units.add(w - self.stack[-1])
        while len(self.stack) > 1 and self.stack[-1] > w:
            self._pop()
        if self.stack[-1] < w:
            self._push(w)
        self.line, self.word = body, first_word(body)

    def admits(self, ws: str, body: str, within: bool = False) -> bool:
        """Whether a logical line may start at indentation ``ws`` with ``body`` here; if so, take
        it. Beyond Python's own rules, code that cannot be meant is refused: a statement after a
        ``return`` in the same block, ``return`` outside a function, ``break`` outside a loop, and,
        for an answer that began ``within`` the prefix's blocks, module-level code glued to the
        last line of the prefix's function (no blank line between) that does not name the
        function, as code registering or calling it does."""
        word = first_word(body)
        if ws and self.tabs is not None and ((" " if self.tabs else "\t") in ws):
            return False  # the other indentation character than the file's
        w = width(ws)
        if self.opener:
            step = w - self.stack[-1]
            if step <= 0 or (self.units and step not in self.units):
                return False
            self._push(w)
        elif w not in self.stack:
            return False
        elif w == self.stack[-1]:
            if self.word in _TERMINAL:
                return False
        else:
            keep = self.stack.index(w) + 1
            closed = self.bodies[keep : self.kept]
            if within and w == 0 and not self.gap and word not in _CLOSES_DEF and word != "@" and _glued(closed, body):
                return False
            del self.stack[keep:]
            del self.bodies[keep:]
            self.kept = min(self.kept, keep)
        self.line, self.word = body, word
        return self._allowed(word)

    def end_line(self, colon: bool) -> None:
        """A physical line with code ended; ``colon``: it ends with ``:``."""
        self.opener = _body_of(self.line) if colon else ""
        self.gap = False

    def _allowed(self, word: str) -> bool:
        """Whether ``word`` may start a statement in the innermost blocks."""
        if word in _NEEDS_DEF or word in _NEEDS_LOOP:
            for body in reversed(self.bodies):
                kind = _kind(body)
                if kind in ("def", "class"):
                    return kind == "def" and word in _NEEDS_DEF
                if kind == "loop" and word in _NEEDS_LOOP:
                    return True
            return False
        return True

    def _push(self, w: int) -> None:
        self.stack.append(w)
        self.bodies.append(self.opener or "block")

    def _pop(self) -> None:
        self.stack.pop()
        self.bodies.pop()

    def legal(self) -> list[int]:
        """The columns the next logical line may start at, the likeliest first."""
        if self.opener:
            return [self.stack[-1] + self.unit()]
        return self.stack[::-1]


def _glued(closed: list[str], body: str) -> bool:
    """Whether module code ``body`` that closes the blocks ``closed`` with no blank line before it
    leaves a function or class it does not name."""
    names = [name for kind, _, name in (b.partition(" ") for b in closed) if kind in ("def", "class")]
    return bool(names) and not any(re.search(rf"\b{re.escape(name)}\b", body) for name in names if name)


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _window_start(prefix: str, end: int) -> int | None:
    """Where lexing starts: the nearest column-0 ``def``/``class`` line above ``end`` if it is
    within ``WINDOW_LINES``, else the first ``def``/``class`` line or compound statement header in
    those lines: a line sure to start a statement. None when there is no such line (the middle of
    a long literal or docstring, say): the blocks at the cursor are then unknown."""
    floor = end
    for _ in range(WINDOW_LINES):
        if floor <= 0:
            return 0
        floor = _line_start(prefix, floor - 1)
    top = max(prefix.rfind("\ndef ", floor, end), prefix.rfind("\nclass ", floor, end), prefix.rfind("\nasync def ", floor, end))
    if top >= 0:
        return top + 1
    for m in _COMPOUND.finditer(prefix, floor, end):
        if _HEADER.match(_line(prefix, m.start())[1]):
            return m.start()
    return None


@lru_cache(maxsize=64)
def _compound_within(columns: int) -> re.Pattern[str]:
    """Compound statement lines indented less than ``columns`` (spaces, or tabs of 8)."""
    return re.compile(rf"^( {{0,{columns - 1}}}|\t{{0,{(columns - 1) // 8}}})" + _KEYWORDS, re.M)


def _seed(prefix: str, start: int) -> Frame:
    """The blocks enclosing the line at ``start``: the indentation of each compound statement
    above it indented less than everything below it, up to column 0 (read upwards in chunks)."""
    ws, _ = _line(prefix, start)
    levels = [(width(ws), "")]
    hi = start
    while levels[-1][0] and hi > 0 and start - hi < SEED_CHARS:
        lo = max(0, hi - SEED_CHUNK)
        pattern = _compound_within(levels[-1][0])
        for m in reversed(list(pattern.finditer(prefix, lo, min(start, hi + 200)))):
            w = width(m.group(1))
            if m.start() < hi and w < levels[-1][0]:
                levels.append((w, _body_of(_line(prefix, m.start())[1])))
                if w == 0:
                    break
        hi = lo
    if levels[-1][0]:
        levels.append((0, ""))
    levels.reverse()
    bodies = ["module"] + [body for _, body in levels[:-1]]
    return Frame(stack=[w for w, _ in levels], bodies=bodies)


def _line(text: str, start: int) -> tuple[str, str]:
    """(indentation, rest) of the physical line at ``start``; a CRLF line's ``\\r`` is not text."""
    end = text.find("\n", start)
    line = text[start:] if end < 0 else text[start:end]
    if line.endswith("\r"):
        line = line[:-1]
    body = line.lstrip(" \t\f")
    return line[: len(line) - len(body)], body


def _is_code(kind: int, body: str) -> bool:
    """Whether a physical line holds text that can end a logical line (not blank, not a comment)."""
    return bool(body) and (kind == IN_STRING or body[0] != "#")


@dataclass(slots=True)
class Cursor:
    """The editor's view at a cursor at the start of a line: the blocks open there and the lexer
    state, for judging what may be typed from that line on."""

    frame: Frame
    lexer: Lexer
    known: bool = True  # False: no line above shows where statements start; nothing can be judged

    @classmethod
    def at(cls, prefix: str) -> Cursor:
        """The view at the end of ``prefix`` cut back to its last line start."""
        end = _line_start(prefix, len(prefix))
        start = _window_start(prefix, end)
        if start is None:
            return cls(Frame(), Lexer(), known=False)
        frame = _seed(prefix, start)
        lexer = Lexer()
        text = prefix[start:end]
        for offset, kind, colon in lexer.lines(text)[:-1] if text else ():
            ws, body = _line(text, offset)
            if not _is_code(kind, body):
                frame.gap = frame.gap or kind == START
                continue
            if kind == START:
                frame.follow(ws, body)
            frame.end_line(colon)
        return cls(frame, lexer)

    def fits(self, text: str, suffix_head: str) -> bool:
        """Whether ``text`` typed at the start of the cursor's line, followed by ``suffix_head``,
        puts every logical line where the open blocks allow (``Frame.admits``)."""
        frame = self.frame.copy()
        lexer = Lexer(self.lexer.quote, self.lexer.depth, self.lexer.backslash)
        whole = text + suffix_head
        taken = 0  # logical lines of ``text`` so far
        for offset, kind, colon in lexer.lines(whole):
            ws, body = _line(whole, offset)
            if not _is_code(kind, body):
                frame.gap = frame.gap or kind == START
                continue
            if kind == START:
                if not frame.admits(ws, body, within=taken > 0 and offset < len(text)):
                    return False
                taken += 1
                if offset >= len(text):
                    return True  # the suffix's first statement fits: what follows is the file's own
            frame.end_line(colon)
        return True

    def starts_statement(self) -> bool:
        """Whether the cursor's line is known to be a new logical line (not inside a string or
        brackets)."""
        return self.known and self.lexer.kind() == START


def suffix_head(suffix: str) -> str:
    """The suffix up to the end of its first code line after the cursor's line (a few lines at
    most): what the hole's answer must leave room for."""
    pos = suffix.find("\n")
    for _ in range(SUFFIX_LINES):
        if pos < 0:
            return suffix
        end = suffix.find("\n", pos + 1)
        body = _line(suffix, pos + 1)[1]
        if body and body[0] != "#":
            return suffix if end < 0 else suffix[:end]
        pos = end
    return suffix if pos < 0 else suffix[:pos]
