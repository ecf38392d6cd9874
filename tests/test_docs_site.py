"""The documentation site builds, strictly, and its generated reference covers the code.

``mkdocs build --strict`` fails on a broken link, a page missing from the navigation, or a hook
that cannot fill in a token, so building is the test that the pages hold together. The
reference pages are generated from the code (``docs/hooks/``); this checks that what they show is
complete: every command of the click group on the command-line page, every key of every
configuration file's schema on the configuration page, every table of the results store on the
records page, every method the bridge registers on the LSP page.

``SIMPILOT_RESULTS_DIR``, when set, is passed on to the build (another folder of results).
"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "hooks"))

import code_reference  # noqa: E402  (docs/hooks is not a package: mkdocs loads the hooks by path)
import config_schema  # noqa: E402

if os.environ.get("CI") != "true":
    pytest.importorskip("mkdocs", reason="the docs extra is not installed: pip install -e '.[docs]'")


def commands(group: click.Group, prefix: str = "") -> Iterator[str]:
    """Every command path of ``group`` (``import devbench``), groups included."""
    for name, command in sorted(group.commands.items()):
        yield prefix + name
        if isinstance(command, click.Group):
            yield from commands(command, f"{prefix}{name} ")


def schema_keys(schema: dict[str, Any]) -> set[str]:
    """Every property name anywhere in a JSON Schema: the keys a configuration file may hold."""
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for name, value in node.get("properties", {}).items():
                found.add(name)
                walk(value)
            for key, value in node.items():
                if key != "properties":
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(schema)
    return found


def text_of(page: Path) -> str:
    """The article of a built page as plain text."""
    body = page.read_text(encoding="utf-8")
    body = body[body.index("<article") : body.index("</article>")]
    return html.unescape(re.sub(r"<[^>]+>", " ", body))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stderr[-4000:]}"
    return out


def test_the_command_line_page_holds_every_command(site: Path) -> None:
    from replay.cli.group import cli

    page = text_of(site / "reference" / "cli" / "index.html")
    missing = [name for name in commands(cli) if f"simpilot {name}" not in page]
    assert not missing, f"commands missing from docs/reference/cli.md: {missing}"
    assert "Sentinel.UNSET" not in page


def test_the_configuration_page_holds_every_key_of_every_file(site: Path) -> None:
    from replay.jobs.config_schema import SCHEMAS, schema

    page = text_of(site / "reference" / "configuration" / "index.html")
    for kind in SCHEMAS:
        assert f"{kind}.toml" in page
        keys = schema_keys(schema(kind))
        assert keys, kind
        missing = [key for key in keys if not re.search(rf"(^|[\s.]){re.escape(key)}\s", page)]
        assert not missing, f"{kind}.toml keys missing from docs/reference/configuration.md: {missing}"


def test_the_records_page_holds_every_store_table_and_record(site: Path) -> None:
    page = text_of(site / "reference" / "records" / "index.html")
    tables = code_reference.store_tables()
    assert {"runs", "tasks", "completions", "outcomes", "presets"} <= set(tables)
    for table, columns in tables.items():
        assert f" {table} " in page, table
        for column, *_ in columns:
            assert f" {column} " in page, f"{table}.{column}"
    for record in ("Task", "Completion", "Outcome", "Timing", "PromptRecord", "Status"):
        assert f" {record} " in page, record


def test_the_lsp_page_holds_every_method_the_bridge_serves(site: Path) -> None:
    page = text_of(site / "reference" / "lsp" / "index.html")
    methods = {m["method"] for m in code_reference.lsp_methods()}
    assert {"textDocument/inlineCompletion", "simpilot/timing", "simpilot/didAccept", "simpilot.didAccept"} <= methods
    assert all(f" {method} " in page for method in methods)


def test_the_proof_page_quotes_the_modules_it_describes(site: Path) -> None:
    page = " ".join(text_of(site / "reference" / "proof-protocol" / "index.html").split())
    for module in ("replay.execution.proof.check", "replay.execution.inside.proof_channel", "replay.execution.inside.pytest_proof"):
        first = " ".join(code_reference.docstring(module).split("\n\n")[0].split())
        assert re.sub(r"`", "", first) in page, module


# -- the generators, without a build --------------------------------------------------------------


def test_every_schema_key_has_a_row_with_its_default() -> None:
    from replay.jobs.config_schema import SCHEMAS, schema

    for kind in SCHEMAS:
        listed = {path.split(".")[-1] for path in config_schema.keys(kind)}
        assert schema_keys(schema(kind)) <= listed, kind
    rows = config_schema.render_kind("simpilot")
    assert "| `repository.timeout` | number | 60.0 |" in rows
    assert "| `repository.name` | string | *required* |" in rows
    assert "| `models.NAME.max_tokens` | integer (> 0) | 512 |" in config_schema.render_kind("models")


def test_an_unknown_configuration_kind_is_an_error() -> None:
    with pytest.raises(config_schema.SchemaError, match="no configuration file kind 'nosuch'"):
        config_schema.render("[[config-schema:nosuch]]")


def test_records_show_fields_with_their_source_comments() -> None:
    text = code_reference.records()
    assert "| `path` | `str` | *required* | POSIX path relative to the repository root |" in text
    assert "| `TIMEOUT` | `'timeout'` | stopped at its wall-clock timeout or its CPU-time limit |" in text


def test_a_docstring_token_naming_no_module_is_an_error() -> None:
    with pytest.raises(code_reference.ReferenceError, match="no module 'replay.nosuch'"):
        code_reference.render("[[docstring:replay.nosuch]]")
