import pytest

from sparsela import (
    COOMatrix,
    ConvergenceError,
    SingularMatrixError,
    SparseVector,
    conjugate_gradient,
    diags,
    gauss_seidel,
    identity,
    jacobi,
    residual_norm,
    solve,
    solve_triangular,
)

N = 6
EXACT = [1.0, -2.0, 0.5, 3.0, 0.0, 1.5]


def laplacian(n=N):
    return diags([[-1.0] * (n - 1), [4.0] * n, [-1.0] * (n - 1)], [-1, 0, 1])


def rhs():
    return laplacian().matvec(EXACT)


def test_residual_norm():
    a = laplacian()
    assert residual_norm(a, EXACT, rhs()) == pytest.approx(0.0, abs=1e-12)
    assert residual_norm(identity(2), [1.0, 1.0], [4.0, 5.0]) == pytest.approx(5.0)
    with pytest.raises(ValueError):
        residual_norm(identity(2), [1.0], [1.0, 1.0])


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_conjugate_gradient_solves_spd_system(fmt):
    a = laplacian().to_coo() if fmt == "coo" else laplacian().to_csc() if fmt == "csc" else laplacian()
    result = conjugate_gradient(a, rhs())
    assert result.converged
    assert result.x == pytest.approx(EXACT, abs=1e-8)
    assert 0 < result.iterations <= N
    assert len(result.history) == result.iterations + 1
    assert result.history[0] == pytest.approx(1.0)
    assert result.residual <= 1e-10


def test_conjugate_gradient_special_cases():
    a = laplacian()
    zero = conjugate_gradient(a, [0.0] * N)
    assert zero.x == [0.0] * N and zero.iterations == 0 and zero.converged
    warm = conjugate_gradient(a, rhs(), x0=EXACT)
    assert warm.iterations == 0 and warm.converged
    assert warm.x == pytest.approx(EXACT)
    sparse_b = SparseVector.from_dense(rhs())
    assert conjugate_gradient(a, sparse_b).x == pytest.approx(EXACT, abs=1e-8)


def test_conjugate_gradient_iteration_limit():
    a = laplacian()
    limited = conjugate_gradient(a, rhs(), maxiter=2)
    assert not limited.converged
    assert limited.iterations == 2
    assert limited.residual > 1e-10
    with pytest.raises(ConvergenceError, match="conjugate gradient"):
        conjugate_gradient(a, rhs(), maxiter=1, raise_on_failure=True)


def test_conjugate_gradient_rejects_indefinite_matrix():
    with pytest.raises(ValueError, match="positive definite"):
        conjugate_gradient(diags([-1.0, -2.0], 0), [1.0, 1.0])


def test_solvers_require_square_matrix_and_matching_vectors():
    rect = COOMatrix.from_dense([[1, 0, 0], [0, 1, 0]])
    with pytest.raises(ValueError, match="square"):
        conjugate_gradient(rect, [1.0, 1.0])
    with pytest.raises(ValueError, match="right-hand side"):
        jacobi(identity(3), [1.0, 1.0])
    with pytest.raises(ValueError, match="initial guess"):
        gauss_seidel(identity(3), [1.0, 1.0, 1.0], x0=[0.0])


def test_jacobi_and_gauss_seidel_first_sweep_differ():
    a = COOMatrix.from_dense([[2.0, 1.0], [1.0, 2.0]])
    jac = jacobi(a, [3.0, 3.0], maxiter=1)
    assert jac.x == pytest.approx([1.5, 1.5])
    gs = gauss_seidel(a, [3.0, 3.0], maxiter=1)
    assert gs.x == pytest.approx([1.5, 0.75])
    assert jac.iterations == gs.iterations == 1
    assert not jac.converged and not gs.converged
    assert len(gs.history) == 2


@pytest.mark.parametrize("method", [jacobi, gauss_seidel])
def test_stationary_methods_converge(method):
    result = method(laplacian(), rhs(), tol=1e-12)
    assert result.converged
    assert result.x == pytest.approx(EXACT, abs=1e-9)
    assert result.history[-1] <= 1e-12 < result.history[0]


def test_gauss_seidel_needs_fewer_sweeps_than_jacobi():
    a, b = laplacian(), rhs()
    assert gauss_seidel(a, b).iterations < jacobi(a, b).iterations


