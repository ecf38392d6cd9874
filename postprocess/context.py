"""What a post-processing step may know about the hole: the document the model saw, split at the
cursor, the language, and the benchmark's convention for where the hole ends. Nothing else — in
particular never the ground truth or the tests.

The convention: simpilot's completion holes end within the innermost block around the cursor (the
``}`` that closes it is in the file after the hole, unseen), while SimCopilot's Java completion
holes run to the end of that block, its ``}`` included. A step that sees no suffix cannot tell
which from the code: the hole says so (``closes_block``, set from the task by whoever makes the
context).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property


@dataclass(frozen=True)
class HoleContext:
    language: str
    prefix: str  # document text before the cursor
    suffix: str  # document text after the cursor; empty when the model saw only the code before
    # The hole ends by closing the blocks around the cursor (SimCopilot's completion holes): the
    # code after it goes on outside them, so an answer's final closers of those blocks are its own.
    closes_block: bool = False

    @cached_property
    def line_prefix(self) -> str:
        """Text of the cursor's line before the cursor."""
        return self.prefix[self.prefix.rfind("\n") + 1 :]

    @cached_property
    def line_suffix(self) -> str:
        """Text of the cursor's line after the cursor."""
        end = self.suffix.find("\n")
        return self.suffix if end < 0 else self.suffix[:end]

    @property
    def block(self) -> bool:
        """True when the cursor starts a statement (only indentation before it on its line)."""
        return not self.line_prefix.strip() and not self.line_suffix.strip()

    @property
    def indent(self) -> str:
        lp = self.line_prefix
        return lp[: len(lp) - len(lp.lstrip(" \t"))]

    @property
    def infill(self) -> bool:
        return bool(self.suffix.strip())

    @cached_property
    def lines_above(self) -> list[str]:
        """Complete lines above the cursor line, nearest last (at most 40)."""
        head = self.prefix[: self.prefix.rfind("\n") + 1]
        return head.split("\n")[-41:-1] if head else []

    @cached_property
    def lines_below(self) -> list[str]:
        """Complete lines below the cursor line, nearest first (at most 40)."""
        nl = self.suffix.find("\n")
        return [] if nl < 0 else self.suffix[nl + 1 :].split("\n")[:40]
