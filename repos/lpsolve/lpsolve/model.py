"""Model-building API and the translation of models into standard form."""

import itertools
from collections import namedtuple

from . import branch, simplex
from .expr import (EQ, LE, NAME_RE, ONE, ZERO, Constraint, LinExpr, as_expr,
                   parse_constraint, parse_expression, to_bound, Variable)
from .result import ModelError, Solution, Status

MINIMIZE, MAXIMIZE = "minimize", "maximize"

# How a model variable is rewritten in terms of non-negative columns:
#   SHIFT   x = offset + x'         (finite lower bound)
#   MIRROR  x = offset - x'         (only an upper bound)
#   SPLIT   x = x⁺ - x⁻             (free variable)
SHIFT, MIRROR, SPLIT = "shift", "mirror", "split"
ColumnMap = namedtuple("ColumnMap", "kind offset columns")


class StandardForm:
    """A model rewritten as ``min c·x  s.t.  A x = b,  x ≥ 0,  b ≥ 0``.

    ``origin[i]`` is the model constraint behind row ``i`` (``None`` for bound
    rows); ``flipped[i]`` tells whether the row was negated to make ``b ≥ 0``.
    """

    def __init__(self, model, bounds=None):
        self.model = model
        self.column_maps = []
        self.ncols = 0
        rows = []
        bounds = bounds or {}
        for var in model.variables:
            lower, upper = bounds.get(var, (var.lower, var.upper))
            bound_row = self._map_variable(lower, upper)
            if bound_row is not None:
                rows.append(bound_row)
        for index, con in enumerate(model.constraints):
            coeffs, constant = self.substitute(con.expr)
            rows.append((coeffs, con.sense, con.rhs - constant, index))
        objective, _ = self.substitute(model.objective)
        self._build(rows, objective, -ONE if model.sense == MAXIMIZE else ONE)

    def _map_variable(self, lower, upper):
        col = self.ncols
        bound_row = None
        if lower is not None:
            self.column_maps.append(ColumnMap(SHIFT, lower, (col,)))
            if upper is not None:
                bound_row = ({col: ONE}, LE, upper - lower, None)
            self.ncols += 1
        elif upper is not None:
            self.column_maps.append(ColumnMap(MIRROR, upper, (col,)))
            self.ncols += 1
        else:
            self.column_maps.append(ColumnMap(SPLIT, ZERO, (col, col + 1)))
            self.ncols += 2
        return bound_row

    def substitute(self, expr):
        """Rewrite an expression over columns: ``(coefficients, constant)``."""
        coeffs = {}
        constant = expr.constant
        for var, coef in expr.terms.items():
            cmap = self.column_maps[var.index]
            first = cmap.columns[0]
            if cmap.kind == SHIFT:
                coeffs[first] = coef
                constant += coef * cmap.offset
            elif cmap.kind == MIRROR:
                coeffs[first] = -coef
                constant += coef * cmap.offset
            else:
                coeffs[first] = coef
                coeffs[cmap.columns[1]] = -coef
        return coeffs, constant

    def _build(self, rows, objective, sign):
        width = self.ncols + sum(1 for row in rows if row[1] != EQ)
        self.A, self.b, self.hint, self.flipped, self.origin = [], [], [], [], []
        next_slack = self.ncols
        for coeffs, sense, rhs, origin in rows:
            row = [ZERO] * width
            for col, coef in coeffs.items():
                row[col] = coef
            slack = None
            if sense != EQ:
                slack = next_slack
                next_slack += 1
                row[slack] = ONE if sense == LE else -ONE
            flipped = rhs < 0
            if flipped:
                row = [-a for a in row]
                rhs = -rhs
            # A slack with coefficient +1 is a ready-made initial basic column.
            usable = slack is not None and row[slack] == ONE
            self.hint.append(slack if usable else None)
            self.A.append(row)
            self.b.append(rhs)
            self.flipped.append(flipped)
            self.origin.append(origin)
        self.c = [ZERO] * width
        for col, coef in objective.items():
            self.c[col] = sign * coef

    def recover(self, x):
        """Map a column solution back to ``{variable: value}``."""
        values = {}
        for var, cmap in zip(self.model.variables, self.column_maps):
            first = x[cmap.columns[0]]
            if cmap.kind == SHIFT:
                values[var] = cmap.offset + first
            elif cmap.kind == MIRROR:
                values[var] = cmap.offset - first
            else:
                values[var] = first - x[cmap.columns[1]]
        return values


def _fresh_name(prefix, taken):
    for n in itertools.count(len(taken) + 1):
        candidate = f"{prefix}{n}"
        if candidate not in taken:
            return candidate


