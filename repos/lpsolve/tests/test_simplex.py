from fractions import Fraction as F

import pytest

from lpsolve import Status, solve_standard
from lpsolve.simplex import Tableau, entering_column, leaving_row, run


def test_tableau_pivot_and_objective():
    # x + y + s1 = 4, x + 3y + s2 = 6 with slacks basic
    t = Tableau([[1, 1, 1, 0], [1, 3, 0, 1]], [4, 6], [2, 3], 4)
    t.set_objective([-1, -2, 0, 0])
    assert t.obj == [-1, -2, 0, 0, 0]
    t.pivot(1, 1)
    assert t.basis == [2, 1]
    assert t.rows[1] == [F(1, 3), 1, 0, F(1, 3), 2]
    assert t.rows[0] == [F(2, 3), 0, 1, F(-1, 3), 2]
    assert t.objective == -4
    assert t.values() == [0, 2, 2, 0]
    # pivoting on an entry that is already 1 leaves the row as is
    t.pivot(0, 2)
    assert t.rows[0] == [F(2, 3), 0, 1, F(-1, 3), 2]


def test_blands_rule_choices():
    assert entering_column([3, -1, -5, 0], 4) == 1
    assert entering_column([3, 0, -5, 0], 2) is None
    # rows 0 and 1 tie on the ratio; row 1's basic variable has the lower index
    t = Tableau([[1, 0, 1], [2, 1, 0], [-1, 0, 0]], [2, 4, 1], [2, 1, 0], 3)
    assert leaving_row(t, 0) == 1
    t = Tableau([[1, 0, 1], [2, 1, 0]], [1, 4], [2, 1], 3)
    assert leaving_row(t, 0) == 0
    assert leaving_row(Tableau([[-1, 1]], [3], [1], 2), 0) is None


def test_run_reports_unbounded_and_limit():
    t = Tableau([[-1, 1]], [3], [1], 2)
    t.set_objective([-1, 0])
    assert run(t, 2, 10) == (Status.UNBOUNDED, 0)
    t = Tableau([[1, 1, 1, 0], [1, 3, 0, 1]], [4, 6], [2, 3], 4)
    t.set_objective([-1, -2, 0, 0])
    assert run(t, 4, 1) == (Status.ITERATION_LIMIT, 1)


def test_solve_standard_with_slack_basis():
    # max x + 2y  s.t. x + y <= 4, x + 3y <= 6
    A = [[1, 1, 1, 0], [1, 3, 0, 1]]
    result = solve_standard(A, [4, 6], [-1, -2, 0, 0], basis_hint=[2, 3])
    assert result.status is Status.OPTIMAL
    assert result.x == [3, 1, 0, 0]
    assert result.objective == -5
    assert result.duals == [F(-1, 2), F(-1, 2)]
    assert result.iterations == 2


def test_solve_standard_phase_one():
    # x + y = 2, x - y = 0  →  unique point (1, 1)
    result = solve_standard([[1, 1], [1, -1]], [2, 0], [3, 1])
    assert result.status is Status.OPTIMAL
    assert result.x == [1, 1] and result.objective == 4
    assert result.duals == [2, 1]


def test_solve_standard_infeasible():
    result = solve_standard([[1, 1], [1, 1]], [1, 2], [0, 0])
    assert result.status is Status.INFEASIBLE
    assert result.x is None and result.duals is None


def test_solve_standard_redundant_rows():
    # the second row is twice the first: its artificial stays basic at zero
    result = solve_standard([[1, 1], [2, 2]], [2, 4], [1, 2])
    assert result.status is Status.OPTIMAL
    assert result.x == [2, 0] and result.objective == 2


@pytest.mark.parametrize("A, b, c, x", [
    ([[1, 1], [1, -1]], [0, 0], [1, -1], [0, 0]),
    ([[2, 0], [0, -1]], [0, 0], [-1, -2], [0, 0]),
    ([[1, 1], [2, 1]], [1, 1], [-3, 1], [0, 1]),
])
def test_solve_standard_degenerate_artificial_is_driven_out(A, b, c, x):
    # phase 1 ends with an artificial basic at level zero; left in the basis it
    # could turn positive in phase 2 and yield a point with A x != b
    result = solve_standard(A, b, c)
    assert result.status is Status.OPTIMAL
    assert result.x == x
    assert [sum(a * v for a, v in zip(row, x)) for row in A] == b


def test_solve_standard_unbounded_and_limits():
    unbounded = solve_standard([[1, -1]], [1], [0, -1])
    assert unbounded.status is Status.UNBOUNDED
    assert unbounded.objective is None
    limited = solve_standard([[1, 1, 1, 0], [1, 3, 0, 1]], [4, 6], [-1, -2, 0, 0],
                             basis_hint=[2, 3], max_iterations=1)
    assert limited.status is Status.ITERATION_LIMIT and limited.iterations == 1
    phase1 = solve_standard([[1, 1], [1, -1]], [2, 0], [3, 1], max_iterations=0)
    assert phase1.status is Status.ITERATION_LIMIT and phase1.iterations == 0


def test_solve_standard_without_rows():
    assert solve_standard([], [], [1, 2]).x == [0, 0]
    assert solve_standard([], [], [1, -2]).status is Status.UNBOUNDED


@pytest.mark.parametrize("A, b, c, hint, message", [
    ([[1, 2]], [1, 2], [1, 1], None, "dimensions"),
    ([[1, 2], [1]], [1, 2], [1, 1], None, "dimensions"),
    ([[1, 2]], [-1], [1, 1], None, "b ≥ 0"),
    ([[1, 2], [0, 1]], [1, 1], [1, 1], [None, 1], "not a unit column"),
    ([[2, 0], [0, 1]], [1, 1], [1, 1], [0, None], "not a unit column"),
])
def test_solve_standard_validation(A, b, c, hint, message):
    with pytest.raises(ValueError, match=message):
        solve_standard(A, b, c, basis_hint=hint)


def test_beale_cycling_example_terminates():
    # Beale's classic degenerate LP cycles under Dantzig's rule.
    A = [
        [F(1, 4), -8, -1, 9, 1, 0, 0],
        [F(1, 2), -12, F(-1, 2), 3, 0, 1, 0],
        [0, 0, 1, 0, 0, 0, 1],
    ]
    c = [F(-3, 4), 20, F(-1, 2), 6, 0, 0, 0]
    result = solve_standard(A, [0, 0, 1], c, basis_hint=[4, 5, 6], max_iterations=50)
    assert result.status is Status.OPTIMAL
    assert result.objective == F(-5, 4)
    assert result.x[:4] == [1, 0, 1, 0]
