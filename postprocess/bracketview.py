"""The editor's view of a Java hole's brackets: what the prefix leaves open, what the answer opens
and closes, and what the suffix closes of the code before it.

Only brackets of the code count (not those in strings, chars, text blocks or comments), and the
three parts are lexed as the one file they make: a cut can fall inside a comment or a string, so
the answer is lexed on from where the prefix's last literal or comment began, and the suffix from
where the answer's did. A regular expression does the lexing (the per-character loop of
``javascan`` is too slow to run over a whole file on every answer), and the prefix's and the
suffix's results are cached: an editor asks about the same document again and again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .javascan import CLOSERS, OPENERS, PAIRS

# Comments, text blocks, strings and chars run to their end (or, unterminated, to the end of the
# line, or of the text for block comments and text blocks), as in ``javascan``; a lone ``/`` is a
# token so that a cut between the two characters of ``//`` or ``/*`` is lexed again whole.
_TOKEN = re.compile(
    r"""(?=[/"'()\[\]{}])(?:
        //[^\n]*
      | /\*[\s\S]*?(?:\*/|\Z)
      | \"\"\"(?:[^"\\]|\\[\s\S]|"(?!""))*(?:\"\"\"|\Z)
      | "(?:[^"\\\n]|\\[\s\S])*"?
      | '(?:[^'\\\n]|\\[\s\S])*'?
      | ([()\[\]{}])
      | /
    )""",
    re.VERBOSE,
)
CACHE = 1024  # documents whose prefix and suffix scans are kept (an evaluation reuses each many times)


@dataclass(frozen=True, slots=True)
class Lexed:
    """What a lexer pass over a text found."""

    brackets: tuple[tuple[int, str], ...]  # (offset, bracket) of the code's brackets, in order
    resume: int  # where lexing must restart when text is appended (a literal or comment may go on)


def lex(text: str) -> Lexed:
    """The code brackets of ``text``, and where a continuation of it must be lexed from: the start
    of its last literal, comment or ``/`` when that reaches its end (or stops just before a final
    backslash, which escapes what follows), else its end."""
    brackets = []
    last = None
    for m in _TOKEN.finditer(text):
        if m.group(1):
            brackets.append((m.start(), m.group(1)))
        else:
            last = m
    if last is not None and (last.end() == len(text) or (last.end() == len(text) - 1 and text.endswith("\\"))):
        return Lexed(tuple(brackets), last.start())
    return Lexed(tuple(brackets), len(text))


def open_after(brackets: tuple[tuple[int, str], ...] | list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The openers the brackets leave unclosed, outermost first. A closer that does not match the
    innermost opener, or closes nothing, is skipped (as in ``javascan.match``)."""
    stack: list[tuple[int, str]] = []
    for offset, ch in brackets:
        if ch in OPENERS:
            stack.append((offset, ch))
        elif stack and stack[-1][1] == PAIRS[ch]:
            stack.pop()
    return stack


@lru_cache(maxsize=CACHE)
def prefix_scan(prefix: str) -> tuple[str, int]:
    """The openers ``prefix`` leaves unclosed (outermost first) and where the text after it must be
    lexed from."""
    lexed = lex(prefix)
    return "".join(ch for _, ch in open_after(lexed.brackets)), lexed.resume


def closed_by(brackets: tuple[tuple[int, str], ...] | list[tuple[int, str]]) -> str:
    """The closers with which a suffix closes what comes before it, innermost first: those that
    close nothing of the suffix's own."""
    needs = []
    stack: list[str] = []
    for _, ch in brackets:
        if ch in OPENERS:
            stack.append(ch)
        elif not stack:
            needs.append(ch)
        elif stack[-1] == PAIRS[ch]:
            stack.pop()
    return "".join(needs)


@lru_cache(maxsize=CACHE)
def suffix_scan(suffix: str) -> str:
    """The closers ``suffix`` spends on what precedes it, innermost first (lexed from its start)."""
    return closed_by(lex(suffix).brackets)