def test_over_relaxation_changes_the_iterates():
    a = COOMatrix.from_dense([[2.0, 1.0], [1.0, 2.0]])
    sor = gauss_seidel(a, [3.0, 3.0], omega=1.5, maxiter=1)
    # x0 = 1.5 * 1.5; x1 = -0.5 * 0 + 1.5 * (3 - 2.25) / 2
    assert sor.x == pytest.approx([2.25, 0.5625])
    assert gauss_seidel(a, [3.0, 3.0], omega=1.1).converged
    for omega in (0.0, 2.0, -1.0):
        with pytest.raises(ValueError, match="relaxation"):
            gauss_seidel(a, [3.0, 3.0], omega=omega)


def test_stationary_methods_with_zero_rhs_and_warm_start():
    result = jacobi(laplacian(), [0.0] * N)
    assert result.iterations == 0 and result.converged
    warm = gauss_seidel(laplacian(), rhs(), x0=EXACT)
    assert warm.iterations == 0


def test_zero_diagonal_is_singular():
    a = COOMatrix.from_dense([[0.0, 1.0], [1.0, 2.0]])
    with pytest.raises(SingularMatrixError, match="row 0"):
        jacobi(a, [1.0, 1.0])
    with pytest.raises(SingularMatrixError):
        gauss_seidel(COOMatrix.from_dense([[1.0, 1.0], [1.0, 0.0]]), [1.0, 1.0])


def test_stationary_failure_can_raise():
    with pytest.raises(ConvergenceError, match="Jacobi did not converge in 3"):
        jacobi(laplacian(), rhs(), maxiter=3, raise_on_failure=True)


def test_lower_triangular_solve():
    lower = COOMatrix.from_dense([[2, 0, 0], [1, 4, 0], [0, -1, 5]])
    x = [1.0, 2.0, -1.0]
    b = lower.matvec(x)
    assert solve_triangular(lower, b) == pytest.approx(x)
    assert solve_triangular(laplacian().tril(), [4.0] * N)[0] == pytest.approx(1.0)


def test_upper_triangular_solve():
    upper = COOMatrix.from_dense([[2, 1, 3], [0, 4, -1], [0, 0, 5]])
    x = [1.0, -1.0, 2.0]
    assert solve_triangular(upper, upper.matvec(x), lower=False) == pytest.approx(x)


def test_unit_diagonal_ignores_stored_diagonal():
    lower = COOMatrix.from_dense([[7, 0], [2, 9]])
    assert solve_triangular(lower, [1.0, 4.0], unit_diagonal=True) == pytest.approx([1.0, 2.0])
    no_diag = COOMatrix.from_dense([[0, 0], [3, 0]])
    assert solve_triangular(no_diag, [2.0, 7.0], unit_diagonal=True) == pytest.approx([2.0, 1.0])


def test_triangular_solve_errors():
    full = COOMatrix.from_dense([[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="not lower triangular"):
        solve_triangular(full, [1.0, 1.0])
    with pytest.raises(ValueError, match="not upper triangular"):
        solve_triangular(full, [1.0, 1.0], lower=False)
    missing = COOMatrix.from_dense([[1, 0], [3, 0]])
    with pytest.raises(SingularMatrixError, match="row 1"):
        solve_triangular(missing, [1.0, 1.0])
    with pytest.raises(ValueError, match="square"):
        solve_triangular(COOMatrix((2, 3)), [1.0, 1.0])


def test_solve_dispatcher():
    a, b = laplacian(), rhs()
    assert solve(a, b) == pytest.approx(EXACT, abs=1e-8)
    assert solve(a, b, method="Gauss-Seidel", omega=1.2) == pytest.approx(EXACT, abs=1e-8)
    assert solve(a, b, method="JACOBI", tol=1e-12) == pytest.approx(EXACT, abs=1e-9)
    with pytest.raises(ConvergenceError):
        solve(a, b, method="jacobi", maxiter=2)
    assert len(solve(a, b, method="cg", maxiter=1, raise_on_failure=False)) == N
    with pytest.raises(ValueError, match="cg, gauss-seidel, jacobi"):
        solve(a, b, method="lu")
