"""The :class:`OrderedMap` container: a sorted mapping backed by an AVL tree."""

import heapq
import itertools
from functools import reduce
from operator import itemgetter

from .node import (
    Node,
    build_balanced,
    leftmost,
    rebalance,
    refresh,
    rightmost,
    size,
)

# Sentinel for "no default supplied" so that ``None`` stays a legal default.
_MISSING = object()
# How many items ``repr`` shows before eliding the rest.
REPR_LIMIT = 8


def _too_low(key, lo, inclusive):
    """True if ``key`` lies below the lower bound ``lo``."""
    if lo is None:
        return False
    if inclusive:
        return key < lo
    return not lo < key


def _too_high(key, hi, inclusive):
    """True if ``key`` lies above the upper bound ``hi``."""
    if hi is None:
        return False
    if inclusive:
        return hi < key
    return not key < hi


class OrderedMap:
    """A mutable mapping that keeps its keys sorted.

    Keys must be mutually comparable with ``<``.  Lookups, insertions and
    deletions take O(log n); so do :meth:`rank` and :meth:`select` thanks to
    the subtree sizes cached in every node.
    """

    # Subclasses may set this to a function ``node -> aux`` (see node.refresh).
    _augment = None

    def __init__(self, items=None):
        self._root = None
        if items is not None:
            self.update(items)

    # ------------------------------------------------------------------
    # construction
    # ------------------------------------------------------------------
    @classmethod
    def from_sorted(cls, pairs, *, strict=True):
        """Build a map in O(n) from ``(key, value)`` pairs sorted by key.

        With ``strict`` the keys must be strictly increasing, otherwise
        ``ValueError`` is raised.  Without it, equal neighbours collapse and
        the last value wins, as with repeated assignment.
        """
        pairs = list(pairs)
        unique = []
        for key, value in pairs:
            if unique:
                prev = unique[-1][0]
                if key < prev:
                    raise ValueError(f"input not sorted: {key!r} after {prev!r}")
                if not prev < key:
                    if strict:
                        raise ValueError(f"duplicate key {key!r}")
                    unique[-1] = (key, value)
                    continue
            unique.append((key, value))
        tree = cls()
        tree._root = build_balanced(unique, 0, len(unique), cls._augment)
        return tree

    def copy(self):
        """Return a shallow copy with an identically shaped tree."""
        return type(self).from_sorted(self.items())

    def update(self, other=(), **kwargs):
        """Insert every pair from a mapping or an iterable of pairs."""
        if hasattr(other, "items"):
            other = other.items()
        for key, value in itertools.chain(other, kwargs.items()):
            self[key] = value

    # ------------------------------------------------------------------
    # basic mapping protocol
    # ------------------------------------------------------------------
    def __len__(self):
        return size(self._root)

    def __bool__(self):
        return self._root is not None

    def _find(self, key):
        node = self._root
        while node is not None:
            if key < node.key:
                node = node.left
            elif node.key < key:
                node = node.right
            else:
                return node
        return None

    def __contains__(self, key):
        return self._find(key) is not None

    def __getitem__(self, key):
        node = self._find(key)
        if node is None:
            raise KeyError(key)
        return node.value

    def get(self, key, default=None):
        node = self._find(key)
        return default if node is None else node.value

    def __setitem__(self, key, value):
        self._root = self._insert(self._root, key, value)

    def setdefault(self, key, default=None):
        node = self._find(key)
        if node is not None:
            return node.value
        self[key] = default
        return default

    def _insert(self, node, key, value):
        if node is None:
            return refresh(Node(key, value), self._augment)
        if key < node.key:
            node.left = self._insert(node.left, key, value)
        elif node.key < key:
            node.right = self._insert(node.right, key, value)
        else:
            node.value = value
        # The replaced value may feed the augmentation, so always refresh.
        return rebalance(node, self._augment)

    def __delitem__(self, key):
        self._root = self._delete(self._root, key)

    def _delete(self, node, key):
        if node is None:
            raise KeyError(key)
        if key < node.key:
            node.left = self._delete(node.left, key)
        elif node.key < key:
            node.right = self._delete(node.right, key)
        else:
            if node.left is None:
                return node.right
            if node.right is None:
                return node.left
            # Two children: splice in the in-order successor.
            successor = leftmost(node.right)
            successor.right = self._detach_min(node.right)
            successor.left = node.left
            node = successor
        return rebalance(node, self._augment)

    def _detach_min(self, node):
        if node.left is None:
            return node.right
        node.left = self._detach_min(node.left)
        return rebalance(node, self._augment)

    def pop(self, key, default=_MISSING):
        """Remove ``key`` and return its value (or ``default`` if absent)."""
        node = self._find(key)
        if node is None:
            if default is _MISSING:
                raise KeyError(key)
            return default
        value = node.value
        del self[key]
        return value

    def popitem(self, last=True):
        """Remove and return the largest (or, with ``last=False``, smallest) pair."""
        if self._root is None:
            raise KeyError("popitem(): map is empty")
        node = rightmost(self._root) if last else leftmost(self._root)
        item = (node.key, node.value)
        del self[node.key]
        return item

    def clear(self):
        self._root = None

    # ------------------------------------------------------------------
    # iteration
    # ------------------------------------------------------------------
    def _iter_nodes(self, lo=None, hi=None, inclusive=(True, True), reverse=False):
        lo_incl, hi_incl = inclusive
        stack = []
        node = self._root
        # Descend to the first in-range node, stacking the ancestors we pass
        # on the way; those are exactly the nodes still to be visited.
        while node is not None:
            if reverse:
                if _too_high(node.key, hi, hi_incl):
                    node = node.left
                else:
                    stack.append(node)
                    node = node.right
            elif _too_low(node.key, lo, lo_incl):
                node = node.right
            else:
                stack.append(node)
                node = node.left
        while stack:
            node = stack.pop()
            if reverse:
                if _too_low(node.key, lo, lo_incl):
                    return
                child = node.left
            else:
                if _too_high(node.key, hi, hi_incl):
                    return
                child = node.right
            yield node
            while child is not None:
                stack.append(child)
                child = child.right if reverse else child.left

    def __iter__(self):
        return (node.key for node in self._iter_nodes())

    def __reversed__(self):
        return (node.key for node in self._iter_nodes(reverse=True))

    def keys(self):
        return list(self)

    def values(self):
        return [node.value for node in self._iter_nodes()]

    def items(self):
        return [(node.key, node.value) for node in self._iter_nodes()]

    def irange(self, lo=None, hi=None, inclusive=(True, True), reverse=False):
        """Iterate keys between ``lo`` and ``hi``; ``None`` means unbounded."""
        for node in self._iter_nodes(lo, hi, inclusive, reverse):
            yield node.key

    def irange_items(self, lo=None, hi=None, inclusive=(True, True), reverse=False):
        """Like :meth:`irange` but yields ``(key, value)`` pairs."""
        for node in self._iter_nodes(lo, hi, inclusive, reverse):
            yield node.key, node.value

    # ------------------------------------------------------------------
    # order queries
    # ------------------------------------------------------------------
    def min_key(self):
        if self._root is None:
            raise KeyError("min_key(): map is empty")
        return leftmost(self._root).key

    def max_key(self):
        if self._root is None:
            raise KeyError("max_key(): map is empty")
        return rightmost(self._root).key

    def _bound(self, key, below, strict):
        """Closest key on one side of ``key``; ``None`` when there is none."""
        best = None
        node = self._root
        while node is not None:
            if below:
                ok = node.key < key or (not strict and not key < node.key)
            else:
                ok = key < node.key or (not strict and not node.key < key)
            if ok:
                best = node
                node = node.right if below else node.left
            else:
                node = node.left if below else node.right
        return best

    def _bound_key(self, key, below, strict, default):
        node = self._bound(key, below, strict)
        if node is not None:
            return node.key
        if default is _MISSING:
            raise KeyError(key)
        return default

    def floor(self, key, default=_MISSING):
        """Largest key ``<= key``."""
        return self._bound_key(key, True, False, default)

    def ceiling(self, key, default=_MISSING):
        """Smallest key ``>= key``."""
        return self._bound_key(key, False, False, default)

    def predecessor(self, key, default=_MISSING):
        """Largest key strictly below ``key``."""
        return self._bound_key(key, True, True, default)

    def successor(self, key, default=_MISSING):
        """Smallest key strictly above ``key``."""
        return self._bound_key(key, False, True, default)

    def rank(self, key):
        """Number of keys strictly smaller than ``key`` (``key`` need not exist)."""
        result = 0
        node = self._root
        while node is not None:
            if node.key < key:
                result += size(node.left) + 1
                node = node.right
            else:
                node = node.left
        return result

    def _select_node(self, index):
        count = len(self)
        if index < 0:
            index += count
        if not 0 <= index < count:
            raise IndexError(f"index {index} out of range for {count} keys")
        node = self._root
        while True:
            left_size = size(node.left)
            if index < left_size:
                node = node.left
            elif index == left_size:
                return node
            else:
                index -= left_size + 1
                node = node.right

    def select(self, index):
        """Return the key at position ``index`` in sorted order (negatives allowed)."""
        return self._select_node(index).key

    def select_item(self, index):
        node = self._select_node(index)
        return node.key, node.value

    def count_range(self, lo, hi, inclusive=(True, True)):
        """Count keys between ``lo`` and ``hi`` in O(log n)."""
        if hi < lo:
            return 0
        lo_incl, hi_incl = inclusive
        start = self.rank(lo)
        if not lo_incl and lo in self:
            start += 1
        stop = self.rank(hi)
        if hi_incl and hi in self:
            stop += 1
        return max(0, stop - start)

    # ------------------------------------------------------------------
    # comparison, display, validation
    # ------------------------------------------------------------------
    def __eq__(self, other):
        if isinstance(other, OrderedMap):
            return len(self) == len(other) and self.items() == other.items()
        if isinstance(other, dict):
            return len(self) == len(other) and all(
                k in other and other[k] == v for k, v in self.irange_items()
            )
        return NotImplemented

    def __repr__(self):
        shown = [f"{k!r}: {v!r}" for k, v in itertools.islice(self.irange_items(), REPR_LIMIT)]
        if len(self) > REPR_LIMIT:
            shown.append(f"… +{len(self) - REPR_LIMIT} more")
        return f"{type(self).__name__}({{{', '.join(shown)}}})"

    def check(self):
        """Verify the tree's structural invariants; see :func:`validate.check_tree`."""
        from .validate import check_tree

        return check_tree(self._root, self._augment)


def merge_maps(*maps, combine=None, into=None):
    """Merge several ordered maps into a new map in linear time.

    For keys present in more than one input, ``combine(a, b)`` folds the values
    left to right; without it the value from the last map wins.  The result is
    an instance of ``into`` (default :class:`OrderedMap`).
    """
    if into is None:
        into = OrderedMap
    elif not (isinstance(into, type) and issubclass(into, OrderedMap)):
        raise TypeError(f"into must be an OrderedMap subclass, not {into!r}")
    streams = [m.irange_items() for m in maps]
    merged = []
    for key, group in itertools.groupby(heapq.merge(*streams, key=itemgetter(0)), key=itemgetter(0)):
        values = [value for _, value in group]
        if combine is None:
            merged.append((key, values[-1]))
        else:
            merged.append((key, reduce(combine, values)))
    return into.from_sorted(merged)
