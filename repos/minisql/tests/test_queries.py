import pytest

from minisql import Database, ExecutionError, SchemaError, SQLSyntaxError

SCHEMA = """
CREATE TABLE emp (id INT NOT NULL, name TEXT, dept INTEGER, salary REAL, active BOOL);
CREATE TABLE dept (id INTEGER NOT NULL, title VARCHAR);
INSERT INTO emp VALUES
    (1, 'Ann', 10, 100, TRUE),
    (2, 'Bob', 10, 200, FALSE),
    (3, 'Zoë', 20, 150, 1),
    (4, 'Dan', NULL, NULL, NULL),
    (5, 'Eve', 30, 120.5, TRUE);
INSERT INTO dept (title, id) VALUES ('R&D', 10), ('Sales', 20), ('Legal', 40);
"""


@pytest.fixture
def db():
    database = Database()
    database.execute_script(SCHEMA)
    return database


def rows(db, sql):
    return db.execute(sql).rows


def test_script_results_and_rowcounts():
    database = Database()
    results = database.execute_script(SCHEMA)
    assert [result.rowcount for result in results] == [0, 0, 5, 3]
    assert database.tables["emp"].rows[2] == (3, "Zoë", 20, 150.0, True)


def test_select_star_and_labels(db):
    result = db.execute("SELECT * FROM dept")
    assert result.columns == ["id", "title"]
    assert result.rows == [(10, "R&D"), (20, "Sales"), (40, "Legal")]
    result = db.execute("SELECT name AS who, salary * 2, dept FROM emp WHERE id = 1")
    assert result.columns == ["who", "salary * 2", "dept"]
    assert result.rows == [("Ann", 200.0, 10)]


def test_select_without_from():
    assert rows(Database(), "SELECT 1 + 2 * 3, 'a' || 'b', 7 / 2, -(2 - 5)") == [(7, "ab", 3, 3)]


def test_where_comparisons_and_logic(db):
    assert rows(db, "SELECT id FROM emp WHERE salary >= 150 OR dept = 30") == [(2,), (3,), (5,)]
    assert rows(db, "SELECT id FROM emp WHERE dept = 10 AND NOT salary > 150") == [(1,)]
    assert rows(db, "SELECT id FROM emp WHERE name <> 'Ann' AND salary < 150") == [(5,)]
    assert rows(db, "SELECT id FROM emp WHERE active") == [(1,), (3,), (5,)]


def test_null_semantics_in_where(db):
    # NULL comparisons are unknown, so neither the test nor its negation matches Dan.
    assert rows(db, "SELECT id FROM emp WHERE salary > 0") == [(1,), (2,), (3,), (5,)]
    assert rows(db, "SELECT id FROM emp WHERE NOT salary > 0") == []
    assert rows(db, "SELECT id FROM emp WHERE salary IS NULL") == [(4,)]
    assert rows(db, "SELECT id FROM emp WHERE dept IS NOT NULL AND dept > 15") == [(3,), (5,)]
    assert rows(db, "SELECT id FROM emp WHERE salary > 0 OR id = 4") == [(1,), (2,), (3,), (4,), (5,)]
    assert rows(db, "SELECT COALESCE(salary, -1) FROM emp WHERE id = 4") == [(-1,)]


def test_order_by_variants(db):
    assert rows(db, "SELECT name FROM emp ORDER BY salary") == [
        ("Dan",), ("Ann",), ("Eve",), ("Zoë",), ("Bob",)]
    assert rows(db, "SELECT name FROM emp ORDER BY salary DESC") == [
        ("Bob",), ("Zoë",), ("Eve",), ("Ann",), ("Dan",)]
    assert rows(db, "SELECT name, dept AS d FROM emp ORDER BY d DESC, name") == [
        ("Eve", 30), ("Zoë", 20), ("Ann", 10), ("Bob", 10), ("Dan", None)]
    assert rows(db, "SELECT id FROM emp ORDER BY LENGTH(name) - id") == [(5,), (4,), (3,), (2,), (1,)]


def test_limit_and_offset(db):
    assert rows(db, "SELECT id FROM emp LIMIT 2") == [(1,), (2,)]
    assert rows(db, "SELECT id FROM emp LIMIT 2 OFFSET 3") == [(4,), (5,)]
    assert rows(db, "SELECT id FROM emp ORDER BY id DESC LIMIT 2 OFFSET 1") == [(4,), (3,)]
    assert rows(db, "SELECT id FROM emp ORDER BY id LIMIT 0") == []
    assert rows(db, "SELECT id FROM emp LIMIT 10 OFFSET 4") == [(5,)]


