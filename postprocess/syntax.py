"""The tree-sitter grammars, loaded once: the one place every package (post-processing, marking,
test selection, the bridge's context) gets a language, a parser or a compiled query from.

Parsers are per thread (a ``tree_sitter.Parser`` must not parse in two threads at once); the
languages and queries are shared. Post-processing steps use it to ask the question a regular expression
cannot answer: does this text parse as code *in its place* (prefix + text + suffix)?
"""

from __future__ import annotations

import threading
from functools import cache

import tree_sitter_java
import tree_sitter_python
from tree_sitter import Language, Parser, Query, Tree

_GRAMMARS = {"python": tree_sitter_python.language, "java": tree_sitter_java.language}
_LOCAL = threading.local()

LANGUAGES = tuple(_GRAMMARS)


@cache
def language(name: str) -> Language:
    """The tree-sitter language ``name`` (``python`` or ``java``); KeyError for others."""
    return Language(_GRAMMARS[name]())


@cache
def query(name: str, pattern: str) -> Query:
    """The query ``pattern`` compiled for the language ``name`` (once per pattern)."""
    return Query(language(name), pattern)


def parser(name: str) -> Parser:
    """This thread's parser for ``name``."""
    parsers = getattr(_LOCAL, "parsers", None)
    if parsers is None:
        parsers = _LOCAL.parsers = {}
    if name not in parsers:
        parsers[name] = Parser(language(name))
    return parsers[name]


def parse(source: str | bytes, name: str) -> Tree:
    return parser(name).parse(source.encode("utf-8") if isinstance(source, str) else source)


def has_error(source: str | bytes, name: str) -> bool:
    """Whether ``source`` has a syntax error (an ERROR or a MISSING node) in ``name``."""
    return parse(source, name).root_node.has_error
