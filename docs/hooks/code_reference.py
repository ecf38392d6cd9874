"""Reference pages generated from the code itself: records, the store's tables, the bridge's LSP
methods and module docstrings.

What a record holds, which columns the store has and which methods the bridge answers are facts
of the code; copied into a page by hand they drift on the next change. This hook reads them at
build time instead:

``[[records]]`` / ``[[records:MODULE]]``
    each dataclass and enum of ``replay.core.records`` (or ``MODULE``): its docstring, and its
    fields with their types, defaults and the comments written beside them in the source;
``[[store-schema]]``
    the tables and columns of a results database exactly as ``replay.store.Store`` creates them
    today (the columns added to older databases included), read back from SQLite;
``[[lsp-methods]]``
    every method ``lsp_bridge/server.py`` registers (``@server.feature``, ``@server.command``)
    and every notification it sends (``protocol.notify``), each marked standard LSP or simpilot's
    own extension;
``[[docstring:MODULE]]``
    a module's docstring, read from its source without importing it (modules that run inside the
    sandbox act on import).

Sources are read with :mod:`ast`, so the pages show the code as written. An unknown module fails
the build.
"""

from __future__ import annotations

import ast
import io
import re
import tempfile
import tokenize
from pathlib import Path
from typing import Any

from prose import map_prose

ROOT = Path(__file__).resolve().parents[2]
TOKEN = re.compile(r"\[\[(?P<kind>records|store-schema|lsp-methods|docstring)(?::(?P<arg>[A-Za-z0-9_.]+))?\]\]")
SERVER = "lsp_bridge.server"


class ReferenceError(ValueError):
    """A token naming a module that does not exist, or one given an argument it does not take."""


