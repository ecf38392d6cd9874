"""Terminal tables never cut their headers (``replay/reports/text_tables.py``): at 60 columns,
every header of every table the command line prints shows whole, the DevBench import's summary
(once "langu…", "toolc…", "golde…") among them."""

from __future__ import annotations

import ast
import io
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text

from replay.reports import text_tables
from replay.reports.report_build import build_report
from replay.reports.report_text import render, render_summary
from replay.reports.survival import survival_table
from replay.reports.text_tables import Table, UncroppedConsole
from replay.validation.program_gate import REASONS
from tests.test_first_minutes import RUNS, python_only_store

ROOT = Path(__file__).resolve().parents[1]
WIDTH = 60


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[Table]:
    """Every :class:`Table` drawn while the test runs."""
    tables: list[Table] = []
    draw = Table.__rich_console__

    def recording(self, console, options):
        tables.append(self)
        yield from draw(self, console, options)

    monkeypatch.setattr(Table, "__rich_console__", recording)
    return tables


def narrow_console() -> tuple[Console, io.StringIO]:
    sink = io.StringIO()
    return UncroppedConsole(file=sink, width=WIDTH), sink


def assert_headers_whole(tables: list[Table], text: str) -> None:
    lines = text.splitlines()
    assert tables, "no table was drawn"
    for table in tables:
        for column in table.columns:
            header = Text.from_markup(column.header).plain if isinstance(column.header, str) else str(column.header)
            if header:
                assert any(header in line for line in lines), f"header {header!r} is cut in:\n{text}"
    assert "…" not in "\n".join(line for line in lines if "┃" in line)  # no header cell ends in an ellipsis


def devbench_summary() -> dict:
    counts = {"instances": 300, "kept": 212, **dict.fromkeys(REASONS, 3)}
    return {
        language: {"categories": {"api_usage": counts, "low_context": counts}, "total": counts, "devbench_instances": 300}
        for language in ("python", "typescript", "javascript")
    }


@pytest.mark.parametrize("by_category", [False, True])
def test_the_devbench_summary_shows_every_header_whole_at_60_columns(drawn, by_category):
    console, sink = narrow_console()
    console.print(survival_table(devbench_summary(), by_category))
    text = sink.getvalue()
    assert_headers_whole(drawn, text)
    for header in ("language", "toolchain_missing", "golden_fails", "passes_empty", "of DevBench's"):
        assert header in text


def test_the_same_table_on_standard_error_keeps_its_headers(drawn):
    sink = io.StringIO()
    Console(file=sink, width=WIDTH, soft_wrap=True).print(survival_table(devbench_summary()))  # as err prints it
    assert_headers_whole(drawn, sink.getvalue())


def test_report_and_summary_tables_keep_their_headers_at_60_columns(drawn, tmp_path):
    store = python_only_store(tmp_path / "runs.db")
    try:
        report = build_report(store, list(RUNS))
    finally:
        store.close()
    console, sink = narrow_console()
    render(report, console)
    render_summary(report, console, "simpilot report fm-a")
    assert_headers_whole(drawn, sink.getvalue())


def test_a_table_that_fits_is_drawn_as_rich_draws_it():
    table = Table("stratum", "passed")
    table.add_row("all", "3/4")
    wide, plain = io.StringIO(), io.StringIO()
    UncroppedConsole(file=wide, width=WIDTH).print(table)
    from rich.table import Table as RichTable

    reference = RichTable("stratum", "passed")
    reference.add_row("all", "3/4")
    Console(file=plain, width=WIDTH).print(reference)
    assert wide.getvalue() == plain.getvalue()


def test_every_table_the_command_line_prints_is_a_header_keeping_one():
    """No module but ``text_tables.py`` builds rich's own ``Table``: a new table cannot slip
    back to cutting headers."""
    offenders = []
    for path in sorted((ROOT / "replay").rglob("*.py")) + sorted((ROOT / "lsp_bridge").rglob("*.py")):
        if path == Path(text_tables.__file__):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "rich.table":
                offenders.append(str(path.relative_to(ROOT)))
            if isinstance(node, ast.Import) and any(alias.name == "rich.table" for alias in node.names):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []
