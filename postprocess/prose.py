"""Is a line at the edge of an answer prose, or code? A regular expression proposes, a parser decides.

A capitalised word followed by two more looks like a sentence, and so do ``TableFormat =
namedtuple(`` and ``String alphabet = new StringBuilder(this.alphabet.substring(offset))``. The
regular expression only picks the *candidates*; a candidate is prose only when it is code neither
on its own (``parses_alone``: as a statement, a member or an expression, possibly continued on the
next line or cut short at the end of an answer) nor in its place (``code_in_place``: inside a
string or a comment the prefix left open, or needed for the document around the hole to parse as
well as it does without it). The expensive checks run only on candidates, which real code rarely
is, and on a window of the document around the hole rather than the whole file.
"""

from __future__ import annotations

import ast
import keyword
import re
import warnings
from collections import deque

from .context import HoleContext
from .syntax import parse

_SENTENCE = re.compile(r"^[A-Z][A-Za-z']*(?:,)?(?:\s+[^\s]+){2,}\s*$")
_LABEL = re.compile(r"^(?:Explanation|Output|Note|Notes|Example|Usage|Answer|Solution|Code|Completion|Result)s?\s*:")
INTERJECTION = re.compile(r"^(?:Sure|Certainly|Okay|OK|Of course|Absolutely|Great)\b[!.,:]")
_CODE_START = set(keyword.kwlist) | {"print", "self", "super", "assert", "return", "yield"}

# Ways to complete a line cut short at the end of an answer ("Integer i =", "new T", "new ", "s.",
# "{'a': 1, 'b'", "i == 0 ? low :", "x if y"); never tried on words ending with a colon ("Note:"),
# which a tail would turn into a labelled statement
_TAILS = {"python": ("", " x", "()", " x()", ": x", " else x"), "java": ("", " x", "()", " x()", ": x")}
_WORDS_AND_COLON = re.compile(r"[\w\s',.!?-]+:")
_JAVA_WRAPPERS = ("class A {{\nvoid f() {{\n{}\n}}\n}}\n", "class A {{\n{}\n}}\n", "enum E {{\n{}\n}}\n")
_PAIRS = {"(": ")", "[": "]", "{": "}"}
_OPENER_OF = {v: k for k, v in _PAIRS.items()}
# Python never puts two names in a row, Java never three, outside their keywords (``x if y``,
# ``public static Foo``, ``case Foo f when``): a line whose code does is no code, whatever surrounds it
_NAMES_IN_A_ROW = {"python": 2, "java": 3}
_JAVA_WORDS = frozenset(
    "abstract assert boolean break byte case catch char class const continue default do double else enum "
    "extends final finally float for goto if implements import instanceof int interface long native new non "
    "package permits private protected public record return sealed short static strictfp super switch "
    "synchronized this throw throws transient try var void volatile when while yield".split()
)  # module-info's words (requires, uses, with, to...) left out: no candidate line is a module directive
_KEYWORDS = {"python": frozenset([*keyword.kwlist, *keyword.softkwlist]), "java": _JAVA_WORDS}
_TOKEN = re.compile(r"(?:[^\W\d]|\$)[\w$]*|\d[\w.]*|\S")  # a name, a number, or one sign

# The tokens that can hide brackets, and the multi-line literals and comments a hole can start in
_PY_LEXEME = re.compile(
    r"#[^\n]*|'''(?:\\.|[^\\])*?(?:'''|\Z)|\"\"\"(?:\\.|[^\\])*?(?:\"\"\"|\Z)"
    r"|'(?:\\.|[^'\\\n])*(?:'|$)|\"(?:\\.|[^\"\\\n])*(?:\"|$)",
    re.S | re.M,
)
_JAVA_LEXEME = re.compile(
    r"//[^\n]*|/\*.*?(?:\*/|\Z)|\"\"\"(?:\\.|[^\\])*?(?:\"\"\"|\Z)"
    r"|'(?:\\.|[^'\\\n])*(?:'|$)|\"(?:\\.|[^\"\\\n])*(?:\"|$)",
    re.S | re.M,
)
_LEXEMES = {"python": _PY_LEXEME, "java": _JAVA_LEXEME}
_BLOCK_LITERALS = {"python": ("'''", '"""'), "java": ("/*", '"""')}

# Lines where a window of the document may start or end: a definition, never inside a literal
_ANCHOR = {
    "python": re.compile(r"[ \t]*(?:async[ \t]+def|def|class)[ \t]|[ \t]*@\w"),
    # a member of a top-level type, or a top-level declaration: a window starting at a statement
    # or a nested member would leave tree-sitter guessing what encloses it
    "java": re.compile(
        r"(?: {0,4}|\t?)(?:(?:public|private|protected|static|final|abstract|class|interface|enum"
        r"|record|import|package)\s|@\w)"
    ),
}
_JAVA_MEMBERS = "class W {\n"  # what a window starting at a member is put in
_WINDOW_LINES = 150


