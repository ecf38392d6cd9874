"""Inverted index with positional postings, search and JSON persistence."""

from __future__ import annotations

import bisect
import json
from collections import Counter
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path

from . import query as _query
from . import ranking, snippets
from .analysis import AnalysisError, Analyzer

__all__ = ["Document", "DocumentNotFound", "IndexFormatError", "InvertedIndex", "SearchResult"]

# Version 1 stored absolute positions; version 2 stores gaps between
# consecutive positions, which keeps the JSON noticeably smaller.
FORMAT_VERSION = 2
SUPPORTED_VERSIONS = frozenset({1, 2})


class DocumentNotFound(KeyError):
    """No document with the given id is indexed."""


class IndexFormatError(ValueError):
    """Serialized index data is malformed or of an unsupported version."""


@dataclass
class Document:
    doc_id: int
    text: str
    title: str = ""
    length: int = 0


@dataclass(frozen=True)
class SearchResult:
    doc_id: int
    score: float
    title: str
    snippet: str


def _encode_gaps(positions: list[int]) -> list[int]:
    gaps = []
    previous = 0
    for position in positions:
        gaps.append(position - previous)
        previous = position
    return gaps


def _decode_gaps(gaps: list[int]) -> list[int]:
    if any(gap < 0 for gap in gaps[1:]):
        raise IndexFormatError("position gaps must not be negative")
    return list(accumulate(gaps))


