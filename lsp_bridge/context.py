"""Context for FIM prompts: the code around the cursor, within a budget.

As llm-ls does, the window grows from the cursor's line by adding whole lines alternately above
and below it until the next line does not fit the budget; the nearest code is the most useful, and
a FIM model needs both sides. Then, per the SimCopilot pre-processing (§1), the repository's other
non-test source files fill what is left of the budget, nearest folder first, each under a one-line
path header (``repo_context.header``); they go before the document, farthest first, so that the
nearest files sit next to it.

The budget counts characters, and optionally rough tokens too (:func:`rough_tokens`; the real
count depends on the model's tokenizer, which the bridge does not have). A budget of 0 characters
means the whole document and no other files.

Test files never enter the context: the file list comes from ``repo_context``, which applies the
manifest's test rules (§2).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .repo_context import file_block, header, nearest_first, request_files

if TYPE_CHECKING:  # annotations only: the models package imports this module
    from .models.base import CompletionRequest

_TOKEN = re.compile(r"\w{1,4}|[^\w\s]|\s+")


def rough_tokens(text: str) -> int:
    """An estimate of ``text``'s token count: runs of up to 4 word characters, each punctuation
    mark and each whitespace run count one (close to BPE code tokenizers on source code)."""
    return len(_TOKEN.findall(text))


@dataclass(slots=True)
class Budget:
    """What is left to spend: characters, and tokens when ``tokens`` is not None."""

    chars: int
    tokens: int | None = None

    def take(self, text: str) -> bool:
        """Spend ``text`` if it fits; False (nothing spent) if it does not."""
        cost = rough_tokens(text) if self.tokens is not None else 0
        if len(text) > self.chars or (self.tokens is not None and cost > self.tokens):
            return False
        self.chars -= len(text)
        if self.tokens is not None:
            self.tokens -= cost
        return True

    def exhaust(self) -> None:
        self.chars = 0
        if self.tokens is not None:
            self.tokens = 0


@dataclass(frozen=True, slots=True)
class FimContext:
    """What a FIM prompt is built from. ``prefix``/``suffix`` are the document's window around
    the cursor; ``files`` the other files chosen, farthest first, as (repository-relative path,
    text)."""

    language: str
    path: str
    prefix: str
    suffix: str
    files: tuple[tuple[str, str], ...] = ()

    def files_text(self) -> str:
        """The other files as prompt text, each after its header, then the document's header;
        empty when there are none (a lone document needs no header)."""
        if not self.files:
            return ""
        blocks = [file_block(self.language, p, t) for p, t in self.files]
        return "".join(blocks) + header(self.language, self.path)

    def full_prefix(self) -> str:
        """The prefix of a single-string prompt: the other files, then the document's window."""
        return self.files_text() + self.prefix


def window(prefix: str, suffix: str, budget: Budget) -> tuple[str, str]:
    """The lines around the cursor that fit ``budget``: the cursor's own line always, then one
    line above, one below, and so on, stopping at the first line that does not fit (a side with
    no lines left is skipped). Spends from ``budget``."""
    above = prefix.split("\n")
    below = suffix.split("\n")
    head, tail = [above.pop()], [below.pop(0)]  # the cursor's line, split at the cursor
    if not budget.take(head[0] + tail[0]):
        budget.exhaust()  # the cursor's line stays even when it alone is over budget
    above = [line + "\n" for line in above]
    below = ["\n" + line for line in below]
    while above or below:
        if above:
            if not budget.take(above[-1]):
                break
            head.append(above.pop())
        if below:
            if not budget.take(below[0]):
                break
            tail.append(below.pop(0))
    return "".join(reversed(head)), "".join(tail)


def choose_files(path: str, language: str, others: Mapping[str, str], budget: Budget) -> tuple[tuple[str, str], ...]:
    """The other files that fit ``budget`` with their headers, nearest first by directory hops
    (ties by path), returned farthest first. Stops at the first file that does not fit, so a
    nearer file is never left out for a farther one."""
    chosen: list[tuple[str, str]] = []
    if others and not budget.take(header(language, path)):
        return ()
    for other, text in nearest_first(path, others):
        block = file_block(language, other, text)
        if not budget.take(block):
            break
        chosen.append((other, text))
    return tuple(reversed(chosen))


def build_context(
    language: str, path: str, prefix: str, suffix: str, others: Mapping[str, str], context_chars: int, context_tokens: int = 0
) -> FimContext:
    """The FIM context of a hole (pure): the window first, then other files with what is left.
    ``context_chars`` 0: the whole document and no files; ``context_tokens`` 0: no token limit."""
    if context_chars <= 0:
        return FimContext(language, path, prefix, suffix)
    budget = Budget(context_chars, context_tokens or None)
    before, after = window(prefix, suffix, budget)
    return FimContext(language, path, before, after, choose_files(path, language, others, budget))


def fim_context(request: CompletionRequest, context_chars: int, context_tokens: int = 0, other_files: bool = True) -> FimContext:
    """The FIM context of ``request``, reading the repository's other files from disk when
    ``other_files`` (keep it off the event loop)."""
    path, others = request_files(request) if other_files and context_chars > 0 else (_name(request), {})
    return build_context(request.language, path, request.prefix, request.suffix, others, context_chars, context_tokens)


def _name(request: CompletionRequest) -> str:
    return request.path.rsplit("/", 1)[-1]