def test_group_by_aggregates(db):
    result = db.execute("SELECT dept, COUNT(*), COUNT(salary), SUM(salary), AVG(salary), "
                        "MIN(name), MAX(name) FROM emp GROUP BY dept ORDER BY dept")
    assert result.columns[:3] == ["dept", "COUNT(*)", "COUNT(salary)"]
    assert result.rows == [
        (None, 1, 0, None, None, "Dan", "Dan"),
        (10, 2, 2, 300.0, 150.0, "Ann", "Bob"),
        (20, 1, 1, 150.0, 150.0, "Zoë", "Zoë"),
        (30, 1, 1, 120.5, 120.5, "Eve", "Eve"),
    ]


def test_group_by_expression_and_order_by_aggregate(db):
    assert rows(db, "SELECT salary > 120 AS rich, COUNT(*) AS n FROM emp "
                    "WHERE salary IS NOT NULL GROUP BY salary > 120 ORDER BY n DESC") == [
        (True, 3), (False, 1)]
    assert rows(db, "SELECT dept FROM emp WHERE dept IS NOT NULL GROUP BY dept "
                    "ORDER BY SUM(salary) DESC LIMIT 1") == [(10,)]


def test_aggregate_without_group_by(db):
    assert rows(db, "SELECT COUNT(*), SUM(id), MAX(salary) FROM emp") == [(5, 15, 200.0)]
    assert rows(db, "SELECT COUNT(*), AVG(salary) FROM emp WHERE id > 99") == [(0, None)]
    assert db.execute("SELECT COUNT(*) + 1 FROM dept").scalar() == 4
    assert rows(db, "SELECT -SUM(id), MAX(salary) IS NULL FROM emp") == [(-15, False)]


def test_inner_join(db):
    result = db.execute("SELECT e.name, d.title FROM emp e JOIN dept d ON d.id = e.dept "
                        "ORDER BY e.name")
    assert result.columns == ["name", "title"]
    assert result.rows == [("Ann", "R&D"), ("Bob", "R&D"), ("Zoë", "Sales")]
    joined = rows(db, "SELECT title, COUNT(*) FROM dept INNER JOIN emp ON dept = dept.id "
                      "GROUP BY title ORDER BY title")
    assert joined == [("R&D", 2), ("Sales", 1)]


def test_self_join_and_star_over_join(db):
    pairs = rows(db, "SELECT a.name, b.name FROM emp a JOIN emp b ON a.dept = b.dept "
                     "WHERE a.id < b.id")
    assert pairs == [("Ann", "Bob")]
    result = db.execute("SELECT * FROM dept d JOIN emp e ON e.dept = d.id WHERE e.id = 3")
    assert result.columns == ["id", "title", "id", "name", "dept", "salary", "active"]
    assert result.rows == [(20, "Sales", 3, "Zoë", 20, 150.0, True)]


def test_three_way_join():
    database = Database()
    database.execute_script("""
        CREATE TABLE a (x INT); CREATE TABLE b (x INT, y INT); CREATE TABLE c (y INT, z TEXT);
        INSERT INTO a VALUES (1), (2);
        INSERT INTO b VALUES (1, 7), (2, 8), (2, 9);
        INSERT INTO c VALUES (9, 'nine'), (7, 'seven');
    """)
    assert rows(database, "SELECT a.x, c.z FROM a JOIN b ON a.x = b.x JOIN c ON c.y = b.y "
                          "ORDER BY z") == [(2, "nine"), (1, "seven")]


