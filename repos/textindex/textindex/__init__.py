"""textindex — a small bag-of-words search library.

Typical use::

    from textindex import InvertedIndex
    index = InvertedIndex()
    index.add("The quick brown fox", title="fox")
    index.search('"brown fox" OR dog')
"""

from .analysis import STOP_WORDS, AnalysisError, Analyzer, Token, fold_accents, stem
from .index import Document, DocumentNotFound, IndexFormatError, InvertedIndex, SearchResult
from .query import QuerySyntaxError, parse
from .ranking import RankingError, explain, rank
from .snippets import highlight, make_snippet

__version__ = "0.3.1"

__all__ = [
    "STOP_WORDS", "AnalysisError", "Analyzer", "Document", "DocumentNotFound",
    "IndexFormatError", "InvertedIndex", "QuerySyntaxError", "RankingError",
    "SearchResult", "Token", "build_index", "explain", "fold_accents", "highlight",
    "make_snippet", "parse", "rank", "stem",
]


def build_index(documents, **analyzer_options) -> InvertedIndex:
    """Create an index over ``documents`` (texts, ``(title, text)`` pairs or a
    mapping of title → text) using an analyzer built from the options."""
    index = InvertedIndex(Analyzer(**analyzer_options))
    if isinstance(documents, dict):
        documents = list(documents.items())
    index.add_many(documents)
    return index
