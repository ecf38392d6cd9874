"""Where the report files go: refused up front when they cannot be written, then written atomically."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from replay.core.errors import SimpilotError

# -- where the report files go ----------------------------------------------------------------
#
# A report file's missing parent folders, and a missing --csv folder, are created (as 'mkdir -p'
# would): 'report … --html out/today/r.html' just works. What cannot work is refused before the
# report is built, in one line naming the path, what is wrong and what to do: a file path that
# is a folder, a folder path that is a file, a parent that is a file, or a folder that is not
# writable (the file itself, or a folder that would have to be created in it). Files are then
# written next to their target and renamed onto it, so that a failure leaves the old file or
# none, never half of one.


class OutputRefused(SimpilotError):
    """A report path that cannot be written, found before anything was built or written: the
    exit status of a usage error, as for a bad option."""

    exit_status = 2


def _folder_problem(folder: Path) -> str | None:
    """Why files cannot be written into ``folder`` (created first when missing), in words
    ending with what to do; None when they can."""
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return f"{existing} is a file, not a folder: choose another path"
    if not os.access(existing, os.W_OK | os.X_OK):
        if existing == folder:
            return f"the folder {folder} is not writable: change its permissions or choose another path"
        return f"the folder {folder} does not exist and cannot be created in {existing}, which is not writable: create it or choose another path"
    return None


def check_output_file(path: Path, what: str) -> None:
    """Raise :class:`OutputRefused` unless the ``what`` (e.g. "HTML report") can be written to
    ``path``. A missing parent folder is not a problem: :func:`write_text_atomically` creates it."""
    if path.is_dir():
        problem: str | None = f"{path} is a folder: give a file name, such as {path / ('report' + _SUFFIX.get(what, ''))}"
    elif path.exists() and not path.is_file():
        problem = f"{path} is not a regular file: choose another path"
    else:
        problem = _folder_problem(path.parent)
    if problem:
        raise OutputRefused(f"cannot write the {what} to {path}: {problem}")


def check_output_folder(folder: Path, what: str = "CSV files") -> None:
    """Raise :class:`OutputRefused` unless the ``what`` can be written into ``folder``; a
    missing folder is not a problem: :func:`write_csv` creates it (and its missing parents)."""
    problem = _folder_problem(folder)
    if problem:
        raise OutputRefused(f"cannot write the {what} into {folder}: {problem}")


_SUFFIX = {"HTML report": ".html", "JSON report": ".json"}


class atomic:  # noqa: N801 (used as a context manager, like open)
    """``with atomic(path, what) as fh``: a text file written beside ``path`` and renamed onto
    it when the block ends without error (removed otherwise); an OS error becomes one line. A
    lone surrogate (an answer may hold one; the store keeps it as it came) cannot be UTF-8: it is
    written as its escape, ``\\ud800``, as JSON shows it."""

    def __init__(self, path: Path, what: str) -> None:
        self.path, self.what = path, what
        self.tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")

    def __enter__(self) -> Any:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.fh = self.tmp.open("w", newline="", encoding="utf-8", errors="backslashreplace")
        except OSError as exc:
            raise self._error(exc) from None
        return self.fh

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: Any) -> None:
        try:
            self.fh.close()
            if kind is None:
                os.replace(self.tmp, self.path)
        except OSError as error:
            self.tmp.unlink(missing_ok=True)
            raise self._error(error) from None
        if kind is not None:
            self.tmp.unlink(missing_ok=True)
            if isinstance(exc, OSError):
                raise self._error(exc) from None

    def _error(self, exc: OSError) -> SimpilotError:
        reason = exc.strerror or str(exc)
        return SimpilotError(
            f"cannot write the {self.what} to {self.path}: {reason.lower()}: free some space, fix the permissions or choose another path"
        )


def write_text_atomically(path: Path, text: str, what: str) -> None:
    """``text`` into ``path`` (its missing parent folders created), atomically: a failure leaves
    the old file or none, and is one line (:class:`SimpilotError`), never a traceback."""
    with atomic(path, what) as fh:
        fh.write(text)
