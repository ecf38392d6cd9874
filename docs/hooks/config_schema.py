"""The configuration reference, generated from the schemas the files are read through.

``simpilot.toml``, ``models.toml``, ``presets.toml`` and ``contexts.toml`` are each read through a
strict pydantic model (``replay/config``), the same one ``simpilot config schema KIND`` prints as
JSON Schema. A hand-written table of their keys would drift from the code the first time a key is
added; this hook writes the tables from the models at build time instead:

``[[config-schema:KIND]]``
    every table of the file ``KIND`` names, each with its keys' paths, types, defaults and
    descriptions (a table whose ``kind`` chooses its keys, as in ``models.toml``, gets one table
    per kind);
``[[config-schema]]``
    every file kind in turn, so that a new kind reaches the page without anyone editing it.

An unknown kind fails the build.
"""

from __future__ import annotations

import json
import re
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Literal

import annotated_types
from prose import map_prose
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

TOKEN = re.compile(r"\[\[config-schema(?::(?P<kind>[a-z_-]+))?\]\]")


class SchemaError(ValueError):
    """A ``[[config-schema:KIND]]`` token naming no configuration file."""


@dataclass
class Key:
    """One key of a table: its dotted path, TOML type, default and description."""

    path: str
    type: str
    default: str
    description: str


@dataclass
class TableDoc:
    """One TOML table of a file: its header as written (``[models.NAME]``), what it is, its keys."""

    header: str
    summary: str
    keys: list[Key] = field(default_factory=list)
    extra: str = ""  # what any other key holds, for tables that take the keys of a plugin or builder
    kinds: str = ""  # the kind values choosing this table, when several tables share the header


def schemas() -> dict[str, type[BaseModel]]:
    """The file kinds and their schemas, as ``simpilot config schema`` knows them."""
    from replay.jobs.config_schema import SCHEMAS

    return dict(SCHEMAS)


def _doc(model: type[BaseModel]) -> str:
    text = " ".join((model.__doc__ or "").split())
    return re.sub(r"``([^`]+)``", r"`\1`", text)


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The tables an annotation stands for: a model, or each model of a union (``X | None`` too)."""
    annotation = _unwrap(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]
    return []


def _unwrap(annotation: Any) -> Any:
    """``Annotated[X, ...]`` → ``X``."""
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _alternatives(annotation: Any) -> list[Any]:
    """The types a value may have: each member of a union but ``None``, or the one type."""
    annotation = _unwrap(annotation)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [a for a in typing.get_args(annotation) if a is not type(None)]
    return [annotation]


def _table_of(annotation: Any) -> Any | None:
    """The value type of a table of named tables (``dict[str, X]``, possibly optional), else None."""
    annotation = _unwrap(annotation)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        inner = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _table_of(inner[0]) if len(inner) == 1 else None
    if typing.get_origin(annotation) is dict:
        value = typing.get_args(annotation)[1]
        return value if _models_in(value) else None
    return None


def type_text(annotation: Any) -> str:
    """An annotation in TOML's words: ``list[str]`` → list of strings."""
    annotation = _unwrap(annotation)
    names = {str: "string", int: "integer", float: "number", bool: "boolean"}
    if annotation in names:
        return names[annotation]
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Literal:
        return json.dumps(args[0]) if len(args) == 1 else "one of " + ", ".join(json.dumps(a) for a in args)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        if set(inner) == {int, float}:
            return "number"
        return " or ".join(type_text(a) for a in inner)
    if origin in (list, tuple):
        items = [a for a in args if a is not Ellipsis]
        item = type_text(items[0]) if len(set(items)) == 1 else " / ".join(type_text(a) for a in items)
        return f"list of {item}s" if item in names.values() else f"list of ({item})"
    if origin is dict:
        return f"table of {type_text(args[1])}s" if type_text(args[1]) in names.values() else f"table of ({type_text(args[1])})"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "table"
    return getattr(annotation, "__name__", str(annotation))


def bounds_text(info: FieldInfo) -> str:
    """A field's limits (``> 0``, ``0 ≤ x ≤ 2``, at least one item) in a few words."""
    words = []
    for limit in info.metadata:
        if isinstance(limit, annotated_types.Gt):
            words.append(f"> {limit.gt}")
        elif isinstance(limit, annotated_types.Ge):
            words.append(f"≥ {limit.ge}")
        elif isinstance(limit, annotated_types.Lt):
            words.append(f"< {limit.lt}")
        elif isinstance(limit, annotated_types.Le):
            words.append(f"≤ {limit.le}")
        elif isinstance(limit, annotated_types.MinLen):
            words.append(f"at least {limit.min_length}")
    return ", ".join(words)


