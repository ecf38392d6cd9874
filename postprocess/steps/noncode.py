"""Step 1 of SimCopilot's post-processing: remove what is not code.

Removes ``<think>`` blocks (at the start, where models put their reasoning: elsewhere the text
could be a string's), takes the first fenced code block when the answer has fences, and drops
prose lines ("Here is the completed code:", "Explanation: …") at the start and end of the answer.
Only the edges are touched: a line inside the code is never judged prose, and lines inside
Python strings are never taken for fences.

What is removed is exactly the non-code and the blank lines that separated it from the code: when
nothing is found the answer comes back as it was, leading and trailing newlines included (a hole
can start or end with one).

Fill-in-the-middle tags a model writes into its answer (``<fim_middle>``, ``<|fim_suffix|>``, or
an invented ``<fim_end_end>``) are not code either: known special tokens are cut by the bridge
for the configured family, but a model that was never told its family, or invents a tag of its
own, leaves them in. A tag before any code goes alone; a tag after code ends the answer there
(what follows it belongs to another part of a FIM document). A tag inside a string or comment is
the code's own and stays, and with a grammar the file must parse strictly better without it. A line is prose only when ``postprocess.prose`` finds it is code
neither alone nor in its place, so a statement that merely reads like a sentence
(``TableFormat = namedtuple(``) stays.
"""

from __future__ import annotations

import re

from ..context import HoleContext
from ..fits import answer_in_literal, fits_better
from ..prose import INTERJECTION, code_in_place, is_prose, parses_alone
from ..pyscan import scan
from ..syntax import LANGUAGES

__all__ = ["is_prose", "strip_noncode"]

# A reasoning block at the start of the answer, with the blank lines after it (not the indentation
# of the code that follows)
_THINK = re.compile(r"\s*<think>.*?(?:</think>|\Z)(?:[ \t]*\n)*", re.S)
_FENCE = re.compile(r"^ {0,3}(```|~~~)[\w+#.-]*\s*$")
# A FIM-like tag: <fim_...>, <|fim_...|>, DeepSeek's full-width <｜fim▁...｜>, any case
_FIM_TAG = re.compile(r"<[|｜]?(?i:fim)[\w▁-]*[|｜]?>")


def strip_noncode(text: str, ctx: HoleContext) -> str:
    """The answer without its reasoning, fences and prose edges; exactly the answer if it has none."""
    text = _line_endings(text, ctx)
    while text.lstrip().startswith("<think>"):
        m = _THINK.match(text)
        assert m is not None  # the text starts with ``<think>`` after blanks
        text = text[m.end() :]
    lines = _unfence(text.split("\n"), ctx.language)
    return _drop_fim_tags("\n".join(_trim_prose_edges(lines, ctx)), ctx)


def _drop_fim_tags(text: str, ctx: HoleContext) -> str:
    """The answer without the FIM tags it wrote as code: a leading one removed (with its line when
    it stands alone on it), the answer cut at any later one."""
    while True:
        tag = next((m for m in _FIM_TAG.finditer(text) if not _in_literal(text, m.start(), ctx)), None)
        if tag is None:
            return text
        if text[: tag.start()].strip():
            shorter = text[: tag.start()].rstrip(" \t")
        else:
            rest = text[tag.end() :]
            alone = not rest[: rest.find("\n") + 1].strip() and "\n" in rest
            shorter = text[: text.rfind("\n", 0, tag.start()) + 1] + rest[rest.find("\n") + 1 :] if alone else text[: tag.start()] + rest
        if ctx.language in LANGUAGES and not fits_better(shorter, text, ctx):
            return text  # with a grammar, the file must parse better without the tag
        text = shorter


