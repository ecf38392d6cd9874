import pytest

from minisql import Column, ExecutionError, SchemaError, Table
from minisql import engine, nodes
from minisql.engine import Evaluator, Scope


def make_table():
    table = Table("people", [Column("id", "INTEGER", not_null=True), Column("name", "TEXT"),
                             Column("score", "REAL")])
    table.insert_many([{"id": 1, "name": "ann", "score": 2}, {"id": 2}])
    return table


@pytest.mark.parametrize("value, type_name, expected", [
    (None, "INTEGER", None),
    (7, "INTEGER", 7),
    (3.0, "INTEGER", 3),
    (2, "REAL", 2.0),
    ("héllo", "TEXT", "héllo"),
    (True, "BOOLEAN", True),
    (0, "BOOLEAN", False),
    (1.0, "BOOLEAN", True),
])
def test_coerce_value_accepts(value, type_name, expected):
    result = engine.coerce_value(value, type_name, "c")
    assert result == expected and type(result) is type(expected)


@pytest.mark.parametrize("value, type_name", [
    (2.5, "INTEGER"), (True, "INTEGER"), ("1", "INTEGER"), ("1.5", "REAL"),
    (False, "REAL"), (5, "TEXT"), (2, "BOOLEAN"), ("yes", "BOOLEAN"),
])
def test_coerce_value_rejects(value, type_name):
    with pytest.raises(SchemaError, match=f"in {type_name} column 'c'"):
        engine.coerce_value(value, type_name, "c")


def test_table_insert_fills_missing_columns_with_null():
    table = make_table()
    assert table.rows == [(1, "ann", 2.0), (2, None, None)]
    assert table.column_names == ["id", "name", "score"]
    assert table.position("score") == 2


def test_table_insert_is_atomic_and_checks_not_null():
    table = make_table()
    with pytest.raises(SchemaError, match="'id' may not be NULL"):
        table.insert_many([{"id": 3}, {"name": "no id"}])
    assert len(table.rows) == 2
    assert table.insert_many([{"id": 3}, {"id": 4}]) == 2
    assert len(table.rows) == 4


def test_table_schema_errors():
    with pytest.raises(SchemaError, match="duplicate column 'a'"):
        Table("t", [Column("a", "TEXT"), Column("a", "INTEGER")])
    with pytest.raises(SchemaError, match="no column 'zzz' in table 'people'"):
        make_table().position("zzz")


def test_scope_resolution_and_errors():
    scope = Scope()
    scope.add("p", make_table())
    scope.add("q", Table("other", [Column("name", "TEXT"), Column("extra", "INTEGER")]))
    assert scope.offsets == {"p": 0, "q": 3}
    assert scope.resolve(nodes.ColumnRef("extra")) == 4
    assert scope.resolve(nodes.ColumnRef("name", "q")) == 3
    assert [ref.name for ref in scope.star_refs()] == ["id", "name", "score", "name", "extra"]
    with pytest.raises(SchemaError, match="ambiguous"):
        scope.resolve(nodes.ColumnRef("name"))
    with pytest.raises(SchemaError, match="unknown column 'nope'"):
        scope.resolve(nodes.ColumnRef("nope"))
    with pytest.raises(SchemaError, match="unknown table 'z'"):
        scope.resolve(nodes.ColumnRef("id", "z"))
    with pytest.raises(SchemaError, match="specified more than once"):
        scope.add("p", make_table())
    with pytest.raises(SchemaError, match="without a FROM"):
        Scope().star_refs()


def test_compare_semantics():
    assert engine.compare("<", 1, 2.5) is True
    assert engine.compare(">=", "b", "a") is True
    assert engine.compare("!=", 3, 3) is False
    assert engine.compare("=", None, 1) is None
    assert engine.compare("=", 1, None) is None
    with pytest.raises(ExecutionError, match="cannot compare str with int"):
        engine.compare("=", "1", 1)


@pytest.mark.parametrize("op, left, right, expected", [
    ("+", 2, 3, 5), ("-", 2, 3.5, -1.5), ("*", 4, 2, 8),
    ("/", 7, 2, 3), ("/", -7, 2, -3), ("/", 7, -2, -3), ("/", -8, -2, 4),
    ("/", 7.0, 2, 3.5), ("%", 7, 3, 1), ("%", -7, 3, -1), ("%", 7.5, 2, 1.5),
    ("+", None, 1, None), ("*", 2, None, None),
])
def test_arithmetic(op, left, right, expected):
    result = engine.arithmetic(op, left, right)
    assert result == expected and type(result) is type(expected)


def test_arithmetic_errors():
    with pytest.raises(ExecutionError, match="division by zero"):
        engine.arithmetic("/", 1, 0)
    with pytest.raises(ExecutionError, match="division by zero"):
        engine.arithmetic("%", 1.5, 0.0)
    with pytest.raises(ExecutionError, match="requires numeric"):
        engine.arithmetic("+", "a", 1)
    with pytest.raises(ExecutionError, match="requires numeric"):
        engine.arithmetic("-", 1, True)


def test_call_scalar():
    assert engine.call_scalar("COALESCE", [None, None, 3, 4]) == 3
    assert engine.call_scalar("COALESCE", [None]) is None
    assert engine.call_scalar("UPPER", ["crème brûlée"]) == "CRÈME BRÛLÉE"
    assert engine.call_scalar("LOWER", ["ÀB"]) == "àb"
    assert engine.call_scalar("LENGTH", ["naïve"]) == 5
    assert engine.call_scalar("ABS", [-2.5]) == 2.5
    assert engine.call_scalar("LENGTH", [None]) is None
    with pytest.raises(ExecutionError, match="exactly one argument"):
        engine.call_scalar("ABS", [1, 2])
    with pytest.raises(ExecutionError, match="ABS requires a numeric"):
        engine.call_scalar("ABS", ["x"])
    with pytest.raises(ExecutionError, match="UPPER requires a text"):
        engine.call_scalar("UPPER", [1])


