"""Text analysis: tokenisation, accent folding, stop words and stemming.

The :class:`Analyzer` turns raw text into a list of :class:`Token` objects.
Positions count *every* word of the source text, including the stop words
that are dropped, so phrase queries can respect the gaps those words leave.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

__all__ = ["STOP_WORDS", "AnalysisError", "Analyzer", "Token", "fold_accents", "stem"]

STOP_WORDS = frozenset(
    """
    a an and are as at be but by for from has have he her his i if in into is
    it its of on or our she so than that the their them then there these they
    this to was we were what when which who will with you your
    """.split()
)

# A word is a run of letters or digits, optionally joined by apostrophes
# ("don't", "o’clock").  Underscores count as separators.
_WORD_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")

# Letters that NFKD leaves alone but that readers expect to fold anyway.
_SPECIAL_FOLDS = {"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "þ": "th"}

VOWELS = frozenset("aeiou")
MIN_STEM_LENGTH = 3

# Derivational suffixes, tried in order.  The first suffix that matches is
# the only one considered; it is stripped only if the remaining stem is long
# enough and still contains a vowel.
_SUFFIX_RULES = (
    ("ational", "ate"), ("ization", "ize"), ("fulness", "ful"), ("ousness", "ous"),
    ("iveness", "ive"), ("tional", "tion"), ("alism", "al"), ("ation", "ate"),
    ("ness", ""), ("ment", ""), ("ably", "able"), ("ly", ""),
)


class AnalysisError(ValueError):
    """Raised for an invalid analyzer configuration."""


@dataclass(frozen=True)
class Token:
    """One kept word: its index term, word position and character span."""

    term: str
    position: int
    start: int
    end: int


def fold_accents(text: str) -> str:
    """Remove diacritics, e.g. ``"Crème Brûlée"`` → ``"Creme Brulee"``."""
    out = []
    for ch in unicodedata.normalize("NFKD", text):
        if unicodedata.combining(ch):
            continue
        folded = _SPECIAL_FOLDS.get(ch.lower())
        if folded is None:
            out.append(ch)
        elif ch.isupper():
            out.append(folded.capitalize())
        else:
            out.append(folded)
    return "".join(out)


def _is_consonant(word: str, i: int) -> bool:
    ch = word[i]
    if ch in VOWELS:
        return False
    if ch == "y":
        # 'y' after a consonant behaves as a vowel ("fly"), otherwise as a
        # consonant ("yes", "toy").
        return i == 0 or not _is_consonant(word, i - 1)
    return True


def _has_vowel(word: str) -> bool:
    return any(not _is_consonant(word, i) for i in range(len(word)))


def _ends_double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _is_consonant(word, len(word) - 1)


def _ends_cvc(word: str) -> bool:
    """True for consonant-vowel-consonant endings such as ``hop`` or ``rat``."""
    n = len(word)
    if word[-1] in "wxy":
        return False
    return _is_consonant(word, n - 3) and not _is_consonant(word, n - 2) and _is_consonant(word, n - 1)


def _strip_plural(word: str) -> str:
    if word.endswith(("sses", "ches", "shes", "xes")):
        # "classes", "searches", "wishes", "boxes": the plural is "-es".
        return word[:-2]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("s"):
        return word[:-1]
    return word


def _strip_inflection(word: str) -> str:
    for suffix in ("ing", "ed"):
        if not word.endswith(suffix):
            continue
        base = word[: -len(suffix)]
        if not _has_vowel(base):
            # "sing", "shred": the suffix is part of the word itself.
            return word
        if suffix == "ed" and base.endswith("e"):
            # "agreed" → "agree", but "need" and "freed" stay whole.
            return word[:-1] if len(base) > 3 else word
        if _ends_double_consonant(base) and base[-1] not in "lsz":
            return base[:-1]
        if len(base) == 3 and _ends_cvc(base):
            return base + "e"
        if base.endswith(("at", "bl", "iz")):
            return base + "e"
        return base
    return word


def _strip_derivational(word: str) -> str:
    for suffix, replacement in _SUFFIX_RULES:
        if not word.endswith(suffix):
            continue
        base = word[: -len(suffix)]
        if len(base) >= MIN_STEM_LENGTH:
            return base + replacement
        return word
    return word


@functools.lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """Reduce an English word to a crude stem.

    The algorithm is deliberately small: it strips plurals, ``-ing``/``-ed``
    inflections and a handful of derivational suffixes.  Short words and
    words containing anything other than letters are returned unchanged.
    """
    if len(word) <= MIN_STEM_LENGTH or not word.isalpha():
        return word
    word = _strip_plural(word)
    word = _strip_inflection(word)
    return _strip_derivational(word)


class Analyzer:
    """Configurable text analyzer.

    :param stop_words: words removed from the token stream (compared after
        folding, so they may be given with accents or capitals).
    :param stemming: apply :func:`stem` to every kept term.
    :param fold: lower-case and strip accents.
    :param min_length: terms shorter than this are dropped.
    """

    def __init__(self, stop_words=STOP_WORDS, stemming: bool = True, fold: bool = True, min_length: int = 1):
        if isinstance(stop_words, str):
            raise AnalysisError("stop_words must be a collection of words, not a string")
        if min_length < 1:
            raise AnalysisError("min_length must be at least 1")
        self.fold = fold
        self.stemming = stemming
        self.min_length = min_length
        self.stop_words = frozenset(self.fold_term(w) for w in stop_words)

    def fold_term(self, word: str) -> str:
        """Apply case and accent folding (if enabled) without stemming."""
        word = word.replace("’", "'")
        if not self.fold:
            return word
        return fold_accents(word).lower()

    def normalize(self, word: str) -> str | None:
        """Return the index term for one word, or ``None`` if it is dropped."""
        word = self.fold_term(word)
        if word.endswith("'s"):
            word = word[:-2]
        word = word.replace("'", "")
        if word in self.stop_words or len(word) < self.min_length:
            return None
        if self.stemming:
            word = stem(word)
        return word

    def tokens(self, text: str) -> list[Token]:
        """Split ``text`` into kept tokens with positions and offsets."""
        result = []
        for position, match in enumerate(_WORD_RE.finditer(text)):
            term = self.normalize(match.group())
            if term is None:
                continue
            result.append(Token(term, position, match.start(), match.end()))
        return result

    def terms(self, text: str) -> list[str]:
        """Return only the index terms of ``text``, in order."""
        return [token.term for token in self.tokens(text)]

    def config(self) -> dict:
        """Serialisable description of this analyzer."""
        return {
            "stop_words": sorted(self.stop_words),
            "stemming": self.stemming,
            "fold": self.fold,
            "min_length": self.min_length,
        }

    @classmethod
    def from_config(cls, config: dict) -> "Analyzer":
        """Rebuild an analyzer from :meth:`config` output."""
        if not isinstance(config, dict):
            raise AnalysisError("analyzer config must be a mapping")
        unknown = set(config) - {"stop_words", "stemming", "fold", "min_length"}
        if unknown:
            raise AnalysisError(f"unknown analyzer options: {', '.join(sorted(unknown))}")
        return cls(
            stop_words=config.get("stop_words", STOP_WORDS),
            stemming=bool(config.get("stemming", True)),
            fold=bool(config.get("fold", True)),
            min_length=int(config.get("min_length", 1)),
        )
