"""What a context builder is given and what it gives back.

A builder sees the editor's view of one hole (:class:`Source`) and the repository's index, and
returns a :class:`BuiltContext`: the part of the document kept around the cursor, and the
snippets of other files chosen for the prompt, most useful first. Snippets remember which lines
of which file they hold, so the model-free measures (``recall.py``) can tell, without reading
the prompt text, whether a definition reached the prompt. Rendering into a chat or FIM prompt
happens here too, so every adapter shows the same context the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from replay.core.records import PromptRecord

from ..prompts import HOLE
from ..repo_context import arrange_document, file_block, header

# the first and the last of a run of document lines, both included
LineRange = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Source:
    """The editor's view of one hole: the document split at the cursor, its repository-relative
    path, and, for the oracle strategy only, the ground truth (never known to ``simpilot serve``)."""

    language: str
    path: str
    prefix: str
    suffix: str
    truth: str | None = None


@dataclass(frozen=True, slots=True)
class Snippet:
    """Some lines of one file: ``lines`` are 0-based line numbers of that file (of the document
    itself when ``path`` is the edited file), in order; ``part`` names what chose it."""

    path: str
    lines: tuple[int, ...]
    text: str
    part: str

    def label(self, whole: bool) -> str:
        """The path shown in the snippet's header, with its line range unless it is a whole file."""
        if whole or not self.lines:
            return self.path
        return f"{self.path} (lines {self.lines[0] + 1}-{self.lines[-1] + 1})"


@dataclass(frozen=True, slots=True)
class Part:
    """One part of the context and its token count."""

    name: str
    tokens: int


@dataclass(frozen=True, slots=True)
class BuiltContext:
    """One prompt's context. ``prefix``/``suffix`` are the document lines kept around the cursor
    (document lines ``window[0]`` to ``window[1]``, inclusive); ``snippets`` the other files' parts,
    most useful first; ``arranged``: a chat prompt moves the unit holding the hole last (SimCopilot)."""

    strategy: str
    language: str
    path: str
    prefix: str
    suffix: str
    window: LineRange
    snippets: tuple[Snippet, ...]
    budget: int
    tokenizer: str
    parts: tuple[Part, ...]
    build_ms: float = 0.0
    arranged: bool = False
    whole_files: bool = False

    @property
    def tokens(self) -> int:
        return sum(p.tokens for p in self.parts)

    def files(self) -> tuple[tuple[str, str], ...]:
        """The snippets as (header path, text), least useful first, so that the most useful sit
        next to the document (the FIM adapters' ``FimContext.files`` order)."""
        return tuple((s.label(self.whole_files), s.text) for s in reversed(self.snippets))

    def files_text(self) -> str:
        return "".join(file_block(self.language, p, t) for p, t in self.files())

    def chat_code(self) -> str:
        """The code of a chat prompt: the snippets, the document's header, the document with the
        hole marked (and, for ``arranged``, the unit holding it moved last)."""
        document = arrange_document(self.language, self.prefix, self.suffix) if self.arranged else self.prefix + HOLE + self.suffix
        if not self.snippets:
            return document
        return self.files_text() + header(self.language, self.path) + document

    def record(self) -> PromptRecord:
        """What is stored with the answer: who built the prompt, and what each part cost."""
        ranges = tuple((s.path, *r, s.part) for s in self.snippets for r in _ranges(s.lines))
        return PromptRecord(
            strategy=self.strategy,
            budget=self.budget,
            tokenizer=self.tokenizer,
            parts={p.name: p.tokens for p in self.parts},
            build_ms=round(self.build_ms, 3),
            window=self.window,
            snippets=ranges,
        )


def _ranges(lines: tuple[int, ...]) -> list[LineRange]:
    """Sorted line numbers as inclusive runs: (3, 4, 5, 9) -> [(3, 5), (9, 9)]."""
    runs: list[LineRange] = []
    for line in lines:
        if runs and line == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], line)
        else:
            runs.append((line, line))
    return runs
