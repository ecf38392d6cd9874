"""Recursive-descent parser turning SQL text into :mod:`minisql.nodes` trees.

Operator precedence, loosest first:
OR → AND → NOT → comparison / IS NULL → + - || → * / % → unary minus.
"""

from . import nodes
from .errors import SQLSyntaxError
from .lexer import SourceMap, tokenize

COMPARISON_OPS = frozenset({"=", "!=", "<>", "<", "<=", ">", ">="})
LOGICAL_OPS = ("OR", "AND")
ARITHMETIC_OPS = (("+", "-", "||"), ("*", "/", "%"))
KNOWN_FUNCTIONS = nodes.AGGREGATE_FUNCTIONS | nodes.SCALAR_FUNCTIONS


class Parser:
    """Parses one SQL text; create a new instance for every input."""

    def __init__(self, text):
        self.text = text
        self.tokens = tokenize(text)
        self.source = SourceMap(text)
        self.pos = 0

    # -- token helpers -------------------------------------------------
    @property
    def current(self):
        return self.tokens[self.pos]

    def advance(self):
        token = self.current
        if token.kind != "EOF":
            self.pos += 1
        return token

    def error(self, message, token=None):
        token = token or self.current
        return SQLSyntaxError(message, *self.source.locate(token.pos))

    def accept(self, kind, value=None):
        """Consume and return the current token if it matches, else return None."""
        return self.advance() if self.current.matches(kind, value) else None

    def expect(self, kind, value=None):
        token = self.accept(kind, value)
        if token is None:
            wanted = value if value is not None else kind.lower()
            found = self.current
            described = "end of input" if found.kind == "EOF" else repr(found.value)
            raise self.error(f"expected {wanted}, found {described}")
        return token

    def expect_identifier(self):
        return self.expect("IDENT").value

    def keyword(self, word):
        return self.accept("KEYWORD", word) is not None

    def expect_keywords(self, *words):
        for word in words:
            self.expect("KEYWORD", word)

    def parse_alias(self):
        if self.keyword("AS"):
            return self.expect_identifier()
        token = self.accept("IDENT")
        return token.value if token else None

    # -- statements ----------------------------------------------------
    def parse_script(self):
        statements = []
        while self.current.kind != "EOF":
            if self.accept("PUNCT", ";"):
                continue
            statements.append(self.parse_statement())
            if self.current.kind != "EOF":
                self.expect("PUNCT", ";")
        return statements

    def parse_statement(self):
        token = self.current
        if token.matches("KEYWORD", "SELECT"):
            return self.parse_select()
        if token.matches("KEYWORD", "INSERT"):
            return self.parse_insert()
        if token.matches("KEYWORD", "CREATE"):
            return self.parse_create()
        raise self.error("expected SELECT, INSERT or CREATE")

    def parse_select(self):
        self.expect_keywords("SELECT")
        stmt = nodes.Select(items=self.parse_comma_list(self.parse_select_item))
        if self.keyword("FROM"):
            stmt.table = self.parse_table_ref()
            while True:
                if self.keyword("INNER"):
                    self.expect_keywords("JOIN")
                elif not self.keyword("JOIN"):
                    break
                table = self.parse_table_ref()
                self.expect_keywords("ON")
                stmt.joins.append(nodes.JoinClause(table, self.parse_expression()))
        if self.keyword("WHERE"):
            stmt.where = self.parse_expression()
        if self.keyword("GROUP"):
            self.expect_keywords("BY")
            stmt.group_by = self.parse_comma_list(self.parse_expression)
        if self.keyword("ORDER"):
            self.expect_keywords("BY")
            stmt.order_by = self.parse_comma_list(self.parse_order_item)
        if self.keyword("LIMIT"):
            stmt.limit = self.parse_count("LIMIT")
            if self.keyword("OFFSET"):
                stmt.offset = self.parse_count("OFFSET")
        return stmt

    def parse_comma_list(self, parse_item):
        items = [parse_item()]
        while self.accept("PUNCT", ","):
            items.append(parse_item())
        return items

    def parse_select_item(self):
        if self.accept("OP", "*"):
            return nodes.SelectItem(nodes.Star())
        start = self.current.pos
        expr = self.parse_expression()
        # The label spans from the first token to the end of the last one consumed.
        text = self.text[start:self.tokens[self.pos - 1].end]
        return nodes.SelectItem(expr, self.parse_alias(), text)

    def parse_table_ref(self):
        return nodes.TableRef(self.expect_identifier(), self.parse_alias())

    def parse_order_item(self):
        expr = self.parse_expression()
        descending = self.keyword("DESC")
        if not descending:
            self.keyword("ASC")
        return nodes.OrderItem(expr, descending)

    def parse_count(self, clause):
        token = self.current
        if token.kind != "NUMBER" or not isinstance(token.value, int):
            raise self.error(f"{clause} expects a non-negative integer")
        self.advance()
        return token.value

    def parse_insert(self):
        self.expect_keywords("INSERT", "INTO")
        table = self.expect_identifier()
        columns = None
        if self.accept("PUNCT", "("):
            columns = self.parse_comma_list(self.expect_identifier)
            self.expect("PUNCT", ")")
        self.expect_keywords("VALUES")
        rows = self.parse_comma_list(self.parse_value_row)
        return nodes.Insert(table, columns, rows)

    def parse_value_row(self):
        self.expect("PUNCT", "(")
        values = self.parse_comma_list(self.parse_expression)
        self.expect("PUNCT", ")")
        return values

    def parse_create(self):
        self.expect_keywords("CREATE", "TABLE")
        name = self.expect_identifier()
        self.expect("PUNCT", "(")
        columns = self.parse_comma_list(self.parse_column_def)
        self.expect("PUNCT", ")")
        return nodes.CreateTable(name, columns)

    def parse_column_def(self):
        column = nodes.ColumnDef(self.expect_identifier(), self.expect_identifier())
        while True:
            if self.keyword("NOT"):
                self.expect_keywords("NULL")
                column.not_null = True
            elif not self.keyword("NULL"):
                return column

    # -- expressions ---------------------------------------------------
    def parse_expression(self, level=0):
        """Parse OR (level 0) or AND (level 1) chains, both left-associative."""
        if level == len(LOGICAL_OPS):
            return self.parse_not()
        word = LOGICAL_OPS[level]
        expr = self.parse_expression(level + 1)
        while self.keyword(word):
            expr = nodes.BinaryOp(word, expr, self.parse_expression(level + 1))
        return expr

    def parse_not(self):
        if self.keyword("NOT"):
            return nodes.UnaryOp("NOT", self.parse_not())
        return self.parse_predicate()

    def parse_predicate(self):
        expr = self.parse_arithmetic()
        token = self.current
        if token.kind == "OP" and token.value in COMPARISON_OPS:
            self.advance()
            op = "!=" if token.value == "<>" else token.value
            return nodes.BinaryOp(op, expr, self.parse_arithmetic())
        if self.keyword("IS"):
            negated = self.keyword("NOT")
            self.expect_keywords("NULL")
            return nodes.IsNull(expr, negated)
        return expr

    def parse_arithmetic(self, level=0):
        """Parse additive (level 0) then multiplicative (level 1) operator chains."""
        if level == len(ARITHMETIC_OPS):
            return self.parse_unary()
        expr = self.parse_arithmetic(level + 1)
        while self.current.kind == "OP" and self.current.value in ARITHMETIC_OPS[level]:
            op = self.advance().value
            expr = nodes.BinaryOp(op, expr, self.parse_arithmetic(level + 1))
        return expr

    def parse_unary(self):
        if self.accept("OP", "-"):
            operand = self.parse_unary()
            # Fold negative numeric literals right away.
            if isinstance(operand, nodes.Literal) and isinstance(operand.value, (int, float)):
                return nodes.Literal(-operand.value)
            return nodes.UnaryOp("-", operand)
        if self.accept("OP", "+"):
            return self.parse_unary()
        return self.parse_primary()

    def parse_primary(self):
        token = self.advance()
        if token.kind in ("NUMBER", "STRING"):
            return nodes.Literal(token.value)
        if token.kind == "KEYWORD" and token.value in ("NULL", "TRUE", "FALSE"):
            return nodes.Literal({"NULL": None, "TRUE": True, "FALSE": False}[token.value])
        if token.matches("PUNCT", "("):
            expr = self.parse_expression()
            self.expect("PUNCT", ")")
            return expr
        if token.kind != "IDENT":
            described = "end of input" if token.kind == "EOF" else repr(token.value)
            raise self.error(f"unexpected {described} in expression", token)
        if self.current.matches("PUNCT", "("):
            return self.parse_call(token)
        if self.accept("PUNCT", "."):
            return nodes.ColumnRef(self.expect_identifier(), token.value)
        return nodes.ColumnRef(token.value)

    def parse_call(self, name_token):
        name = name_token.value.upper()
        if name not in KNOWN_FUNCTIONS:
            raise self.error(f"unknown function {name}", name_token)
        self.expect("PUNCT", "(")
        if self.current.matches("OP", "*"):
            if name != "COUNT":
                raise self.error(f"'*' is not allowed in {name}()")
            self.advance()
            args = [nodes.Star()]
        elif self.current.matches("PUNCT", ")"):
            args = []
        else:
            args = self.parse_comma_list(self.parse_expression)
        self.expect("PUNCT", ")")
        return nodes.FuncCall(name, tuple(args))


def parse_script(text):
    """Parse every ``;``-separated statement in *text* and return them as a list."""
    return Parser(text).parse_script()


def parse(text):
    """Parse exactly one statement (a trailing ``;`` is allowed)."""
    statements = parse_script(text)
    if len(statements) != 1:
        raise SQLSyntaxError(f"expected exactly one statement, found {len(statements)}")
    return statements[0]
