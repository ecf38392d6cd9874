"""SimCopilot's checkpoint files as holes (``simpilot import lines --format simcopilot``).

SimCopilot keeps its holes in ``example_code/<Python|Java>/<Python|Java>_tasks_checkpoints.json``,
a JSON list with one object per program::

    [{"Task_Name": "simplex_method",
      "LN_range": [[1, 154]],
      "output_to_check": "final_output",
      "checkpoint_LN_infilling": [[4, 4], [20, 21]],
      "checkpoint_LN_Completion": [[30, 33]]}]

- ``Task_Name`` is the program's file name without its extension (SimCopilot's scripts take it
  from the program's path: ``simplex_method/simplex_method.py``, ``COMP215/A0/Test/
  FactorizationTester.java``).
- ``checkpoint_LN_infilling`` holds the infill holes, ``checkpoint_LN_Completion`` the completion
  holes: each a ``[first, last]`` pair of line numbers, 1-based and inclusive (SimCopilot cuts a
  program's ``split("\\n")`` lines into ``lines[:first - 1]``, ``lines[first - 1:last]`` and
  ``lines[last:]``), so they are :class:`LineHole` lines as they are.
- ``LN_range`` (the whole program) and ``output_to_check`` (which printed lines SimCopilot
  compares) say nothing about holes and are not read; no other field is accepted.

The programs are files of the repository. A ``Task_Name`` is looked for as a path of it when it
ends with one of the language's extensions ``<ext>`` (``folder/file.py``), then as
``<Task_Name>/<Task_Name><ext>`` and ``<Task_Name><ext>``, then, for a name without a folder, as
the one file named ``<Task_Name><ext>`` anywhere in the repository. A program found nowhere (or
in several places) is a :class:`SimpilotError` naming it and the places looked at, as is a
malformed entry or range. Each range becomes a hole with the id ``<Task_Name>:infill:<n>`` or
``<Task_Name>:completion:<n>`` (``n`` counts from 1 in its list); a range that cannot be a hole
(beyond the program, inside a statement, in a test file) is rejected by
:func:`~replay.importers.lines.tasks_from_lines` like any other.

SimCopilot's Java completion holes end with the ``}`` that closes the cursor's block (and, at a
class's last method, the class's ``}`` too), where simpilot's end within that block. Its holes are
read with that convention (``LineHole.closes_block``): such lines become a task whose ground truth
closes the block, and the post-processors keep those closers (``HoleContext.closes_block``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path, PurePosixPath
from typing import Any

from replay.config.manifest import Manifest
from replay.core.errors import SimpilotError
from replay.core.json_input import decode, known_fields
from replay.core.records import Kind, json_kind
from replay.importers.lines import LineHole

CHECKPOINTS = {"checkpoint_LN_infilling": Kind.INFILL, "checkpoint_LN_Completion": Kind.COMPLETION}
FIELDS = ("Task_Name", "LN_range", "output_to_check", *CHECKPOINTS)
_SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "venv", "build", "dist"})


def read_checkpoints(path: Path, manifest: Manifest) -> list[LineHole]:
    """The holes of SimCopilot's checkpoint file ``path`` on the programs of ``manifest``'s repository."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SimpilotError(f"{path}: cannot be read ({exc})") from exc
    return parse_checkpoints(text, str(path), manifest.root, manifest.extensions)


