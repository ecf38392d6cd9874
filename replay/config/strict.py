"""Reading a configuration file through its typed schema, with one-line errors.

Every table of every configuration file is a :class:`Table`: unknown keys are refused and nothing
is coerced (a string is no list, ``"5"`` is no number), so a typo can never silently keep a
default. :func:`validate` turns the schema library's report into one :class:`ConfigError` naming
the file, the key path as written (``repository.setup``) and what to write instead.
"""

from __future__ import annotations

import tomllib
import types
import typing
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from replay.config.errors import ConfigError

T = TypeVar("T", bound=BaseModel)


class Table(BaseModel):
    """A TOML table: strict types, no unknown keys, immutable once read."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


def read_toml(path: Path) -> dict[str, Any]:
    """The TOML document at ``path``; a missing, unreadable or malformed file is a ConfigError."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(path, "", "no such file: create it or give another path") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(path, "", f"not valid TOML ({exc}); fix the syntax") from None


def validate(schema: type[T], data: Any, path: Path | str, prefix: tuple[str | int, ...] = ()) -> T:
    """``data`` as a ``schema`` record, or a ConfigError on its first problem; ``prefix``: where
    ``data`` sits in the file (its errors name the whole key path)."""
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        found = [(_real_loc(data, error["loc"]), error) for error in exc.errors(include_url=False)]
        loc, error = max(found, key=lambda pair: len(pair[0]))  # the deepest: the branch of a union that fits best
        raise ConfigError(path, dotted((*prefix, *loc)), explain(schema, error, loc)) from None


def _real_loc(data: Any, loc: tuple[str | int, ...]) -> tuple[str | int, ...]:
    """``loc`` without the names the schema library gives the branches of a union (``str``,
    ``list[str]``): only the keys and positions that are in the file."""
    real: list[str | int] = []
    for i, part in enumerate(loc):
        if isinstance(data, dict) and part in data:
            data = data[part]
        elif isinstance(data, list) and isinstance(part, int) and part < len(data):
            data = data[part]
        elif not (isinstance(data, dict) and i == len(loc) - 1):  # a missing key is named; a branch is not
            continue
        real.append(part)
    return tuple(real)


def dotted(loc: tuple[str | int, ...]) -> str:
    """``("repository", "setup", 0)`` → ``repository.setup[0]``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


_EXPECTED = {
    "string_type": "a string",
    "int_type": "a whole number",
    "float_type": "a number",
    "bool_type": "true or false",
    "list_type": "a list",
    "tuple_type": "a list",
    "dict_type": "a table",
    "model_type": "a table",
    "model_attributes_type": "a table",
}

_BOUNDS = {
    "greater_than": (">", "gt"),
    "greater_than_equal": (">=", "ge"),
    "less_than": ("<", "lt"),
    "less_than_equal": ("<=", "le"),
}


def explain(schema: type[BaseModel], error: Any, loc: tuple[str | int, ...]) -> str:
    """What is wrong at ``loc`` and what to do, from one error of the schema library."""
    kind, value = error["type"], error.get("input")
    key = str(loc[-1]) if loc else ""
    if kind == "extra_forbidden":
        known = _known_keys(schema, loc[:-1])
        return f"unknown key (known: {', '.join(known) or 'none'}); fix the spelling or remove it"
    if kind == "missing":
        _, field = _field_at(schema, loc)
        if field is not None and _model_in(field.annotation) is not None:
            return f"missing the [{dotted(loc)}] table; add it"
        return f"missing; add {key} = …"
    if kind in _EXPECTED:
        expected = _described(schema, loc) or _EXPECTED[kind]
        got = f"got {_kind_of(value)} {_shown(value)}"
        if kind in ("list_type", "tuple_type") and isinstance(value, str):
            return f"expected {expected}, {got}; write {key} = [{_shown(value)}]"
        return f"expected {expected}, {got}; fix its type"
    if kind in _BOUNDS:
        word, limit = _BOUNDS[kind]
        return f"expected a number {word} {error['ctx'][limit]}, got {_shown(value)}; fix it"
    if kind == "too_short":
        return f"expected at least {error['ctx']['min_length']} item(s), got {error['ctx']['actual_length']}; add one"
    if kind == "literal_error":
        choices = str(error["ctx"]["expected"]).replace("'", "").replace(" or ", ", ")
        return f"{_shown(value)} is not supported (choose from {choices})"
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{message}; got {_shown(value)}" if "; " not in message and value is not None and not isinstance(value, dict) else message


def _kind_of(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__


def _shown(value: object) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


def _field_at(schema: type[BaseModel], loc: tuple[str | int, ...]) -> tuple[type[BaseModel] | None, Any]:
    """The table at ``loc`` (the last table walked through) and the field found there, if any."""
    current: Any = schema
    table: type[BaseModel] | None = schema
    field = None
    for part in loc:
        model = _model_in(current)
        if model is not None and isinstance(part, str) and part in model.model_fields:
            table, field = model, model.model_fields[part]
            current = field.annotation
            continue
        inner = _container_item(current)
        if inner is None:
            return table, None
        current, field = inner, None
    return table, field


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        models = [a for a in typing.get_args(annotation) if isinstance(a, type) and issubclass(a, BaseModel)]
        return models[0] if len(models) == 1 else None
    return None


def _container_item(annotation: Any) -> Any:
    """The item type of a list, tuple or table of values (``dict[str, X]`` → X), or of the one
    such type in an optional."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _container_item(inner[0]) if len(inner) == 1 else None
    if origin in (list, tuple, dict):
        return typing.get_args(annotation)[-1] if typing.get_args(annotation) else None
    return None


def _known_keys(schema: type[BaseModel], loc: tuple[str | int, ...]) -> list[str]:
    table, field = _field_at(schema, loc)
    target = _model_in(field.annotation) if field is not None else (table if not loc else _model_in(_item_type(schema, loc)))
    return list(target.model_fields) if target is not None else []


def _item_type(schema: type[BaseModel], loc: tuple[str | int, ...]) -> Any:
    parent_table, parent = _field_at(schema, loc[:-1])
    return _container_item(parent.annotation) if parent is not None else None


def _described(schema: type[BaseModel], loc: tuple[str | int, ...]) -> str | None:
    """The ``expected`` wording a field gives in its schema (``json_schema_extra``), if any."""
    _, field = _field_at(schema, loc)
    extra = field.json_schema_extra if field is not None else None
    return str(extra["expected"]) if isinstance(extra, dict) and "expected" in extra else None
