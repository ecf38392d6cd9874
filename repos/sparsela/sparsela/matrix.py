"""Sparse matrices in coordinate (COO), compressed sparse row (CSR) and
compressed sparse column (CSC) layouts, with conversions between them."""

import bisect
import math
from itertools import accumulate, groupby
from operator import itemgetter

from .vector import DROP_TOLERANCE, SparseVector, is_scalar

#: Matrix norms understood by :meth:`SparseMatrix.norm`.
SUPPORTED_NORMS = ("fro", 1, math.inf, "max")
#: Format name → name of the conversion method.
FORMATS = {"coo": "to_coo", "csr": "to_csr", "csc": "to_csc"}


def _check_shape(shape):
    shape = tuple(shape)
    if len(shape) != 2 or not all(isinstance(d, int) and d >= 0 for d in shape):
        raise ValueError(f"shape must be a pair of non-negative ints, got {shape!r}")
    return shape


def _compress(major, minor, values, n_major):
    """Sort triplets by (major, minor), sum duplicates and build a pointer array.

    Returns ``(indptr, indices, data)``; duplicates that cancel out are dropped.
    """
    triplets = sorted(zip(major, minor, values), key=itemgetter(0, 1))
    counts = [0] * n_major
    indices, data = [], []
    for (outer, inner), group in groupby(triplets, key=itemgetter(0, 1)):
        total = sum(t[2] for t in group)
        if abs(total) <= DROP_TOLERANCE:
            continue
        counts[outer] += 1
        indices.append(inner)
        data.append(total)
    return [0, *accumulate(counts)], indices, data


def _resolve_selection(selection, length):
    """Turn an int, slice or iterable of ints into a list of valid indices."""
    if isinstance(selection, slice):
        return list(range(*selection.indices(length)))
    if isinstance(selection, int):
        selection = [selection]
    resolved = []
    for index in selection:
        if index < 0:
            index += length
        if not 0 <= index < length:
            raise IndexError(f"index {index} out of range for dimension {length}")
        resolved.append(index)
    return resolved


def _vector_operand(x, expected):
    """Return ``(dense_values, was_sparse)`` after checking the length."""
    sparse_input = isinstance(x, SparseVector)
    values = x.to_dense() if sparse_input else list(x)
    if len(values) != expected:
        raise ValueError(f"vector of length {len(values)} does not match {expected} columns")
    return values, sparse_input