class Model:
    """A linear (or mixed-integer) program under construction."""

    def __init__(self, name="model"):
        self.name = name
        self.variables = []
        self.constraints = []
        self.objective = LinExpr()
        self.sense = MINIMIZE
        self._vars_by_name = {}
        self._constraint_names = set()

    @property
    def is_mip(self):
        return any(var.integer for var in self.variables)

    @property
    def is_maximize(self):
        return self.sense == MAXIMIZE

    def add_var(self, name=None, lb=0, ub=None, integer=False):
        """Add a variable with bounds ``lb ≤ x ≤ ub`` (``None`` = unbounded)."""
        if name is None:
            name = _fresh_name("x", self._vars_by_name)
        elif not isinstance(name, str) or not NAME_RE.match(name):
            raise ModelError(f"invalid variable name {name!r}")
        if name in self._vars_by_name:
            raise ModelError(f"duplicate variable name {name!r}")
        lower, upper = to_bound(lb, upper=False), to_bound(ub, upper=True)
        if lower is not None and upper is not None and lower > upper:
            raise ModelError(f"empty domain for {name}: {lower} > {upper}")
        var = Variable(name, lower, upper, bool(integer), len(self.variables), self)
        self.variables.append(var)
        self._vars_by_name[name] = var
        return var

    def add_vars(self, count, prefix="x", **kwargs):
        """Add ``count`` variables named ``prefix0 .. prefix{count-1}``."""
        if count < 0:
            raise ValueError("count must be non-negative")
        return [self.add_var(f"{prefix}{i}", **kwargs) for i in range(count)]

    def get_var(self, name):
        try:
            return self._vars_by_name[name]
        except KeyError:
            raise ModelError(f"unknown variable {name!r}") from None

    def _check_owned(self, expr):
        for var in expr.terms:
            if var.model is not self:
                raise ModelError(f"variable {var.name!r} belongs to another model")

    def add_constraint(self, constraint, name=None):
        """Add a constraint object (``x + y <= 4``) or its text form."""
        if isinstance(constraint, str):
            constraint = parse_constraint(constraint, self.get_var)
        elif not isinstance(constraint, Constraint):
            raise ModelError(f"expected a constraint, got {type(constraint).__name__}")
        self._check_owned(constraint.expr)
        if name is None:
            name = constraint.name or _fresh_name("c", self._constraint_names)
        if name in self._constraint_names:
            raise ModelError(f"duplicate constraint name {name!r}")
        added = Constraint(constraint.expr - constraint.rhs, constraint.sense, name)
        self.constraints.append(added)
        self._constraint_names.add(name)
        return added

    def set_objective(self, expr, sense=MINIMIZE):
        if sense not in (MINIMIZE, MAXIMIZE):
            raise ModelError(f"unknown objective sense {sense!r}")
        if isinstance(expr, str):
            expr = parse_expression(expr, self.get_var)
        objective = as_expr(expr)
        if objective is None:
            raise ModelError(f"objective must be linear, got {type(expr).__name__}")
        self._check_owned(objective)
        self.objective = objective.copy()
        self.sense = sense

    def minimize(self, expr):
        self.set_objective(expr, MINIMIZE)

    def maximize(self, expr):
        self.set_objective(expr, MAXIMIZE)

    def solve(self, *, relax=False, strategy="best", max_nodes=branch.DEFAULT_MAX_NODES,
              max_iterations=simplex.DEFAULT_MAX_ITERATIONS):
        """Solve the model; integer variables trigger branch-and-bound unless ``relax``."""
        if self.is_mip and not relax:
            return branch.branch_and_bound(self, strategy=strategy, max_nodes=max_nodes,
                                           max_iterations=max_iterations)
        return self.solve_relaxation(max_iterations=max_iterations)

    def solve_relaxation(self, bounds=None, max_iterations=simplex.DEFAULT_MAX_ITERATIONS):
        """Solve the continuous relaxation; ``bounds`` maps variables to ``(lower, upper)``."""
        # Crossed bounds (lower > upper) need no special case: their bound row
        # x' ≤ upper - lower < 0 makes phase 1 report infeasibility.
        form = StandardForm(self, bounds)
        result = simplex.solve_standard(form.A, form.b, form.c, basis_hint=form.hint,
                                        max_iterations=max_iterations)
        if result.status is not Status.OPTIMAL:
            return Solution(result.status, iterations=result.iterations)
        values = form.recover(result.x)
        duals, slacks = {}, {}
        for row, index in enumerate(form.origin):
            if index is None:
                continue
            con = self.constraints[index]
            dual = -result.duals[row] if form.flipped[row] else result.duals[row]
            # Duals come out of the minimisation form; flip back for maximise.
            duals[con.name] = -dual if self.is_maximize else dual
            slacks[con.name] = con.slack(values)
        return Solution(Status.OPTIMAL, objective=self.objective.value(values),
                        values={var.name: values[var] for var in self.variables},
                        duals=duals, slacks=slacks, iterations=result.iterations)

    def violations(self, values, tol=0):
        """Names of violated constraints, bounds and integrality requirements."""
        broken = [con.name for con in self.constraints if not con.is_satisfied(values, tol)]
        for var in self.variables:
            value = var.value(values)
            if var.lower is not None and value < var.lower - tol:
                broken.append(var.name)
            elif var.upper is not None and value > var.upper + tol:
                broken.append(var.name)
            elif var.integer and value.denominator != 1:
                broken.append(var.name)
        return broken

    def to_text(self):
        """Render the model in an LP-file-like notation."""
        lines = [f"\\ {self.name}", self.sense, f"    obj: {self.objective}", "subject to"]
        lines.extend(f"    {con}" for con in self.constraints)
        lines.append("bounds")
        lines.extend(f"    {var.bounds_text()}" for var in self.variables)
        integers = [var.name for var in self.variables if var.integer]
        if integers:
            lines.extend(["integers", "    " + " ".join(integers)])
        lines.append("end")
        return "\n".join(lines)

    __str__ = to_text
