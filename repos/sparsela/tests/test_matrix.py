import math

import pytest

from sparsela import COOMatrix, CSCMatrix, CSRMatrix, SparseVector, as_csr, convert, diags, identity

DENSE = [
    [1.0, 0.0, 2.0, 0.0],
    [0.0, 0.0, 3.0, 0.0],
    [4.0, 5.0, 0.0, -6.0],
]


def sample(fmt="csr"):
    return convert(COOMatrix.from_dense(DENSE), fmt)


@pytest.mark.parametrize("shape", [(2,), (-1, 2), (2.0, 2), (1, 2, 3)])
def test_invalid_shapes(shape):
    with pytest.raises(ValueError):
        COOMatrix(shape)


def test_coo_duplicates_are_summed_on_conversion():
    coo = COOMatrix((2, 3), [1, 0, 1, 0, 1], [2, 1, 2, 0, 0], [1.0, 2.0, 4.0, 3.0, 0.0])
    coo.append(0, 0, -3.0)
    assert coo.nnz == 6
    csr = coo.to_csr()
    assert csr.indptr == [0, 1, 2]
    assert csr.indices == [1, 2]
    assert csr.data == [2.0, 5.0]
    csc = coo.to_csc()
    assert csc.indptr == [0, 0, 1, 2]
    assert csc.indices == [0, 1]
    assert coo.get(1, 2) == 5.0
    assert coo.to_dense() == [[0.0, 2.0, 0.0], [0.0, 0.0, 5.0]]


def test_coo_construction_errors():
    with pytest.raises(ValueError):
        COOMatrix((2, 2), [0, 1], [0], [1.0, 2.0])
    with pytest.raises(IndexError):
        COOMatrix((2, 2), [2], [0], [1.0])
    with pytest.raises(IndexError):
        COOMatrix((2, 2)).append(0, -1, 1.0)
    with pytest.raises(ValueError):
        COOMatrix.from_dense([[1, 2], [3]])
    coo = COOMatrix.from_dense(DENSE)
    assert coo.nnz == 6
    assert coo.rows == [0, 0, 1, 2, 2, 2]
    assert coo.cols == [0, 2, 2, 0, 1, 3]
    empty = COOMatrix.from_dense([])
    assert empty.shape == (0, 0) and empty.nnz == 0


@pytest.mark.parametrize("fmt", ["coo", "csr", "csc"])
def test_round_trip_through_every_format(fmt):
    m = sample(fmt)
    assert m.format == fmt
    assert m.to_dense() == DENSE
    for other in ("coo", "csr", "csc"):
        assert convert(m, other).to_dense() == DENSE
        assert convert(m, other) == m


def test_csr_to_csc_arrays_sorted_by_row():
    csc = sample().to_csc()
    assert csc.indptr == [0, 2, 3, 5, 6]
    assert csc.indices == [0, 2, 2, 0, 1, 2]
    assert csc.data == [1.0, 4.0, 5.0, 2.0, 3.0, -6.0]
    back = csc.to_csr()
    assert back.indptr == [0, 2, 3, 6]
    assert back.indices == [0, 2, 2, 0, 1, 3]


def test_convert_and_as_csr_errors():
    with pytest.raises(ValueError):
        convert(sample(), "dia")
    with pytest.raises(TypeError, match="cannot interpret str"):
        as_csr("matrix")
    with pytest.raises(TypeError, match="cannot interpret int"):
        as_csr(42)
    assert as_csr(DENSE).to_dense() == DENSE
    assert as_csr(tuple(DENSE)).nnz == 6
    assert as_csr(sample("csc")).format == "csr"


def test_get_and_rows_and_columns():
    for fmt in ("coo", "csr", "csc"):
        m = sample(fmt)
        assert m.get(2, 3) == -6.0
        assert m.get(1, 1) == 0.0
        assert m.get(2, 0) == 4.0
        assert m.row(2).items() == [(0, 4.0), (1, 5.0), (3, -6.0)]
        assert m.row(-1) == m.row(2)
        assert m.col(2).items() == [(0, 2.0), (1, 3.0)]
        assert m.col(1).items() == [(2, 5.0)]
    with pytest.raises(IndexError):
        sample().row(3)


def test_transpose_all_formats():
    expected = [list(col) for col in zip(*DENSE)]
    for fmt in ("coo", "csr", "csc"):
        t = sample(fmt).transpose()
        assert t.shape == (4, 3)
        assert t.to_dense() == expected