def looks_like_prose(line: str, language: str) -> bool:
    """The cheap test: a sentence, a label ("Explanation:") or an interjection ("Sure!")."""
    s = line.strip()
    if not s or s.startswith(("#", "//", "/*", "*", "@")):
        return False
    first = re.split(r"[\s(.:=]", s, maxsplit=1)[0]
    if first in _CODE_START:
        return False
    if not (_LABEL.match(s) or INTERJECTION.match(s) or _SENTENCE.match(s)):
        return False
    return language == "python" or not s.endswith((";", "{", "}"))


def is_prose(line: str, language: str) -> bool:
    """A line of natural language rather than code, judged without the document around it."""
    return looks_like_prose(line, language) and not parses_alone(line, language)


def parses_alone(line: str, language: str) -> bool:
    """Whether ``line`` parses as code on its own: as it is, as a block opener, as an expression,
    with the brackets it leaves open closed (continued on the next line), or completed at its end
    (an answer cut short)."""
    s = line.strip()
    if too_many_names_in_a_row(s, language):
        return False
    check = _compiles if language == "python" else _java_parses
    if any(check(form) for form in _forms(s, language)):
        return True
    return any(check(form) for cut in _cut_short(s) for form in _forms(cut, language))


def _cut_short(s: str) -> list[str]:
    """``s`` without its last one or two tokens, for a line cut short inside a token ("source
    inst", "x = as", "x ? ", ".append('\\"). Never for a line that opens like prose ("Sure, done!"
    is no tuple) or ends like a sentence ("That is all." is no comparison), and at least two
    tokens are left."""
    if _LABEL.match(s) or INTERJECTION.match(s) or s.endswith((".", "!", ":")):
        return []
    starts = [m.start() for m in _TOKEN.finditer(s)]
    return [s[: starts[-k]].rstrip() for k in (1, 2) if len(starts) - k >= 2]


def _forms(s: str, language: str) -> list[str]:
    forms = [s, s + "\n    pass", "(" + s + ")"] if language == "python" else [s, s + ";"]
    if _WORDS_AND_COLON.fullmatch(s):
        return forms
    lead, quote, closers = _unbalanced(s, language)
    end = ";" if language == "java" else ""
    forms += [lead + s + quote + tail + closers + end for tail in _TAILS[language]]
    return list(dict.fromkeys(forms))


def _unbalanced(s: str, language: str) -> tuple[str, str, str]:
    """What ``s`` leaves unbalanced: the openers its stray closers need before it, the quote of a
    string it leaves open, and the closers of the brackets it leaves open."""
    stack: list[str] = []
    lead: list[str] = []
    code = _LEXEMES[language].sub(lambda m: "" if m.group().startswith(("#", "//", "/*")) else '""', s)
    for ch in code:
        if ch in _PAIRS:
            stack.append(ch)
        elif ch in _OPENER_OF:
            if stack and stack[-1] == _OPENER_OF[ch]:
                stack.pop()
            elif not stack:
                lead.append(_OPENER_OF[ch])
    quote = _open_quote(s, language)
    return "".join(reversed(lead)), quote, "".join(_PAIRS[ch] for ch in reversed(stack))


def _open_quote(s: str, language: str) -> str:
    """The quote that closes a string literal ``s`` leaves open at its end ("" when none)."""
    opener = _open_literal(s, language)
    return opener if opener in ('"""', "'''", '"', "'") else ""


def _open_literal(text: str, language: str) -> str:
    """The opener of the string or comment ``text`` ends inside ("" when it ends in code)."""
    found = deque(_LEXEMES[language].finditer(text), maxlen=1)  # only the last lexeme matters
    last = found[0] if found else None
    if last is None or last.end() != len(text):
        return ""
    token = last.group()
    opener = next(o for o in ("#", "//", "/*", '"""', "'''", '"', "'") if token.startswith(o))
    if opener in ("#", "//"):
        return opener
    closer = "*/" if opener == "/*" else opener
    closed = len(token) >= len(opener) + len(closer) and token.endswith(closer) and not token.endswith("\\" + closer)
    return "" if closed else opener


