"""Snippet extraction and match highlighting."""

from __future__ import annotations

from collections import Counter

__all__ = ["DEFAULT_MARKERS", "DEFAULT_WINDOW", "ELLIPSIS", "find_best_window", "highlight", "make_snippet"]

DEFAULT_WINDOW = 12
DEFAULT_MARKERS = ("[", "]")
ELLIPSIS = "…"


def find_best_window(tokens, terms, window: int = DEFAULT_WINDOW) -> tuple[int, int]:
    """Return ``(start, end)`` token indices of the best snippet window.

    The best window holds the most *distinct* query terms, then the most
    matches overall; among equals the earliest one wins.  ``end`` is
    exclusive.
    """
    if window < 1:
        raise ValueError("window must be at least 1")
    if len(tokens) <= window:
        return 0, len(tokens)
    counts = Counter()
    best = (-1, -1)
    best_start = 0
    for end, token in enumerate(tokens):
        if token.term in terms:
            counts[token.term] += 1
        start = end - window + 1
        if start < 0:
            continue
        quality = (len(counts), sum(counts.values()))
        if quality > best:
            best = quality
            best_start = start
        # Slide: the token at ``start`` leaves before the next step.
        leaving = tokens[start].term
        if leaving in counts:
            counts[leaving] -= 1
            if counts[leaving] == 0:
                del counts[leaving]
    return best_start, best_start + window


def _merge_spans(text: str, spans):
    """Join spans separated only by whitespace, so phrases highlight as one."""
    merged = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            raise ValueError("highlight spans overlap")
        if merged and not text[merged[-1][1] : start].strip():
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def highlight(text: str, spans, markers=DEFAULT_MARKERS, merge: bool = True) -> str:
    """Wrap each ``(start, end)`` character span of ``text`` in markers."""
    open_mark, close_mark = markers
    if merge:
        spans = _merge_spans(text, spans)
    else:
        spans = sorted(spans)
    pieces = []
    cursor = 0
    for start, end in spans:
        if start < cursor:
            raise ValueError("highlight spans overlap")
        pieces.append(text[cursor:start])
        pieces.append(open_mark + text[start:end] + close_mark)
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


def make_snippet(text: str, analyzer, terms, window: int = DEFAULT_WINDOW, markers=DEFAULT_MARKERS) -> str:
    """Extract the most relevant stretch of ``text`` with matches highlighted.

    An ellipsis marks each side where the snippet was cut short.
    """
    tokens = analyzer.tokens(text)
    if not tokens:
        return ""
    terms = set(terms)
    first, last = find_best_window(tokens, terms, window)
    chosen = tokens[first:last]
    if first == 0:
        lo = len(text) - len(text.lstrip())
    else:
        lo = chosen[0].start
    if last == len(tokens):
        hi = len(text.rstrip())
    else:
        hi = chosen[-1].end
    spans = [(t.start - lo, t.end - lo) for t in chosen if t.term in terms]
    body = highlight(text[lo:hi], spans, markers)
    if text[:lo].strip():
        body = ELLIPSIS + " " + body
    if text[hi:].strip():
        body = body + " " + ELLIPSIS
    return body
