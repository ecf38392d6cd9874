"""Step 1 of SimCopilot's post-processing: remove what is not code.

Removes ``<think>`` blocks, takes the first fenced code block when the answer has fences, and drops
prose lines ("Here is the completed code:", "Explanation: …") at the start and end of the answer.
Only the edges are touched: a line inside the code is never judged prose, and lines inside
Python strings are never taken for fences.
"""

from __future__ import annotations

import keyword
import re

from ..context import HoleContext
from ..pyscan import scan

_THINK = re.compile(r"<think>.*?(?:</think>|\Z)\s*", re.S)
_FENCE = re.compile(r"^ {0,3}(```|~~~)[\w+#.-]*\s*$")
_SENTENCE = re.compile(r"^[A-Z][A-Za-z']*(?:,)?(?:\s+[^\s]+){2,}\s*$")
_LABEL = re.compile(r"^(?:Explanation|Output|Note|Notes|Example|Usage|Answer|Solution|Code|Completion|Result)s?\s*:")
_INTERJECTION = re.compile(r"^(?:Sure|Certainly|Okay|OK|Of course|Absolutely|Great)\b[!.,:]")
_CODE_START = set(keyword.kwlist) | {"print", "self", "super", "assert", "return", "yield"}


def _python_compiles(line: str) -> bool:
    stripped = line.strip()
    for candidate in (stripped, stripped + "\n    pass", "(" + stripped + ")"):
        try:
            compile(candidate, "<line>", "exec", dont_inherit=True)
            return True
        except (SyntaxError, ValueError, OverflowError, RecursionError, MemoryError):
            continue
    return False


def is_prose(line: str, language: str) -> bool:
    """A line of natural language rather than code (used only at the edges of an answer)."""
    s = line.strip()
    if not s or s.startswith(("#", "//", "/*", "*", "@")):
        return False
    first = re.split(r"[\s(.:=]", s, maxsplit=1)[0]
    if first in _CODE_START:
        return False
    if not (_LABEL.match(s) or _INTERJECTION.match(s) or _SENTENCE.match(s)):
        return False
    if language == "python":
        return not _python_compiles(s)
    return not s.endswith((";", "{", "}"))


def _unfence(text: str, language: str) -> str:
    lines = text.split("\n")
    states = scan(text) if language == "python" else None
    fences = [i for i, line in enumerate(lines) if _FENCE.match(line) and (states is None or not states[i].in_string)]
    if not fences:
        return text
    first = fences[0]
    before = [line for line in lines[:first] if line.strip()]
    opening = all(is_prose(line, language) for line in before)
    if opening:
        end = next((f for f in fences[1:]), len(lines))
        return "\n".join(lines[first + 1 : end])
    return "\n".join(lines[:first])  # a closing fence after bare code: keep what came before


def _trim_prose_edges(text: str, language: str) -> str:
    lines = text.split("\n")
    head = _INTERJECTION.match(lines[0].strip()) if lines else None
    if head and lines[0].strip()[head.end() :].strip():  # "Sure! return x": keep the code part
        lines[0] = lines[0].strip()[head.end() :].strip()
    start, end = 0, len(lines)
    while start < end and (not lines[start].strip() or is_prose(lines[start], language)):
        start += 1
    while end > start and (not lines[end - 1].strip() or is_prose(lines[end - 1], language)):
        end -= 1
    return "\n".join(lines[start:end])


def strip_noncode(text: str, ctx: HoleContext) -> str:
    text = text.replace("\r\n", "\n")
    if "<think>" in text:
        text = _THINK.sub("", text)
    text = _unfence(text, ctx.language)
    return _trim_prose_edges(text, ctx.language)
