"""Typed tables, expression evaluation, query planning and execution."""

import functools
import heapq
import itertools
import math
import operator
from collections import defaultdict
from dataclasses import dataclass

from . import nodes
from .errors import ExecutionError, SchemaError, SQLSyntaxError
from .parser import parse_script

TYPE_ALIASES = {
    "INT": "INTEGER", "INTEGER": "INTEGER", "REAL": "REAL", "FLOAT": "REAL",
    "TEXT": "TEXT", "VARCHAR": "TEXT", "BOOLEAN": "BOOLEAN", "BOOL": "BOOLEAN",
}
COMPARATORS = {
    "=": operator.eq, "!=": operator.ne, "<": operator.lt,
    "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def coerce_value(value, type_name, column_name):
    """Convert *value* for storage in a column of *type_name*, or raise SchemaError."""
    if value is None:
        return None
    if type_name == "INTEGER":
        if is_number(value) and float(value).is_integer():
            return int(value)
    elif type_name == "REAL":
        if is_number(value):
            return float(value)
    elif type_name == "TEXT":
        if isinstance(value, str):
            return value
    elif isinstance(value, bool) or (is_number(value) and value in (0, 1)):
        # Only BOOLEAN is left: accept TRUE/FALSE and the integers 0 and 1.
        return bool(value)
    raise SchemaError(f"cannot store {value!r} in {type_name} column {column_name!r}")


@dataclass
class Column:
    name: str
    type_name: str
    not_null: bool = False


class Table:
    """A named list of row tuples with a fixed, typed schema."""

    def __init__(self, name, columns):
        self.name = name
        self.columns = list(columns)
        self.rows = []
        self.positions = {}
        for index, column in enumerate(self.columns):
            if column.name in self.positions:
                raise SchemaError(f"duplicate column {column.name!r} in table {name!r}")
            self.positions[column.name] = index

    @property
    def column_names(self):
        return [column.name for column in self.columns]

    def position(self, name):
        try:
            return self.positions[name]
        except KeyError:
            raise SchemaError(f"no column {name!r} in table {self.name!r}") from None

    def _build_row(self, values):
        row = []
        for column in self.columns:
            value = coerce_value(values.get(column.name), column.type_name, column.name)
            if value is None and column.not_null:
                raise SchemaError(f"column {column.name!r} may not be NULL")
            row.append(value)
        return tuple(row)

    def insert_many(self, mappings):
        """Validate every ``{column: value}`` mapping, then append them all.

        Nothing is stored when any row is rejected.
        """
        rows = [self._build_row(mapping) for mapping in mappings]
        self.rows.extend(rows)
        return len(rows)


class Scope:
    """Maps column references to positions inside a combined (joined) row."""

    def __init__(self):
        self.tables = {}
        self.offsets = {}
        self.width = 0

    def add(self, binding, table):
        if binding in self.tables:
            raise SchemaError(f"table name {binding!r} specified more than once")
        self.tables[binding] = table
        self.offsets[binding] = self.width
        self.width += len(table.columns)

    def resolve(self, ref):
        if ref.table is not None:
            if ref.table not in self.tables:
                raise SchemaError(f"unknown table {ref.table!r}")
            return self.offsets[ref.table] + self.tables[ref.table].position(ref.name)
        matches = [self.offsets[binding] + table.positions[ref.name]
                   for binding, table in self.tables.items() if ref.name in table.positions]
        if not matches:
            raise SchemaError(f"unknown column {ref.name!r}")
        if len(matches) > 1:
            raise SchemaError(f"column reference {ref.name!r} is ambiguous")
        return matches[0]

    def star_refs(self):
        """The column references that ``*`` expands to, in table order."""
        if not self.tables:
            raise SchemaError("'*' used without a FROM clause")
        return [nodes.ColumnRef(name, binding)
                for binding, table in self.tables.items() for name in table.column_names]


def truth(value):
    """SQL truthiness: NULL stays unknown, anything else is coerced to bool."""
    return None if value is None else bool(value)


def compare(op, left, right):
    if left is None or right is None:
        return None
    if not (is_number(left) and is_number(right)) and type(left) is not type(right):
        raise ExecutionError(
            f"cannot compare {type(left).__name__} with {type(right).__name__}")
    return COMPARATORS[op](left, right)


def arithmetic(op, left, right):
    if left is None or right is None:
        return None
    if not (is_number(left) and is_number(right)):
        raise ExecutionError(f"operator {op} requires numeric operands")
    if op in ("+", "-", "*"):
        return {"+": operator.add, "-": operator.sub, "*": operator.mul}[op](left, right)
    if right == 0:
        raise ExecutionError("division by zero")
    if op == "/" and isinstance(left, int) and isinstance(right, int):
        # Integer division truncates toward zero, as SQL engines do.
        quotient = abs(left) // abs(right)
        return quotient if (left >= 0) == (right > 0) else -quotient
    if op == "/":
        return left / right
    remainder = math.fmod(left, right)
    return int(remainder) if isinstance(left, int) and isinstance(right, int) else remainder


def call_scalar(name, args):
    """Evaluate a non-aggregate function; NULL arguments give NULL (except COALESCE)."""
    if name == "COALESCE":
        return next((arg for arg in args if arg is not None), None)
    if len(args) != 1:
        raise ExecutionError(f"{name} takes exactly one argument")
    value = args[0]
    if value is None:
        return None
    if name == "ABS":
        if not is_number(value):
            raise ExecutionError("ABS requires a numeric argument")
        return abs(value)
    if not isinstance(value, str):
        raise ExecutionError(f"{name} requires a text argument")
    return {"UPPER": str.upper, "LOWER": str.lower, "LENGTH": len}[name](value)


class Evaluator:
    """Evaluates expressions against combined rows described by a :class:`Scope`."""

    def __init__(self, scope):
        self.scope = scope
        # Column positions are resolved once per reference, then reused per row.
        self._positions = {}

    def evaluate(self, expr, row, group=None):
        """Value of *expr* for *row*; aggregates are computed over *group* rows."""
        if isinstance(expr, nodes.Literal):
            return expr.value
        if isinstance(expr, nodes.ColumnRef):
            if expr not in self._positions:
                self._positions[expr] = self.scope.resolve(expr)
            return row[self._positions[expr]]
        if isinstance(expr, nodes.IsNull):
            return (self.evaluate(expr.operand, row, group) is None) != expr.negated
        if isinstance(expr, nodes.UnaryOp):
            value = self.evaluate(expr.operand, row, group)
            if expr.op == "NOT":
                return None if value is None else not value
            return arithmetic("-", 0, value)
        if isinstance(expr, nodes.BinaryOp):
            if expr.op in ("AND", "OR"):
                return self._logical(expr, row, group)
            left = self.evaluate(expr.left, row, group)
            right = self.evaluate(expr.right, row, group)
            if expr.op in COMPARATORS:
                return compare(expr.op, left, right)
            if expr.op == "||":
                return None if left is None or right is None else f"{left}{right}"
            return arithmetic(expr.op, left, right)
        if expr.is_aggregate:
            return self.aggregate(expr, group)
        return call_scalar(expr.name, [self.evaluate(arg, row, group) for arg in expr.args])

    def _logical(self, expr, row, group):
        # Three-valued logic: a decisive operand wins even when the other is NULL.
        decisive = expr.op == "OR"
        left = truth(self.evaluate(expr.left, row, group))
        if left is decisive:
            return decisive
        right = truth(self.evaluate(expr.right, row, group))
        if right is decisive:
            return decisive
        if left is None or right is None:
            return None
        return not decisive

    def aggregate(self, call, group):
        if call.args == (nodes.Star(),):
            return len(group)
        if len(call.args) != 1:
            raise ExecutionError(f"{call.name} takes exactly one argument")
        values = [self.evaluate(call.args[0], row) for row in group]
        values = [value for value in values if value is not None]
        if call.name == "COUNT":
            return len(values)
        if not values:
            return None
        if call.name in ("MIN", "MAX"):
            wanted = "<" if call.name == "MIN" else ">"
            best = values[0]
            for value in values[1:]:
                if compare(wanted, value, best):
                    best = value
            return best
        if not all(is_number(value) for value in values):
            raise ExecutionError(f"{call.name} requires numeric values")
        if call.name == "SUM" and all(isinstance(value, int) for value in values):
            return sum(values)
        total = math.fsum(values)
        return total if call.name == "SUM" else total / len(values)


def compare_sort_keys(left, right, directions):
    """cmp-style comparator for ORDER BY keys; NULLs sort first ascending, last descending."""
    for a, b, descending in zip(left, right, directions):
        if a == b:
            continue
        if a is None:
            result = -1
        elif b is None:
            result = 1
        else:
            result = -1 if compare("<", a, b) else 1
        return -result if descending else result
    return 0


def hash_join(rows, table, left_index, right_index):
    """Inner equi-join: build a hash on *table*, probe it with each incoming row."""
    buckets = defaultdict(list)
    for row in table.rows:
        if row[right_index] is not None:
            buckets[row[right_index]].append(row)
    for left in rows:
        for right in buckets.get(left[left_index], ()):
            yield left + right


def group_rows(rows, keys, evaluator):
    """Yield ``(representative_row, members)`` for every group, in first-seen order."""
    groups = {}
    for row in rows:
        key = tuple(evaluator.evaluate(expr, row) for expr in keys)
        groups.setdefault(key, []).append(row)
    if not keys and not groups:
        # An aggregate without GROUP BY still produces one row over empty input.
        groups[()] = []
    for members in groups.values():
        yield (members[0] if members else None), members


def sort_rows(rows, directions, top):
    """Sort ``(values, keys)`` pairs by their keys, keeping only *top* rows if given."""
    key = functools.cmp_to_key(lambda a, b: compare_sort_keys(a[1], b[1], directions))
    if top is not None:
        # Only the first rows survive LIMIT, so a bounded heap is enough.
        return heapq.nsmallest(top, rows, key=key)
    return sorted(rows, key=key)


def _reject_aggregates(expr, clause):
    if expr is not None and nodes.contains_aggregate(expr):
        raise SchemaError(f"aggregate functions are not allowed in {clause}")


def _join_positions(condition, scope, binding):
    """Positions compared by an ``ON a = b`` joining *binding* to the earlier tables."""
    if (isinstance(condition, nodes.BinaryOp) and condition.op == "="
            and isinstance(condition.left, nodes.ColumnRef)
            and isinstance(condition.right, nodes.ColumnRef)):
        first, second = scope.resolve(condition.left), scope.resolve(condition.right)
        start = scope.offsets[binding]
        if first >= start > second:
            first, second = second, first
        if first < start <= second:
            return first, second - start
    raise SchemaError("JOIN ... ON must equate a column of the joined table "
                      "with a column of an earlier table")


class Planner:
    """Compiles a :class:`nodes.Select` into a lazy pipeline of generators."""

    def __init__(self, tables):
        self.tables = tables

    def lookup(self, name):
        try:
            return self.tables[name]
        except KeyError:
            raise SchemaError(f"no such table {name!r}") from None

    def run(self, stmt):
        """Execute a SELECT and return ``(column_labels, rows)``."""
        scope = Scope()
        evaluator = Evaluator(scope)
        rows = self._source(stmt, scope)
        if stmt.where is not None:
            _reject_aggregates(stmt.where, "WHERE")
            rows = (row for row in rows if truth(evaluator.evaluate(stmt.where, row)))
        labels, exprs = self._expand_items(stmt.items, scope)
        sort_keys = [self._sort_key(item.expr, labels) for item in stmt.order_by]
        exprs_and_keys = exprs + [key for key in sort_keys if not isinstance(key, int)]
        if stmt.group_by or any(nodes.contains_aggregate(expr) for expr in exprs_and_keys):
            self._check_grouping(stmt.group_by, exprs_and_keys, scope)
            pairs = group_rows(rows, stmt.group_by, evaluator)
        else:
            pairs = ((row, None) for row in rows)
        output = self._project(pairs, exprs, sort_keys, evaluator)
        if sort_keys:
            top = None if stmt.limit is None else stmt.limit + stmt.offset
            output = sort_rows(output, [item.descending for item in stmt.order_by], top)
        stop = None if stmt.limit is None else stmt.offset + stmt.limit
        return labels, [values for values, _ in itertools.islice(output, stmt.offset, stop)]

    def _source(self, stmt, scope):
        if stmt.table is None:
            return iter([()])
        table = self.lookup(stmt.table.name)
        scope.add(stmt.table.binding, table)
        rows = iter(table.rows)
        for join in stmt.joins:
            table = self.lookup(join.table.name)
            scope.add(join.table.binding, table)
            rows = hash_join(rows, table, *_join_positions(join.condition, scope,
                                                           join.table.binding))
        return rows

    @staticmethod
    def _expand_items(items, scope):
        labels, exprs = [], []
        for item in items:
            if isinstance(item.expr, nodes.Star):
                refs = scope.star_refs()
                labels.extend(ref.name for ref in refs)
                exprs.extend(refs)
                continue
            if item.alias is not None:
                labels.append(item.alias)
            elif isinstance(item.expr, nodes.ColumnRef):
                labels.append(item.expr.name)
            else:
                labels.append(item.text)
            exprs.append(item.expr)
        return labels, exprs

    @staticmethod
    def _sort_key(expr, labels):
        """An ORDER BY term is either an output column label or an expression."""
        if (isinstance(expr, nodes.ColumnRef) and expr.table is None
                and labels.count(expr.name) == 1):
            return labels.index(expr.name)
        return expr

    @staticmethod
    def _project(pairs, exprs, sort_keys, evaluator):
        for row, group in pairs:
            values = tuple(evaluator.evaluate(expr, row, group) for expr in exprs)
            keys = tuple(values[key] if isinstance(key, int)
                         else evaluator.evaluate(key, row, group) for key in sort_keys)
            yield values, keys

    @staticmethod
    def _check_grouping(group_by, exprs, scope):
        for key in group_by:
            _reject_aggregates(key, "GROUP BY")
        grouped_positions = {scope.resolve(key) for key in group_by
                             if isinstance(key, nodes.ColumnRef)}
        pending = list(exprs)
        while pending:
            expr = pending.pop()
            if expr in group_by:
                continue
            if isinstance(expr, nodes.FuncCall) and expr.is_aggregate:
                for arg in expr.args:
                    _reject_aggregates(arg, "an aggregate argument")
            elif isinstance(expr, nodes.ColumnRef):
                if scope.resolve(expr) not in grouped_positions:
                    raise SchemaError(f"column {expr.name!r} must appear in "
                                      "GROUP BY or be used in an aggregate function")
            else:
                pending.extend(nodes.children(expr))


class Result:
    """Rows returned by a statement; ``rowcount`` is the number of rows affected."""

    def __init__(self, columns=(), rows=(), rowcount=None):
        self.columns = list(columns)
        self.rows = list(rows)
        self.rowcount = len(self.rows) if rowcount is None else rowcount

    def scalar(self):
        """The first column of the first row."""
        if not self.rows:
            raise ExecutionError("statement returned no rows")
        return self.rows[0][0]


class Database:
    """An in-memory collection of tables that executes SQL text."""

    def __init__(self):
        self.tables = {}

    def execute(self, sql):
        """Run exactly one statement and return its :class:`Result`."""
        statements = parse_script(sql)
        if len(statements) != 1:
            raise SQLSyntaxError(f"execute() expects one statement, got {len(statements)}")
        return self._run(statements[0])

    def execute_script(self, sql):
        """Run every statement in *sql*, returning one result per statement."""
        return [self._run(stmt) for stmt in parse_script(sql)]

    def _run(self, stmt):
        if isinstance(stmt, nodes.CreateTable):
            return self._create(stmt)
        if isinstance(stmt, nodes.Insert):
            return self._insert(stmt)
        labels, rows = Planner(self.tables).run(stmt)
        return Result(labels, rows)

    def _create(self, stmt):
        if stmt.name in self.tables:
            raise SchemaError(f"table {stmt.name!r} already exists")
        columns = []
        for col in stmt.columns:
            type_name = TYPE_ALIASES.get(col.type_name.upper())
            if type_name is None:
                raise SchemaError(f"unknown column type {col.type_name!r}")
            columns.append(Column(col.name, type_name, col.not_null))
        self.tables[stmt.name] = Table(stmt.name, columns)
        return Result(rowcount=0)

    def _insert(self, stmt):
        table = Planner(self.tables).lookup(stmt.table)
        names = stmt.columns if stmt.columns is not None else table.column_names
        for name in names:
            table.position(name)
        if len(set(names)) != len(names):
            raise SchemaError("a column is listed more than once in INSERT")
        # VALUES expressions are evaluated with no table in scope.
        evaluator = Evaluator(Scope())
        mappings = []
        for values in stmt.rows:
            if len(values) != len(names):
                raise SchemaError(f"INSERT expects {len(names)} values, got {len(values)}")
            mappings.append({name: evaluator.evaluate(expr, ())
                             for name, expr in zip(names, values)})
        return Result(rowcount=table.insert_many(mappings))
