from fractions import Fraction as F

import pytest

from lpsolve import (MAXIMIZE, Constraint, InfeasibleError, LimitError, Model, ModelError,
                     Solution, SolveError, Status, UnboundedError)
from lpsolve.expr import LE
from lpsolve.model import MIRROR, SHIFT, SPLIT, StandardForm


def production_model(cap1=4, cap2=6):
    m = Model("production")
    x = m.add_var("x")
    y = m.add_var("y")
    m.add_constraint(x + y <= cap1, name="labour")
    m.add_constraint(x + 3 * y <= cap2, name="wood")
    m.maximize(x + 2 * y)
    return m


def test_basic_maximisation():
    m = production_model()
    sol = m.solve()
    assert sol.is_optimal
    assert sol.objective == 5
    assert sol["x"] == 3 and sol[m.get_var("y")] == 1
    assert sol.dual(m.constraints[0]) == F(1, 2)
    assert sol.duals == {"labour": F(1, 2), "wood": F(1, 2)}
    assert sol.binding() == ["labour", "wood"]


@pytest.mark.parametrize("which", ["labour", "wood"])
def test_duals_match_finite_differences(which):
    base = production_model().solve()
    step = F(1, 10)
    caps = {"cap1": 4, "cap2": 6}
    caps["cap1" if which == "labour" else "cap2"] += step
    moved = production_model(**caps).solve()
    assert (moved.objective - base.objective) / step == base.dual(which)


def test_minimisation_with_ge_and_equality_rows():
    m = Model()
    a, b, c = m.add_var("a"), m.add_var("b"), m.add_var("c")
    m.add_constraint(a + b >= 2, name="cover")
    m.add_constraint(a - c == 1, name="link")
    m.add_constraint(b + c <= 10)
    m.minimize(3 * a + 2 * b + c)
    sol = m.solve()
    assert sol.objective == 5
    assert (sol["a"], sol["b"], sol["c"]) == (1, 1, 0)
    assert sol.dual("cover") == 2 and sol.dual("link") == 1 and sol.dual("c3") == 0
    assert sol.slack("c3") == 9
    assert sol.value(a + b) == 2 and sol.value(7) == 7


def test_free_and_upper_bounded_variables():
    m = Model()
    a = m.add_var("a", lb=None)
    b = m.add_var("b", lb=None, ub=5)
    m.add_constraint(a + b >= -3, name="r1")
    m.add_constraint(a - b == 1, name="r2")
    m.minimize(2 * a + b)
    sol = m.solve()
    assert sol.values == {"a": -1, "b": -2}
    assert sol.objective == -4
    assert sol.duals == {"r1": F(3, 2), "r2": F(1, 2)}


def test_shifted_bounds_and_negative_rhs():
    m = Model()
    x = m.add_var("x", lb=2, ub=6)
    y = m.add_var("y", lb=-4)
    m.add_constraint(x - y <= -1, name="gap")
    m.add_constraint(-x - y >= -10, name="sum")
    m.maximize(x + y)
    sol = m.solve()
    assert sol.objective == 10
    assert sol["x"] <= sol["y"] - 1
    assert sol.slack("sum") == 0 and sol.dual("sum") == -1
    assert m.violations(sol.values) == []


def test_standard_form_layout():
    m = Model()
    x = m.add_var("x", lb=1, ub=3)
    y = m.add_var("y", lb=None, ub=2)
    z = m.add_var("z", lb=None)
    m.add_constraint(x + y + z >= 5)
    m.add_constraint(x - z <= -4)
    m.minimize(x - y)
    form = StandardForm(m)
    assert [cm.kind for cm in form.column_maps] == [SHIFT, MIRROR, SPLIT]
    assert form.origin == [None, 0, 1]
    assert form.flipped == [False, False, True]
    # bound row x' <= 2 and the flipped <= row keep no usable +1 slack
    assert form.hint == [4, None, None]
    assert form.b == [2, 2, 5]
    assert form.A[2] == [-1, 0, 1, -1, 0, 0, -1]
    assert form.c == [1, 1, 0, 0, 0, 0, 0]
    assert form.recover([1, 1, 3, 1, 0, 0, 0]) == {x: 2, y: 1, z: 2}


def test_infeasible_and_unbounded_models():
    m = Model()
    a = m.add_var("a")
    m.add_constraint(a >= 3)
    m.add_constraint(a <= 2)
    sol = m.solve()
    assert sol.status is Status.INFEASIBLE
    with pytest.raises(InfeasibleError):
        sol.raise_for_status()
    with pytest.raises(SolveError, match="no solution available"):
        sol["a"]
    m = Model()
    b = m.add_var("b", lb=None)
    m.add_constraint(b <= 4)
    m.maximize(-b)
    sol = m.solve()
    assert sol.status is Status.UNBOUNDED
    with pytest.raises(UnboundedError) as info:
        sol.raise_for_status()
    assert info.value.status is Status.UNBOUNDED


def test_constant_constraint_infeasible():
    m = Model()
    x = m.add_var("x")
    impossible = Constraint(x - x - 1, ">=")
    assert impossible.rhs == 1 and str(impossible) == "0 ≥ 1"
    m.add_constraint(impossible)
    assert m.solve().status is Status.INFEASIBLE