def _in_literal(text: str, offset: int, ctx: HoleContext) -> bool:
    """Whether ``offset`` of the answer is inside a string or comment: by the grammar where there
    is one, else by a C-like scan of the answer alone (quotes, backticks, ``//`` and ``/* */``)."""
    found = answer_in_literal(text, offset, ctx)
    if found is not None:
        return found
    i, quote = 0, ""
    while i < offset:
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote or (ch == "\n" and quote in "\"'"):
                quote = ""
        elif text.startswith("//", i):
            end = text.find("\n", i)
            if end < 0 or end > offset:
                return True
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0 or end + 2 > offset:
                return True
            i = end + 1
        elif ch in "\"'`":
            quote = ch
        i += 1
    return bool(quote)


def _line_endings(text: str, ctx: HoleContext) -> str:
    """CRLF becomes LF unless the document itself uses CRLF (then the answer's are its own)."""
    if "\r\n" not in text or "\r\n" in ctx.prefix or "\r\n" in ctx.suffix:
        return text
    return text.replace("\r\n", "\n")


def _unfence(lines: list[str], language: str) -> list[str]:
    """The first fenced block's lines, exactly; or, when the first fence closes bare code, the
    code before it (without the blank lines between the two)."""
    candidates = [i for i, line in enumerate(lines) if _FENCE.match(line)]
    if not candidates:
        return lines
    states = scan("\n".join(lines)) if language == "python" else None
    fences = [i for i in candidates if states is None or not states[i].in_string]
    if not fences:
        return lines
    first = fences[0]
    if all(is_prose(line, language) for line in lines[:first] if line.strip()):
        return lines[first + 1 : _closing_fence(first, fences, candidates, len(lines))]
    return _drop_trailing_blanks(lines[:first])


def _closing_fence(opening: int, fences: list[int], candidates: list[int], end: int) -> int:
    """The fence closing the block opened at ``opening``: the next one outside a string, else the
    next fence line at all (an answer cut inside a docstring misleads the string scan), else the
    end of the answer."""
    later = [i for i in fences if i > opening] or [i for i in candidates if i > opening]
    return later[0] if later else end


def _drop_trailing_blanks(lines: list[str]) -> list[str]:
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    return lines[:end]


def _trim_prose_edges(lines: list[str], ctx: HoleContext) -> list[str]:
    """Drop the prose lines at the start and at the end, with the blank lines around them; leave
    everything as it is when there are none (or when they turn out to be code in place)."""
    lines = _drop_interjection(lines, ctx)
    first = next((i for i, line in enumerate(lines) if _codeish(line, ctx.language)), len(lines))
    last = next((i + 1 for i in range(len(lines) - 1, first - 1, -1) if _codeish(lines[i], ctx.language)), first)
    lead, core, trail = lines[:first], lines[first:last], lines[last:]
    # the lines at the start are judged against the first line of code only (the rest of the
    # answer, perhaps cut short anywhere, does not decide what its first lines are), and with the
    # suffix only when that line is all the code (it may be the start of the suffix's line)
    opening = "\n".join(lead) + ("\n" if core else "")
    if _has_text(lead) and not code_in_place(ctx, "", opening, "\n".join(core[:1]), suffix=len(core) < 2):
        lead = []
    if _has_text(trail) and core and not code_in_place(ctx, "\n".join(lead + core), "\n" + "\n".join(trail), ""):
        trail = []
    return lead + core + trail


def _codeish(line: str, language: str) -> bool:
    """Not blank and not prose on its own: where the code starts (or ends) for sure."""
    return bool(line.strip()) and not is_prose(line, language)


def _has_text(lines: list[str]) -> bool:
    return any(line.strip() for line in lines)


def _drop_interjection(lines: list[str], ctx: HoleContext) -> list[str]:
    """ "Sure! return x" -> "return x", when the line as a whole is not code and the rest is."""
    if not lines:
        return lines
    line = lines[0]
    head = INTERJECTION.match(line.strip())
    if head is None:
        return lines
    rest = line.strip()[head.end() :].strip()
    if not rest or is_prose(rest, ctx.language) or parses_alone(line, ctx.language):
        return lines
    after = "\n".join([rest, *lines[1:]])
    if code_in_place(ctx, "", line[: len(line) - len(line.lstrip())] + line.strip()[: head.end()] + " ", after):
        return lines
    return [rest, *lines[1:]]
