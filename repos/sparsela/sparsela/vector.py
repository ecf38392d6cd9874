"""Sparse vectors stored as a dictionary from index to non-zero value."""

import heapq
import math
from collections.abc import Mapping

#: Entries whose magnitude does not exceed this are treated as structural zeros.
DROP_TOLERANCE = 0.0


def is_scalar(value):
    """Return True for plain int/float values (booleans are rejected)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class SparseVector:
    """A fixed-length vector that stores only its non-zero entries.

    ``entries`` may be a mapping ``{index: value}`` or an iterable of
    ``(index, value)`` pairs; repeated indices are summed.
    """

    __slots__ = ("size", "_data")

    def __init__(self, size, entries=None):
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise ValueError(f"vector size must be a non-negative int, got {size!r}")
        self.size = size
        self._data = {}
        if entries is None:
            return
        pairs = entries.items() if isinstance(entries, Mapping) else entries
        for index, value in pairs:
            index = self._normalize_index(index)
            total = self._data.get(index, 0) + value
            if abs(total) > DROP_TOLERANCE:
                self._data[index] = total
            else:
                self._data.pop(index, None)

    @classmethod
    def from_dense(cls, values):
        """Build a vector from a dense sequence, keeping only the non-zeros."""
        values = list(values)
        vec = cls(len(values))
        for index, value in enumerate(values):
            if abs(value) > DROP_TOLERANCE:
                vec._data[index] = value
        return vec

    def _normalize_index(self, index):
        if not isinstance(index, int) or isinstance(index, bool):
            raise TypeError(f"vector index must be an int, got {type(index).__name__}")
        if index < 0:
            index += self.size
        if not 0 <= index < self.size:
            raise IndexError(f"index out of range for vector of size {self.size}")
        return index

    def __getitem__(self, index):
        return self._data.get(self._normalize_index(index), 0.0)

    def __setitem__(self, index, value):
        index = self._normalize_index(index)
        if abs(value) > DROP_TOLERANCE:
            self._data[index] = value
        else:
            self._data.pop(index, None)

    @property
    def nnz(self):
        """Number of explicitly stored (non-zero) entries."""
        return len(self._data)

    def items(self):
        """Return the ``(index, value)`` pairs sorted by index."""
        return sorted(self._data.items())

    def to_dense(self):
        """Return a plain list of length :attr:`size`."""
        dense = [0.0] * self.size
        for index, value in self._data.items():
            dense[index] = value
        return dense

    def copy(self):
        clone = SparseVector(self.size)
        clone._data = dict(self._data)
        return clone

    def _check_compatible(self, other):
        if not isinstance(other, SparseVector):
            raise TypeError(f"expected a SparseVector, got {type(other).__name__}")
        if other.size != self.size:
            raise ValueError(f"size mismatch: {self.size} vs {other.size}")

    def dot(self, other):
        """Inner product; only the sparser operand is iterated."""
        self._check_compatible(other)
        small, large = (self, other) if self.nnz <= other.nnz else (other, self)
        total = 0.0
        for index, value in small._data.items():
            partner = large._data.get(index)
            if partner is not None:
                total += value * partner
        return total

    def axpy(self, alpha, other):
        """Return ``self + alpha * other`` as a new vector."""
        self._check_compatible(other)
        result = self.copy()
        for index, value in other._data.items():
            result[index] = result._data.get(index, 0) + alpha * value
        return result

    def scale(self, alpha):
        """Return ``alpha * self``."""
        if not is_scalar(alpha):
            raise TypeError(f"cannot scale a vector by {type(alpha).__name__}")
        result = SparseVector(self.size)
        if alpha != 0:
            result._data = {i: alpha * v for i, v in self._data.items()}
        return result

    def __add__(self, other):
        return self.axpy(1, other)

    def __sub__(self, other):
        return self.axpy(-1, other)

    def __mul__(self, alpha):
        if not is_scalar(alpha):
            return NotImplemented
        return self.scale(alpha)

    __rmul__ = __mul__

    def norm(self, ord=2):
        """Vector p-norm: ``ord`` may be 1, 2, ``math.inf`` or any positive number."""
        values = list(self._data.values())
        if not values:
            return 0.0
        if ord == 2:
            # Divide by the largest magnitude first so that squaring huge
            # entries cannot overflow to infinity.
            biggest = max(abs(v) for v in values)
            return biggest * math.sqrt(math.fsum((v / biggest) ** 2 for v in values))
        if ord == math.inf:
            return float(max(abs(v) for v in values))
        if is_scalar(ord) and ord > 0:
            return math.fsum(abs(v) ** ord for v in values) ** (1.0 / ord)
        raise ValueError(f"unsupported norm order: {ord!r}")

    def largest(self, k):
        """Indices of the ``k`` entries of largest magnitude (ties → lower index)."""
        if k < 0:
            raise ValueError("k must be non-negative")
        best = heapq.nsmallest(k, self._data.items(), key=lambda item: (-abs(item[1]), item[0]))
        return [index for index, _ in best]

    def __eq__(self, other):
        if not isinstance(other, SparseVector):
            return NotImplemented
        return self.size == other.size and self._data == other._data

    def __repr__(self):
        body = ", ".join(f"{i}: {v!r}" for i, v in self.items())
        return f"SparseVector({self.size}, {{{body}}})"
