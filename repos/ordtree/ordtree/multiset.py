"""A sorted multiset (bag) with count-weighted order statistics."""

import bisect
import math
import operator
from collections import Counter
from heapq import nlargest
from itertools import chain, repeat

from .ordmap import OrderedMap, merge_maps


def _subtree_total(node):
    """Augmentation: total multiplicity stored in ``node``'s subtree."""
    total = node.value
    if node.left is not None:
        total += node.left.aux
    if node.right is not None:
        total += node.right.aux
    return total


def _total(node):
    return 0 if node is None else node.aux


class _CountMap(OrderedMap):
    """Element → multiplicity map whose nodes know their subtree totals."""

    _augment = staticmethod(_subtree_total)


class SortedMultiset:
    """Sorted collection that may hold equal elements several times.

    Distinct elements live in a count-augmented AVL tree, so weighted
    :meth:`rank` and :meth:`select` run in O(log d) for d distinct elements.
    """

    def __init__(self, iterable=()):
        counted = Counter(iterable)
        self._counts = _CountMap.from_sorted(sorted(counted.items()))

    @classmethod
    def _wrap(cls, counts):
        bag = cls()
        bag._counts = counts
        return bag

    # ------------------------------------------------------------------
    # size and membership
    # ------------------------------------------------------------------
    def __len__(self):
        return _total(self._counts._root)

    def __contains__(self, element):
        return element in self._counts

    def count(self, element):
        return self._counts.get(element, 0)

    def distinct(self):
        return self._counts.keys()

    def items(self):
        """Sorted ``(element, multiplicity)`` pairs."""
        return self._counts.items()

    def __iter__(self):
        return chain.from_iterable(repeat(k, c) for k, c in self._counts.irange_items())

    # ------------------------------------------------------------------
    # mutation
    # ------------------------------------------------------------------
    def add(self, element, copies=1):
        """Add ``copies`` occurrences of ``element``."""
        if copies < 0:
            raise ValueError("copies must be non-negative")
        if copies:
            self._counts[element] = self.count(element) + copies

    def remove(self, element, copies=1):
        """Remove ``copies`` occurrences; all of them must be present."""
        have = self.count(element)
        if have == 0:
            raise KeyError(element)
        if copies > have:
            raise ValueError(f"cannot remove {copies} copies of {element!r}: only {have}")
        if copies == have:
            del self._counts[element]
        else:
            self._counts[element] = have - copies

    def discard(self, element, copies=1):
        """Remove up to ``copies`` occurrences and return how many were removed."""
        removed = min(copies, self.count(element))
        if removed > 0:
            self.remove(element, removed)
        return removed

    # ------------------------------------------------------------------
    # order statistics
    # ------------------------------------------------------------------
    def rank(self, element, inclusive=False):
        """Number of stored elements below (or, if ``inclusive``, at most) ``element``."""
        result = 0
        node = self._counts._root
        while node is not None:
            if node.key < element or (inclusive and not element < node.key):
                result += _total(node.left) + node.value
                node = node.right
            else:
                node = node.left
        return result

    def select(self, index):
        """Element at position ``index`` of the sorted sequence (with repeats)."""
        total = len(self)
        if index < 0:
            index += total
        if not 0 <= index < total:
            raise IndexError(f"index {index} out of range for {total} elements")
        node = self._counts._root
        while True:
            left = _total(node.left)
            if index < left:
                node = node.left
            elif index < left + node.value:
                return node.key
            else:
                index -= left + node.value
                node = node.right

    def count_range(self, lo, hi):
        """Number of elements ``x`` with ``lo <= x <= hi``."""
        if hi < lo:
            return 0
        return self.rank(hi, inclusive=True) - self.rank(lo)

    def quantile(self, q):
        """Linearly interpolated ``q``-quantile of numeric elements."""
        if not 0.0 <= q <= 1.0:
            raise ValueError(f"quantile must be within [0, 1], got {q!r}")
        if not self:
            raise ValueError("quantile of an empty multiset")
        position = q * (len(self) - 1)
        lower = self.select(math.floor(position))
        upper = self.select(math.ceil(position))
        return lower + (upper - lower) * (position - math.floor(position))

    def median(self):
        return self.quantile(0.5)

    def most_common(self, n=None):
        """Pairs ordered by decreasing multiplicity, ties by element order."""
        pairs = self.items()
        if n is None:
            return sorted(pairs, key=operator.itemgetter(1), reverse=True)
        return nlargest(n, pairs, key=operator.itemgetter(1))

    def histogram(self, edges):
        """Counts per bucket delimited by the strictly increasing ``edges``.

        Bucket ``i`` holds elements ``x`` with ``edges[i-1] <= x < edges[i]``;
        there are ``len(edges) + 1`` buckets including both open ends.
        """
        edges = list(edges)
        for left, right in zip(edges, edges[1:]):
            if not left < right:
                raise ValueError("histogram edges must be strictly increasing")
        buckets = [0] * (len(edges) + 1)
        for element, multiplicity in self._counts.irange_items():
            buckets[bisect.bisect_right(edges, element)] += multiplicity
        return buckets

    # ------------------------------------------------------------------
    # combination and comparison
    # ------------------------------------------------------------------
    def __add__(self, other):
        if not isinstance(other, SortedMultiset):
            return NotImplemented
        merged = merge_maps(self._counts, other._counts, combine=operator.add, into=_CountMap)
        return self._wrap(merged)

    def __and__(self, other):
        if not isinstance(other, SortedMultiset):
            return NotImplemented
        common = []
        for element, multiplicity in self._counts.irange_items():
            shared = min(multiplicity, other.count(element))
            if shared:
                common.append((element, shared))
        return self._wrap(_CountMap.from_sorted(common))

    def __eq__(self, other):
        if not isinstance(other, SortedMultiset):
            return NotImplemented
        return self.items() == other.items()

    def __repr__(self):
        return f"SortedMultiset({list(self)!r})"

    def check(self):
        """Validate the underlying tree and that every multiplicity is positive."""
        for element, multiplicity in self._counts.irange_items():
            if multiplicity <= 0:
                raise ValueError(f"non-positive multiplicity for {element!r}")
        return self._counts.check()
