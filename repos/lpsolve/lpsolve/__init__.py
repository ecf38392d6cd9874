"""lpsolve — exact linear and integer programming in pure Python.

Build a :class:`Model`, add variables and constraints with ordinary
operators, choose an objective and call :meth:`Model.solve`.
"""

from .branch import branch_and_bound
from .expr import Constraint, LinExpr, Variable, dot, quicksum, to_fraction
from .model import MAXIMIZE, MINIMIZE, Model
from .result import (InfeasibleError, LimitError, LPError, ModelError, ParseError,
                     Solution, SolveError, Status, UnboundedError)
from .simplex import solve_standard

__version__ = "0.3.1"