def module_path(module: str) -> Path:
    """The source file of a project module (``replay.core.records``), without importing it."""
    base = ROOT / Path(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    raise ReferenceError(f"no module {module!r} in the project")


def rst_to_markdown(text: str) -> str:
    """A docstring's reStructuredText habits as markdown: ``code`` and :role:`name` as code."""
    text = re.sub(r":(?:class|func|meth|data|mod|attr|exc):`~?([^`]+)`", r"`\1`", text)
    return re.sub(r"``([^`]+)``", r"`\1`", text)


def docstring(module: str) -> str:
    """``[[docstring:MODULE]]``: the module's docstring as markdown paragraphs."""
    doc = ast.get_docstring(ast.parse(module_path(module).read_text(encoding="utf-8")))
    if not doc:
        raise ReferenceError(f"{module} has no docstring")
    return rst_to_markdown(doc)


def _comments(source: str) -> tuple[dict[int, str], dict[int, str]]:
    """The comments of ``source`` by line number: those after code on their line, and those that
    are a line of their own."""
    trailing: dict[int, str] = {}
    whole: dict[int, str] = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            text = token.string.lstrip("#").strip()
            (whole if not token.line[: token.start[1]].strip() else trailing)[token.start[0]] = text
    return trailing, whole


def _note(line: int, trailing: dict[int, str], whole: dict[int, str]) -> str:
    """What the source says of the statement at ``line``: its trailing comment, else the comment
    lines right above it."""
    if line in trailing:
        return trailing[line]
    above: list[str] = []
    while line - 1 in whole:
        line -= 1
        above.insert(0, whole[line])
    return " ".join(above)


def _default(value: ast.expr | None) -> str:
    """A field's default as written; ``field(default_factory=dict)`` as the value it makes."""
    if value is None:
        return "*required*"
    if isinstance(value, ast.Call) and ast.unparse(value.func) in ("field", "dataclasses.field"):
        for keyword in value.keywords:
            if keyword.arg == "default":
                return f"`{ast.unparse(keyword.value)}`"
            if keyword.arg == "default_factory":
                factory = keyword.value
                if isinstance(factory, ast.Lambda):
                    return f"`{ast.unparse(factory.body)}`"
                made = {"dict": "{}", "list": "[]", "tuple": "()", "set": "set()"}.get(ast.unparse(factory))
                return f"`{made}`" if made else f"made by `{ast.unparse(factory)}`"
    return f"`{ast.unparse(value)}`"


def _is_dataclass(node: ast.ClassDef) -> bool:
    return any("dataclass" in ast.unparse(d) for d in node.decorator_list)


def _is_enum(node: ast.ClassDef) -> bool:
    return any(ast.unparse(base).endswith("Enum") for base in node.bases)


def _cell(text: str) -> str:
    """Text for a table cell: on one line, its pipes escaped except inside code spans (where a
    table already leaves them alone and a backslash would show)."""
    return map_prose(text.replace("\n", " "), lambda prose: prose.replace("|", "\\|"))


def records(module: str = "replay.core.records") -> str:
    """``[[records]]``: each dataclass and enum of ``module``, in the order the source has them."""
    source = module_path(module).read_text(encoding="utf-8")
    trailing, whole = _comments(source)
    out: list[str] = []
    for node in ast.parse(source).body:
        if not isinstance(node, ast.ClassDef) or not (_is_dataclass(node) or _is_enum(node)):
            continue
        doc = rst_to_markdown(ast.get_docstring(node) or "")
        out += [f"### `{node.name}`", "", doc, ""] if doc else [f"### `{node.name}`", ""]
        rows: list[str] = []
        for item in node.body:
            if _is_dataclass(node) and isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                comment = rst_to_markdown(_note(item.lineno, trailing, whole))
                rows.append(
                    f"| `{item.target.id}` | {_cell(f'`{ast.unparse(item.annotation)}`')} | {_cell(_default(item.value))} | {_cell(comment)} |"
                )
            elif _is_enum(node) and isinstance(item, ast.Assign) and isinstance(item.targets[0], ast.Name):
                rows.append(
                    f"| `{item.targets[0].id}` | {_cell(f'`{ast.unparse(item.value)}`')} | {_cell(rst_to_markdown(_note(item.lineno, trailing, whole)))} |"
                )
        if rows and _is_dataclass(node):
            out += ["| field | type | default | note |", "|---|---|---|---|", *rows, ""]
        elif rows:
            out += ["| member | value | note |", "|---|---|---|", *rows, ""]
    if not out:
        raise ReferenceError(f"{module} holds no dataclass or enum")
    return "\n\n" + "\n".join(out) + "\n"


def _column_groups() -> dict[str, str]:
    """Each column the store adds to older databases, with the comment above its group in the
    source (``METRIC_COLUMNS``: the similarity metrics...)."""
    source = module_path("replay.store").read_text(encoding="utf-8")
    lines = source.splitlines()
    notes: dict[str, str] = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id.endswith("_COLUMNS")):
            continue
        above: list[str] = []
        at = node.lineno - 2
        while at >= 0 and lines[at].lstrip().startswith("#"):
            above.insert(0, lines[at].lstrip().lstrip("#").strip())
            at -= 1
        try:
            columns = ast.literal_eval(node.value)
        except ValueError:
            continue
        if not isinstance(columns, tuple):  # a column list spelt as SQL, not a group of added columns
            continue
        for name, _kind in columns:
            notes[name] = rst_to_markdown(" ".join(above))
    return notes


