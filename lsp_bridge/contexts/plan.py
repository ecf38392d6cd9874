"""What a builder decides: the document window and the snippets, before they are timed and
counted into a :class:`~.records.BuiltContext`."""

from __future__ import annotations

from dataclasses import dataclass

from .budget import Window
from .records import Snippet


@dataclass(frozen=True, slots=True)
class Plan:
    window: Window
    snippets: list[Snippet]
    arranged: bool = False  # chat: move the unit holding the hole last
    whole_files: bool = False  # snippets are whole files (headers without line ranges)
