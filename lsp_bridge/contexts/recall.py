"""Identifier recall: does the context hold what the answer needs, asked of no model.

For one task and one built context: of the repository names the ground truth uses (the names
``structural.truth_definitions`` finds a definition of — in other files, or in the document),
the share whose definition is in the prompt. A definition is in the prompt when the line its
name is on is: inside the document's window, or among a snippet's lines of that file. A name
defined in several places counts as found when any one of them is in (the measure cannot know
which one the answer means). A task whose ground truth uses no repository name has no recall
(None), and is counted apart rather than as 0 or 1.
"""

from __future__ import annotations

from dataclasses import dataclass

from .definitions import Definition
from .index import ContextIndex
from .records import BuiltContext, Source
from .structural import truth_definitions


@dataclass(frozen=True, slots=True)
class Recall:
    names: tuple[str, ...]  # the repository names the ground truth uses
    found: tuple[str, ...]  # those whose definition is in the prompt

    @property
    def value(self) -> float | None:
        return len(self.found) / len(self.names) if self.names else None


def in_prompt(definition: Definition, built: BuiltContext) -> bool:
    if definition.path == built.path and built.window[0] <= definition.line <= built.window[1]:
        return True
    return any(s.path == definition.path and definition.line in s.lines for s in built.snippets)


def identifier_recall(index: ContextIndex, source: Source, built: BuiltContext) -> Recall:
    """The recall of ``built`` for ``source``, whose ``truth`` must be set."""
    table = truth_definitions(index, source)
    found = tuple(name for name, defs in table.items() if any(in_prompt(d, built) for d in defs))
    return Recall(tuple(table), found)