def test_norms():
    m = sample()
    assert m.norm() == pytest.approx(math.sqrt(1 + 4 + 9 + 16 + 25 + 36))
    assert m.norm("fro") == m.norm()
    assert m.norm("max") == 6.0
    assert m.norm(1) == 6.0
    assert m.norm(math.inf) == 15.0
    assert sample("coo").norm(1) == 6.0
    empty = COOMatrix((0, 3))
    assert empty.norm(1) == 0.0 and empty.norm(math.inf) == 0.0 and empty.norm("max") == 0.0
    with pytest.raises(ValueError):
        m.norm(2)


@pytest.mark.parametrize("fmt", ["coo", "csr", "csc"])
def test_matvec_dense_and_sparse(fmt):
    m = sample(fmt)
    x = [1.0, 2.0, 0.0, -1.0]
    assert m.matvec(x) == [1.0, 0.0, 20.0]
    result = m @ SparseVector(4, {2: 1.0})
    assert isinstance(result, SparseVector)
    assert result.items() == [(0, 2.0), (1, 3.0)]
    with pytest.raises(ValueError):
        m.matvec([1.0, 2.0])
    with pytest.raises(ValueError):
        m.matvec(SparseVector(3))


def test_matmat_against_dense_product():
    a = sample()
    b = COOMatrix.from_dense([[1, 0], [0, 2], [1, 1], [0, -1]])
    expected = [[3.0, 2.0], [3.0, 3.0], [4.0, 16.0]]
    assert (a @ b).to_dense() == expected
    assert (sample("csc") @ b.to_csc()).to_dense() == expected
    assert a.matmat([[1, 0], [0, 2], [1, 1], [0, -1]]).to_dense() == expected
    with pytest.raises(ValueError):
        a @ a


def test_matmat_drops_cancelled_entries():
    a = CSRMatrix((1, 2), [0, 2], [0, 1], [1.0, 1.0])
    b = COOMatrix.from_dense([[2.0, 1.0], [-2.0, 3.0]])
    product = a @ b
    assert product.indices == [1]
    assert product.data == [4.0]


def test_add_merges_rows():
    a = COOMatrix.from_dense([[1, 0, 2], [0, 0, 0], [3, 4, 0]]).to_csr()
    b = COOMatrix.from_dense([[0, 5, -2], [6, 0, 0], [1, 0, 7]]).to_csr()
    total = a + b
    assert total.to_dense() == [[1, 5, 0], [6, 0, 0], [4, 4, 7]]
    assert total.indices == [0, 1, 0, 0, 1, 2]
    diff = a - b
    assert diff.to_dense() == [[1, -5, 4], [-6, 0, 0], [2, 4, -7]]
    assert a.add(b, alpha=2).to_dense() == [[1, 10, -2], [12, 0, 0], [5, 4, 14]]
    assert (a - a).nnz == 0
    with pytest.raises(ValueError):
        a + identity(2)


def test_operators_reject_non_matrices():
    m = sample()
    with pytest.raises(TypeError, match="unsupported operand"):
        m + 1
    with pytest.raises(TypeError, match="unsupported operand"):
        m - [1]
    with pytest.raises(TypeError, match="unsupported operand"):
        m * None
    with pytest.raises(TypeError, match="unsupported operand"):
        m * m
    assert (m == "m") is False


def test_scale_keeps_format():
    for fmt in ("coo", "csr", "csc"):
        m = sample(fmt)
        doubled = 2 * m
        assert doubled.format == fmt
        assert doubled.get(2, 3) == -12.0
        zero = m * 0
        assert zero.format == fmt and zero.nnz == 0 and zero.shape == (3, 4)
    with pytest.raises(TypeError, match="cannot scale a matrix by NoneType"):
        sample().scale(None)
    with pytest.raises(TypeError, match="cannot scale a matrix by str"):
        sample().scale("2")


def test_equality_rules():
    assert sample() != sample().transpose()
    assert sample("coo") == sample("csc")
    other = COOMatrix.from_dense(DENSE)
    other.append(0, 0, 1.0)
    assert other != sample()
    assert COOMatrix((2, 3)) != COOMatrix((3, 2))
    assert COOMatrix((2, 3)) != COOMatrix((2, 4))
    assert COOMatrix((2, 3)) == CSRMatrix((2, 3), [0, 0, 0], [], [])


def test_diagonal_and_symmetry():
    assert sample().diagonal() == [1.0, 0.0, 0.0]
    sym = COOMatrix.from_dense([[2, 1, 0], [1, 3, 0], [0, 0, 1]])
    assert sym.is_symmetric()
    nearly = COOMatrix.from_dense([[2, 1.0], [1.001, 3]])
    assert not nearly.is_symmetric()
    assert nearly.is_symmetric(tol=0.01)
    assert not sample().is_symmetric()