def default_text(info: FieldInfo) -> str:
    """A field's default as TOML would write it; *required* when it has none."""
    if info.is_required():
        return "*required*"
    value = info.get_default(call_default_factory=True) if info.default is PydanticUndefined else info.default
    if value is None:
        return "not set"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        value = list(value)
    return json.dumps(value, ensure_ascii=False)


def _kind_of(model: type[BaseModel]) -> str:
    """The ``kind`` values a table of a discriminated union takes (``"oracle", "empty"``)."""
    kind = model.model_fields.get("kind")
    if kind is None:
        return ""
    annotation = _unwrap(kind.annotation)
    if typing.get_origin(annotation) is Literal:
        return ", ".join(f"`{value}`" for value in typing.get_args(annotation))
    return ""


def tables(model: type[BaseModel], header: str = "", kinds: str = "") -> list[TableDoc]:
    """The tables of ``model`` (the file itself when ``header`` is empty), parents first;
    ``kinds``: the ``kind`` values that choose this table among others of the same header."""
    here = TableDoc(header, _doc(model), kinds=kinds)
    found = [here]
    if model.model_config.get("extra") == "allow":
        try:
            annotation = typing.get_type_hints(model).get("__pydantic_extra__")
        except (NameError, TypeError):  # a name only the type checker sees: say what is certain
            annotation = None
        value = typing.get_args(annotation)[1] if typing.get_origin(annotation) is dict else None
        here.extra = f"any other key holds a {type_text(value)}" if value is not None else "any other key is kept as given"
    for name, info in model.model_fields.items():
        path = f"{header.strip('[]')}.{name}" if header else name
        description = " ".join((info.description or "").split())
        if name == "kind" and not description:
            description = "Which kind of table this is: it chooses the other keys."
        named = _table_of(info.annotation)
        if named is not None:
            variants = _models_in(named)
            here.keys.append(Key(path, "table of tables", default_text(info), description or f"One table per name: [{path}.NAME]."))
            for variant in variants:
                found += tables(variant, f"[{path}.NAME]", kinds=_kind_of(variant) if len(variants) > 1 else "")
            continue
        nested = _models_in(info.annotation)
        if nested and all(_models_in(a) for a in _alternatives(info.annotation)):
            required = "*required*" if info.is_required() else "optional"
            here.keys.append(Key(path, "table", required, description or _doc(nested[0])))
            for variant in nested:
                found += tables(variant, f"[{path}]", kinds=_kind_of(variant) if len(nested) > 1 else "")
            continue
        limits = bounds_text(info)
        kind = type_text(info.annotation) + (f" ({limits})" if limits else "")
        here.keys.append(Key(path, kind, default_text(info), description))
    return found


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_kind(kind: str) -> str:
    """One file kind as a section: its heading (anchor ``#KIND-toml``), what the file is, then each
    of its tables with a key table."""
    known = schemas()
    if kind not in known:
        raise SchemaError(f"no configuration file kind {kind!r} (known: {', '.join(known)})")
    out: list[str] = [f"## `{kind}.toml` {{ #{kind}-toml }}\n", f"`simpilot config schema {kind}` prints its JSON Schema.\n"]
    for doc in tables(known[kind]):
        if doc.header:
            with_kind = f" with `kind` = {doc.kinds}" if doc.kinds else ""
            out.append(f"### `{doc.header}`{with_kind}\n")
        out.append(doc.summary + "\n")
        if doc.keys:
            out.append("| key | type | default | what it is |\n|---|---|---|---|")
            out += [f"| `{_cell(k.path)}` | {_cell(k.type)} | {_cell(k.default)} | {_cell(k.description)} |" for k in doc.keys]
            out.append("")
        if doc.extra:
            out.append(f"Besides these keys, {doc.extra}.\n")
    return "\n\n" + "\n".join(out) + "\n"


def render(markdown: str) -> str:
    """``markdown`` with its configuration tokens filled in (outside code only):
    ``[[config-schema]]`` for every file kind, ``[[config-schema:KIND]]`` for one."""

    def change(text: str) -> str:
        return TOKEN.sub(
            lambda match: "".join(render_kind(kind) for kind in ([match.group("kind")] if match.group("kind") else schemas())), text
        )

    return map_prose(markdown, change)


def keys(kind: str) -> list[str]:
    """Every key path of the file ``kind`` names, as the page lists them."""
    return [key.path for doc in tables(schemas()[kind]) for key in doc.keys]


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """mkdocs' event: fill in the page's configuration tables, or fail the build naming the page."""
    from mkdocs.exceptions import PluginError

    try:
        return render(markdown)
    except SchemaError as exc:
        raise PluginError(f"{page.file.src_uri}: {exc}") from None