def _compiles(source: str) -> bool:
    """Whether ``source`` parses as Python (only parses: ``return x`` is a statement here), without
    the warnings a model's text would print ("is" with a literal, invalid escapes)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(source, "<line>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
            return True
        except (SyntaxError, ValueError, OverflowError, RecursionError, MemoryError):
            return False


def too_many_names_in_a_row(line: str, language: str) -> bool:
    """Whether the code of ``line`` (literals and comments aside) has more names in a row than the
    language ever allows: two in Python (``match x``, ``x if y`` are keywords), three in Java
    (``Foo bar`` declares): a sentence, not a statement."""
    code = _LEXEMES[language].sub('""', line)
    words, limit, run = _KEYWORDS[language], _NAMES_IN_A_ROW[language], 0
    for token in _TOKEN.findall(code):
        run = run + 1 if (token[0].isalpha() or token[0] in "_$") and token not in words else 0
        if run == limit:
            return True
    return False


def _java_parses(source: str) -> bool:
    return any(not parse(wrapper.format(source), "java").root_node.has_error for wrapper in _JAVA_WRAPPERS)


# ----------------------------------------------------------------------------- in its place


def code_in_place(ctx: HoleContext, before: str, lines: str, after: str, *, suffix: bool = True) -> bool:
    """Whether ``lines``, between the answer's ``before`` and ``after``, is code where it stands:
    inside a string or comment left open before it, or not making the document around the hole
    parse worse than it does without it (more ERROR or MISSING nodes). Without ``suffix`` the
    document ends after ``after`` (what is still open closed), so that the rest of the answer,
    perhaps cut short, and the suffix play no part."""
    head, tail = window(ctx)
    if not suffix:
        tail = ""
    if _inside_literal(head + before, continued=not lines.startswith("\n"), language=ctx.language):
        return True
    if _has_a_sentence(lines, ctx.language):
        return False  # not code here either: no need to parse
    closed = not tail.strip()  # the end of the document is not shown: each closes what it opened
    with_lines = _document_errors(head + before + lines + after, tail, closed, ctx.language)
    return with_lines <= _document_errors(head + before + after, tail, closed, ctx.language)


def _has_a_sentence(lines: str, language: str) -> bool:
    """Whether one of ``lines`` (which start in code) has too many names in a row outside the
    strings and comments the lines before it opened: a line that is no code, so neither are the
    lines."""
    seen = 0
    for line in lines.split("\n"):
        if too_many_names_in_a_row(line, language) and not _inside_literal(lines[:seen], False, language):
            return True
        seen += len(line) + 1
    return False


def _document_errors(text: str, tail: str, closed: bool, language: str) -> int:
    """``errors`` of ``text + tail``; when ``closed``, ``text`` is all there is, its end perhaps
    cut short: it is completed as ``parses_alone`` completes a line, and what it leaves open is
    closed, and the fewest errors count."""
    if not closed:
        return errors(text + tail, language)
    _, quote, closers = _unbalanced(text, language)
    last_line = text[text.rfind("\n") + 1 :].strip()
    tails = ("",) if _WORDS_AND_COLON.fullmatch(last_line) else _TAILS[language]
    return min(errors(text + quote + t + tail + "\n" + closers, language) for t in tails)


def window(ctx: HoleContext) -> tuple[str, str]:
    """The part of the prefix and of the suffix worth parsing: from the nearest definition above
    the cursor to the next one below, looked for within ``_WINDOW_LINES`` lines each way. With no
    definition above within reach the whole prefix is taken, so that the window never starts
    inside a literal; below, the window may end anywhere (both documents compared end alike)."""
    start = _anchor_above(ctx.prefix, _ANCHOR[ctx.language])
    head = ctx.prefix[start or 0 :]
    if ctx.language == "java" and start is not None and head[:1] in " \t":
        head = _JAVA_MEMBERS + head
    return head, _tail(ctx.suffix, _ANCHOR[ctx.language])


def _anchor_above(prefix: str, anchor: re.Pattern[str]) -> int | None:
    """Where the nearest anchor line above the cursor's line starts (None: none within reach)."""
    end = prefix.rfind("\n")
    for _ in range(_WINDOW_LINES):
        if end < 0:
            return None
        start = prefix.rfind("\n", 0, end) + 1
        if anchor.match(prefix, start, end):
            return start
        end = start - 1
    return None


def _tail(suffix: str, anchor: re.Pattern[str]) -> str:
    start = suffix.find("\n") + 1
    for _ in range(_WINDOW_LINES):
        if start <= 0:
            return suffix
        end = suffix.find("\n", start)
        if anchor.match(suffix, start, len(suffix) if end < 0 else end):
            return suffix[:start]
        start = end + 1
    return suffix[:start]


def _inside_literal(text: str, continued: bool, language: str) -> bool:
    """Whether ``text`` ends inside a string or comment it opened and did not close: one that
    spans lines (a triple-quoted string, a block comment, a text block), or, when what follows
    ``text`` is on the same line (``continued``), any string or line comment."""
    opener = _open_literal(text, language)
    return bool(opener) and (continued or opener in _BLOCK_LITERALS[language])


def errors(source: str, language: str) -> int:
    """ERROR and MISSING nodes in ``source`` (an ERROR node counts once, whatever it holds)."""
    root = parse(source, language).root_node
    found, stack = 0, [root] if root.has_error else []
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            found += 1
            continue
        stack.extend(child for child in node.children if child.has_error)
    return found