def convert(matrix, fmt):
    """Convert ``matrix`` to the named format (``"coo"``, ``"csr"`` or ``"csc"``)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown sparse format {fmt!r}")
    return getattr(matrix, FORMATS[fmt])()


def as_csr(obj):
    """Coerce a sparse matrix or a dense list of rows to CSR."""
    if isinstance(obj, SparseMatrix):
        return obj.to_csr()
    if isinstance(obj, (list, tuple)):
        return COOMatrix.from_dense(obj).to_csr()
    raise TypeError(f"cannot interpret {type(obj).__name__} as a sparse matrix")


class SparseMatrix:
    """Behaviour shared by every storage format."""

    format = None

    def __init__(self, shape):
        self.shape = _check_shape(shape)

    @property
    def n_rows(self):
        return self.shape[0]

    @property
    def n_cols(self):
        return self.shape[1]

    @property
    def nnz(self):
        """Number of stored entries (COO may still hold duplicates)."""
        return len(self.data)

    def to_dense(self):
        """Return a list of row lists."""
        dense = [[0.0] * self.n_cols for _ in range(self.n_rows)]
        for i, j, value in self.triplets():
            dense[i][j] += value
        return dense

    def norm(self, ord="fro"):
        """Frobenius (``"fro"``), max-abs (``"max"``), 1- or inf-norm."""
        csr = self.to_csr()
        if ord == "fro":
            return math.sqrt(math.fsum(v * v for v in csr.data))
        if ord == "max":
            return float(max((abs(v) for v in csr.data), default=0.0))
        if ord == 1 or ord == math.inf:
            # 1-norm: largest column sum (axis 1); inf-norm: largest row sum.
            axis = 1 if ord == 1 else 0
            sums = [0.0] * self.shape[axis]
            for triplet in csr.triplets():
                sums[triplet[axis]] += abs(triplet[2])
            return max(sums, default=0.0)
        raise ValueError(f"unsupported matrix norm {ord!r}; expected one of {SUPPORTED_NORMS}")

    def to_coo(self):
        rows, cols, data = zip(*self.triplets()) if self.nnz else ((), (), ())
        return COOMatrix(self.shape, rows, cols, data)

    def row(self, i):
        return self.to_csr().row(i)

    def col(self, j):
        return self.to_csc().col(j)

    def matvec(self, x):
        return self.to_csr().matvec(x)

    def diagonal(self):
        """The main diagonal as a dense list."""
        return [self.get(i, i) for i in range(min(self.shape))]

    def scale(self, alpha):
        if not is_scalar(alpha):
            raise TypeError(f"cannot scale a matrix by {type(alpha).__name__}")
        if alpha == 0:
            return convert(COOMatrix(self.shape), self.format)
        return self._with_data([alpha * v for v in self.data])

    def is_symmetric(self, tol=0.0):
        if self.n_rows != self.n_cols:
            return False
        csr = self.to_csr()
        difference = csr.add(csr.transpose(), -1)
        return difference.norm("max") <= tol

    def __matmul__(self, other):
        if isinstance(other, SparseMatrix):
            return self.to_csr().matmat(other)
        return self.matvec(other)

    def __add__(self, other):
        if not isinstance(other, SparseMatrix):
            return NotImplemented
        return self.to_csr().add(other)

    def __sub__(self, other):
        if not isinstance(other, SparseMatrix):
            return NotImplemented
        return self.to_csr().add(other, -1)

    def __mul__(self, alpha):
        if not is_scalar(alpha):
            return NotImplemented
        return self.scale(alpha)

    __rmul__ = __mul__

    def __eq__(self, other):
        if not isinstance(other, SparseMatrix):
            return NotImplemented
        if self.shape != other.shape:
            return False
        a, b = self.to_csr(), other.to_csr()
        return (a.indptr, a.indices, a.data) == (b.indptr, b.indices, b.data)

    def __repr__(self):
        name = type(self).__name__
        return f"<{self.n_rows}x{self.n_cols} {name} with {self.nnz} stored entries>"


class COOMatrix(SparseMatrix):
    """Coordinate (triplet) storage; convenient for incremental construction."""

    format = "coo"

    def __init__(self, shape, rows=(), cols=(), data=()):
        super().__init__(shape)
        rows, cols, data = list(rows), list(cols), list(data)
        if not len(rows) == len(cols) == len(data):
            raise ValueError("rows, cols and data must have the same length")
        self.rows, self.cols, self.data = [], [], []
        for i, j, value in zip(rows, cols, data):
            self.append(i, j, value)

    @classmethod
    def from_dense(cls, dense):
        """Build from a list of equally long rows, skipping zeros."""
        n_rows = len(dense)
        n_cols = len(dense[0]) if n_rows else 0
        matrix = cls((n_rows, n_cols))
        for i, values in enumerate(dense):
            if len(values) != n_cols:
                raise ValueError(f"row {i} has {len(values)} entries, expected {n_cols}")
            for j, value in enumerate(values):
                if abs(value) > DROP_TOLERANCE:
                    matrix.append(i, j, value)
        return matrix

    def append(self, i, j, value):
        """Add one entry; duplicates are kept and summed on conversion."""
        if not (0 <= i < self.n_rows and 0 <= j < self.n_cols):
            raise IndexError(f"entry ({i}, {j}) lies outside shape {self.shape}")
        self.rows.append(i)
        self.cols.append(j)
        self.data.append(value)

    def triplets(self):
        return zip(self.rows, self.cols, self.data)

    def get(self, i, j):
        return self.to_csr().get(i, j)

    def _with_data(self, data):
        return COOMatrix(self.shape, self.rows, self.cols, data)

    def to_coo(self):
        return self

    def to_csr(self):
        indptr, indices, data = _compress(self.rows, self.cols, self.data, self.n_rows)
        return CSRMatrix(self.shape, indptr, indices, data, check=False)

    def to_csc(self):
        indptr, indices, data = _compress(self.cols, self.rows, self.data, self.n_cols)
        return CSCMatrix(self.shape, indptr, indices, data, check=False)

    def transpose(self):
        return COOMatrix((self.n_cols, self.n_rows), self.cols, self.rows, self.data)


class _CompressedMatrix(SparseMatrix):
    """Common machinery for CSR and CSC: ``indptr`` delimits each major slice.

    Pass ``check=False`` to skip validation of arrays that are known to be
    well formed (sorted, in range), as the conversion routines do.
    """

    def __init__(self, shape, indptr, indices, data, check=True):
        super().__init__(shape)
        self.indptr = list(indptr)
        self.indices = list(indices)
        self.data = list(data)
        if check:
            self._validate()

    def _validate(self):
        n_major, n_minor = self._dims()
        if len(self.indptr) != n_major + 1:
            raise ValueError(f"indptr must have {n_major + 1} entries, got {len(self.indptr)}")
        if len(self.indices) != len(self.data):
            raise ValueError("indices and data must have the same length")
        if self.indptr[0] != 0 or self.indptr[-1] != len(self.indices):
            raise ValueError("indptr must start at 0 and end at the number of entries")
        for k in range(n_major):
            start, end = self.indptr[k], self.indptr[k + 1]
            if start > end:
                raise ValueError("indptr must be non-decreasing")
            segment = self.indices[start:end]
            if any(a >= b for a, b in zip(segment, segment[1:])):
                raise ValueError(f"indices of slice {k} are not strictly increasing")
            if segment and (segment[0] < 0 or segment[-1] >= n_minor):
                raise IndexError(f"slice {k} has an index outside 0..{n_minor - 1}")

    def _lookup(self, major, minor):
        start, end = self.indptr[major], self.indptr[major + 1]
        pos = bisect.bisect_left(self.indices, minor, start, end)
        if pos < end and self.indices[pos] == minor:
            return self.data[pos]
        return 0.0

    def _slice_vector(self, major):
        n_major, n_minor = self._dims()
        (major,) = _resolve_selection(major, n_major)
        start, end = self.indptr[major], self.indptr[major + 1]
        return SparseVector(n_minor, zip(self.indices[start:end], self.data[start:end]))

    def _with_data(self, data):
        return type(self)(self.shape, self.indptr, self.indices, data, check=False)


class CSRMatrix(_CompressedMatrix):
    """Compressed sparse row storage: fast row access and matrix-vector products."""

    format = "csr"

    def _dims(self):
        return self.shape

    def triplets(self):
        for i in range(self.n_rows):
            for k in range(self.indptr[i], self.indptr[i + 1]):
                yield i, self.indices[k], self.data[k]

    def get(self, i, j):
        return self._lookup(i, j)

    def row(self, i):
        """Row ``i`` as a :class:`SparseVector`."""
        return self._slice_vector(i)

    def to_csr(self):
        return self

    def to_csc(self):
        # Counting sort by column; walking rows in order keeps each column sorted.
        counts = [0] * self.n_cols
        for j in self.indices:
            counts[j] += 1
        indptr = [0, *accumulate(counts)]
        next_slot = indptr[:-1]
        indices = [0] * self.nnz
        data = [0] * self.nnz
        for i, j, value in self.triplets():
            slot = next_slot[j]
            indices[slot] = i
            data[slot] = value
            next_slot[j] += 1
        return CSCMatrix(self.shape, indptr, indices, data, check=False)

    def transpose(self):
        """The transpose shares this matrix's arrays, reinterpreted as CSC."""
        return CSCMatrix((self.n_cols, self.n_rows), self.indptr, self.indices, self.data, check=False)

    def matvec(self, x):
        """``A @ x``; returns a SparseVector for sparse input, else a list."""
        dense_x, sparse_input = _vector_operand(x, self.n_cols)
        result = [0.0] * self.n_rows
        for i in range(self.n_rows):
            acc = 0.0
            for k in range(self.indptr[i], self.indptr[i + 1]):
                acc += self.data[k] * dense_x[self.indices[k]]
            result[i] = acc
        return SparseVector.from_dense(result) if sparse_input else result

    def matmat(self, other):
        """Sparse product ``self @ other`` by row-wise accumulation (Gustavson)."""
        other = as_csr(other)
        if self.n_cols != other.n_rows:
            raise ValueError(f"cannot multiply {self.shape} by {other.shape}")
        indptr, indices, data = [0], [], []
        for i in range(self.n_rows):
            acc = {}
            for k in range(self.indptr[i], self.indptr[i + 1]):
                a, middle = self.data[k], self.indices[k]
                for kk in range(other.indptr[middle], other.indptr[middle + 1]):
                    col = other.indices[kk]
                    acc[col] = acc.get(col, 0) + a * other.data[kk]
            for col in sorted(acc):
                if abs(acc[col]) > DROP_TOLERANCE:
                    indices.append(col)
                    data.append(acc[col])
            indptr.append(len(indices))
        return CSRMatrix((self.n_rows, other.n_cols), indptr, indices, data, check=False)

    def add(self, other, alpha=1):
        """Return ``self + alpha * other`` by merging the sorted rows."""
        other = as_csr(other)
        if other.shape != self.shape:
            raise ValueError(f"cannot add {self.shape} and {other.shape}")
        sentinel = self.n_cols
        indptr, indices, data = [0], [], []
        for i in range(self.n_rows):
            p, p_end = self.indptr[i], self.indptr[i + 1]
            q, q_end = other.indptr[i], other.indptr[i + 1]
            while p < p_end or q < q_end:
                a_col = self.indices[p] if p < p_end else sentinel
                b_col = other.indices[q] if q < q_end else sentinel
                if a_col < b_col:
                    col, value = a_col, self.data[p]
                    p += 1
                elif b_col < a_col:
                    col, value = b_col, alpha * other.data[q]
                    q += 1
                else:
                    col, value = a_col, self.data[p] + alpha * other.data[q]
                    p += 1
                    q += 1
                if abs(value) > DROP_TOLERANCE:
                    indices.append(col)
                    data.append(value)
            indptr.append(len(indices))
        return CSRMatrix(self.shape, indptr, indices, data, check=False)

    def select_rows(self, selection):
        """Sub-matrix made of the selected rows (slice, int or list of ints)."""
        chosen = _resolve_selection(selection, self.n_rows)
        indptr, indices, data = [0], [], []
        for i in chosen:
            start, end = self.indptr[i], self.indptr[i + 1]
            indices.extend(self.indices[start:end])
            data.extend(self.data[start:end])
            indptr.append(len(indices))
        return CSRMatrix((len(chosen), self.n_cols), indptr, indices, data, check=False)

    def select_cols(self, selection):
        """Sub-matrix made of the selected columns; repeats are allowed."""
        chosen = _resolve_selection(selection, self.n_cols)
        targets = {}
        for new, old in enumerate(chosen):
            targets.setdefault(old, []).append(new)
        indptr, indices, data = [0], [], []
        for i in range(self.n_rows):
            picked = []
            for k in range(self.indptr[i], self.indptr[i + 1]):
                for new in targets.get(self.indices[k], ()):
                    picked.append((new, self.data[k]))
            picked.sort()
            indices.extend(new for new, _ in picked)
            data.extend(value for _, value in picked)
            indptr.append(len(indices))
        return CSRMatrix((self.n_rows, len(chosen)), indptr, indices, data, check=False)

    def tril(self, k=0):
        """Lower triangle: the entries with ``j - i <= k``."""
        indptr, indices, data = [0], [], []
        for i in range(self.n_rows):
            start, end = self.indptr[i], self.indptr[i + 1]
            # Column indices are sorted, so the cut point can be bisected.
            cut = bisect.bisect_right(self.indices, i + k, start, end)
            indices.extend(self.indices[start:cut])
            data.extend(self.data[start:cut])
            indptr.append(len(indices))
        return CSRMatrix(self.shape, indptr, indices, data, check=False)


