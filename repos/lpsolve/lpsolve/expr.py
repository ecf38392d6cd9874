"""Decision variables, linear expressions and constraints.

All coefficients are kept as :class:`fractions.Fraction` so that the simplex
code never has to reason about round-off.
"""

import math
import re
from fractions import Fraction

from .result import ParseError

ZERO, ONE = Fraction(0), Fraction(1)

LE, GE, EQ = "<=", ">=", "=="
SENSE_SYMBOLS = {LE: "≤", GE: "≥", EQ: "="}
# Spellings accepted by the text parser, mapped onto the canonical senses.
_SENSE_ALIASES = {"<=": LE, "≤": LE, ">=": GE, "≥": GE, "==": EQ, "=": EQ}

NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_TOKEN_RE = re.compile(
    r"\s*(?:(?P<num>\d+/[1-9]\d*|\d+(?:\.\d*)?|\.\d+)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<cmp><=|>=|==|=|≤|≥)"
    r"|(?P<op>[-+*·]))"
)


def _is_number(value):
    return isinstance(value, (int, float, Fraction)) and not isinstance(value, bool)


def to_fraction(value):
    """Convert an int, float or Fraction to an exact Fraction."""
    if isinstance(value, bool):
        raise TypeError("booleans are not valid coefficients")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"coefficient must be finite, got {value!r}")
        # repr() is the shortest decimal that round-trips, so 0.1 becomes 1/10
        # instead of the exact binary expansion of the float.
        return Fraction(repr(value))
    raise TypeError(f"cannot use {type(value).__name__} as a coefficient")


def to_bound(value, upper):
    """Convert a variable bound; ``None`` and the matching infinity mean "no bound"."""
    if value is None:
        return None
    if isinstance(value, float) and math.isinf(value):
        if (value > 0) != upper:
            raise ValueError(f"{'upper' if upper else 'lower'} bound cannot be {value}")
        return None
    return to_fraction(value)


def as_expr(value):
    """Coerce a variable, expression or number to a LinExpr; None if impossible."""
    if isinstance(value, LinExpr):
        return value
    if isinstance(value, Variable):
        return LinExpr({value: ONE})
    if _is_number(value):
        return LinExpr(constant=value)
    return None


class _Affine:
    """Operator overloads shared by variables and expressions."""

    __slots__ = ()

    def __add__(self, other):
        other = as_expr(other)
        if other is None:
            return NotImplemented
        result = as_expr(self).copy()
        for var, coef in other.terms.items():
            result._add_term(var, coef)
        result.constant += other.constant
        return result

    __radd__ = __add__

    def __sub__(self, other):
        other = as_expr(other)
        if other is None:
            return NotImplemented
        return self + (-other)

    def __rsub__(self, other):
        other = as_expr(other)
        if other is None:
            return NotImplemented
        return other + (-self)

    def __neg__(self):
        return self * -1

    def __mul__(self, other):
        expr = as_expr(self)
        if isinstance(other, _Affine):
            other = as_expr(other)
            if other.terms and expr.terms:
                raise TypeError("product of two non-constant expressions is not linear")
            if expr.terms:
                return expr * other.constant
            return other * expr.constant
        if not _is_number(other):
            return NotImplemented
        factor = to_fraction(other)
        result = LinExpr(constant=expr.constant * factor)
        if factor:
            result.terms = {var: coef * factor for var, coef in expr.terms.items()}
        return result

    __rmul__ = __mul__

    def __truediv__(self, other):
        if not _is_number(other):
            return NotImplemented
        if not other:
            raise ZeroDivisionError("division of an expression by zero")
        return as_expr(self) * (ONE / to_fraction(other))

    def _compare(self, other, sense):
        other = as_expr(other)
        if other is None:
            return NotImplemented
        return Constraint(as_expr(self) - other, sense)

    def __le__(self, other):
        return self._compare(other, LE)

    def __ge__(self, other):
        return self._compare(other, GE)

    def __eq__(self, other):
        return self._compare(other, EQ)

    def __lt__(self, other):
        raise TypeError("strict inequalities are not supported; use <= or >=")

    __gt__ = __lt__


class Variable(_Affine):
    """A decision variable.  Create them with :meth:`Model.add_var`."""

    __slots__ = ("name", "lower", "upper", "integer", "index", "model")

    def __init__(self, name, lower=ZERO, upper=None, integer=False, index=0, model=None):
        self.name = name
        self.lower = lower
        self.upper = upper
        self.integer = integer
        self.index = index
        self.model = model

    # Identity hashing: variables are dictionary keys in every expression.
    def __hash__(self):
        return id(self)

    def value(self, assignment):
        return as_expr(self).value(assignment)

    def bounds_text(self):
        lo, hi = self.lower, self.upper
        if lo is not None and hi is not None:
            return f"{self.name} = {lo}" if lo == hi else f"{lo} ≤ {self.name} ≤ {hi}"
        if lo is not None:
            return f"{self.name} ≥ {lo}"
        if hi is not None:
            return f"{self.name} ≤ {hi}"
        return f"{self.name} free"

    def __repr__(self):
        return f"Variable({self.name!r})"