def store_tables() -> dict[str, list[tuple[str, str, bool, Any, int]]]:
    """The tables of a fresh results database: name → (column, type, not null, default, key
    position) rows, as SQLite reports them."""
    from replay.store import Store

    with tempfile.TemporaryDirectory(prefix="simpilot-docs-store-") as tmp:
        store = Store(Path(tmp) / "simpilot.db")
        try:
            names = [row[0] for row in store.db.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY rowid")]
            return {
                name: [(c[1], c[2], bool(c[3]), c[4], c[5]) for c in store.db.execute(f"PRAGMA table_info({name})")]
                for name in names
                if not name.startswith("sqlite_")
            }
        finally:
            store.close()


def store_schema() -> str:
    """``[[store-schema]]``: each table with its key and columns, then the columns added to
    databases made by older versions, with what the source says of them."""
    notes = _column_groups()
    out: list[str] = []
    for table, columns in store_tables().items():
        key = [name for name, _, _, _, position in sorted(columns, key=lambda c: c[4]) if position]
        out += [f"### `{table}`", "", f"Primary key: `({', '.join(key)})`." if key else "No primary key.", ""]
        out += ["| column | type | may be NULL | default |", "|---|---|---|---|"]
        for name, kind, not_null, default, _ in columns:
            shown = f"`{default}`" if default is not None else "—"
            out.append(f"| `{name}` | {kind or '—'} | {'no' if not_null else 'yes'} | {shown} |")
        out.append("")
        groups: dict[str, list[str]] = {}
        for name, *_ in columns:
            if name in notes:
                groups.setdefault(notes[name], []).append(name)
        for note, names in groups.items():
            out += [f"{', '.join(f'`{n}`' for n in names)}: {note}", ""]
    return "\n\n" + "\n".join(out) + "\n"


def _resolve(expr: ast.expr, namespace: Any) -> Any:
    """A decorator's method argument (``types.INITIALIZE``, ``DID_ACCEPT``) as the module sees it."""
    if isinstance(expr, ast.Constant):
        return expr.value
    if isinstance(expr, ast.Name):
        return getattr(namespace, expr.id)
    if isinstance(expr, ast.Attribute):
        return getattr(_resolve(expr.value, namespace), expr.attr)
    raise ReferenceError(f"cannot read the method name {ast.unparse(expr)!r}")


def lsp_methods() -> list[dict[str, str]]:
    """What the bridge serves and sends: method, direction, kind, handler and whether it is
    standard LSP, read from the server's source and resolved in the imported module."""
    import importlib

    from lsprotocol import types

    server = importlib.import_module(SERVER)
    found: list[dict[str, str]] = []
    for node in ast.walk(ast.parse(module_path(SERVER).read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                if not (isinstance(decorator, ast.Call) and ast.unparse(decorator.func) in ("server.feature", "server.command")):
                    continue
                method = str(_resolve(decorator.args[0], server))
                if ast.unparse(decorator.func) == "server.command":
                    found.append(
                        {
                            "method": method,
                            "direction": "client → server",
                            "kind": "command (`workspace/executeCommand`)",
                            "handler": node.name,
                            "standard": "extension",
                        }
                    )
                    continue
                standard = types.METHOD_TO_TYPES.get(method)
                if standard is not None:
                    kind = "request" if standard[0].__name__.endswith("Request") else "notification"
                else:
                    kind = "notification" if ast.unparse(node.returns or ast.Constant(None)) == "None" else "request"
                found.append(
                    {
                        "method": method,
                        "direction": "client → server",
                        "kind": kind,
                        "handler": node.name,
                        "standard": "LSP" if standard is not None else "extension",
                    }
                )
        elif isinstance(node, ast.Call) and ast.unparse(node.func).endswith("protocol.notify") and node.args:
            method = str(_resolve(node.args[0], server))
            fields = (
                [ast.unparse(k) for k in node.args[1].keys if k is not None]
                if len(node.args) > 1 and isinstance(node.args[1], ast.Dict)
                else []
            )
            found.append(
                {
                    "method": method,
                    "direction": "server → client",
                    "kind": "notification",
                    "handler": "{" + ", ".join(f.strip("'\"") for f in fields) + "}",
                    "standard": "LSP" if method in types.METHOD_TO_TYPES else "extension",
                }
            )
    unique = {(m["method"], m["direction"]): m for m in found}
    return list(unique.values())


def lsp_table() -> str:
    """``[[lsp-methods]]``: the methods as a table."""
    rows = [
        f"| `{m['method']}` | {m['direction']} | {m['kind']} | {m['standard']} | {_cell('`' + m['handler'] + '`')} |" for m in lsp_methods()
    ]
    head = "| method | direction | kind | standard LSP or extension | handler / parameters |\n|---|---|---|---|---|"
    return "\n\n" + head + "\n" + "\n".join(rows) + "\n\n"


def render(markdown: str) -> str:
    """``markdown`` with its reference tokens filled in (outside code only)."""

    def replace(match: re.Match[str]) -> str:
        kind, arg = match.group("kind"), match.group("arg")
        if kind == "records":
            return records(arg) if arg else records()
        if kind == "docstring":
            if not arg:
                raise ReferenceError("write [[docstring:MODULE]]")
            return "\n\n" + docstring(arg) + "\n\n"
        if arg:
            raise ReferenceError(f"[[{kind}]] takes no argument")
        return store_schema() if kind == "store-schema" else lsp_table()

    return map_prose(markdown, lambda text: TOKEN.sub(replace, text))


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """mkdocs' event: fill in the page's reference tokens, or fail the build naming the page."""
    from mkdocs.exceptions import PluginError

    try:
        return render(markdown)
    except ReferenceError as exc:
        raise PluginError(f"{page.file.src_uri}: {exc}") from None
