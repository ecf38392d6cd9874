import pytest

from minisql import SQLSyntaxError, parse, parse_script
from minisql import nodes
from minisql.lexer import SourceMap, Token, tokenize


def kinds_and_values(text):
    return [(token.kind, token.value) for token in tokenize(text)]


def test_tokenize_keywords_identifiers_and_numbers():
    assert kinds_and_values("select Name, 42, 3.5, .5, 1e3 FROM T") == [
        ("KEYWORD", "SELECT"), ("IDENT", "name"), ("PUNCT", ","), ("NUMBER", 42),
        ("PUNCT", ","), ("NUMBER", 3.5), ("PUNCT", ","), ("NUMBER", 0.5),
        ("PUNCT", ","), ("NUMBER", 1000.0), ("KEYWORD", "FROM"), ("IDENT", "t"),
        ("EOF", None),
    ]


def test_tokenize_operators_prefer_longest_match():
    values = [token.value for token in tokenize("a<=b<>c!=d>=e||f<g")[1:-1:2]]
    assert values == ["<=", "<>", "!=", ">=", "||", "<"]


def test_tokenize_strings_quoted_identifiers_and_unicode():
    tokens = tokenize("'it''s' \"Mixed Case\" café")
    assert [(t.kind, t.value) for t in tokens[:3]] == [
        ("STRING", "it's"), ("IDENT", "Mixed Case"), ("IDENT", "café")]
    assert (tokens[0].pos, tokens[0].end) == (0, 7)


def test_tokenize_skips_comments_and_whitespace():
    assert kinds_and_values("1 -- one\n+ 2 -- trailing") == [
        ("NUMBER", 1), ("OP", "+"), ("NUMBER", 2), ("EOF", None)]


def test_tokenize_reports_unexpected_character_position():
    with pytest.raises(SQLSyntaxError) as info:
        tokenize("SELECT 1\nFROM t WHERE a ? 2")
    assert (info.value.line, info.value.column) == (2, 16)
    assert "line 2, column 16" in str(info.value)


def test_tokenize_unterminated_string_and_empty_identifier():
    with pytest.raises(SQLSyntaxError, match="unterminated") as info:
        tokenize("SELECT 'abc")
    assert info.value.column == 8
    with pytest.raises(SQLSyntaxError, match="empty quoted identifier"):
        tokenize('SELECT ""')


def test_token_matches_and_source_map():
    token = Token("KEYWORD", "SELECT", 0, 6)
    assert token.matches("KEYWORD")
    assert token.matches("KEYWORD", "SELECT")
    assert not token.matches("KEYWORD", "FROM")
    assert not token.matches("IDENT", "SELECT")
    source = SourceMap("ab\ncd\n\nx")
    assert [source.locate(pos) for pos in (0, 1, 3, 6, 7)] == [
        (1, 1), (1, 2), (2, 1), (3, 1), (4, 1)]


def test_parse_full_select():
    stmt = parse("SELECT e.name AS who, COUNT(*) n FROM emp AS e INNER JOIN dept d "
                 "ON d.id = e.dept WHERE e.salary > 10 GROUP BY e.name "
                 "ORDER BY who DESC, n ASC, 3 LIMIT 5 OFFSET 2;")
    assert isinstance(stmt, nodes.Select)
    assert [item.alias for item in stmt.items] == ["who", "n"]
    assert stmt.items[1].expr == nodes.FuncCall("COUNT", (nodes.Star(),))
    assert stmt.table == nodes.TableRef("emp", "e")
    assert stmt.joins[0].table.binding == "d"
    assert stmt.joins[0].condition == nodes.BinaryOp(
        "=", nodes.ColumnRef("id", "d"), nodes.ColumnRef("dept", "e"))
    assert stmt.where == nodes.BinaryOp(">", nodes.ColumnRef("salary", "e"), nodes.Literal(10))
    assert stmt.group_by == [nodes.ColumnRef("name", "e")]
    assert [item.descending for item in stmt.order_by] == [True, False, False]
    assert (stmt.limit, stmt.offset) == (5, 2)


def test_parse_plain_join_star_and_item_text():
    stmt = parse("SELECT *, a+1, b FROM t JOIN u ON t.x = u.y")
    assert isinstance(stmt.items[0].expr, nodes.Star)
    assert stmt.items[1].text == "a+1"
    assert stmt.items[2].alias is None
    assert stmt.table.binding == "t"
    assert stmt.joins[0].table == nodes.TableRef("u")