class InvertedIndex:
    """An in-memory inverted index mapping terms to positional postings.

    ``postings(term)`` maps each document id containing ``term`` to the
    sorted list of word positions where it occurs.
    """

    def __init__(self, analyzer: Analyzer | None = None):
        self.analyzer = analyzer if analyzer is not None else Analyzer()
        self._postings: dict[str, dict[int, list[int]]] = {}
        self._docs: dict[int, Document] = {}
        self._next_id = 1
        self._total_length = 0
        # Sorted vocabulary for prefix lookups, rebuilt lazily after changes.
        self._vocabulary: list[str] | None = None

    def __len__(self) -> int:
        return len(self._docs)

    def __contains__(self, doc_id) -> bool:
        return doc_id in self._docs

    # -- building -------------------------------------------------------

    def add(self, text: str, title: str = "", doc_id: int | None = None) -> int:
        """Index ``text`` and return its document id."""
        if not isinstance(text, str):
            raise TypeError(f"document text must be str, not {type(text).__name__}")
        if doc_id is None:
            doc_id = self._next_id
        elif doc_id < 0:
            raise ValueError("document ids must not be negative")
        elif doc_id in self._docs:
            raise ValueError(f"document {doc_id} is already indexed")
        tokens = self.analyzer.tokens(text)
        for token in tokens:
            self._postings.setdefault(token.term, {}).setdefault(doc_id, []).append(token.position)
        self._docs[doc_id] = Document(doc_id, text, title, len(tokens))
        self._total_length += len(tokens)
        self._next_id = max(self._next_id, doc_id + 1)
        self._vocabulary = None
        return doc_id

    def add_many(self, items) -> list[int]:
        """Index several documents, given as texts or ``(title, text)`` pairs."""
        ids = []
        for item in items:
            if isinstance(item, tuple):
                title, text = item
                ids.append(self.add(text, title=title))
            else:
                ids.append(self.add(item))
        return ids

    def remove(self, doc_id: int) -> Document:
        """Remove a document and return it."""
        doc = self._docs.pop(doc_id, None)
        if doc is None:
            raise DocumentNotFound(doc_id)
        # Re-analysing the text is far cheaper than scanning every posting list.
        for term in set(self.analyzer.terms(doc.text)):
            table = self._postings[term]
            del table[doc_id]
            if not table:
                del self._postings[term]
        self._total_length -= doc.length
        self._vocabulary = None
        return doc

    def update(self, doc_id: int, text: str, title: str | None = None) -> None:
        """Replace the text (and optionally the title) of a document."""
        old = self.remove(doc_id)
        self.add(text, title=old.title if title is None else title, doc_id=doc_id)

    # -- statistics -----------------------------------------------------

    def document(self, doc_id: int) -> Document:
        try:
            return self._docs[doc_id]
        except KeyError:
            raise DocumentNotFound(doc_id) from None

    def doc_ids(self) -> set[int]:
        return set(self._docs)

    def postings(self, term: str) -> dict[int, list[int]]:
        return self._postings.get(term, {})

    def document_frequency(self, term: str) -> int:
        return len(self._postings.get(term, ()))

    def term_frequency(self, term: str, doc_id: int) -> int:
        return len(self._postings.get(term, {}).get(doc_id, ()))

    def doc_length(self, doc_id: int) -> int:
        return self.document(doc_id).length

    @property
    def average_length(self) -> float:
        if not self._docs:
            return 0.0
        return self._total_length / len(self._docs)

    def vocabulary(self) -> list[str]:
        """All indexed terms in sorted order."""
        if self._vocabulary is None:
            self._vocabulary = sorted(self._postings)
        return self._vocabulary

    def expand_prefix(self, prefix: str, limit: int | None = None) -> list[str]:
        """Indexed terms starting with ``prefix``, in sorted order."""
        vocab = self.vocabulary()
        i = bisect.bisect_left(vocab, prefix)
        found = []
        while i < len(vocab) and vocab[i].startswith(prefix):
            if limit is not None and len(found) >= limit:
                break
            found.append(vocab[i])
            i += 1
        return found

    def most_common_terms(self, n: int = 10) -> list[tuple[str, int]]:
        """The ``n`` terms with the most occurrences across all documents."""
        totals = Counter()
        for term, table in self._postings.items():
            totals[term] = sum(len(positions) for positions in table.values())
        # Sort by count, then alphabetically, so ties come out stably.
        return sorted(totals.items(), key=lambda item: (-item[1], item[0]))[:n]

    # -- searching ------------------------------------------------------

    def search(self, text: str, method: str = ranking.DEFAULT_METHOD, limit: int | None = 10,
               window: int = snippets.DEFAULT_WINDOW) -> list[SearchResult]:
        """Run a boolean query and return ranked results with snippets."""
        node = _query.parse(text, self.analyzer)
        if node is None:
            return []
        matches = node.evaluate(self)
        terms = node.scoring_terms(self)
        results = []
        for doc_id, score in ranking.rank(self, terms, matches, method=method, limit=limit):
            doc = self._docs[doc_id]
            snippet = snippets.make_snippet(doc.text, self.analyzer, terms, window=window)
            results.append(SearchResult(doc_id, score, doc.title, snippet))
        return results

    # -- persistence ----------------------------------------------------

    def to_dict(self) -> dict:
        """A JSON-compatible snapshot of the whole index."""
        return {
            "version": FORMAT_VERSION,
            "analyzer": self.analyzer.config(),
            "next_id": self._next_id,
            "documents": [
                {"id": d.doc_id, "title": d.title, "text": d.text, "length": d.length}
                for d in sorted(self._docs.values(), key=lambda d: d.doc_id)
            ],
            "postings": {
                term: {str(doc_id): _encode_gaps(pos) for doc_id, pos in sorted(table.items())}
                for term, table in sorted(self._postings.items())
            },
        }

    @classmethod
    def from_dict(cls, data) -> "InvertedIndex":
        """Rebuild an index from :meth:`to_dict` output (any supported version)."""
        if not isinstance(data, dict):
            raise IndexFormatError("index data must be a JSON object")
        version = data.get("version")
        if version not in SUPPORTED_VERSIONS:
            raise IndexFormatError(f"unsupported index format version: {version!r}")
        try:
            analyzer = Analyzer.from_config(data["analyzer"])
            documents = data["documents"]
            postings = data["postings"]
        except KeyError as exc:
            raise IndexFormatError(f"missing field {exc.args[0]!r}") from None
        except AnalysisError as exc:
            raise IndexFormatError(f"bad analyzer config: {exc}") from None
        index = cls(analyzer)
        for entry in documents:
            doc = Document(int(entry["id"]), entry["text"], entry.get("title", ""), int(entry["length"]))
            if doc.doc_id in index._docs:
                raise IndexFormatError(f"duplicate document id {doc.doc_id}")
            index._docs[doc.doc_id] = doc
            index._total_length += doc.length
        for term, table in postings.items():
            decoded = {}
            for raw_id, positions in table.items():
                doc_id = int(raw_id)
                if doc_id not in index._docs:
                    raise IndexFormatError(f"term {term!r} refers to unknown document {doc_id}")
                decoded[doc_id] = _decode_gaps(positions) if version >= 2 else list(positions)
            index._postings[term] = decoded
        index._next_id = max(data.get("next_id", 1), max(index._docs, default=0) + 1)
        return index

    def save(self, path) -> None:
        """Write the index to ``path`` as UTF-8 JSON."""
        payload = json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))
        Path(path).write_text(payload, encoding="utf-8")

    @classmethod
    def load(cls, path) -> "InvertedIndex":
        """Read an index written by :meth:`save`."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise IndexFormatError(f"invalid JSON: {exc.msg}") from None
        return cls.from_dict(data)
