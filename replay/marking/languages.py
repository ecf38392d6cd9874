"""Marking languages: what marking needs of a language, found by the language's name.

A language is a :class:`MarkingLanguage`: the marker that proposes holes in a parsed file, the
function that makes the file's tree-sitter parser, and the labeller (a module such as
``labels_python``, see :class:`replay.marking.labels.Backend`) that tells what a hole refers to.
Every module of this package with a ``MARKING`` dict (language -> MarkingLanguage) adds its
languages, so a built-in language is a file here; another package adds its own through the
entry-point group ``simpilot.languages`` (``postprocess.registry``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from tree_sitter import Parser

from postprocess.registry import Registry


@dataclass(frozen=True, slots=True)
class MarkingLanguage:
    marker: Callable[[], Any]  # a class whose instances have candidates(root) -> list[Candidate]
    parser: Callable[[], Parser]
    labeller: ModuleType  # a labels.Backend


LANGUAGES: Registry[MarkingLanguage] = Registry("marking language", "simpilot.languages")
LANGUAGES.scan("replay.marking", "MARKING")
