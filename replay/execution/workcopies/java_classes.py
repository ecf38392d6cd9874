"""A Java repository's untouched classes, compiled once and copied into its other work copies.

Compiling every class of a repository takes seconds; copying the result takes milliseconds. The
first work copy of a repository compiles them (the others of the same repository wait for it) and
its classes are kept in a scratch folder of this process, removed by :meth:`JavaClasses.clear`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from pathlib import Path

from replay.config.manifest import Manifest
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.execution.workcopies.copies import COPY_PREFIX, WorkCopy


class JavaClasses:
    """The compiled untouched classes of each Java repository, and new work copies made with them."""

    def __init__(self, workdir: Path | None):
        self.workdir = workdir
        self._lock = threading.Lock()
        self._building: dict[str, threading.Lock] = {}  # per repository: its first copy compiles, the others wait
        self._classes: dict[str, Path] = {}
        self._scratch: Path | None = None

    def new_copy(self, manifest: Manifest, sandbox: Sandbox) -> WorkCopy:
        """A new work copy of ``manifest``'s repository with its untouched classes compiled."""
        with self._lock:
            building = self._building.setdefault(manifest.name, threading.Lock())
        with building:
            classes = self._classes.get(manifest.name)
            copy = WorkCopy(manifest, sandbox, self.workdir, classes_from=classes)
            if classes is None:
                with self._lock:
                    if self._scratch is None:
                        self._scratch = Path(tempfile.mkdtemp(prefix=f"{COPY_PREFIX}{os.getpid()}-classes-", dir=self.workdir))
                    scratch = self._scratch
                self._classes[manifest.name] = copy.save_classes(scratch / manifest.name)
            return copy

    def clear(self) -> None:
        with self._lock:
            self._classes.clear()
            if self._scratch is not None:
                shutil.rmtree(self._scratch, ignore_errors=True)
                self._scratch = None