class LinExpr(_Affine):
    """An affine expression ``sum(coef * var) + constant``."""

    __slots__ = ("terms", "constant")

    def __init__(self, terms=None, constant=0):
        self.terms = {}
        self.constant = to_fraction(constant)
        for var, coef in (terms or {}).items():
            self._add_term(var, to_fraction(coef))

    def _add_term(self, var, coef):
        total = self.terms.get(var, ZERO) + coef
        if total:
            self.terms[var] = total
        else:
            self.terms.pop(var, None)

    def copy(self):
        clone = LinExpr(constant=self.constant)
        clone.terms = dict(self.terms)
        return clone

    def variables(self):
        """Variables with a non-zero coefficient, in creation order."""
        return sorted(self.terms, key=lambda var: var.index)

    def value(self, assignment):
        """Evaluate with values looked up by variable or by variable name."""
        total = self.constant
        for var, coef in self.terms.items():
            if var in assignment:
                value = assignment[var]
            elif var.name in assignment:
                value = assignment[var.name]
            else:
                raise KeyError(f"no value for variable {var.name!r}")
            total += coef * to_fraction(value)
        return total

    def __str__(self):
        parts = []
        for var in self.variables():
            coef = self.terms[var]
            magnitude = abs(coef)
            text = var.name if magnitude == 1 else f"{magnitude}·{var.name}"
            if not parts:
                parts.append(f"-{text}" if coef < 0 else text)
            else:
                parts.append(f"{'-' if coef < 0 else '+'} {text}")
        if not parts:
            return str(self.constant)
        if self.constant:
            parts.append(f"{'-' if self.constant < 0 else '+'} {abs(self.constant)}")
        return " ".join(parts)


class Constraint:
    """``expr (sense) rhs`` with every variable on the left-hand side."""

    __slots__ = ("expr", "sense", "rhs", "name")

    def __init__(self, expr, sense, name=None):
        if sense not in SENSE_SYMBOLS:
            raise ValueError(f"unknown constraint sense {sense!r}")
        self.expr = LinExpr(expr.terms)
        self.rhs = -expr.constant
        self.sense = sense
        self.name = name

    def __bool__(self):
        # ``x == y`` builds a constraint, so using one as a truth value (say in
        # ``if x == y:``) is almost certainly a bug.  Refuse loudly.
        raise TypeError("a constraint has no truth value")

    def slack(self, values):
        """Distance to the boundary; negative when violated (signed residual for ==)."""
        lhs = self.expr.value(values)
        if self.sense == GE:
            return lhs - self.rhs
        return self.rhs - lhs

    def is_satisfied(self, values, tol=0):
        slack = self.slack(values)
        if self.sense == EQ:
            return abs(slack) <= tol
        return slack >= -tol

    def __str__(self):
        label = f"{self.name}: " if self.name else ""
        return f"{label}{self.expr} {SENSE_SYMBOLS[self.sense]} {self.rhs}"


def quicksum(items):
    """Sum variables, expressions and numbers without sum()'s repeated copying."""
    total = LinExpr()
    for item in items:
        expr = as_expr(item)
        if expr is None:
            raise TypeError(f"cannot add {type(item).__name__} to a linear expression")
        for var, coef in expr.terms.items():
            total._add_term(var, coef)
        total.constant += expr.constant
    return total


def dot(coefficients, variables):
    """``sum(c * v)`` over two equally long sequences."""
    return quicksum(to_fraction(c) * v for c, v in zip(coefficients, variables, strict=True))


def _tokenize(text):
    tokens = []
    text = text.rstrip()
    pos = 0
    while pos < len(text):
        match = _TOKEN_RE.match(text, pos)
        if match is None:
            bad = text[pos:].lstrip()[:1]
            raise ParseError(f"unexpected character {bad!r} in {text!r}")
        kind = match.lastgroup
        tokens.append((kind, match.group(kind)))
        pos = match.end()
    return tokens


def _parse_terms(tokens, resolve, text):
    if not tokens:
        raise ParseError(f"missing expression in {text!r}")
    expr = LinExpr()
    pos = 0
    end = (None, None)
    while pos < len(tokens):
        sign, signed = ONE, False
        while pos < len(tokens) and tokens[pos] in (("op", "+"), ("op", "-")):
            if tokens[pos][1] == "-":
                sign = -sign
            signed = True
            pos += 1
        if pos > 0 and not signed:
            raise ParseError(f"missing '+' or '-' between terms in {text!r}")
        coef, starred = None, False
        kind, lexeme = tokens[pos] if pos < len(tokens) else end
        if kind == "num":
            coef = Fraction(lexeme)
            pos += 1
            if pos < len(tokens) and tokens[pos] in (("op", "*"), ("op", "·")):
                starred = True
                pos += 1
            kind, lexeme = tokens[pos] if pos < len(tokens) else end
        if kind == "name":
            expr._add_term(resolve(lexeme), sign * (ONE if coef is None else coef))
            pos += 1
        elif coef is not None and not starred:
            expr.constant += sign * coef
        else:
            raise ParseError(f"expected a term in {text!r}")
    return expr


def parse_expression(text, resolve):
    """Parse text such as ``"3x - 1/2 y + 4"``; ``resolve`` maps names to variables."""
    tokens = _tokenize(text)
    if any(kind == "cmp" for kind, _ in tokens):
        raise ParseError(f"unexpected comparison in expression {text!r}")
    return _parse_terms(tokens, resolve, text)


def parse_constraint(text, resolve):
    """Parse text such as ``"2x + 3y <= 12"`` (also ``>=``, ``=``, ``≤``, ``≥``)."""
    tokens = _tokenize(text)
    positions = [i for i, (kind, _) in enumerate(tokens) if kind == "cmp"]
    if len(positions) != 1:
        raise ParseError(f"expected exactly one comparison in {text!r}")
    split = positions[0]
    lhs = _parse_terms(tokens[:split], resolve, text)
    rhs = _parse_terms(tokens[split + 1:], resolve, text)
    return Constraint(lhs - rhs, _SENSE_ALIASES[tokens[split][1]])
