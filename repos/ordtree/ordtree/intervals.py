"""Closed-interval tree built on :class:`OrderedMap` with max-endpoint augmentation."""

import heapq
import re
from typing import NamedTuple

from .ordmap import OrderedMap

_NUMBER = r"[-+]?\d+(?:\.\d+)?"
# Accepts "[lo, hi]", "lo..hi" and "lo-hi" (with optional whitespace).
_INTERVAL_RE = re.compile(
    rf"^\s*(?:\[\s*(?P<a>{_NUMBER})\s*,\s*(?P<b>{_NUMBER})\s*\]"
    rf"|(?P<c>{_NUMBER})\s*(?:\.\.|-)\s*(?P<d>{_NUMBER}))\s*$"
)


class Interval(NamedTuple):
    """A closed interval ``[lo, hi]``; tuples order by ``lo`` then ``hi``."""

    lo: float
    hi: float

    @property
    def length(self):
        return self.hi - self.lo

    def overlaps(self, lo, hi):
        return self.lo <= hi and lo <= self.hi

    def contains(self, point):
        return self.lo <= point <= self.hi


def _to_number(text):
    return float(text) if "." in text else int(text)


def parse_interval(text):
    """Parse interval notation such as ``"[1, 5]"``, ``"2..7"`` or ``"3-4"``."""
    match = _INTERVAL_RE.match(text)
    if match is None:
        raise ValueError(f"cannot parse interval from {text!r}")
    if match.group("a") is not None:
        lo, hi = match.group("a"), match.group("b")
    else:
        lo, hi = match.group("c"), match.group("d")
    return make_interval(_to_number(lo), _to_number(hi))


def make_interval(lo, hi):
    """Return ``Interval(lo, hi)`` after checking that it is not reversed."""
    if hi < lo:
        raise ValueError(f"reversed interval: [{lo!r}, {hi!r}]")
    return Interval(lo, hi)


def _max_end(node):
    best = node.key.hi
    for child in (node.left, node.right):
        if child is not None and child.aux > best:
            best = child.aux
    return best


class IntervalTree(OrderedMap):
    """Map from closed intervals to payloads supporting overlap queries.

    Each node caches the largest upper endpoint in its subtree, which lets
    :meth:`overlapping` skip every subtree that ends before the query starts.
    """

    _augment = staticmethod(_max_end)

    def __setitem__(self, key, value):
        if isinstance(key, str):
            key = parse_interval(key)
        else:
            # Re-validating Interval instances too catches Interval(5, 1) built directly.
            key = make_interval(*key)
        super().__setitem__(key, value)

    def add(self, lo, hi, value=None):
        """Insert ``[lo, hi]`` with an associated value (replacing an old one)."""
        self[make_interval(lo, hi)] = value

    def overlapping(self, lo, hi=None):
        """Sorted ``(interval, value)`` pairs that intersect ``[lo, hi]``."""
        if hi is None:
            hi = lo
        if hi < lo:
            raise ValueError(f"reversed query: [{lo!r}, {hi!r}]")
        found = []
        stack = [(self._root, False)]
        # Explicit in-order walk: a node is pushed once to be expanded and once
        # more (flagged) to be emitted between its left and right subtrees.
        while stack:
            node, emit = stack.pop()
            if emit:
                # Pruning below guarantees node.key.lo <= hi; only the end is left to test.
                if not node.key.hi < lo:
                    found.append((node.key, node.value))
                continue
            if node is None or node.aux < lo:
                continue
            if hi < node.key.lo:
                # Everything to the right starts even later; only the left may hit.
                stack.append((node.left, False))
                continue
            stack.append((node.right, False))
            stack.append((node, True))
            stack.append((node.left, False))
        return found

    def stab(self, point):
        """Intervals containing ``point``."""
        return [iv for iv, _ in self.overlapping(point, point)]

    def span(self):
        """The smallest interval covering every stored interval."""
        if self._root is None:
            raise ValueError("span() of an empty interval tree")
        return Interval(self.min_key().lo, self._root.aux)

    def union(self):
        """Coalesce the stored intervals into disjoint, sorted intervals."""
        merged = []
        for iv in self:
            if merged and iv.lo <= merged[-1].hi:
                if iv.hi > merged[-1].hi:
                    merged[-1] = Interval(merged[-1].lo, iv.hi)
            else:
                merged.append(iv)
        return merged

    def coverage(self):
        """Total length covered by at least one interval."""
        return sum(iv.length for iv in self.union())

    def max_overlap(self):
        """Return ``(depth, point)``: the most intervals sharing one point.

        Sweeps the intervals by start while a min-heap holds the upper ends
        of those still open; the earliest such point is reported.
        """
        best_depth, best_point = 0, None
        open_ends = []
        for iv in self:
            while open_ends and open_ends[0] < iv.lo:
                heapq.heappop(open_ends)
            heapq.heappush(open_ends, iv.hi)
            if len(open_ends) > best_depth:
                best_depth, best_point = len(open_ends), iv.lo
        return best_depth, best_point
