"""Similarity of an answer to the ground truth, next to the pass/fail verdict of the tests.

Tests decide whether an answer is right; these numbers say how close a wrong one came, and they
let simpilot be compared with benchmarks that report only similarity. Two edit similarities exist
in the literature and are not interchangeable, so both are kept, each
under its own name: ``indel_similarity`` is ``rapidfuzz.fuzz.ratio / 100`` (CrossCodeEval,
RepoBench) and ``levenshtein_similarity`` is ``rapidfuzz.distance.Levenshtein.normalized_similarity``
(RepoEval). Identifier EM/F1 follow CrossCodeEval: string literals are removed, the remaining
identifier tokens that are not keywords of the language are compared, exact match on the
ordered lists and precision/recall/F1 on the sets.

Every function here is pure. A missing answer (``None``: the model gave none) scores as the
empty string, so averages over a run cover every task.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import asdict, dataclass

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

from replay.scoring.devbench import bow_cosine, line0_exact_match

JAVA_KEYWORDS = frozenset(
    """abstract assert boolean break byte case catch char class const continue default do double else enum
    extends final finally float for goto if implements import instanceof int interface long native new
    package private protected public return short static strictfp super switch synchronized this throw
    throws transient try void volatile while true false null var record yield sealed permits non-sealed""".split()
)
PYTHON_KEYWORDS = frozenset(keyword.kwlist)

# String literals first (so that a quote inside a comment-looking string is consumed by the
# string), then comments, which carry prose, not identifiers of the code.
_PY_STRIP = re.compile(r"""(?is)[rbuf]{0,2}(?:'''.*?'''|\"\"\".*?\"\"\"|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*")|\#[^\n]*""")
_JAVA_STRIP = re.compile(r'''(?s)"""(?:\\.|.)*?"""|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|//[^\n]*|/\*.*?\*/''')
# Numbers are matched (and then dropped) so that the ``e5`` of ``1e5`` is not taken for a name.
_TOKEN = re.compile(r"\d[\w.]*|[A-Za-z_$][\w$]*")


@dataclass(frozen=True, slots=True)
class Similarity:
    """How close one answer is to the ground truth (all in [0, 1]; the matches are 0 or 1)."""

    exact_match: int
    indel_similarity: float
    levenshtein_similarity: float
    first_line_match: int
    identifier_em: int
    identifier_f1: float
    devbench_line0: int  # DevBench's own two metrics (devbench_metrics.py), named as DevBench's
    devbench_cosine: float

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


# The column names double as the JSON/CSV field names; labels are what a person reads.
METRIC_LABELS = {
    "exact_match": "exact match (whitespace-normalised)",
    "indel_similarity": "indel similarity (rapidfuzz fuzz.ratio/100)",
    "levenshtein_similarity": "normalised Levenshtein (rapidfuzz)",
    "first_line_match": "first-line exact match",
    "identifier_em": "identifier EM (CrossCodeEval)",
    "identifier_f1": "identifier F1 (CrossCodeEval)",
    "devbench_line0": "line-0 exact match (DevBench)",
    "devbench_cosine": "bag-of-words cosine (DevBench)",
}


def normalise_whitespace(text: str) -> str:
    """Every run of whitespace becomes one space; leading and trailing whitespace goes."""
    return " ".join(text.split())


def exact_match(answer: str, truth: str) -> int:
    return int(normalise_whitespace(answer) == normalise_whitespace(truth))


def indel_similarity(answer: str, truth: str) -> float:
    """``rapidfuzz.fuzz.ratio / 100`` of the stripped texts (1 when both are empty)."""
    return fuzz.ratio(answer.strip(), truth.strip()) / 100


def levenshtein_similarity(answer: str, truth: str) -> float:
    """``1 - Levenshtein distance / max(len)`` of the stripped texts (1 when both are empty)."""
    return Levenshtein.normalized_similarity(answer.strip(), truth.strip())


def first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def first_line_match(answer: str, truth: str) -> int:
    """The first non-blank lines are equal, ignoring the whitespace around them."""
    return int(first_line(answer) == first_line(truth))


def identifiers(code: str, language: str) -> list[str]:
    """The identifier tokens of ``code`` in order, without string literals, comments, numbers
    and keywords."""
    strip, keywords = (_JAVA_STRIP, JAVA_KEYWORDS) if language == "java" else (_PY_STRIP, PYTHON_KEYWORDS)
    bare = strip.sub(" ", code)
    return [t for t in _TOKEN.findall(bare) if not t[0].isdigit() and t not in keywords]


def identifier_match(answer: str, truth: str, language: str) -> tuple[int, float, float, float]:
    """``(EM, precision, recall, F1)``: EM on the ordered identifier lists, the rest on sets.
    Two answers without identifiers agree fully; one empty side scores 0."""
    a, t = identifiers(answer, language), identifiers(truth, language)
    em = int(a == t)
    sa, st = set(a), set(t)
    if not sa and not st:
        return em, 1.0, 1.0, 1.0
    common = len(sa & st)
    precision = common / len(sa) if sa else 0.0
    recall = common / len(st) if st else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return em, precision, recall, f1


def similarity(answer: str | None, truth: str, language: str) -> Similarity:
    """All metrics of one answer; ``None`` (no answer) counts as the empty string."""
    text = answer or ""
    em, _, _, f1 = identifier_match(text, truth, language)
    return Similarity(
        exact_match(text, truth),
        indel_similarity(text, truth),
        levenshtein_similarity(text, truth),
        first_line_match(text, truth),
        em,
        f1,
        line0_exact_match(text, truth),
        bow_cosine(text, truth),
    )