@pytest.mark.parametrize("sql, message", [
    ("SELECT * FROM nope", "no such table 'nope'"),
    ("SELECT nope FROM emp", "unknown column 'nope'"),
    ("SELECT id FROM emp JOIN dept ON emp.dept = dept.id", "ambiguous"),
    ("SELECT 1 FROM emp e JOIN dept e ON e.id = e.id", "specified more than once"),
    ("SELECT 1 FROM emp JOIN dept ON emp.dept > dept.id", "must equate"),
    ("SELECT 1 FROM emp JOIN dept ON emp.dept = 10", "must equate"),
    ("SELECT 1 FROM emp JOIN dept ON dept.id = dept.id", "must equate"),
    ("SELECT 1 FROM emp a JOIN emp b ON a.id = a.dept", "must equate"),
    ("SELECT id FROM emp WHERE COUNT(*) > 1", "not allowed in WHERE"),
    ("SELECT COUNT(*) FROM emp GROUP BY COUNT(*)", "not allowed in GROUP BY"),
    ("SELECT SUM(MAX(id)) FROM emp", "not allowed in an aggregate argument"),
    ("SELECT name, COUNT(*) FROM emp", "'name' must appear in GROUP BY"),
    ("SELECT dept, salary FROM emp GROUP BY dept", "'salary' must appear"),
    ("SELECT dept, 1 + LENGTH(name) FROM emp GROUP BY dept", "'name' must appear"),
    ("SELECT 2 * SUM(1 + MAX(id)) FROM emp", "not allowed in an aggregate argument"),
    ("SELECT dept FROM emp GROUP BY dept ORDER BY name", "'name' must appear"),
    ("SELECT *", "without a FROM"),
])
def test_query_schema_errors(db, sql, message):
    with pytest.raises(SchemaError, match=message):
        db.execute(sql)


@pytest.mark.parametrize("sql, message", [
    ("SELECT name + 1 FROM emp", "requires numeric operands"),
    ("SELECT id FROM emp WHERE name > 3", "cannot compare str with int"),
    ("SELECT id / 0 FROM emp", "division by zero"),
    ("SELECT SUM(name) FROM emp", "SUM requires numeric"),
    ("SELECT id FROM emp ORDER BY COALESCE(salary, name)", "cannot compare"),
    ("SELECT UPPER(id) FROM emp", "UPPER requires a text"),
])
def test_query_execution_errors(db, sql, message):
    with pytest.raises(ExecutionError, match=message):
        db.execute(sql)


def test_grouped_column_may_be_qualified(db):
    assert rows(db, "SELECT e.dept, COUNT(*) FROM emp e WHERE dept = 10 GROUP BY dept") == [(10, 2)]


def test_insert_with_expressions_and_column_list():
    database = Database()
    database.execute("CREATE TABLE t (a INTEGER, b REAL, c TEXT, d BOOLEAN)")
    result = database.execute("INSERT INTO t (c, a) VALUES ('x' || 'y', 2 * 3), (NULL, -1)")
    assert result.rowcount == 2 and result.columns == []
    assert database.execute("INSERT INTO t VALUES (1, 2, 'z', 0)").rowcount == 1
    assert rows(database, "SELECT * FROM t") == [
        (6, None, "xy", None), (-1, None, None, None), (1, 2.0, "z", False)]


@pytest.mark.parametrize("sql, message", [
    ("CREATE TABLE emp (x INT)", "already exists"),
    ("CREATE TABLE t (x BLOB)", "unknown column type 'blob'"),
    ("CREATE TABLE t (x INT, x TEXT)", "duplicate column"),
    ("INSERT INTO missing VALUES (1)", "no such table"),
    ("INSERT INTO dept (id, nope) VALUES (1, 2)", "no column 'nope'"),
    ("INSERT INTO dept (id, id) VALUES (1, 2)", "listed more than once"),
    ("INSERT INTO dept VALUES (1)", "expects 2 values, got 1"),
    ("INSERT INTO dept VALUES (1, 'a'), (2)", "expects 2 values, got 1"),
    ("INSERT INTO dept VALUES (1, id)", "unknown column 'id'"),
    ("INSERT INTO dept VALUES ('1', 'a')", "cannot store '1' in INTEGER"),
    ("INSERT INTO dept (title) VALUES ('x')", "'id' may not be NULL"),
])
def test_ddl_and_insert_errors(db, sql, message):
    with pytest.raises(SchemaError, match=message):
        db.execute(sql)
    assert len(db.tables["dept"].rows) == 3


def test_execute_requires_single_statement(db):
    with pytest.raises(SQLSyntaxError, match="one statement, got 2"):
        db.execute("SELECT 1; SELECT 2")
    with pytest.raises(SQLSyntaxError, match="one statement, got 0"):
        db.execute("  ")
    assert db.execute_script("") == []


def test_case_insensitive_names_and_quoted_identifiers():
    database = Database()
    database.execute('CREATE TABLE Cafés ("Prix" REAL, nom TEXT)')
    database.execute("INSERT INTO CAFÉS VALUES (2.5, 'crème')")
    result = database.execute('SELECT "Prix", UPPER(NOM) FROM cafés')
    assert result.columns == ["Prix", "UPPER(NOM)"]
    assert result.rows == [(2.5, "CRÈME")]
