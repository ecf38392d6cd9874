"""Strategies that retrieve by the words near the cursor: ``neighbours`` and ``bm25``.

``neighbours`` is GitHub Copilot's neighbouring-tabs idea: every other file is cut into sliding
windows of ``window_lines`` lines, each scored by the Jaccard similarity of its set of words with
the words of the last ``query_lines`` lines before the cursor; each file offers its best window,
and the best ``top`` files' windows go in, best first.

``bm25`` is CrossCodeEval's retrieval: the repository cut into chunks of ``chunk_lines`` lines
(every ``stride`` lines), ranked by BM25 (``bm25s``) against the last ``query_lines`` lines
before the cursor; chunks go in best first while they fit, a chunk overlapping one already in
is skipped.

Both give the document ``document_share`` of the budget first (its window), then fill the rest;
neither ever takes the edited file from the index (see ``index.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .budget import Fill, document_window
from .index import ContextIndex, Piece, words
from .plan import Plan
from .records import Snippet, Source


def _query(source: Source, lines: int) -> list[str]:
    return words("\n".join(source.prefix.split("\n")[-lines:]), source.language)


def _snippet(index: ContextIndex, piece: Piece, part: str) -> Snippet:
    lines = tuple(range(piece.first, piece.last + 1))
    return Snippet(piece.path, lines, index.text(piece.path, lines), part)


def build_neighbours(index: ContextIndex, source: Source, fill: Fill, options: dict[str, Any]) -> Plan:
    window = document_window(source.language, source.path, source.prefix, source.suffix, fill, int(fill.left * options["document_share"]))
    windows = index.windows(options["window_lines"], options["stride"])
    scores = windows.jaccard(set(_query(source, options["query_lines"])))
    best: dict[str, tuple[float, Piece]] = {}
    for row in np.flatnonzero(scores > 0):
        piece = windows.pieces[row]
        if piece.path != source.path and (piece.path not in best or scores[row] > best[piece.path][0]):
            best[piece.path] = (float(scores[row]), piece)
    ranked = sorted(best.values(), key=lambda sp: (-sp[0], sp[1].path))[: options["top"]]
    chosen: list[Snippet] = []
    for _, piece in ranked:
        fill.add(chosen, _snippet(index, piece, "neighbours"), source.language)
    return Plan(window, chosen)


def build_bm25(index: ContextIndex, source: Source, fill: Fill, options: dict[str, Any]) -> Plan:
    window = document_window(source.language, source.path, source.prefix, source.suffix, fill, int(fill.left * options["document_share"]))
    chunks = index.chunks(options["chunk_lines"], options["stride"])
    scores = chunks.scores(_query(source, options["query_lines"]))
    chosen: list[Snippet] = []
    taken: dict[str, list[Piece]] = {}
    for row in np.argsort(-scores, kind="stable"):
        if scores[row] <= 0 or fill.left <= 0:
            break
        piece = chunks.pieces[row]
        if piece.path == source.path or any(p.first <= piece.last and piece.first <= p.last for p in taken.get(piece.path, ())):
            continue
        if fill.add(chosen, _snippet(index, piece, "chunks"), source.language):
            taken.setdefault(piece.path, []).append(piece)
    return Plan(window, chosen)
