"""Solver status codes, exceptions and the :class:`Solution` object."""

import enum
from fractions import Fraction


class Status(enum.Enum):
    """Outcome of a solve."""

    OPTIMAL = "optimal"
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    ITERATION_LIMIT = "iteration limit"
    NODE_LIMIT = "node limit"


class LPError(Exception):
    """Base class for every error raised by lpsolve."""


class ModelError(LPError, ValueError):
    """The model is malformed (bad names, foreign variables, empty domains...)."""


class ParseError(ModelError):
    """A textual expression or constraint could not be parsed."""


class SolveError(LPError):
    """The solver did not reach an optimal solution."""

    def __init__(self, status, message=None):
        super().__init__(message or f"solver finished with status {status.value!r}")
        self.status = status


class InfeasibleError(SolveError):
    """No point satisfies all constraints."""


class UnboundedError(SolveError):
    """The objective can be improved without limit."""


class LimitError(SolveError):
    """An iteration or node limit stopped the solver early."""


_STATUS_ERRORS = {
    Status.INFEASIBLE: InfeasibleError,
    Status.UNBOUNDED: UnboundedError,
    Status.ITERATION_LIMIT: LimitError,
    Status.NODE_LIMIT: LimitError,
}


def _name_of(key):
    if isinstance(key, str):
        return key
    name = getattr(key, "name", None)
    if not isinstance(name, str):
        raise TypeError(f"cannot look up a solution entry by {key!r}")
    return name


def _format_value(value):
    if value.denominator == 1:
        return str(value)
    return f"{value} (≈ {float(value):.6g})"


class Solution:
    """Result of solving a model.

    ``values`` maps variable names to exact values, ``duals`` and ``slacks``
    map constraint names to shadow prices and slacks.  For a non-optimal
    status the three mappings are ``None`` (unless a node-limited
    branch-and-bound run found an incumbent).
    """

    def __init__(self, status, objective=None, values=None, duals=None,
                 slacks=None, iterations=0, nodes=0):
        self.status = status
        self.objective = objective
        self.values = values
        self.duals = duals
        self.slacks = slacks
        self.iterations = iterations
        self.nodes = nodes

    @property
    def is_optimal(self):
        return self.status is Status.OPTIMAL

    def _require_values(self):
        if self.values is None:
            raise SolveError(self.status, f"no solution available (status: {self.status.value})")

    def __getitem__(self, key):
        self._require_values()
        name = _name_of(key)
        try:
            return self.values[name]
        except KeyError:
            raise KeyError(f"unknown variable {name!r}") from None

    def value(self, expr):
        """Evaluate a variable, expression or constant at this solution."""
        if isinstance(expr, (int, Fraction)):
            return Fraction(expr)
        self._require_values()
        return expr.value(self.values)

    def dual(self, constraint):
        """Shadow price: rate of change of the objective per unit of right-hand side."""
        self._require_values()
        return self.duals[_name_of(constraint)]

    def slack(self, constraint):
        self._require_values()
        return self.slacks[_name_of(constraint)]

    def binding(self):
        """Names of the constraints that hold with zero slack, sorted."""
        self._require_values()
        return sorted(name for name, slack in self.slacks.items() if slack == 0)

    def raise_for_status(self):
        """Raise the matching :class:`SolveError` unless optimal; return self."""
        error = _STATUS_ERRORS.get(self.status)
        if error is not None:
            raise error(self.status)
        return self

    def summary(self):
        """A human-readable multi-line report."""
        lines = [f"status: {self.status.value}"]
        if self.objective is not None:
            lines.append(f"objective: {_format_value(self.objective)}")
        for name, value in (self.values or {}).items():
            lines.append(f"  {name} = {_format_value(value)}")
        if self.nodes:
            lines.append(f"nodes explored: {self.nodes}")
        return "\n".join(lines)

    def __repr__(self):
        return f"Solution(status={self.status.value!r}, objective={self.objective})"
