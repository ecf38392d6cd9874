"""JSON and JSONL written by people and other tools, read with one set of checks and messages.

Scenario files, recordings, hole lists, checkpoint files and DevBench's files are all read here:
a bad input is an error naming the file (and the line, for JSONL), what was found and what was
expected, worded the same way whichever file it is.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from replay.core.errors import SimpilotError
from replay.core.records import json_kind
from replay.core.repo_paths import PathRefused, UnsafePath

T = TypeVar("T")


def numbered(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """The non-blank lines of a JSONL file with their numbers, counted from 1 (blank lines count)."""
    return ((n, line) for n, line in enumerate(lines, 1) if line.strip())


def decode(text: str, kind: type[T], not_json: str, wrong_kind: str, where: str = "", error: type[Exception] = ValueError) -> T:
    """``text`` decoded, when it is JSON holding a ``kind``; else ``error``, its message ``where``
    followed by ``not_json`` (formatted with ``exc``, the decoder's error) or ``wrong_kind``
    (formatted with ``kind``, in words what the text holds)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(where + not_json.format(exc=exc)) from None
    if not isinstance(value, kind):
        raise error(where + wrong_kind.format(kind=json_kind(value)))
    return value


def json_object(line: str) -> dict[str, Any]:
    """The JSON object on ``line``, or a ValueError saying, in words, why it is not one."""
    return decode(line, dict, "the line is not JSON ({exc.msg} at column {exc.colno})", "the line holds {kind}, expected a JSON object")


def parse_lines(path: Path, lines: list[str], parse: Callable[[Any], T], what: str, fix: str) -> list[T]:
    """One record per non-blank JSON line of ``path``; a bad line is an error naming the file, the
    line's number, ``what`` it is not and why (not JSON, not an object, which field is missing or
    of the wrong type, and what was expected), and how to ``fix`` it. A path that would lead
    outside its repository is refused as such (a :class:`PathRefused`, exit status 2)."""
    records = []
    for n, line in numbered(lines):
        try:
            records.append(parse(json_object(line)))
        except KeyError as exc:  # a reader without field checks: the key is all it can say
            raise SimpilotError(f"{path}:{n}: {what}: field {exc} is missing; {fix}") from None
        except (ValueError, TypeError) as exc:
            error = PathRefused if isinstance(exc, UnsafePath) else SimpilotError
            raise error(f"{path}:{n}: {what}: {exc}; {fix}") from None
    return records


def known_fields(item: Any, where: str, fields: Sequence[str], expected: str) -> dict[str, Any]:
    """``item`` when it is an object without fields other than ``fields``; else an error naming
    ``where`` it is and, for an object, its first unknown field (``expected``: what it should be)."""
    if not isinstance(item, dict):
        raise SimpilotError(f"{where}: is {json_kind(item)}, expected {expected}")
    unknown = sorted(set(item) - set(fields))
    if unknown:
        raise SimpilotError(f"{where}: unknown field {unknown[0]!r} (the fields are {', '.join(fields)})")
    return item