def test_three_valued_logic():
    evaluator = Evaluator(Scope())
    values = {"T": nodes.Literal(True), "F": nodes.Literal(False), "N": nodes.Literal(None)}

    def run(op, a, b):
        return evaluator.evaluate(nodes.BinaryOp(op, values[a], values[b]), ())

    assert [run("AND", a, b) for a, b in ["TT", "TF", "FN", "NF", "TN", "NT", "NN"]] == [
        True, False, False, False, None, None, None]
    assert [run("OR", a, b) for a, b in ["FF", "FT", "TN", "NT", "FN", "NF", "NN"]] == [
        False, True, True, True, None, None, None]
    assert evaluator.evaluate(nodes.UnaryOp("NOT", values["N"]), ()) is None
    assert evaluator.evaluate(nodes.UnaryOp("NOT", nodes.Literal(0)), ()) is True
    assert evaluator.evaluate(nodes.BinaryOp("AND", nodes.Literal(2), nodes.Literal(1)), ()) is True


def test_evaluator_columns_concat_and_is_null():
    scope = Scope()
    scope.add("people", make_table())
    evaluator = Evaluator(scope)
    row = (5, "bo", None)
    concat = nodes.BinaryOp("||", nodes.ColumnRef("name"), nodes.ColumnRef("id"))
    assert evaluator.evaluate(concat, row) == "bo5"
    assert evaluator.evaluate(nodes.BinaryOp("||", nodes.Literal("x"), nodes.ColumnRef("score")), row) is None
    assert evaluator.evaluate(nodes.IsNull(nodes.ColumnRef("score")), row) is True
    assert evaluator.evaluate(nodes.IsNull(nodes.ColumnRef("id"), negated=True), row) is True
    assert evaluator.evaluate(nodes.UnaryOp("-", nodes.ColumnRef("id")), row) == -5
    assert evaluator.evaluate(nodes.FuncCall("COALESCE", (nodes.ColumnRef("score"), nodes.Literal(0))), row) == 0


def test_aggregates_over_group():
    scope = Scope()
    scope.add("people", make_table())
    evaluator = Evaluator(scope)
    group = [(1, "b", 2.0), (2, None, None), (3, "a", 4.0), (4, "c", 4.0)]

    def agg(name, column):
        args = (nodes.Star(),) if column == "*" else (nodes.ColumnRef(column),)
        return evaluator.aggregate(nodes.FuncCall(name, args), group)

    assert agg("COUNT", "*") == 4
    assert agg("COUNT", "name") == 3
    assert (agg("MIN", "name"), agg("MAX", "name")) == ("a", "c")
    assert (agg("MIN", "score"), agg("MAX", "score")) == (2.0, 4.0)
    assert agg("SUM", "id") == 10 and isinstance(agg("SUM", "id"), int)
    assert agg("SUM", "score") == 10.0
    assert agg("AVG", "score") == pytest.approx(10 / 3)
    assert evaluator.aggregate(nodes.FuncCall("SUM", (nodes.ColumnRef("id"),)), []) is None
    assert evaluator.aggregate(nodes.FuncCall("COUNT", (nodes.ColumnRef("id"),)), []) == 0
    with pytest.raises(ExecutionError, match="SUM requires numeric"):
        agg("SUM", "name")
    with pytest.raises(ExecutionError, match="MAX takes exactly one"):
        evaluator.aggregate(nodes.FuncCall("MAX", ()), group)


def test_compare_sort_keys_null_ordering():
    ascending, descending = [False], [True]
    assert engine.compare_sort_keys((1,), (1,), ascending) == 0
    assert engine.compare_sort_keys((None,), (1,), ascending) == -1
    assert engine.compare_sort_keys((1,), (None,), ascending) == 1
    assert engine.compare_sort_keys((None,), (1,), descending) == 1
    assert engine.compare_sort_keys((2,), (1,), descending) == -1
    assert engine.compare_sort_keys((1, "b"), (1, "a"), [False, False]) == 1
    rows = [((v,), (v,)) for v in (3, None, 1, 2)]
    assert [r[0][0] for r in engine.sort_rows(rows, descending, None)] == [3, 2, 1, None]
    assert [r[0][0] for r in engine.sort_rows(rows, ascending, 2)] == [None, 1]


def test_hash_join_skips_null_keys():
    right = Table("r", [Column("k", "INTEGER"), Column("v", "TEXT")])
    right.insert_many([{"k": 1, "v": "one"}, {"k": None, "v": "null"}, {"k": 1, "v": "uno"}])
    left = [(1,), (None,), (2,)]
    assert list(engine.hash_join(iter(left), right, 0, 0)) == [(1, 1, "one"), (1, 1, "uno")]


def test_group_rows_empty_input():
    evaluator = Evaluator(Scope())
    assert list(engine.group_rows(iter([]), [], evaluator)) == [(None, [])]
    assert list(engine.group_rows(iter([]), [nodes.Literal(1)], evaluator)) == []
    groups = list(engine.group_rows(iter([(1,), (2,), (3,)]), [nodes.Literal("k")], evaluator))
    assert groups == [((1,), [(1,), (2,), (3,)])]


def test_result_scalar():
    result = engine.Result(["a"], [(1,), (2,)])
    assert result.scalar() == 1 and result.rowcount == 2
    assert engine.Result(rowcount=3).rowcount == 3
    with pytest.raises(ExecutionError, match="no rows"):
        engine.Result(["a"], []).scalar()
    with pytest.raises(ExecutionError, match="no rows"):
        engine.Result(rowcount=1).scalar()