def test_select_rows_and_columns():
    m = sample()
    rows = m.select_rows([2, 0, -1])
    assert rows.to_dense() == [DENSE[2], DENSE[0], DENSE[2]]
    assert m.select_rows(slice(1, None)).to_dense() == DENSE[1:]
    assert m.select_rows(1).to_dense() == [DENSE[1]]
    cols = m.select_cols([3, 0, 0])
    assert cols.to_dense() == [[0.0, 1.0, 1.0], [0.0, 0.0, 0.0], [-6.0, 4.0, 4.0]]
    assert cols.indices == [1, 2, 0, 1, 2]
    assert m.select_cols(slice(None, None, 2)).to_dense() == [[1.0, 2.0], [0.0, 3.0], [4.0, 0.0]]
    with pytest.raises(IndexError):
        m.select_cols([4])
    with pytest.raises(IndexError):
        m.select_rows([-4])


def test_tril():
    m = COOMatrix.from_dense([[1, 2, 3], [4, 5, 6], [7, 8, 9]]).to_csr()
    assert m.tril().to_dense() == [[1, 0, 0], [4, 5, 0], [7, 8, 9]]
    assert m.tril(-1).to_dense() == [[0, 0, 0], [4, 0, 0], [7, 8, 0]]
    assert m.tril(1).to_dense() == [[1, 2, 0], [4, 5, 6], [7, 8, 9]]


@pytest.mark.parametrize(
    "indptr, indices, data, error",
    [
        ([0, 1], [0], [1.0], ValueError),
        ([0, 1, 2], [0, 1], [1.0], ValueError),
        ([1, 1, 2], [0, 1], [1.0, 2.0], ValueError),
        ([0, 1, 1], [0, 1], [1.0, 2.0], ValueError),
        ([0, 2, 2], [1, 1], [1.0, 2.0], ValueError),
        ([0, 2, 2], [1, 0], [1.0, 2.0], ValueError),
        ([0, 1, 2], [0, 3], [1.0, 2.0], IndexError),
        ([0, 1, 2], [-1, 0], [1.0, 2.0], IndexError),
    ],
)
def test_compressed_validation(indptr, indices, data, error):
    with pytest.raises(error):
        CSRMatrix((2, 3), indptr, indices, data)


def test_compressed_validation_rejects_decreasing_pointers():
    with pytest.raises(ValueError, match="non-decreasing"):
        CSRMatrix((3, 3), [0, 2, 1, 2], [0, 1], [1.0, 2.0])


def test_compressed_validation_accepts_good_input():
    m = CSRMatrix((2, 3), [0, 2, 2], [0, 2], [1.0, 2.0])
    assert m.to_dense() == [[1.0, 0.0, 2.0], [0.0, 0.0, 0.0]]
    c = CSCMatrix((3, 2), [0, 2, 2], [0, 2], [1.0, 2.0])
    assert c.to_dense() == [[1.0, 0.0], [0.0, 0.0], [2.0, 0.0]]
    with pytest.raises(IndexError):
        CSCMatrix((2, 3), [0, 1, 1, 1], [2], [1.0])


def test_unchecked_construction_trusts_the_caller():
    unsorted = CSRMatrix((1, 3), [0, 2], [2, 0], [5.0, 6.0], check=False)
    assert unsorted.indices == [2, 0]
    assert unsorted.matvec([1.0, 0.0, 1.0]) == [11.0]


def test_identity_and_diags():
    assert identity(3, fmt="csc").to_dense() == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    tri = diags([[1, 1], [2, 2, 2], [3, 3]], [-1, 0, 1])
    assert tri.format == "csr"
    assert tri.to_dense() == [[2, 3, 0], [1, 2, 3], [0, 1, 2]]
    single = diags([5, 6], 1)
    assert single.shape == (3, 3)
    assert single.to_dense() == [[0, 5, 0], [0, 0, 6], [0, 0, 0]]
    rect = diags([[1, 2], [9]], [0, -2], shape=(3, 2), fmt="coo")
    assert rect.to_dense() == [[1, 0], [0, 2], [9, 0]]
    wide = diags([7], 3, shape=(2, 4))
    assert wide.to_dense() == [[0, 0, 0, 7], [0, 0, 0, 0]]
    assert diags([], 5, shape=(2, 4)).nnz == 0
    with pytest.raises(ValueError):
        diags([[1, 2]], [0, 1])
    with pytest.raises(ValueError):
        diags([], [])
    with pytest.raises(ValueError):
        diags([1, 2, 3], 0, shape=(2, 2))


def test_repr_mentions_shape_and_entries():
    assert repr(sample("csc")) == "<3x4 CSCMatrix with 6 stored entries>"