def test_parse_expression_precedence():
    where = parse("SELECT 1 FROM t WHERE NOT a = 1 OR b < 2 AND c IS NOT NULL").where
    assert where == nodes.BinaryOp(
        "OR",
        nodes.UnaryOp("NOT", nodes.BinaryOp("=", nodes.ColumnRef("a"), nodes.Literal(1))),
        nodes.BinaryOp("AND",
                       nodes.BinaryOp("<", nodes.ColumnRef("b"), nodes.Literal(2)),
                       nodes.IsNull(nodes.ColumnRef("c"), negated=True)))
    expr = parse("SELECT 1 + 2 * (3 - x) % 4 <> y || 'z'").items[0].expr
    assert expr.op == "!="
    assert expr.left == nodes.BinaryOp("+", nodes.Literal(1), nodes.BinaryOp(
        "%", nodes.BinaryOp("*", nodes.Literal(2), nodes.BinaryOp(
            "-", nodes.Literal(3), nodes.ColumnRef("x"))), nodes.Literal(4)))
    assert expr.right == nodes.BinaryOp("||", nodes.ColumnRef("y"), nodes.Literal("z"))


def test_parse_unary_and_literals():
    items = [item.expr for item in parse("SELECT -5, - -2.5, -x, + -3, NULL, TRUE, FALSE, a IS NULL").items]
    assert items[:4] == [nodes.Literal(-5), nodes.Literal(2.5),
                         nodes.UnaryOp("-", nodes.ColumnRef("x")), nodes.Literal(-3)]
    assert [item.value for item in items[4:7]] == [None, True, False]
    assert items[7] == nodes.IsNull(nodes.ColumnRef("a"))


def test_parse_function_calls():
    items = [item.expr for item in parse("SELECT coalesce(a, 0), Upper(b), coalesce()").items]
    assert items[0] == nodes.FuncCall("COALESCE", (nodes.ColumnRef("a"), nodes.Literal(0)))
    assert items[1].name == "UPPER" and not items[1].is_aggregate
    assert items[2].args == ()
    assert nodes.FuncCall("MAX", ()).is_aggregate


@pytest.mark.parametrize("sql, message", [
    ("SELECT frobnicate(1)", "unknown function FROBNICATE"),
    ("SELECT SUM(*) FROM t", "'\\*' is not allowed in SUM"),
    ("SELECT 1 FROM t LIMIT 2.5", "LIMIT expects"),
    ("SELECT 1 FROM t LIMIT 1 OFFSET x", "OFFSET expects"),
    ("SELECT 1 FROM t INNER u ON 1", "expected JOIN"),
    ("SELECT 1 +", "unexpected end of input"),
    ("SELECT 1 FROM t WHERE )", "unexpected '\\)'"),
    ("SELECT (1", "expected \\), found end of input"),
    ("DELETE FROM t", "expected SELECT, INSERT or CREATE"),
    ("SELECT 1 SELECT 2", "expected ;, found 'SELECT'"),
    ("SELECT a IS 1", "expected NULL"),
    ("SELECT a AS FROM t", "expected ident, found 'FROM'"),
    ("CREATE TABLE t (a)", "expected ident"),
])
def test_parse_errors(sql, message):
    with pytest.raises(SQLSyntaxError, match=message):
        parse_script(sql)


def test_parse_error_position_points_at_token():
    with pytest.raises(SQLSyntaxError) as info:
        parse("SELECT a\nFROM t\nWHERE b = = 2")
    assert (info.value.line, info.value.column) == (3, 11)


def test_parse_insert_and_create():
    insert = parse("INSERT INTO t (a, b) VALUES (1, 'x'), (-2, NULL)")
    assert insert.table == "t" and insert.columns == ["a", "b"]
    assert insert.rows == [[nodes.Literal(1), nodes.Literal("x")],
                           [nodes.Literal(-2), nodes.Literal(None)]]
    assert parse("INSERT INTO t VALUES (1)").columns is None
    create = parse("CREATE TABLE t (a INT NOT NULL, b TEXT NULL, c real)")
    assert [(c.name, c.type_name, c.not_null) for c in create.columns] == [
        ("a", "int", True), ("b", "text", False), ("c", "real", False)]


def test_parse_script_and_single_statement_rule():
    statements = parse_script(";; SELECT 1; SELECT 2 ;")
    assert len(statements) == 2
    assert parse_script("  -- nothing here") == []
    with pytest.raises(SQLSyntaxError, match="exactly one statement, found 2"):
        parse("SELECT 1; SELECT 2")


def test_walk_and_contains_aggregate():
    expr = parse("SELECT a + MAX(b * 2) FROM t").items[0].expr
    kinds = [type(node).__name__ for node in nodes.walk(expr)]
    assert kinds == ["BinaryOp", "ColumnRef", "FuncCall", "BinaryOp", "ColumnRef", "Literal"]
    assert nodes.contains_aggregate(expr)
    assert not nodes.contains_aggregate(parse("SELECT NOT a IS NULL").items[0].expr)
    assert nodes.contains_aggregate(parse("SELECT -MAX(a) FROM t").items[0].expr)
    assert nodes.contains_aggregate(parse("SELECT SUM(a) IS NULL FROM t").items[0].expr)
    assert nodes.children(nodes.Literal(1)) == ()
