"""The warm work copies of an evaluator, lent to one run at a time.

Each repository gets up to ``jobs`` copies, made on demand: a run borrows an idle copy, or makes a
new one while fewer than ``jobs`` exist, or waits for one to come back. A Java copy is made with
the repository's classes compiled once (``java_classes.py``).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from replay.config.manifest import Manifest
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.execution.workcopies.copies import WorkCopy
from replay.execution.workcopies.java_classes import JavaClasses


class CopyPool:
    """Work copies by repository, at most ``jobs`` of each; safe to use from several threads."""

    def __init__(self, sandbox: Sandbox, jobs: int, workdir: Path | None, full_suite: bool):
        self.sandbox, self.jobs, self.workdir, self.full_suite = sandbox, jobs, workdir, full_suite
        self._lock = threading.Lock()
        self._idle: dict[str, queue.Queue[WorkCopy]] = {}
        self._made: dict[str, int] = {}
        self.copies: list[WorkCopy] = []
        self.classes = JavaClasses(workdir)

    @contextmanager
    def lent(self, manifest: Manifest) -> Iterator[WorkCopy]:
        """A copy of ``manifest``'s repository for the ``with`` block, given back after it."""
        copy = self.borrow(manifest)
        try:
            yield copy
        finally:
            self.give_back(copy)

    def borrow(self, manifest: Manifest) -> WorkCopy:
        """An idle copy of ``manifest``'s repository; a new one while fewer than ``jobs`` exist."""
        name = manifest.name
        with self._lock:
            idle = self._idle.setdefault(name, queue.Queue())
            try:
                return idle.get_nowait()
            except queue.Empty:
                create = self._made.get(name, 0) < self.jobs
                if create:
                    self._made[name] = self._made.get(name, 0) + 1
        if not create:
            return idle.get()
        try:
            copy = self._new_copy(manifest)
        except BaseException:
            with self._lock:
                self._made[name] -= 1
            raise
        with self._lock:
            self.copies.append(copy)
        return copy

    def give_back(self, copy: WorkCopy) -> None:
        self._idle[copy.manifest.name].put(copy)

    def _new_copy(self, manifest: Manifest) -> WorkCopy:
        """A new work copy. A Java repository's untouched classes are compiled once (several
        seconds) and copied into its other copies (milliseconds)."""
        java = manifest.language == "java" and (not self.full_suite or manifest.runner_suite()) and not manifest.compare_output
        if not java:
            return WorkCopy(manifest, self.sandbox, self.workdir, java_classes=False)
        return self.classes.new_copy(manifest, self.sandbox)

    def close(self) -> None:
        """Close every copy (its servers too) and forget them; the Java classes go with them."""
        with self._lock:
            closing = list(self.copies)
            self.copies.clear()
            self._made.clear()
            self._idle.clear()
        for copy in closing:
            copy.close()
        self.classes.clear()
