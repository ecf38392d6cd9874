from fractions import Fraction as F

from decimal import Decimal

import pytest

from lpsolve import Constraint, LinExpr, Model, ModelError, ParseError, dot, quicksum, to_fraction
from lpsolve.expr import GE, LE, EQ, as_expr, parse_constraint, parse_expression, to_bound


@pytest.fixture
def xyz():
    m = Model("expr")
    return m, m.add_var("x"), m.add_var("y", lb=-2, ub=5), m.add_var("z", lb=None)


def test_to_fraction_conversions():
    assert to_fraction(3) == F(3)
    assert to_fraction(F(2, 7)) == F(2, 7)
    assert to_fraction(0.1) == F(1, 10)
    assert to_fraction(-2.5) == F(-5, 2)


@pytest.mark.parametrize("value, message", [
    (True, "booleans"), ([1], "cannot use list"), (float("nan"), "finite"),
    (float("inf"), "finite"), ("3", "cannot use str"), (Decimal("1.5"), "cannot use Decimal"),
])
def test_to_fraction_rejects(value, message):
    with pytest.raises((TypeError, ValueError), match=message):
        to_fraction(value)


def test_to_bound_handles_infinities():
    assert to_bound(None, upper=True) is None
    assert to_bound(float("inf"), upper=True) is None
    assert to_bound(float("-inf"), upper=False) is None
    assert to_bound(2.5, upper=False) == F(5, 2)
    with pytest.raises(ValueError, match="lower bound"):
        to_bound(float("inf"), upper=False)
    with pytest.raises(ValueError, match="upper bound"):
        to_bound(float("-inf"), upper=True)


def test_as_expr(xyz):
    _, x, _, _ = xyz
    expr = LinExpr({x: 2})
    assert as_expr(expr) is expr
    assert as_expr(x).terms == {x: 1}
    assert as_expr(F(3, 2)).constant == F(3, 2)
    assert as_expr("x") is None
    assert as_expr(True) is None


def test_arithmetic_combines_terms(xyz):
    _, x, y, z = xyz
    expr = 2 * x + y * 3 - (x - 4) + 1 - z / 2
    assert expr.terms == {x: 1, y: 3, z: F(-1, 2)}
    assert expr.constant == 5
    assert (10 - x).terms == {x: -1} and (10 - x).constant == 10
    assert (x + 1 - x).terms == {}
    assert (-(x + 2 * y)).terms == {x: -1, y: -2}
    assert (x - y).terms == {x: 1, y: -1}
    assert (5 + x).constant == 5
    assert (0 * x).terms == {} and (x * 0).constant == 0


def test_multiplication_by_constant_expressions(xyz):
    _, x, y, _ = xyz
    assert (x * LinExpr(constant=3)).terms == {x: 3}
    product = LinExpr(constant=3) * (x + 1)
    assert product.terms == {x: 3} and product.constant == 3
    assert ((x + 1) / F(2)).terms == {x: F(1, 2)}
    with pytest.raises(TypeError, match="not linear"):
        x * y
    with pytest.raises(TypeError, match="not linear"):
        (x + 1) * (y - 2)
    with pytest.raises(TypeError):
        x / (y + 1)
    with pytest.raises(ZeroDivisionError, match="expression by zero"):
        x / 0
    with pytest.raises(TypeError):
        x * "2"
    with pytest.raises(TypeError):
        x / "2"
    with pytest.raises(TypeError):
        x + "a"
    with pytest.raises(TypeError):
        x - None
    with pytest.raises(TypeError, match="for -: 'list' and 'Variable'"):
        [1] - x


class Foreign:
    """Stands in for a third-party type that knows how to combine with expressions."""

    def __radd__(self, other):
        return ("radd", other)

    def __rsub__(self, other):
        return ("rsub", other)

    def __rmul__(self, other):
        return ("rmul", other)

    def __rtruediv__(self, other):
        return ("rtruediv", other)

    def __ge__(self, other):
        return ("ge", other)


def test_foreign_operands_get_a_chance(xyz):
    _, x, _, _ = xyz
    thing = Foreign()
    assert (x + thing) == ("radd", x)
    assert (x - thing) == ("rsub", x)
    assert (x * thing) == ("rmul", x)
    assert (x / thing) == ("rtruediv", x)
    assert (x <= thing) == ("ge", x)


def test_expression_queries(xyz):
    _, x, y, z = xyz
    expr = LinExpr({z: 1, x: 2, y: 0}, constant=1)
    assert expr.variables() == [x, z]
    assert expr.terms == {x: 2, z: 1}
    assert expr.value({x: 3, "z": F(1, 2)}) == F(15, 2)
    assert x.value({"x": 4}) == 4
    with pytest.raises(KeyError, match="no value for variable 'z'"):
        expr.value({x: 1})
    clone = expr.copy()
    clone._add_term(x, 1)
    assert expr.terms[x] == 2 and clone.terms[x] == 3