def parse_checkpoints(text: str, name: str, root: Path, extensions: tuple[str, ...]) -> list[LineHole]:
    """The holes of ``text`` (a checkpoint file, ``name`` its file), in the file's order: each
    program's infill holes, then its completion holes. The programs are files under ``root``,
    ending in one of ``extensions``."""
    programs = "is {kind}, expected a list of programs (objects with Task_Name and checkpoints)"
    entries = decode(text, list, "not JSON ({exc})", programs, f"{name}: ", SimpilotError)
    finder = _Finder(root, extensions)
    seen: dict[str, str] = {}
    holes: list[LineHole] = []
    for i, entry in enumerate(entries, start=1):
        where = f"{name} entry {i}"
        task_name = _task_name(entry, where)
        if task_name in seen:
            raise SimpilotError(f"{where}: Task_Name {task_name!r} is already the name of {seen[task_name]}")
        seen[task_name] = where
        file = finder.find(task_name, where)
        for field, kind in CHECKPOINTS.items():
            ranges = entry.get(field, [])
            if not isinstance(ranges, list):
                raise SimpilotError(f"{where}: field '{field}' is {json_kind(ranges)}, expected a list of [first_line, last_line] pairs")
            for n, pair in enumerate(ranges, start=1):
                first, last = _range(pair, f"{where}: {field}[{n - 1}]")
                hole_id = f"{task_name}:{kind.value}:{n}"
                holes.append(LineHole(file, kind, first, last, hole_id, f"{where} {hole_id}", closes_block=True))
    return holes


def _task_name(entry: Any, where: str) -> str:
    entry = known_fields(entry, where, FIELDS, "an object with Task_Name and checkpoint_LN_* lists")
    task_name = entry.get("Task_Name")
    if not isinstance(task_name, str) or not task_name.strip():
        what = "missing" if "Task_Name" not in entry else "empty" if isinstance(task_name, str) else json_kind(task_name)
        raise SimpilotError(f"{where}: field 'Task_Name' is {what}, expected the program's file name without its extension")
    if not any(field in entry for field in CHECKPOINTS):
        raise SimpilotError(f"{where} ({task_name}): no {' nor '.join(CHECKPOINTS)}: the entry gives no hole")
    return task_name


def _range(pair: Any, where: str) -> tuple[int, int]:
    """A ``[first, last]`` pair: 1-based, inclusive, ``first <= last``."""
    numbers = isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in pair)
    if not numbers:
        raise SimpilotError(f"{where}: is {json.dumps(pair)}, expected [first_line, last_line] (two line numbers from 1)")
    first, last = pair
    if first < 1 or last < first:
        raise SimpilotError(f"{where}: [{first}, {last}] is no range (1-based and inclusive, first_line <= last_line)")
    return first, last


class _Finder:
    """Finds a program's file in the repository (its files by name are listed once, when needed)."""

    def __init__(self, root: Path, extensions: tuple[str, ...]) -> None:
        self.root, self.extensions = root, extensions
        self._by_name: dict[str, list[str]] | None = None

    def find(self, task_name: str, where: str) -> str:
        """The repository path of ``task_name``'s program."""
        rel = PurePosixPath(task_name.replace("\\", "/"))
        if rel.is_absolute() or ".." in rel.parts:
            raise SimpilotError(f"{where}: Task_Name {task_name!r} is not a name inside the repository {self.root}")
        base = rel.as_posix()
        places = [base] if base.endswith(self.extensions) else []
        places += [f"{base}/{rel.name}{ext}" for ext in self.extensions] + [f"{base}{ext}" for ext in self.extensions]
        for place in places:
            if (self.root / place).is_file():
                return place
        names = [rel.name + ext for ext in self.extensions]
        if len(rel.parts) == 1:
            found = sorted(path for n in names for path in self.by_name.get(n, []))
            if len(found) == 1:
                return found[0]
            if found:
                raise SimpilotError(
                    f"{where}: Task_Name {task_name!r} is ambiguous: {', '.join(found)} all fit "
                    "(give the program's path relative to the repository as its Task_Name)"
                )
            places.append(f"any file named {' or '.join(names)}")
        raise SimpilotError(f"{where}: Task_Name {task_name!r}: no such program in {self.root} (looked for {', '.join(places)})")

    @property
    def by_name(self) -> dict[str, list[str]]:
        if self._by_name is None:
            self._by_name = {}
            for dirpath, dirnames, filenames in os.walk(self.root):
                dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in _SKIPPED_DIRS]
                for fn in filenames:
                    if fn.endswith(self.extensions):
                        rel = (Path(dirpath) / fn).relative_to(self.root).as_posix()
                        self._by_name.setdefault(fn, []).append(rel)
        return self._by_name
