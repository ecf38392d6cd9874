"""Scenario files: one Task per line of JSONL, written deterministically.

The file's SHA-256 identifies the scenario set in every run that uses it, so a number in a report
can always be traced to the exact tasks behind it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from postprocess import closes_cursor_block
from postprocess.context import HoleContext
from replay.core.errors import SimpilotError
from replay.core.json_input import parse_lines
from replay.core.records import Kind, Task
from replay.core.repo_paths import MARK_AGAIN


def write_tasks(path: Path, tasks: Iterable[Task]) -> None:
    write_lines(path, (task.to_dict() for task in tasks))


def write_lines(path: Path, records: Iterable[dict[str, Any]]) -> None:
    """One JSON object a line with sorted keys (the same records give the same bytes), written
    atomically: a crash leaves the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with tmp.open("w", encoding="utf-8", newline="\n") as fh:
        for record in records:
            fh.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
    tmp.replace(path)


def read_tasks(path: Path) -> list[Task]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise SimpilotError(f"scenario file {path} does not exist: run 'simpilot mark REPO' to create it") from None
    except UnicodeDecodeError:
        raise SimpilotError(f"scenario file {path} is not UTF-8 text: re-create it with 'simpilot mark REPO'") from None
    return parse_lines(path, lines, Task.from_dict, "not a task record", REMARK)


REMARK = f"{MARK_AGAIN} to write the file again"


def file_digest(paths: Iterable[Path]) -> str:
    """One SHA-256 over the given scenario files (in the order given): a hash of each file's own
    SHA-256, so where one file ends and the next begins is part of it (the files' bytes run
    together would hash ``["ab", "c"]`` and ``["a", "bc"]`` alike)."""
    h = hashlib.sha256()
    for p in paths:
        h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def legacy_file_digest(paths: Iterable[Path]) -> str:
    """The digest runs stored before :func:`file_digest` separated the files (the files' bytes run
    together): ``--resume`` of such a run recognises its scenario files by it."""
    h = hashlib.sha256()
    for p in paths:
        h.update(p.read_bytes())
    return h.hexdigest()


def document_text(task: Task, original: bytes) -> str:
    """The document the editor has open when the task is asked: the file with the hole removed,
    and for a completion task nothing after the hole (the model sees only the code before)."""
    prefix = original[: task.span.start_byte]
    suffix = original[task.span.end_byte :] if task.kind is Kind.INFILL else b""
    return (prefix + suffix).decode("utf-8")


def hole_context(task: Task, original: bytes) -> tuple[str, HoleContext]:
    """The document the editor has open for ``task`` and the post-processors' view of it. A hole
    whose ground truth closes the cursor's block (SimCopilot's Java completions end with that
    ``}``) is one whose answers may too: the presets are told so (``HoleContext.closes_block``)."""
    document = document_text(task, original)
    prefix = original[: task.span.start_byte].decode("utf-8")
    closes = closes_cursor_block(task.language, prefix, task.ground_truth)
    return document, HoleContext(task.language, prefix, document[len(prefix) :], closes_block=closes)
