"""One repository's index for the context builders, made once and shared by every request.

Per request a builder only scores and picks; everything that depends on the repository alone is
here and built once: each file's lines, the definition table, the sliding windows the
``neighbours`` strategy scores (as a window × word matrix of booleans, so that a Jaccard score
of every window is two matrix sums) and the fixed-size chunks with their BM25 index (``bm25s``).
Windows and chunks are made on first use, per size, under a lock.

The index holds the repository's non-test source files as they are on disk, so it holds the
edited file too, and on disk that file may hold the answer. Builders therefore never take
anything of the edited file from the index: its text is the editor's document.
"""

from __future__ import annotations

import re
import threading
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .definitions import KEYWORDS, Definition, definitions

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def words(text: str, language: str) -> list[str]:
    """The words lexical retrieval compares: identifiers, lower-cased, keywords left out."""
    skip = KEYWORDS.get(language, frozenset())
    return [w.lower() for w in _WORD.findall(text) if w not in skip]


@dataclass(frozen=True, slots=True)
class Piece:
    """Lines ``first`` to ``last`` (0-based, inclusive) of ``path``."""

    path: str
    first: int
    last: int


class Windows:
    """Sliding windows of ``size`` lines every ``stride`` lines, as sets of words."""

    def __init__(self, pieces: list[Piece], sets: list[set[str]]) -> None:
        self.pieces = pieces
        vocabulary = sorted(set().union(*sets)) if sets else []
        self.column = {w: i for i, w in enumerate(vocabulary)}
        self.matrix = np.zeros((len(pieces), max(1, len(vocabulary))), dtype=bool)
        for row, found in enumerate(sets):
            self.matrix[row, [self.column[w] for w in found]] = True
        self.sizes = self.matrix.sum(axis=1)

    def jaccard(self, query: set[str]) -> np.ndarray:
        """Every window's Jaccard similarity with ``query``."""
        columns = [self.column[w] for w in query if w in self.column]
        shared = self.matrix[:, columns].sum(axis=1) if columns else np.zeros(len(self.pieces))
        union = self.sizes + len(query) - shared
        return np.divide(shared, union, out=np.zeros(len(self.pieces)), where=union > 0)


class Chunks:
    """Chunks of ``size`` lines every ``stride`` lines, ranked by BM25."""

    def __init__(self, pieces: list[Piece], tokens: list[list[str]]) -> None:
        import bm25s  # numpy only; imported here so that the bridge starts without it until needed

        self.pieces = pieces
        self.retriever: Any = bm25s.BM25()
        if pieces:
            self.retriever.index([t or ["\x00"] for t in tokens], show_progress=False)

    def scores(self, query: list[str]) -> np.ndarray:
        if not self.pieces or not query:
            return np.zeros(len(self.pieces))
        return np.asarray(self.retriever.get_scores(query), dtype=float)


class ContextIndex:
    """The index of one repository's non-test ``files`` (repository-relative path -> text)."""

    def __init__(self, language: str, files: Mapping[str, str]) -> None:
        self.language = language
        self.files = dict(sorted(files.items()))
        self.lines = {path: text.split("\n") for path, text in self.files.items()}
        self.definitions: dict[str, list[Definition]] = defaultdict(list)
        for path, text in self.files.items():
            for found in definitions(language, path, text):
                self.definitions[found.name].append(found)
        self._lock = threading.Lock()
        self._windows: dict[tuple[int, int], Windows] = {}
        self._chunks: dict[tuple[int, int], Chunks] = {}

    def text(self, path: str, lines: tuple[int, ...]) -> str:
        """Those lines of ``path``, joined, ending with a newline."""
        own = self.lines[path]
        return "".join(own[i] + "\n" for i in lines if i < len(own))

    def pieces(self, size: int, stride: int) -> list[Piece]:
        found = []
        for path, lines in self.lines.items():
            count = len(lines) - (1 if lines and lines[-1] == "" else 0)
            for first in range(0, max(1, count - size + stride), stride):
                last = min(first + size, count) - 1
                if last >= first:
                    found.append(Piece(path, first, last))
        return found

    def windows(self, size: int, stride: int) -> Windows:
        with self._lock:
            if (size, stride) not in self._windows:
                pieces = self.pieces(size, stride)
                sets = [set(words("\n".join(self.lines[p.path][p.first : p.last + 1]), self.language)) for p in pieces]
                self._windows[size, stride] = Windows(pieces, sets)
            return self._windows[size, stride]

    def chunks(self, size: int, stride: int) -> Chunks:
        with self._lock:
            if (size, stride) not in self._chunks:
                pieces = self.pieces(size, stride)
                tokens = [words("\n".join(self.lines[p.path][p.first : p.last + 1]), self.language) for p in pieces]
                self._chunks[size, stride] = Chunks(pieces, tokens)
            return self._chunks[size, stride]