def test_iteration_limit_and_relaxation_bounds():
    sol = production_model().solve(max_iterations=1)
    assert sol.status is Status.ITERATION_LIMIT and sol.iterations == 1
    with pytest.raises(LimitError):
        sol.raise_for_status()
    m = production_model()
    x = m.get_var("x")
    assert m.solve_relaxation({x: (F(2), F(1))}).status is Status.INFEASIBLE
    fixed = m.solve_relaxation({x: (F(1), F(1))})
    assert fixed["x"] == 1 and fixed.objective == F(1) + 2 * F(5, 3)


def test_add_var_validation():
    m = Model()
    m.add_var("x2")
    assert m.add_var().name == "x3"
    assert m.add_var().name == "x4"
    assert [v.name for v in m.add_vars(2, prefix="p", ub=1)] == ["p0", "p1"]
    assert m.get_var("p1").upper == 1
    with pytest.raises(ModelError, match="duplicate variable"):
        m.add_var("x2")
    with pytest.raises(ModelError, match="invalid variable name"):
        m.add_var("2x")
    with pytest.raises(ModelError, match="invalid variable name"):
        m.add_var(7)
    with pytest.raises(ModelError, match="empty domain"):
        m.add_var("w", lb=3, ub=1)
    with pytest.raises(ValueError):
        m.add_vars(-1)
    with pytest.raises(ModelError, match="unknown variable"):
        m.get_var("nope")


def test_add_constraint_variants():
    m = Model()
    x, y = m.add_var("x"), m.add_var("y")
    first = m.add_constraint("2x + y <= 8")
    assert first.name == "c1" and first.rhs == 8 and first.sense == LE
    named = m.add_constraint(Constraint(x - y, "==", name="tie"))
    assert named.name == "tie"
    original = x >= 1
    added = m.add_constraint(original, name="lo")
    assert added is not original and original.name is None
    assert [c.name for c in m.constraints] == ["c1", "tie", "lo"]
    with pytest.raises(ModelError, match="duplicate constraint"):
        m.add_constraint(y <= 3, name="tie")
    with pytest.raises(ModelError, match="expected a constraint"):
        m.add_constraint(True)
    other = Model().add_var("x")
    with pytest.raises(ModelError, match="another model"):
        m.add_constraint(other + x <= 1)


def test_objective_variants():
    m = Model()
    x, y = m.add_var("x", ub=2), m.add_var("y", ub=3)
    m.set_objective("x + 2y + 1", sense=MAXIMIZE)
    assert m.is_maximize
    assert m.solve().objective == 9
    m.minimize(x)
    assert not m.is_maximize and m.solve().objective == 0
    m.maximize(5)
    assert m.solve().objective == 5
    with pytest.raises(ModelError, match="sense"):
        m.set_objective(x, sense="max")
    with pytest.raises(ModelError, match="must be linear"):
        m.minimize([x])
    with pytest.raises(ModelError, match="another model"):
        m.minimize(Model().add_var("q"))


def test_violations():
    m = Model()
    x = m.add_var("x", lb=1, ub=4, integer=True)
    y = m.add_var("y")
    m.add_constraint(x + y <= 5, name="cap")
    assert m.violations({x: 2, y: 3}) == []
    assert m.violations({x: 5, y: 1}) == ["cap", "x"]
    assert m.violations({x: 0, y: 0}) == ["x"]
    assert m.violations({x: F(3, 2), y: 0}) == ["x"]
    assert m.violations({x: 3, y: F(-1, 2)}) == ["y"]
    assert m.violations({x: 3, y: F(-1, 2)}, tol=1) == []


def test_model_text():
    m = Model("diet")
    x = m.add_var("x", ub=3, integer=True)
    y = m.add_var("y", lb=None)
    m.add_constraint(x - y >= 1, name="lo")
    m.maximize(3 * x + F(1, 2) * y)
    assert str(m) == "\n".join([
        "\\ diet", "maximize", "    obj: 3·x + 1/2·y", "subject to",
        "    lo: x - y ≥ 1", "bounds", "    0 ≤ x ≤ 3", "    y free",
        "integers", "    x", "end",
    ])
    plain = Model("p")
    plain.add_var("z")
    assert "integers" not in plain.to_text()
    assert plain.to_text().splitlines()[1:3] == ["minimize", "    obj: 0"]


def test_solution_object():
    sol = production_model().solve()
    assert repr(sol) == "Solution(status='optimal', objective=5)"
    assert sol.raise_for_status() is sol
    assert sol.summary() == "status: optimal\nobjective: 5\n  x = 3\n  y = 1"
    with pytest.raises(KeyError, match="'zz'"):
        sol["zz"]
    with pytest.raises(TypeError):
        sol[3]
    half = Solution(Status.OPTIMAL, objective=F(1, 3), values={"a": F(1, 3)}, slacks={}, nodes=2)
    assert half.summary().splitlines() == [
        "status: optimal", "objective: 1/3 (≈ 0.333333)", "  a = 1/3 (≈ 0.333333)",
        "nodes explored: 2",
    ]
    empty = Solution(Status.INFEASIBLE)
    assert empty.summary() == "status: infeasible"
    for call in (lambda: empty["a"], empty.binding, lambda: empty.value(empty),
                 lambda: empty.dual("c"), lambda: empty.slack("c")):
        with pytest.raises(SolveError):
            call()
    assert str(SolveError(Status.NODE_LIMIT)) == "solver finished with status 'node limit'"
