"""Iterative and direct solvers for sparse linear systems ``A x = b``.

All solvers accept any sparse matrix (or a dense list of rows) for ``A`` and a
list or :class:`SparseVector` for ``b``; solutions are returned as dense lists.
"""

import math
from dataclasses import dataclass, field

from .matrix import as_csr
from .vector import SparseVector

DEFAULT_TOL = 1e-10
DEFAULT_MAXITER = 500


class ConvergenceError(RuntimeError):
    """Raised when an iterative method exhausts its iteration budget."""


class SingularMatrixError(ValueError):
    """Raised when a zero pivot makes the requested method impossible."""


@dataclass
class SolveResult:
    """Outcome of an iterative solve; ``residual`` is relative to ``‖b‖``."""

    x: list
    iterations: int
    residual: float
    converged: bool
    history: list = field(default_factory=list)


def _dense(values, n, name):
    values = values.to_dense() if isinstance(values, SparseVector) else [float(v) for v in values]
    if len(values) != n:
        raise ValueError(f"{name} has length {len(values)}, expected {n}")
    return values


def _norm2(values):
    return math.sqrt(math.fsum(v * v for v in values))


def _dot(u, v):
    return math.fsum(a * b for a, b in zip(u, v))


def _prepare(A, b, x0):
    A = as_csr(A)
    if A.n_rows != A.n_cols:
        raise ValueError(f"a square matrix is required, got shape {A.shape}")
    n = A.n_rows
    b = _dense(b, n, "right-hand side")
    x = [0.0] * n if x0 is None else _dense(x0, n, "initial guess")
    return A, b, x


def residual_norm(A, x, b):
    """Return ``‖b - A x‖₂``."""
    A = as_csr(A)
    b = _dense(b, A.n_rows, "right-hand side")
    ax = A.matvec(_dense(x, A.n_cols, "solution"))
    return _norm2([bi - ai for bi, ai in zip(b, ax)])


def _checked_diagonal(A):
    diagonal = A.diagonal()
    for i, value in enumerate(diagonal):
        if value == 0:
            raise SingularMatrixError(f"zero diagonal entry in row {i}")
    return diagonal


def _finish(method, x, iterations, residual, tol, history, raise_on_failure):
    converged = residual <= tol
    if not converged and raise_on_failure:
        raise ConvergenceError(
            f"{method} did not converge in {iterations} iterations (residual {residual:.3e})"
        )
    return SolveResult(x, iterations, residual, converged, history)


def conjugate_gradient(A, b, x0=None, tol=DEFAULT_TOL, maxiter=None, raise_on_failure=False):
    """Conjugate gradients for symmetric positive definite ``A``.

    Stops when ``‖r‖ / ‖b‖ <= tol``; ``maxiter`` defaults to ``10 n``.
    """
    A, b, x = _prepare(A, b, x0)
    n = A.n_rows
    if maxiter is None:
        maxiter = 10 * n
    b_norm = _norm2(b)
    if b_norm == 0.0:
        return SolveResult([0.0] * n, 0, 0.0, True, [0.0])
    r = [bi - ai for bi, ai in zip(b, A.matvec(x))]
    p = list(r)
    rr = _dot(r, r)
    history = [math.sqrt(rr) / b_norm]
    iterations = 0
    while history[-1] > tol and iterations < maxiter:
        ap = A.matvec(p)
        curvature = _dot(p, ap)
        if curvature <= 0.0:
            raise ValueError("matrix is not positive definite")
        alpha = rr / curvature
        for i in range(n):
            x[i] += alpha * p[i]
            r[i] -= alpha * ap[i]
        rr_next = _dot(r, r)
        beta = rr_next / rr
        p = [ri + beta * pi for ri, pi in zip(r, p)]
        rr = rr_next
        iterations += 1
        history.append(math.sqrt(rr) / b_norm)
    return _finish("conjugate gradient", x, iterations, history[-1], tol, history, raise_on_failure)


