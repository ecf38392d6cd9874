"""Strategies that take files whole: ``file``, ``window`` and ``simcopilot``.

``file`` is the baseline every retrieval strategy must beat: the edited file alone, cut to the
budget around the cursor. ``window`` is what FIM prompts send today — the lines around the
cursor first, then the repository's other files, nearest folder first, in what is left — and
``simcopilot`` what chat prompts send (the paper's pre-processing): the same files and document,
with the function or class holding the hole moved to the end of the document when rendered.
"""

from __future__ import annotations

from typing import Any

from ..repo_context import nearest_first
from .budget import Fill, document_window
from .index import ContextIndex
from .plan import Plan
from .records import Snippet, Source


def build_file(index: ContextIndex, source: Source, fill: Fill, options: dict[str, Any]) -> Plan:
    window = document_window(source.language, source.path, source.prefix, source.suffix, fill, fill.left)
    return Plan(window, [])


def build_window(index: ContextIndex, source: Source, fill: Fill, options: dict[str, Any]) -> Plan:
    window = document_window(source.language, source.path, source.prefix, source.suffix, fill, fill.left)
    chosen: list[Snippet] = []
    others = {p: t for p, t in index.files.items() if p != source.path}
    for path, _ in nearest_first(source.path, others):
        lines = tuple(range(len(index.lines[path]) - (1 if index.lines[path][-1] == "" else 0)))
        if not fill.add(chosen, Snippet(path, lines, index.text(path, lines), "files"), source.language, whole=True):
            break  # a nearer file is never left out for a farther one
    return Plan(window, chosen, whole_files=True)


def build_simcopilot(index: ContextIndex, source: Source, fill: Fill, options: dict[str, Any]) -> Plan:
    plan = build_window(index, source, fill, options)
    return Plan(plan.window, plan.snippets, arranged=True, whole_files=True)
