"""Spending one token budget: the document's lines around the cursor, then snippets.

Every part is counted as the prompt shows it (a snippet with its header), so the parts' counts
add up to what the context costs, and a builder that asks :meth:`Fill.take` before adding
anything can never go over.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..repo_context import file_block, header
from .records import Snippet
from .tokens import TokenCounter


@dataclass(slots=True)
class Fill:
    """What is left of the budget, and what each part took."""

    counter: TokenCounter
    left: int
    spent: dict[str, int] = field(default_factory=dict)

    def take(self, part: str, text: str) -> bool:
        """Spend ``text``'s tokens on ``part`` if they fit; False (nothing spent) if not."""
        cost = self.counter.count(text)
        if cost > self.left:
            return False
        self.left -= cost
        self.spent[part] = self.spent.get(part, 0) + cost
        return True

    def add(self, chosen: list[Snippet], snippet: Snippet, language: str, whole: bool = False) -> bool:
        """Append ``snippet`` to ``chosen`` if it fits with its header."""
        if not self.take(snippet.part, file_block(language, snippet.label(whole), snippet.text)):
            return False
        chosen.append(snippet)
        return True


@dataclass(frozen=True, slots=True)
class Window:
    prefix: str
    suffix: str
    first: int  # document lines kept, inclusive
    last: int


def document_window(language: str, path: str, prefix: str, suffix: str, fill: Fill, limit: int) -> Window:
    """The document's lines around the cursor within ``limit`` tokens (and what ``fill`` has
    left): the cursor's line, then one line above and one below in turn, as llm-ls does, until
    the next line does not fit. The cursor's line stays even over the limit (a prompt needs a
    cursor); its cost is then all that is spent. The document's header is counted with it."""
    above = prefix.split("\n")
    below = suffix.split("\n")
    cursor_row = len(above) - 1
    head, tail = [above.pop()], [below.pop(0)]
    room = min(limit, fill.left)
    cost = fill.counter.count(header(language, path)) + fill.counter.count(head[0] + tail[0])
    first = last = cursor_row
    while above or below:
        grew = False
        if above:
            line = above[-1] + "\n"
            step = fill.counter.count(line)
            if cost + step <= room:
                cost += step
                head.append(above.pop())
                first -= 1
                grew = True
        if below:
            line = "\n" + below[0]
            step = fill.counter.count(line)
            if cost + step <= room:
                cost += step
                tail.append(below.pop(0))
                last += 1
                grew = True
        if not grew:
            break
    exact = _cost(fill, language, path, head, tail)
    while exact > room and len(head) + len(tail) > 2:  # a tokenizer may count joined lines higher than apart
        if len(head) >= len(tail):
            head.pop()
            first += 1
        else:
            tail.pop()
            last -= 1
        exact = _cost(fill, language, path, head, tail)
    fill.left -= exact  # negative only when the cursor's line alone is over the budget
    fill.spent["document"] = fill.spent.get("document", 0) + exact
    return Window("\n".join(reversed(head)), "\n".join(tail), first, last)


def _cost(fill: Fill, language: str, path: str, head: list[str], tail: list[str]) -> int:
    return fill.counter.count(header(language, path)) + fill.counter.count("\n".join(reversed(head)) + "\n".join(tail))
