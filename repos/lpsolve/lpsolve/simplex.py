"""Dense two-phase primal simplex over exact rationals for ``min c·x, A x = b, x ≥ 0``.

Pivoting follows Bland's rule (lowest-index entering column, lowest-index
basic variable on ratio ties), so degenerate problems cannot cycle.
"""

from collections import namedtuple
from fractions import Fraction

from .result import Status

DEFAULT_MAX_ITERATIONS = 10_000
ZERO, ONE = Fraction(0), Fraction(1)

SimplexResult = namedtuple("SimplexResult", "status x objective duals iterations")


class Tableau:
    """Constraint rows ``[a_1 .. a_n | rhs]``, a basis and a reduced-cost row."""

    def __init__(self, rows, rhs, basis, width):
        self.rows = [[Fraction(a) for a in row] + [Fraction(value)]
                     for row, value in zip(rows, rhs)]
        self.basis = list(basis)
        self.width = width
        self.obj = [ZERO] * (self.width + 1)

    def set_objective(self, costs):
        """Install a cost vector and price out the current basic columns."""
        obj = list(costs) + [ZERO]
        for row, col in zip(self.rows, self.basis):
            weight = obj[col]
            obj = [a - weight * b for a, b in zip(obj, row)]
        self.obj = obj

    def pivot(self, r, c):
        p = self.rows[r][c]
        pivot_row = self.rows[r] = [value / p for value in self.rows[r]]
        for i, row in enumerate(self.rows):
            factor = row[c]
            if i != r and factor:
                self.rows[i] = [a - factor * b for a, b in zip(row, pivot_row)]
        factor = self.obj[c]
        self.obj = [a - factor * b for a, b in zip(self.obj, pivot_row)]
        self.basis[r] = c

    def values(self):
        x = [ZERO] * self.width
        for row, col in zip(self.rows, self.basis):
            x[col] = row[-1]
        return x

    @property
    def objective(self):
        # The reduced-cost row carries -c_B·x_B in its right-hand-side slot.
        return -self.obj[-1]


def entering_column(obj, allowed):
    """Bland's rule: the lowest-index column with a negative reduced cost."""
    for j in range(allowed):
        if obj[j] < 0:
            return j
    return None


def leaving_row(tableau, col):
    """Minimum-ratio test; ties go to the row whose basic variable has the lowest index."""
    best, best_ratio = None, None
    for r, row in enumerate(tableau.rows):
        a = row[col]
        if a <= 0:
            continue
        ratio = row[-1] / a
        if (best is None or ratio < best_ratio
                or (ratio == best_ratio and tableau.basis[r] < tableau.basis[best])):
            best, best_ratio = r, ratio
    return best


def run(tableau, allowed, budget):
    """Pivot until optimal or unbounded; return ``(status, pivots)``."""
    pivots = 0
    while True:
        col = entering_column(tableau.obj, allowed)
        if col is None:
            return Status.OPTIMAL, pivots
        row = leaving_row(tableau, col)
        if row is None:
            return Status.UNBOUNDED, pivots
        if pivots >= budget:
            return Status.ITERATION_LIMIT, pivots
        tableau.pivot(row, col)
        pivots += 1


def _check_hint(A, basis_hint):
    """A hinted column must be a unit vector with its 1 in the hinted row."""
    for i, col in enumerate(basis_hint):
        if col is None:
            continue
        for k, row in enumerate(A):
            if row[col] != (ONE if k == i else ZERO):
                raise ValueError(f"column {col} is not a unit column for row {i}")


def _drive_out_artificials(tableau, n):
    """After phase 1, pivot zero-level artificial variables out of the basis."""
    for r, col in enumerate(tableau.basis):
        if col < n:
            continue
        row = tableau.rows[r]
        for j in range(n):
            if row[j] != 0:
                tableau.pivot(r, j)
                break
        # If no structural entry is non-zero the row is redundant; the
        # artificial then stays basic at level zero and can never move.


def solve_standard(A, b, c, basis_hint=None, max_iterations=DEFAULT_MAX_ITERATIONS):
    """Minimise ``c·x`` subject to ``A x = b`` and ``x ≥ 0``.

    ``basis_hint[i]`` may name a unit column to start row ``i``'s basis with
    (typically a slack); other rows get phase-1 artificials.  Duals ``y`` are
    returned per row and satisfy ``y·A ≤ c`` at optimality.
    """
    m, n = len(A), len(c)
    if len(b) != m or any(len(row) != n for row in A):
        raise ValueError("inconsistent dimensions of A, b and c")
    if any(value < 0 for value in b):
        raise ValueError("standard form requires b ≥ 0")
    hint = list(basis_hint) if basis_hint is not None else [None] * m
    _check_hint(A, hint)

    n_art = hint.count(None)
    rows, basis = [], []
    next_art = n
    for i in range(m):
        row = list(A[i]) + [ZERO] * n_art
        if hint[i] is None:
            row[next_art] = ONE
            basis.append(next_art)
            next_art += 1
        else:
            basis.append(hint[i])
        rows.append(row)
    # Each row's initial basic column is a unit vector; its final reduced
    # cost yields that row's dual price.
    identity = list(basis)
    tableau = Tableau(rows, b, basis, n + n_art)

    iterations = 0
    if n_art:
        tableau.set_objective([ZERO] * n + [ONE] * n_art)
        # Phase 1 is bounded below by zero, so it can only stop optimal or on the limit.
        status, iterations = run(tableau, n + n_art, max_iterations)
        if status is Status.ITERATION_LIMIT:
            return SimplexResult(status, None, None, None, iterations)
        if tableau.objective != 0:
            return SimplexResult(Status.INFEASIBLE, None, None, None, iterations)
        _drive_out_artificials(tableau, n)

    costs = [Fraction(v) for v in c] + [ZERO] * n_art
    tableau.set_objective(costs)
    # Artificial columns may not re-enter: only the first n columns are eligible.
    status, used = run(tableau, n, max_iterations - iterations)
    iterations += used
    if status is not Status.OPTIMAL:
        return SimplexResult(status, None, None, None, iterations)
    x = tableau.values()[:n]
    duals = [costs[col] - tableau.obj[col] for col in identity]
    return SimplexResult(Status.OPTIMAL, x, tableau.objective, duals, iterations)
