"""Abstract syntax tree for statements and expressions.

Expression nodes are frozen dataclasses: they compare by value and are hashable,
which the planner relies on when matching GROUP BY expressions.
"""

from dataclasses import dataclass, field

AGGREGATE_FUNCTIONS = frozenset({"COUNT", "SUM", "AVG", "MIN", "MAX"})
SCALAR_FUNCTIONS = frozenset({"UPPER", "LOWER", "LENGTH", "ABS", "COALESCE"})


@dataclass(frozen=True)
class Literal:
    value: object


@dataclass(frozen=True)
class ColumnRef:
    name: str
    table: str | None = None


@dataclass(frozen=True)
class Star:
    """``*`` in a select list or inside ``COUNT(*)``."""


@dataclass(frozen=True)
class UnaryOp:
    op: str
    operand: object


@dataclass(frozen=True)
class BinaryOp:
    op: str
    left: object
    right: object


@dataclass(frozen=True)
class IsNull:
    operand: object
    negated: bool = False


@dataclass(frozen=True)
class FuncCall:
    name: str
    args: tuple

    @property
    def is_aggregate(self):
        return self.name in AGGREGATE_FUNCTIONS


@dataclass
class SelectItem:
    expr: object
    alias: str | None = None
    text: str = ""  # source text of the expression, used as its default label


@dataclass
class TableRef:
    name: str
    alias: str | None = None

    @property
    def binding(self):
        """The name under which the table's columns are visible in the query."""
        return self.alias or self.name


@dataclass
class JoinClause:
    table: TableRef
    condition: object


@dataclass
class OrderItem:
    expr: object
    descending: bool = False


@dataclass
class Select:
    items: list
    table: TableRef | None = None
    joins: list = field(default_factory=list)
    where: object = None
    group_by: list = field(default_factory=list)
    order_by: list = field(default_factory=list)
    limit: int | None = None
    offset: int = 0


@dataclass
class ColumnDef:
    name: str
    type_name: str
    not_null: bool = False


@dataclass
class CreateTable:
    name: str
    columns: list


@dataclass
class Insert:
    table: str
    columns: list | None
    rows: list


def children(expr):
    """Return the direct sub-expressions of *expr* as a tuple."""
    if isinstance(expr, (UnaryOp, IsNull)):
        return (expr.operand,)
    if isinstance(expr, BinaryOp):
        return (expr.left, expr.right)
    if isinstance(expr, FuncCall):
        return expr.args
    return ()


def walk(expr):
    """Yield *expr* and every node below it, parents before children."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


def contains_aggregate(expr):
    return any(isinstance(node, FuncCall) and node.is_aggregate for node in walk(expr))