class CSCMatrix(_CompressedMatrix):
    """Compressed sparse column storage: fast column access."""

    format = "csc"

    def _dims(self):
        return (self.n_cols, self.n_rows)

    def triplets(self):
        for j in range(self.n_cols):
            for k in range(self.indptr[j], self.indptr[j + 1]):
                yield self.indices[k], j, self.data[k]

    def get(self, i, j):
        return self._lookup(j, i)

    def col(self, j):
        """Column ``j`` as a :class:`SparseVector`."""
        return self._slice_vector(j)

    def to_csc(self):
        return self

    def transpose(self):
        return CSRMatrix((self.n_cols, self.n_rows), self.indptr, self.indices, self.data, check=False)

    def to_csr(self):
        # The CSC arrays of A are the CSR arrays of Aᵀ; re-compressing Aᵀ by
        # column yields the CSR arrays of A.
        return self.transpose().to_csc().transpose()

    def matvec(self, x):
        """Column-oriented product: each column is scaled by ``x[j]``."""
        dense_x, sparse_input = _vector_operand(x, self.n_cols)
        result = [0.0] * self.n_rows
        for j, factor in enumerate(dense_x):
            for k in range(self.indptr[j], self.indptr[j + 1]):
                result[self.indices[k]] += self.data[k] * factor
        return SparseVector.from_dense(result) if sparse_input else result


def identity(n, fmt="csr"):
    """The ``n``×``n`` identity matrix."""
    return convert(COOMatrix((n, n), range(n), range(n), [1.0] * n), fmt)


def diags(diagonals, offsets=0, shape=None, fmt="csr"):
    """Build a matrix from diagonals.

    ``diagonals`` is a list of sequences matched with ``offsets``; a single
    diagonal may be given together with a single int offset.
    """
    if isinstance(offsets, int):
        diagonals, offsets = [diagonals], [offsets]
    if not offsets or len(diagonals) != len(offsets):
        raise ValueError("need one diagonal per offset and at least one of each")
    if shape is None:
        n = max(len(d) + abs(o) for d, o in zip(diagonals, offsets))
        shape = (n, n)
    matrix = COOMatrix(shape)
    for values, offset in zip(diagonals, offsets):
        row0, col0 = (0, offset) if offset >= 0 else (-offset, 0)
        length = max(0, min(matrix.n_rows - row0, matrix.n_cols - col0))
        if len(values) != length:
            raise ValueError(f"diagonal {offset} needs {length} values, got {len(values)}")
        for k, value in enumerate(values):
            matrix.append(row0 + k, col0 + k, value)
    return convert(matrix, fmt)
