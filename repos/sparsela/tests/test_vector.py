import math

import pytest

from sparsela import SparseVector
from sparsela.vector import is_scalar


def test_is_scalar_rejects_bools_and_strings():
    assert is_scalar(3) and is_scalar(2.5)
    assert not is_scalar(True)
    assert not is_scalar("3")


@pytest.mark.parametrize("size", [-1, 2.0, True, "4"])
def test_invalid_size_rejected(size):
    with pytest.raises(ValueError):
        SparseVector(size)


def test_constructor_sums_duplicates_and_drops_cancelled_entries():
    v = SparseVector(5, [(0, 1.5), (3, 2.0), (0, 2.5), (3, -2.0), (-1, 7)])
    assert v.items() == [(0, 4.0), (4, 7)]
    assert v.nnz == 2
    w = SparseVector(3, {2: 1.0, 0: -1.0})
    assert w.to_dense() == [-1.0, 0.0, 1.0]
    assert SparseVector(3).nnz == 0


def test_from_dense_skips_zeros():
    v = SparseVector.from_dense([0, 3, 0.0, -2])
    assert v.size == 4
    assert v.items() == [(1, 3), (3, -2)]


def test_indexing_negative_and_errors():
    v = SparseVector(4, {1: 5.0})
    assert v[1] == 5.0
    assert v[-3] == 5.0
    assert v[0] == 0.0
    with pytest.raises(IndexError):
        v[4]
    with pytest.raises(IndexError):
        v[-5]
    with pytest.raises(TypeError):
        v[1.0]
    with pytest.raises(TypeError):
        v[True]


def test_setitem_zero_removes_entry():
    v = SparseVector(3)
    v[2] = 4.0
    v[-3] = 1.0
    assert v.items() == [(0, 1.0), (2, 4.0)]
    v[2] = 0
    assert v.items() == [(0, 1.0)]
    v[1] = 0  # assigning zero to an absent entry is harmless
    assert v.nnz == 1


def test_copy_is_independent():
    v = SparseVector(3, {0: 1.0})
    c = v.copy()
    c[1] = 2.0
    assert v.nnz == 1 and c.nnz == 2


@pytest.mark.parametrize("swap", [False, True])
def test_dot_product_either_sparsity_order(swap):
    a = SparseVector(6, {0: 2.0, 3: 1.0})
    b = SparseVector(6, {0: 3.0, 1: 5.0, 2: 7.0, 3: -4.0, 5: 1.0})
    if swap:
        a, b = b, a
    assert a.dot(b) == pytest.approx(2.0)


def test_dot_skips_indices_missing_from_the_denser_operand():
    a = SparseVector(5, {1: 2.0, 4: 3.0})
    b = SparseVector(5, {0: 1.0, 1: 4.0, 2: 1.0})
    assert a.dot(b) == 8.0
    assert b.dot(a) == 8.0


def test_dot_checks_operands():
    v = SparseVector(3)
    with pytest.raises(TypeError):
        v.dot([1, 2, 3])
    with pytest.raises(ValueError):
        v.dot(SparseVector(4))


def test_axpy_add_sub():
    a = SparseVector(4, {0: 1.0, 2: 2.0})
    b = SparseVector(4, {2: 2.0, 3: 1.0})
    assert a.axpy(3, b).items() == [(0, 1.0), (2, 8.0), (3, 3.0)]
    assert (a + b).to_dense() == [1.0, 0.0, 4.0, 1.0]
    assert (a - b).items() == [(0, 1.0), (3, -1.0)]
    same = a.axpy(0, b)
    assert same == a and same is not a


def test_scale_and_multiplication_operators():
    v = SparseVector(3, {0: 2.0, 2: -1.0})
    assert (v * 3).items() == [(0, 6.0), (2, -3.0)]
    assert (0.5 * v).items() == [(0, 1.0), (2, -0.5)]
    assert v.scale(0).nnz == 0
    with pytest.raises(TypeError, match="cannot scale"):
        v.scale("2")
    with pytest.raises(TypeError, match="unsupported operand"):
        v * None
    with pytest.raises(TypeError, match="unsupported operand"):
        v * v


def test_norms():
    v = SparseVector(5, {0: 3.0, 2: -4.0})
    assert v.norm() == pytest.approx(5.0)
    assert v.norm(1) == pytest.approx(7.0)
    assert v.norm(math.inf) == 4.0
    assert v.norm(3) == pytest.approx((27 + 64) ** (1 / 3))
    assert SparseVector(3).norm() == 0.0


def test_two_norm_does_not_overflow():
    v = SparseVector(2, {0: 3e200, 1: 4e200})
    assert v.norm() == pytest.approx(5e200)


@pytest.mark.parametrize("bad", [0, -2, "fro"])
def test_invalid_norm_order(bad):
    with pytest.raises(ValueError):
        SparseVector(2, {0: 1.0}).norm(bad)


def test_largest_breaks_ties_by_index():
    v = SparseVector(6, {5: -3.0, 1: 3.0, 2: 0.5, 4: 2.0})
    assert v.largest(2) == [1, 5]
    assert v.largest(3) == [1, 5, 4]
    assert v.largest(10) == [1, 5, 4, 2]
    assert v.largest(0) == []
    with pytest.raises(ValueError):
        v.largest(-1)


def test_equality_and_repr():
    v = SparseVector(3, {1: 2.0})
    assert v == SparseVector.from_dense([0, 2.0, 0])
    assert v != SparseVector(4, {1: 2.0})
    assert v != SparseVector(3, {1: 2.5})
    assert (v == [0, 2.0, 0]) is False
    assert repr(SparseVector(3, {2: 1.5, 0: 1})) == "SparseVector(3, {0: 1, 2: 1.5})"
