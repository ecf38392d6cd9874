"""minisql — a tiny in-memory SQL engine.

>>> db = Database()
>>> db.execute("CREATE TABLE t (x INTEGER)").rowcount
0
"""

from .engine import Column, Database, Result, Table
from .errors import ExecutionError, MiniSQLError, SchemaError, SQLSyntaxError
from .parser import parse, parse_script

__all__ = [
    "Column", "Database", "Result", "Table", "parse", "parse_script",
    "MiniSQLError", "SQLSyntaxError", "SchemaError", "ExecutionError",
]
