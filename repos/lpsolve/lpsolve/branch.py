"""Branch-and-bound for models with integer variables.

Nodes are LP relaxations with tightened bounds; a node that cannot beat the
incumbent is pruned, otherwise its most fractional integer variable is split
into ``x ≤ ⌊v⌋`` and ``x ≥ ⌈v⌉``.
"""

import heapq
import itertools
import math
from collections import namedtuple
from fractions import Fraction

from . import simplex
from .result import Solution, Status

DEFAULT_MAX_NODES = 10_000
STRATEGIES = ("best", "depth")
_HALF = Fraction(1, 2)


# A subproblem: bound overrides, depth in the tree and the parent's relaxation bound.
Node = namedtuple("Node", "bounds depth estimate")


def is_integral(value):
    return Fraction(value).denominator == 1


def select_branch_variable(values, int_vars):
    """The most fractional integer variable (ties: lowest index), or None."""
    best, best_score = None, None
    for var in int_vars:
        value = values[var.name]
        if is_integral(value):
            continue
        # Distance of the fractional part from 1/2: zero is "most fractional".
        score = abs(value - math.floor(value) - _HALF)
        if best is None or score < best_score:
            best, best_score = var, score
    return best


def _priority(strategy, node, tie):
    if strategy == "best":
        return (node.estimate, tie)
    return (-node.depth, tie)


def _children(node, var, value, key):
    lower, upper = node.bounds.get(var, (var.lower, var.upper))
    down = dict(node.bounds)
    down[var] = (lower, Fraction(math.floor(value)))
    up = dict(node.bounds)
    up[var] = (Fraction(math.ceil(value)), upper)
    return [Node(down, node.depth + 1, key), Node(up, node.depth + 1, key)]


def branch_and_bound(model, *, strategy="best", max_nodes=DEFAULT_MAX_NODES,
                     max_iterations=simplex.DEFAULT_MAX_ITERATIONS):
    """Solve a mixed-integer model, exploring nodes ``"best"``-bound or ``"depth"``-first.

    On hitting ``max_nodes`` the status is ``NODE_LIMIT`` and the best integer
    solution found so far (if any) is returned.
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; expected one of {STRATEGIES}")
    if max_nodes < 1:
        raise ValueError("max_nodes must be at least 1")
    sign = -1 if model.is_maximize else 1
    int_vars = [var for var in model.variables if var.integer]
    tie = itertools.count()
    root = Node({}, 0, -math.inf)
    frontier = [(_priority(strategy, root, next(tie)), root)]
    incumbent, best_key = None, math.inf
    nodes = iterations = 0
    status = Status.OPTIMAL

    while frontier:
        _, node = heapq.heappop(frontier)
        if node.estimate >= best_key:
            continue
        if nodes >= max_nodes:
            status = Status.NODE_LIMIT
            break
        nodes += 1
        relaxed = model.solve_relaxation(node.bounds, max_iterations=max_iterations)
        iterations += relaxed.iterations
        if relaxed.status is Status.INFEASIBLE:
            continue
        if relaxed.status is not Status.OPTIMAL:
            # Children of a bounded relaxation stay bounded, so this is the
            # root being unbounded or the simplex hitting its iteration limit.
            return Solution(relaxed.status, iterations=iterations, nodes=nodes)
        key = sign * relaxed.objective
        if key >= best_key:
            continue
        var = select_branch_variable(relaxed.values, int_vars)
        if var is None:
            incumbent, best_key = relaxed, key
            continue
        for child in _children(node, var, relaxed.values[var.name], key):
            heapq.heappush(frontier, (_priority(strategy, child, next(tie)), child))

    if incumbent is None:
        final = Status.NODE_LIMIT if status is Status.NODE_LIMIT else Status.INFEASIBLE
        return Solution(final, iterations=iterations, nodes=nodes)
    return Solution(status, objective=incumbent.objective, values=incumbent.values,
                    duals={}, slacks=incumbent.slacks, iterations=iterations, nodes=nodes)
