"""Exception hierarchy shared by every minisql module."""


class MiniSQLError(Exception):
    """Base class for all errors raised by minisql."""


class SQLSyntaxError(MiniSQLError):
    """The SQL text could not be tokenized or parsed; ``line``/``column`` are 1-based."""

    def __init__(self, message, line=None, column=None):
        self.line = line
        self.column = column
        if line is not None:
            message = f"{message} (line {line}, column {column})"
        super().__init__(message)


class SchemaError(MiniSQLError):
    """Unknown or ambiguous names, bad definitions and constraint violations."""


class ExecutionError(MiniSQLError):
    """A well-formed statement failed while running (type errors, division by zero)."""
