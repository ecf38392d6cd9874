"""DevBench's two similarity metrics, line-0 exact match and cosine similarity, as DevBench scores them.

DevBench (Golnari, Kumarappan et al., "DevBench: A Realistic, Developer-Informed Benchmark for Code
Generation Models", arXiv 2601.11895) reports them next to pass@1. Its paper describes them
loosely ("the first line, trivial characters stripped"; "cosine similarity of bag-of-words
vectors"); the details below are those of its published scoring, so that a number simpilot labels
as DevBench's can be set beside DevBench's own tables:

``line0(text)``
    The first line of the text once the text's surrounding whitespace is removed, itself without
    surrounding whitespace (so a leading blank line or indentation does not count, but spacing
    inside the line does).

``line0_exact_match``
    1 when the answer's and the golden completion's line 0 are equal. An empty answer scores 0.
    DevBench counts a task as matched when *any* of its samples matches (best@n of this score).

``bow_cosine``
    The cosine similarity of the two line-0s' bags of words: the lines lowercased, words the
    matches of ``\\b\\w+\\b`` (one-character words count), counted with repetitions. When neither
    line has a word, their character 1- to 3-grams (runs of whitespace as one space) are compared
    instead. Equal lines score 1, an empty answer 0. DevBench averages it over a task's samples,
    then over tasks.

Both functions are pure; ``None`` answers are the caller's to turn into ``""``, as in
replay/scoring/similarity.py.
"""

from __future__ import annotations

import math
import re
from collections import Counter

_WORD = re.compile(r"\b\w+\b")
_SPACE = re.compile(r"\s\s+")


def line0(text: str) -> str:
    """The first line of ``text`` after its surrounding whitespace, without its own."""
    return text.strip().split("\n")[0].strip()


def line0_exact_match(answer: str, truth: str) -> int:
    """1 when the answer's line 0 equals the golden completion's (see the module's docstring)."""
    return int(bool(answer.strip()) and line0(answer) == line0(truth))


def words(text: str) -> Counter[str]:
    """The bag of words of ``text``: lowercased ``\\b\\w+\\b`` matches, with repetitions."""
    return Counter(_WORD.findall(text.lower()))


def char_grams(text: str) -> Counter[str]:
    """The character 1- to 3-grams of ``text`` lowercased, runs of whitespace as one space."""
    bare = _SPACE.sub(" ", text.lower())
    return Counter(bare[i : i + n] for n in (1, 2, 3) for i in range(len(bare) - n + 1))


def _cosine(a: Counter[str], b: Counter[str]) -> float:
    if not a or not b:
        return 0.0
    dot = sum(count * b[key] for key, count in a.items())
    norms = sum(c * c for c in a.values()) * sum(c * c for c in b.values())
    return min(1.0, round(dot / math.sqrt(norms), 12))


def bow_cosine(answer: str, truth: str) -> float:
    """Cosine similarity of the two line-0s' bags of words, in [0, 1] (see the module's docstring)."""
    if not answer.strip():
        return 0.0
    a, t = line0(answer), line0(truth)
    if a == t:
        return 1.0
    if not a or not t:
        return 0.0
    wa, wt = words(a), words(t)
    if not wa and not wt:
        return _cosine(char_grams(a), char_grams(t))
    return _cosine(wa, wt)
