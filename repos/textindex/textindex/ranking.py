"""Relevance scoring with TF-IDF and Okapi BM25."""

from __future__ import annotations

import heapq
import math
from collections import Counter

__all__ = ["BM25_B", "BM25_K1", "RankingError", "bm25_score", "explain", "idf", "rank", "tfidf_score"]

BM25_K1 = 1.2
BM25_B = 0.75
DEFAULT_METHOD = "bm25"


class RankingError(ValueError):
    """Invalid ranking method or parameters."""


def idf(index, term: str) -> float:
    """Smoothed BM25 inverse document frequency; never negative."""
    n = len(index)
    df = index.document_frequency(term)
    if n == 0 or df == 0:
        return 0.0
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def _tfidf_term(index, term: str, doc_id: int) -> float:
    tf = index.term_frequency(term, doc_id)
    if tf == 0:
        return 0.0
    df = index.document_frequency(term)
    return (1.0 + math.log(tf)) * math.log(1.0 + len(index) / df)


def _bm25_term(index, term: str, doc_id: int, k1: float, b: float) -> float:
    tf = index.term_frequency(term, doc_id)
    avg = index.average_length or 1.0
    norm = k1 * (1.0 - b + b * index.doc_length(doc_id) / avg)
    return idf(index, term) * tf * (k1 + 1.0) / (tf + norm)


def tfidf_score(index, query_terms: Counter, doc_id: int) -> float:
    """Log-scaled TF × IDF, divided by the square root of document length."""
    length = index.doc_length(doc_id)
    if length == 0:
        return 0.0
    score = 0.0
    for term, weight in query_terms.items():
        score += weight * _tfidf_term(index, term, doc_id)
    # Dampen long documents, as classic vector-space scorers do.
    return score / math.sqrt(length)


def bm25_score(index, query_terms: Counter, doc_id: int, k1: float = BM25_K1, b: float = BM25_B) -> float:
    """Okapi BM25 score of one document for a bag of query terms."""
    if k1 < 0 or not 0.0 <= b <= 1.0:
        raise RankingError("BM25 requires k1 >= 0 and 0 <= b <= 1")
    score = 0.0
    for term, weight in query_terms.items():
        score += weight * _bm25_term(index, term, doc_id, k1, b)
    return score


SCORERS = {"tfidf": tfidf_score, "bm25": bm25_score}


def _scorer(method: str):
    try:
        return SCORERS[method]
    except KeyError:
        known = ", ".join(sorted(SCORERS))
        raise RankingError(f"unknown ranking method {method!r} (expected one of: {known})") from None


def rank(index, terms, doc_ids, method: str = DEFAULT_METHOD, limit: int | None = None):
    """Score ``doc_ids`` and return ``(doc_id, score)`` pairs, best first.

    Repeated query terms count more.  Ties are broken by ascending document
    id so the order is deterministic.  ``limit`` keeps only the best hits.
    """
    scorer = _scorer(method)
    if limit is not None and limit < 0:
        raise RankingError("limit must not be negative")
    query_terms = Counter(terms)
    scored = [(scorer(index, query_terms, doc_id), doc_id) for doc_id in doc_ids]

    def key(pair):
        return (pair[0], -pair[1])

    if limit is None:
        best = sorted(scored, key=key, reverse=True)
    else:
        best = heapq.nlargest(limit, scored, key=key)
    return [(doc_id, score) for score, doc_id in best]


def explain(index, terms, doc_id: int, method: str = DEFAULT_METHOD) -> dict[str, float]:
    """Per-term contribution to a document's score (terms not present are omitted).

    The contributions of the non-zero terms add up to the score :func:`rank`
    reports for the same document.
    """
    _scorer(method)
    query_terms = Counter(terms)
    parts = {}
    for term, weight in query_terms.items():
        if method == "bm25":
            value = _bm25_term(index, term, doc_id, BM25_K1, BM25_B)
        else:
            value = _tfidf_term(index, term, doc_id)
            length = index.doc_length(doc_id)
            value = value / math.sqrt(length) if length else 0.0
        if value:
            parts[term] = weight * value
    return parts