def test_expression_formatting(xyz):
    _, x, y, z = xyz
    assert str(2 * x - y + F(1, 2) * z - 3) == "2·x - y + 1/2·z - 3"
    assert str(-x + 3 * y + 4) == "-x + 3·y + 4"
    assert str(LinExpr(constant=-7)) == "-7"
    assert str(-2 * y) == "-2·y"
    assert repr(x) == "Variable('x')"


def test_comparisons_build_constraints(xyz):
    _, x, y, _ = xyz
    le = 2 * x + 1 <= y + 5
    assert le.sense == LE and le.expr.terms == {x: 2, y: -1}
    assert le.rhs == 4
    ge = 3 <= x
    assert ge.sense == GE and ge.rhs == 3
    eq = x == y
    assert eq.sense == EQ and eq.expr.terms == {x: 1, y: -1} and eq.rhs == 0
    assert (x >= y).sense == GE
    assert (x <= 1).sense == LE
    assert (x == "x") is False
    with pytest.raises(TypeError, match="strict"):
        x < 1
    with pytest.raises(TypeError, match="strict"):
        x + 1 > y
    with pytest.raises(TypeError):
        (x + 1) <= "y"


def test_constraint_slack_and_satisfaction(xyz):
    _, x, y, _ = xyz
    le = Constraint(x + y - 4, LE, name="cap")
    ge = Constraint(x - 1, GE)
    eq = Constraint(x - y, EQ)
    point = {x: 3, y: 2}
    assert le.slack(point) == -1 and not le.is_satisfied(point)
    assert le.is_satisfied(point, tol=1)
    assert ge.slack(point) == 2 and ge.is_satisfied(point)
    assert eq.slack(point) == -1 and not eq.is_satisfied(point)
    assert eq.is_satisfied({x: 2, y: 2})
    assert eq.slack({x: 1, y: 2}) == 1 and not eq.is_satisfied({x: 1, y: 2})
    assert str(le) == "cap: x + y ≤ 4"
    assert str(ge) == "x ≥ 1"
    with pytest.raises(ValueError, match="sense"):
        Constraint(x + 0, "<")
    with pytest.raises(TypeError, match="truth value"):
        if x == y:
            pass


def test_quicksum_and_dot(xyz):
    _, x, y, z = xyz
    total = quicksum([x, 2 * y, 3, x, F(1, 2)])
    assert total.terms == {x: 2, y: 2} and total.constant == F(7, 2)
    assert dot([1, 0.5, -2], [x, y, z]).terms == {x: 1, y: F(1, 2), z: -2}
    with pytest.raises(TypeError):
        quicksum([x, "y"])
    with pytest.raises(ValueError):
        dot([1, 2], [x])


def test_bounds_text():
    m = Model()
    assert m.add_var("a").bounds_text() == "a ≥ 0"
    assert m.add_var("b", lb=1, ub=3).bounds_text() == "1 ≤ b ≤ 3"
    assert m.add_var("c", lb=2, ub=2).bounds_text() == "c = 2"
    assert m.add_var("d", lb=None, ub=4).bounds_text() == "d ≤ 4"
    assert m.add_var("e", lb=None).bounds_text() == "e free"


def test_parse_expression(xyz):
    m, x, y, z = xyz
    expr = parse_expression("3x - 1/2 y + 2*z - -4 + 0.5 · x", m.get_var)
    assert expr.terms == {x: F(7, 2), y: F(-1, 2), z: 2}
    assert expr.constant == 4
    assert parse_expression("  -x  ", m.get_var).terms == {x: -1}
    # the printed form parses back to the same expression
    original = 2 * x - y + F(1, 3) * z - 3
    again = parse_expression(str(original), m.get_var)
    assert again.terms == original.terms and again.constant == original.constant


@pytest.mark.parametrize("text, message", [
    ("", "missing expression"),
    ("x y", "missing '\\+' or '-'"),
    ("3 4", "missing"),
    ("x +", "expected a term"),
    ("2 *", "expected a term"),
    ("2 * 3", "expected a term"),
    ("x ^ 2", "unexpected character '\\^'"),
    ("x <= 3", "unexpected comparison"),
    ("3/0 x", "unexpected character '/'"),
])
def test_parse_expression_errors(xyz, text, message):
    m = xyz[0]
    with pytest.raises(ParseError, match=message):
        parse_expression(text, m.get_var)


def test_parse_constraint(xyz):
    m, x, y, _ = xyz
    con = parse_constraint("2x + 3 <= y + 12", m.get_var)
    assert con.sense == LE and con.expr.terms == {x: 2, y: -1} and con.rhs == 9
    assert parse_constraint("x ≥ 1", m.get_var).sense == GE
    assert parse_constraint("x ≤ 1", m.get_var).sense == LE
    assert parse_constraint("x = y", m.get_var).sense == EQ
    assert parse_constraint("x == 2", m.get_var).sense == EQ
    for bad in ("x + y", "1 <= x <= 2"):
        with pytest.raises(ParseError, match="exactly one comparison"):
            parse_constraint(bad, m.get_var)
    with pytest.raises(ParseError, match="missing expression"):
        parse_constraint("<= 3", m.get_var)
    with pytest.raises(ModelError, match="unknown variable 'w'"):
        parse_constraint("w >= 0", m.get_var)
