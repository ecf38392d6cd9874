"""Terminal tables whose column headers are never cut.

rich shrinks a table that is wider than the console by cutting its columns, headers included:
the DevBench import's summary read "langu…", "toolc…", "golde…" in a terminal of 80 columns, and
a header cut short no longer says what its numbers are. :class:`Table` is rich's table with two
changes: every column is at least as wide as its header (``min_width``), and when the console is
narrower than the headers need, the table is drawn at the width they need, so a narrow terminal
wraps its lines rather than rich cutting a word. Every table the command line prints is one.
"""

from __future__ import annotations

from typing import Any

from rich import table as rich_table
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.text import Text

__all__ = ["Table", "header_width"]


def header_width(header: RenderableType) -> int:
    """The cells a column's header takes on one line (its longest line; markup not counted)."""
    text = Text.from_markup(header) if isinstance(header, str) else header
    if not isinstance(text, Text):
        return 0
    return max((line.cell_len for line in text.split("\n")), default=0)


class Table(rich_table.Table):
    """A rich table whose headers are shown whole at any console width: when it is measured or
    drawn, each column is made at least as wide as its header (however the column was added)."""

    def keep_headers(self) -> None:
        for column in self.columns:
            column.min_width = max(column.min_width or 0, header_width(column.header))

    def headers_width(self) -> int:
        """The width the table needs to show every header whole: headers, padding and borders."""
        self.keep_headers()
        return sum((c.min_width or 0) + self._get_padding_width(c._index) for c in self.columns) + self._extra_width

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        self.keep_headers()
        return super().__rich_measure__(console, options)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        needed = self.headers_width()
        if needed > options.max_width:
            options = options.update(max_width=needed)
        yield from super().__rich_console__(console, options)


class UncroppedConsole(Console):
    """A console that does not crop what it prints at its width: a :class:`Table` drawn wider than
    the console to keep its headers whole would otherwise lose its right-hand columns (rich crops
    unless a console soft-wraps, as the one for standard error does)."""

    def print(self, *objects: Any, **kwargs: Any) -> None:
        kwargs.setdefault("crop", False)
        super().print(*objects, **kwargs)
