import itertools
from fractions import Fraction as F

import pytest

from lpsolve import LimitError, Model, Status, branch_and_bound, dot
from lpsolve.branch import Node, _children, is_integral, select_branch_variable


def knapsack(values, weights, capacity):
    m = Model("knapsack")
    items = [m.add_var(f"i{k}", ub=1, integer=True) for k in range(len(values))]
    m.add_constraint(dot(weights, items) <= capacity, name="cap")
    m.maximize(dot(values, items))
    return m


def brute_force(model, box):
    """Best objective over the integer points of ``box`` that the model accepts."""
    best = None
    for point in itertools.product(*box):
        values = dict(zip(model.variables, point))
        if model.violations(values):
            continue
        value = model.objective.value(values)
        if best is None or (value > best if model.is_maximize else value < best):
            best = value
    return best


@pytest.mark.parametrize("strategy", ["best", "depth"])
def test_knapsack_matches_brute_force(strategy):
    m = knapsack([8, 11, 6, 4, 9], [5, 7, 4, 3, 6], 14)
    sol = m.solve(strategy=strategy)
    assert sol.status is Status.OPTIMAL
    assert sol.objective == brute_force(m, [range(2)] * 5) == 21
    assert m.violations(sol.values) == []
    assert sol.nodes >= 2 and sol.duals == {}
    assert all(is_integral(v) for v in sol.values.values())


def test_best_first_prunes_by_parent_bound():
    m = knapsack([11, 2, 10], [7, 6, 5], 7)
    relaxed = m.solve(relax=True)
    assert relaxed.objective == F(92, 7)
    best = m.solve(strategy="best")
    depth = m.solve(strategy="depth")
    assert best.objective == depth.objective == 11
    assert best.values == {"i0": 1, "i1": 0, "i2": 0}
    # best-first finds 11 before expanding the 32/3 subtree, whose children are
    # then discarded on their parent's bound without solving an LP
    assert best.nodes == 3 and depth.nodes == 5


def test_general_integer_minimisation():
    m = Model()
    x = m.add_var("x", integer=True)
    y = m.add_var("y", integer=True)
    m.add_constraint(4 * x + 3 * y >= 13, name="demand")
    m.add_constraint(x - y <= 2)
    m.add_constraint(3 * x + 7 * y >= 12)
    m.minimize(5 * x + 4 * y)
    relaxed = m.solve(relax=True)
    sol = m.solve()
    assert relaxed.objective == F(115, 7) and relaxed["x"] == F(19, 7)
    assert sol.objective == 17 == brute_force(m, [range(8), range(8)])
    assert (sol["x"], sol["y"]) == (1, 3)
    assert sol.slack("demand") == 0 and sol.slack("c3") == 12


def test_mixed_integer_keeps_continuous_fractional():
    m = Model()
    x = m.add_var("x", ub=F(7, 2), integer=True)
    y = m.add_var("y")
    m.add_constraint(x + 2 * y <= F(9, 2))
    m.maximize(2 * x + y)
    sol = m.solve()
    assert sol["x"] == 3 and sol["y"] == F(3, 4)
    assert sol.objective == F(27, 4)


def test_integer_infeasible_and_unbounded():
    m = Model()
    a = m.add_var("a", integer=True)
    m.add_constraint(2 * a == 3)
    sol = m.solve()
    assert sol.status is Status.INFEASIBLE and sol.nodes == 3
    m = Model()
    a = m.add_var("a", integer=True)
    m.add_constraint(a >= F(1, 2))
    m.maximize(a)
    assert m.solve().status is Status.UNBOUNDED


def test_fractional_bounds_make_empty_children():
    # x ∈ [0.2, 0.8] contains no integer: both children have lower > upper
    m = Model()
    m.add_var("x", lb=F(1, 5), ub=F(4, 5), integer=True)
    sol = m.solve()
    assert sol.status is Status.INFEASIBLE and sol.nodes == 3


def test_node_limit_with_and_without_incumbent():
    m = knapsack([8, 11, 6, 4, 9], [5, 7, 4, 3, 6], 14)
    first = m.solve(max_nodes=1)
    assert first.status is Status.NODE_LIMIT and first.values is None and first.nodes == 1
    with pytest.raises(LimitError):
        first.raise_for_status()
    # depth-first dives to a (suboptimal) integer point quickly, then runs out of nodes
    dive = m.solve(strategy="depth", max_nodes=4)
    assert dive.status is Status.NODE_LIMIT and dive.nodes == 4
    assert dive.objective == 19 and m.violations(dive.values) == []
    assert m.solve(strategy="best", max_nodes=4).values is None


def test_iteration_limit_propagates():
    m = knapsack([4, 2, 1], [3, 2, 2], 4)
    sol = m.solve(max_iterations=1)
    assert sol.status is Status.ITERATION_LIMIT and sol.nodes == 1


def test_argument_validation():
    m = knapsack([1], [1], 1)
    with pytest.raises(ValueError, match="strategy"):
        branch_and_bound(m, strategy="widest")
    with pytest.raises(ValueError, match="max_nodes"):
        branch_and_bound(m, max_nodes=0)


def test_branch_variable_selection():
    m = Model()
    a, b, c = (m.add_var(n, integer=True) for n in "abc")
    ints = [a, b, c]
    assert select_branch_variable({"a": 1, "b": 2, "c": 0}, ints) is None
    assert select_branch_variable({"a": F(1, 10), "b": F(5, 2), "c": F(7, 3)}, ints) is b
    # equal fractionality: the lower index wins
    assert select_branch_variable({"a": F(13, 4), "b": F(3, 4), "c": 1}, ints) is a
    assert is_integral(F(4, 2)) and not is_integral(0.5)


def test_children_split_bounds():
    m = Model()
    x = m.add_var("x", ub=9, integer=True)
    y = m.add_var("y", integer=True)
    parent = Node({y: (F(1), F(4))}, 2, F(-3))
    down, up = _children(parent, x, F(7, 3), F(-2))
    assert down.bounds == {y: (1, 4), x: (0, 2)}
    assert up.bounds == {y: (1, 4), x: (3, 9)}
    assert (down.depth, up.estimate) == (3, -2)
    again, _ = _children(down, x, F(3, 2), F(-1))
    assert again.bounds[x] == (0, 1)
