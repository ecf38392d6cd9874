"""Strategies that follow names to their definitions: ``definitions`` and ``oracle_definitions``.

``definitions`` works as Continue does: it reads the names used around the cursor (the last
``query_lines`` lines before it and the first ``after_lines`` after it), nearest first, then the
names the document imports, and puts in the definitions of those names found in *other* files
(the document already holds its own): functions whole, classes as outlines.

``oracle_definitions`` is the upper bound no assistant can reach: the definitions of exactly the
repository names the ground truth uses, wherever they are (in other files, or in the document
outside the window). It needs the answer, so only replay and the model-free measures can use it;
``simpilot serve`` never offers it.

Both give the document ``document_share`` of the budget first.
"""

from __future__ import annotations

from typing import Any

from .budget import Fill, document_window
from .definitions import Definition, definitions, imported_names, names_in
from .index import ContextIndex
from .plan import Plan
from .records import Snippet, Source


class NeedsTruth(ValueError):
    """``oracle_definitions`` asked without a ground truth (in an editor there is none)."""


def document_definitions(source: Source) -> list[Definition]:
    """The definitions of the document as the editor has it (hole removed), in its own lines."""
    return definitions(source.language, source.path, source.prefix + source.suffix)


def truth_definitions(index: ContextIndex, source: Source) -> dict[str, list[Definition]]:
    """The repository names the ground truth uses, each with its definitions: in other files
    (from the index) and in the document (never the edited file from disk, which holds the answer)."""
    assert source.truth is not None
    used = dict.fromkeys(names_in(source.truth, source.language))
    local: dict[str, list[Definition]] = {}
    for definition in document_definitions(source):
        local.setdefault(definition.name, []).append(definition)
    table: dict[str, list[Definition]] = {}
    for name in used:
        found = [d for d in index.definitions.get(name, ()) if d.path != source.path] + local.get(name, [])
        if found:
            table[name] = found
    return table


def _definition_snippet(index: ContextIndex, source: Source, found: Definition) -> Snippet:
    if found.path == source.path:
        lines = (source.prefix + source.suffix).split("\n")
        text = "".join(lines[i] + "\n" for i in found.lines if i < len(lines))
    else:
        text = index.text(found.path, found.lines)
    return Snippet(found.path, found.lines, text, "definitions")


def _add_definitions(index: ContextIndex, source: Source, fill: Fill, found: list[Definition], chosen: list[Snippet]) -> None:
    seen = {(s.path, s.lines) for s in chosen}
    for definition in found:
        key = (definition.path, definition.lines)
        if key in seen or fill.left <= 0:
            continue
        seen.add(key)
        fill.add(chosen, _definition_snippet(index, source, definition), source.language)


def build_definitions(index: ContextIndex, source: Source, fill: Fill, options: dict[str, Any]) -> Plan:
    window = document_window(source.language, source.path, source.prefix, source.suffix, fill, int(fill.left * options["document_share"]))
    before = source.prefix.split("\n")[-options["query_lines"] :]
    after = source.suffix.split("\n")[: options["after_lines"]]
    near = names_in("\n".join(before), source.language)[::-1] + names_in("\n".join(after), source.language)
    names = list(dict.fromkeys(near + imported_names(source.prefix + source.suffix, source.language)))
    found = [d for name in names for d in index.definitions.get(name, ()) if d.path != source.path]
    chosen: list[Snippet] = []
    _add_definitions(index, source, fill, found, chosen)
    return Plan(window, chosen)


def build_oracle_definitions(index: ContextIndex, source: Source, fill: Fill, options: dict[str, Any]) -> Plan:
    if source.truth is None:
        raise NeedsTruth("oracle_definitions needs the task's ground truth: it is for replay and 'simpilot contexts', not an editor")
    window = document_window(source.language, source.path, source.prefix, source.suffix, fill, int(fill.left * options["document_share"]))
    table = truth_definitions(index, source)
    missing = [defs for defs in table.values() if not any(d.path == source.path and window.first <= d.line <= window.last for d in defs)]
    # one definition of every name first, then the others (a name defined in five classes must
    # not crowd out the next name)
    found = [defs[0] for defs in missing] + [d for defs in missing for d in defs[1:]]
    chosen: list[Snippet] = []
    _add_definitions(index, source, fill, found, chosen)
    return Plan(window, chosen)
