"""The files a task or a recorded answer names, kept inside their repository.

Scenario and recording files are data people share, and each record's ``path`` is joined to a
repository's root: to read the file a task was cut from, and to write answers into a work copy.
A path that is absolute, climbs out with ``..`` or leaves through a symlink would make simpilot
read, and then overwrite, a file of the host. So a path is checked twice: its spelling when a
record is read (:func:`relative_path`, pure), and where it lands once resolved against a checkout
(:func:`file_in_repo`), which no spelling check can know.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from replay.core.errors import SimpilotError

if TYPE_CHECKING:
    from replay.core.records import Task

MARK_AGAIN = "re-mark the repository with 'simpilot mark REPO'"
EXAMPLE = "it must be relative to the repository root, with / between parts and no '.' or '..' (e.g. pkg/mod.py)"


class UnsafePath(ValueError):
    """A record's path spelled so that it is not a plain path inside its repository (a record
    reader turns it into a :class:`PathRefused` naming the file and line)."""


class PathRefused(SimpilotError):
    """A path that would read or write outside its repository: refused before anything runs,
    with the exit status of a usage error."""

    exit_status = 2


def _problem(path: str) -> str | None:
    """What is wrong with ``path`` as a repository-relative POSIX path, in words; None when nothing."""
    if not path:
        return "empty"
    if "\0" in path:
        return "holding a NUL character"
    try:
        os.fsencode(path)
    except UnicodeError:
        return "holding characters no file name can have"
    if "\\" in path:
        return "holding a backslash (a POSIX path separates its parts with /)"
    if path.startswith("/"):
        return "an absolute path (outside the repository)"
    if path.startswith("~"):
        return "a path in a home folder (outside the repository)"
    parts = path.split("/")
    if ".." in parts:
        return "a path that climbs with '..' (it may lead outside the repository)"
    if "." in parts or "" in parts or PurePosixPath(path).as_posix() != path:
        normal = "/".join(p for p in parts if p not in ("", "."))
        return f"not in normal form (write it as {normal!r})" if normal else "not a file's path"
    return None


def relative_path(path: str, field: str = "path") -> str:
    """``path`` when it is a non-empty, normalised, relative POSIX path (nothing it names can be
    outside the folder it is joined to, symlinks aside); otherwise an :class:`UnsafePath` naming
    ``field``, what is wrong and how the path must be written."""
    problem = _problem(path)
    if problem is not None:
        raise UnsafePath(f"field {field!r} is {path!r}, {problem}: {EXAMPLE}")
    return path


def file_in_repo(root: Path, relative: str, what: str) -> Path:
    """The real location of the regular file ``relative`` names under the checkout ``root``, symlinks
    resolved; a :class:`PathRefused` when it is spelled unsafely, resolves outside ``root`` or is
    not a regular file (a folder, a FIFO a read would hang on, a device). ``what`` names whose
    file it is in the message (``task T of repository R``). A file that does not exist is an
    ordinary error: the checkout, not the record, is likely the wrong one."""
    try:
        relative_path(relative)
    except UnsafePath as exc:
        raise PathRefused(f"{what}: {exc}; {MARK_AGAIN}") from None
    base = Path(os.path.realpath(root))
    real = Path(os.path.realpath(base / relative))
    if not real.is_relative_to(base):
        raise PathRefused(
            f"{what}: its file {relative!r} resolves to {str(real)!r}, outside the repository at {base}: "
            f"replace the symlink with the file itself, or {MARK_AGAIN}"
        )
    try:
        mode = real.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        raise SimpilotError(f"{what}: its file {relative!r} does not exist in {base}: is --repo pointing at the right checkout?") from None
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a special file"
        raise PathRefused(f"{what}: its file {relative!r} in {base} is {kind}, not a regular file: {MARK_AGAIN}")
    return real


def task_file(root: Path, task: Task) -> Path:
    """:func:`file_in_repo` for the file ``task`` was cut from, in the checkout ``root``."""
    return file_in_repo(root, task.path, f"task {task.id} of repository {task.repo}")
