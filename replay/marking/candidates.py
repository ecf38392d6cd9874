"""The language-neutral part of marking: what a candidate hole is, and how to pick among them.

A language module (``python.py``) turns one parsed file into :class:`Candidate` holes following
the SimCopilot block selection; this module chooses a deterministic,
construct-balanced subset with a seed.
"""

from __future__ import annotations

import itertools
import random
from collections import defaultdict
from collections.abc import Iterable
from typing import NamedTuple, TypeVar

from replay.core.records import Kind


class Candidate(NamedTuple):
    """A hole before it becomes a Task: a byte range of one file and what it is. A named tuple:
    a file has far more candidates than tasks, and a tuple is several times cheaper to make
    than a frozen dataclass."""

    kind: Kind
    construct: str
    start_byte: int
    end_byte: int
    block: bool  # starts at a statement boundary (cursor after the indentation)


T = TypeVar("T")

_KIND_VALUE = {k: k.value for k in Kind}  # the sort key, without an enum lookup per candidate


def in_document_order(found: Iterable[Candidate]) -> list[Candidate]:
    """The candidates a marker's walk found, each hole once (the first found of the same kind
    and span), by position then kind."""
    unique: dict[tuple[Kind, int, int], Candidate] = {}
    for cand in found:
        unique.setdefault((cand.kind, cand.start_byte, cand.end_byte), cand)
    return [unique[key] for key in sorted(unique, key=lambda k: (k[1], k[2], _KIND_VALUE[k[0]]))]


def select(
    candidates: list[Candidate], *, seed: int, key: str, per_kind: int, kinds: set[Kind], max_per_file: int | None = None
) -> list[Candidate]:
    """Pick up to ``per_kind`` candidates of each kind, round-robin over constructs so every
    construct is represented, shuffled with a generator seeded by ``seed`` and ``key`` (the file
    path) so that the choice for one file does not depend on any other file. ``max_per_file``
    then caps the total, alternating between kinds."""
    rng = random.Random(f"{seed}|{key}")
    per: list[list[Candidate]] = []
    for kind in sorted(kinds, key=lambda k: k.value):
        groups: dict[str, list[Candidate]] = defaultdict(list)
        for c in candidates:
            if c.kind is kind:
                groups[c.construct].append(c)
        per.append(round_robin([sorted(groups[k], key=lambda c: (c.start_byte, c.end_byte)) for k in sorted(groups)], rng, per_kind))
    merged = [c for row in itertools.zip_longest(*per) for c in row if c is not None]
    if max_per_file is not None:
        merged = merged[:max_per_file]
    return sorted(merged, key=lambda c: (c.start_byte, c.end_byte, c.kind.value))


def round_robin(groups: list[list[T]], rng: random.Random, limit: int) -> list[T]:
    """Up to ``limit`` items, one from each group in turn, so that every group (a construct) is
    represented; each group is shuffled by ``rng`` first, in the order given, so that the choice
    is the seed's alone."""
    queues = []
    for group in groups:
        queue = list(group)
        rng.shuffle(queue)
        queues.append(queue)
    chosen: list[T] = []
    while len(chosen) < limit and any(queues):
        for queue in queues:
            if queue and len(chosen) < limit:
                chosen.append(queue.pop())
    return chosen