@dataclass(frozen=True, slots=True)
class View:
    """A Java hole's brackets as the editor sees them, with an answer in it."""

    prefix_open: str  # openers the prefix leaves unclosed, outermost first
    answer: tuple[tuple[int, str], ...]  # the answer's code brackets (offsets in the answer)
    suffix_closes: str | None  # closers the suffix spends on what precedes it; None: no suffix shown
    clean: bool  # every part starts in code: lexed apart, the parts would give the same brackets


def view(prefix: str, text: str, suffix: str | None, joined: bool = True) -> View:
    """The brackets of ``prefix + text + suffix``, split at the hole (``suffix`` None for a
    completion: the model saw nothing after the cursor). With ``joined`` false the answer and the
    suffix are each lexed from a clean start, as if a line break separated them from what comes
    before: the reading of a hole whose parts do not join into one line of code (a prefix that ends
    in a line comment with no newline)."""
    opened, resume = prefix_scan(prefix)
    head = prefix[resume:] if joined else ""
    lexed = lex(head + text)
    answer = tuple((offset - len(head), ch) for offset, ch in lexed.brackets if offset >= len(head))
    starts_clean = joined and resume == len(prefix)
    ends_clean = lexed.resume == len(head) + len(text)
    if suffix is None:
        return View(opened, answer, None, starts_clean)
    if ends_clean or not joined:
        return View(opened, answer, suffix_scan(suffix), starts_clean and ends_clean)
    tail = (head + text)[lexed.resume :]
    rest = lex(tail + suffix).brackets
    return View(opened, answer, closed_by([b for b in rest if b[0] >= len(tail)]), False)


def ends_in_code(prefix: str, text: str) -> bool:
    """Whether the last character of ``prefix + text`` is code, not in a literal or a comment
    (``text`` without trailing white space: a line comment stops before the newline)."""
    head = prefix[prefix_scan(prefix)[1] :]
    return lex(head + text).resume == len(head) + len(text)


def closer_for(opener: str) -> str:
    """The bracket that closes ``opener``."""
    return CLOSERS[OPENERS.index(opener)]


def left_open(prefix: str, text: str) -> str:
    """The openers ``prefix + text`` leaves unclosed, outermost first."""
    v = view(prefix, text, None)
    return "".join(ch for _, ch in open_after([(-1, ch) for ch in v.prefix_open] + list(v.answer)))


def outside_the_block(v: View) -> list[int]:
    """Offsets of the answer's ``}`` after which it stands outside the block around the cursor:
    closers of blocks the prefix opened, and of blocks the answer opened out there (the ``{`` of
    ``} else {``), in order."""
    stack = [(-1, ch) for ch in v.prefix_open]
    depth = len(stack)
    found = []
    for offset, ch in v.answer:
        if ch in OPENERS:
            stack.append((offset, ch))
        elif stack and stack[-1][1] == PAIRS[ch]:
            stack.pop()
            if ch == "}" and len(stack) < depth:
                found.append(offset)
    return found


def closes_cursor_block(language: str, prefix: str, text: str) -> bool:
    """Whether ``text`` after ``prefix`` closes a block the prefix opened (a Java hole that runs to
    the end of the cursor's block: ``HoleContext.closes_block``). Python writes no closers."""
    return language == "java" and bool(outside_the_block(view(prefix, text, None)))


_CLOSERS_ONLY = re.compile(r"[\s)\]};,]*")
_GOES_ON = re.compile(r"\s*(?:else|catch|finally)\b")


def past_the_blocks(text: str, v: View) -> int | None:
    """For a hole that ends by closing the blocks around the cursor (``HoleContext.closes_block``):
    where the answer goes on past them, the start of the first line of code after a closer that
    leaves it outside the cursor's block, when that closer ends its line (more closers aside) and
    the line is no ``else``, ``catch`` or ``finally`` of the statement it closed; None when the
    answer ends with its closers."""
    for at in outside_the_block(v):
        end = text.find("\n", at)
        if end < 0:
            return None
        if not _CLOSERS_ONLY.fullmatch(text, at, end):
            continue  # ``} else {``: the statement goes on
        start = end + 1
        while start <= len(text):
            stop = text.find("\n", start)
            stop = len(text) if stop < 0 else stop
            if not _CLOSERS_ONLY.fullmatch(text, start, stop):
                if _GOES_ON.match(text, start):
                    break
                return start
            start = stop + 1
        else:
            return None
    return None