def _relative_residual(A, x, b, b_norm):
    return residual_norm(A, x, b) / b_norm


def _off_diagonal_sum(A, i, x):
    sigma = 0.0
    for k in range(A.indptr[i], A.indptr[i + 1]):
        j = A.indices[k]
        if j != i:
            sigma += A.data[k] * x[j]
    return sigma


def _stationary(name, sweep, A, b, x0, tol, maxiter, raise_on_failure):
    """Shared driver: apply ``sweep(A, b, x, diagonal) -> x`` until converged."""
    A, b, x = _prepare(A, b, x0)
    diagonal = _checked_diagonal(A)
    b_norm = _norm2(b) or 1.0
    history = [_relative_residual(A, x, b, b_norm)]
    iterations = 0
    while history[-1] > tol and iterations < maxiter:
        x = sweep(A, b, x, diagonal)
        iterations += 1
        history.append(_relative_residual(A, x, b, b_norm))
    return _finish(name, x, iterations, history[-1], tol, history, raise_on_failure)


def jacobi(A, b, x0=None, tol=DEFAULT_TOL, maxiter=DEFAULT_MAXITER, raise_on_failure=False):
    """Jacobi iteration; converges for strictly diagonally dominant ``A``."""

    def sweep(A, b, x, diagonal):
        return [(b[i] - _off_diagonal_sum(A, i, x)) / diagonal[i] for i in range(A.n_rows)]

    return _stationary("Jacobi", sweep, A, b, x0, tol, maxiter, raise_on_failure)


def gauss_seidel(A, b, x0=None, omega=1.0, tol=DEFAULT_TOL, maxiter=DEFAULT_MAXITER,
                 raise_on_failure=False):
    """Gauss-Seidel iteration, or successive over-relaxation when ``omega != 1``."""
    if not 0.0 < omega < 2.0:
        raise ValueError(f"relaxation factor must lie in (0, 2), got {omega}")

    def sweep(A, b, x, diagonal):
        # Updates happen in place, so later rows already see the new values.
        for i in range(A.n_rows):
            gs_value = (b[i] - _off_diagonal_sum(A, i, x)) / diagonal[i]
            x[i] = (1.0 - omega) * x[i] + omega * gs_value
        return x

    return _stationary("Gauss-Seidel", sweep, A, b, x0, tol, maxiter, raise_on_failure)


def solve_triangular(A, b, lower=True, unit_diagonal=False):
    """Forward (``lower=True``) or backward substitution.

    Entries on the wrong side of the diagonal raise ``ValueError``; with
    ``unit_diagonal`` stored diagonal entries are ignored and taken as 1.
    """
    A, b, x = _prepare(A, b, None)
    n = A.n_rows
    order = range(n) if lower else range(n - 1, -1, -1)
    for i in order:
        total = b[i]
        pivot = 1.0 if unit_diagonal else 0.0
        for k in range(A.indptr[i], A.indptr[i + 1]):
            j = A.indices[k]
            if j == i:
                if not unit_diagonal:
                    pivot = A.data[k]
            elif (j < i) == lower:
                total -= A.data[k] * x[j]
            else:
                side = "lower" if lower else "upper"
                raise ValueError(f"matrix is not {side} triangular: entry ({i}, {j})")
        if pivot == 0:
            raise SingularMatrixError(f"zero pivot in row {i}")
        x[i] = total / pivot
    return x


#: Iterative methods available through :func:`solve`.
METHODS = {"cg": conjugate_gradient, "jacobi": jacobi, "gauss-seidel": gauss_seidel}


def solve(A, b, method="cg", **options):
    """Dispatch to an iterative method by name and return only the solution.

    Raises :class:`ConvergenceError` if the method does not converge.
    """
    try:
        solver = METHODS[method.lower()]
    except KeyError:
        known = ", ".join(sorted(METHODS))
        raise ValueError(f"unknown method {method!r}; choose from {known}") from None
    options.setdefault("raise_on_failure", True)
    return solver(A, b, **options).x
