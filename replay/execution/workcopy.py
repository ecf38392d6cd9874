"""Work copies: the only place model output is written.

A work copy is made once per repository and worker (for Java, with its classes compiled once) and
keeps its warm test servers (``warm.py``); each task writes one patched file and the original
bytes are put back afterwards. The user's repository is only ever read. Byte-code caches
are removed from the copy and never written (``PYTHONDONTWRITEBYTECODE``), because a stale
``.pyc`` whose source has the same size and mtime second would silently run the old code; the
warm pytest server writes only byte-code checked against the source's hash.

Python commands run with the repository's test interpreter (``Manifest.python()``: its
``[environment]``'s, see ``environment.py``) and the copy's own ``src/`` on ``PYTHONPATH``
(``Manifest.test_env(root)``), so the copy's code, never an installed copy, is what is tested.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from replay.core.errors import SimpilotError
from replay.core.manifest import Manifest
from replay.execution.java_runner import CLASSES, toolchain
from replay.execution.sandbox import Sandbox
from replay.execution.warm import JUnitServer, PytestServer

_IGNORE = shutil.ignore_patterns(".git", "__pycache__", "*.pyc", ".pytest_cache", ".mypy_cache", ".venv", "*.class")


COPY_PREFIX = "simpilot-copy-"  # then the owning process id: copies of a killed process can be found


def remove_stale_copies(base: Path | None = None) -> list[Path]:
    """Delete the work copies left by simpilot processes that no longer run (a ``kill -9`` leaves
    them: nothing of the dead process can clean up); returns what was removed."""
    removed = []
    folder = Path(base or tempfile.gettempdir())
    for path in folder.glob(f"{COPY_PREFIX}*"):
        pid = path.name[len(COPY_PREFIX) :].split("-", 1)[0]
        if not pid.isdigit() or _alive(int(pid)):
            continue
        subprocess.run(["chmod", "-R", "u+rwX", str(path)], check=False, capture_output=True)
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class WorkCopy:
    def __init__(
        self,
        manifest: Manifest,
        sandbox: Sandbox,
        base: Path | None = None,
        java_classes: bool = True,
        classes_from: Path | None = None,
    ):
        """``java_classes=False`` skips compiling what simpilot's Java runner needs, for copies
        that only ever run the repository's own test command. ``classes_from`` is a folder of
        classes already compiled from the untouched sources (``save_classes`` of another copy of
        the same repository): they are copied instead of compiled again."""
        self.manifest = manifest
        self.sandbox = sandbox
        self.java_classes = java_classes
        self.classes_from = classes_from
        remove_stale_copies(base)
        self._tmp = Path(tempfile.mkdtemp(prefix=f"{COPY_PREFIX}{os.getpid()}-{manifest.name}-", dir=base))
        self.root = self._tmp / manifest.name
        self.rebuilds = 0
        self._pytest: PytestServer | None = None
        self._junit: JUnitServer | None = None
        try:
            self._build()
        except BaseException:
            self.close()
            raise

    def _build(self) -> None:
        shutil.copytree(self.manifest.root, self.root, ignore=_IGNORE, symlinks=True)
        for step in self.manifest.setup:
            command = [p.replace("{python}", self.manifest.python()) for p in step]
            result = self.sandbox.run(command, self.root, self.manifest.timeout, self.manifest.test_env(self.root))
            if result.returncode != 0:
                last = (result.output_tail.strip().splitlines() or [""])[-1]
                raise SimpilotError(f"{self.manifest.name}: set-up command {' '.join(step)!r} failed (exit {result.returncode}): {last}")
        if self.manifest.language == "java" and self.java_classes:
            if self.classes_from is not None:
                shutil.copytree(self.classes_from, self.root / CLASSES, symlinks=True)
            else:
                self._compile_java()
        self._clean = self._snapshot()

    def save_classes(self, target: Path) -> Path:
        """Copy this copy's compiled untouched classes to ``target`` (call before any task runs
        here), for other copies of the repository to start from."""
        shutil.copytree(self.root / CLASSES, target, symlinks=True)
        return target

    def _compile_java(self) -> None:
        """Build the untouched classes once per copy; each test run then recompiles one file."""
        for command in toolchain().compile_commands(self.manifest, self.root):
            result = self.sandbox.run(command, self.root, max(self.manifest.timeout, 300), self.manifest.test_env())
            if result.returncode != 0:
                errors = [
                    line for line in result.output_tail.splitlines() if ": error:" in line
                ] or result.output_tail.strip().splitlines()[-1:]
                first = "; ".join(errors[:3]) + (f"; and {len(errors) - 3} more" if len(errors) > 3 else "")
                raise SimpilotError(
                    f"{self.manifest.name}: the untouched Java sources do not compile ({first or f'exit {result.returncode}'}): "
                    "fix them, or add missing jars to [java] classpath in simpilot.toml"
                )

    @contextmanager
    def patched(self, path: str, content: bytes) -> Iterator[Path]:
        """Write ``content`` to ``path`` for the duration of the block, then restore the original
        (bytes and modification time). If the run changed anything else in the copy, the copy is
        rebuilt, so one task's code can never influence the next task's verdict."""
        target = self.root / path
        original = target.read_bytes()
        stat = target.stat()
        try:
            target.write_bytes(content)
            yield target
        finally:
            if target.is_file():
                target.write_bytes(original)
                os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
                # restoring changed the file's ctime; its bytes are the original's again
                self._clean[str(target)] = _identity(os.lstat(target))
            if self._snapshot() != self._clean:
                self._rebuild()

    def pytest_server(self) -> PytestServer:
        """This copy's warm pytest (started on its first run)."""
        if self._pytest is None:
            self._pytest = PytestServer(self.sandbox, self.root, self.manifest.test_env(self.root), self.manifest.python())
        return self._pytest

    def junit_server(self) -> JUnitServer:
        """This copy's warm JUnit runner (started on its first run)."""
        if self._junit is None:
            self._junit = JUnitServer(self.sandbox, self.root, self.manifest)
        return self._junit

    def _stop_servers(self) -> None:
        for server in (self._pytest, self._junit):
            if server is not None:
                server.close()
        self._pytest = self._junit = None

    def _snapshot(self) -> dict[str, tuple[int, ...]]:
        snap = {}
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            for fn in filenames:
                full = os.path.join(dirpath, fn)
                try:
                    st = os.lstat(full)
                except OSError:
                    continue
                snap[full] = _identity(st)
        return snap

    def _rebuild(self) -> None:
        self._stop_servers()  # they hold the old folder open
        subprocess.run(["chmod", "-R", "u+rwX", str(self.root)], check=False, capture_output=True)
        shutil.rmtree(self.root, ignore_errors=True)
        self._build()
        self.rebuilds += 1

    def close(self) -> None:
        self._stop_servers()
        shutil.rmtree(self._tmp, ignore_errors=True)
        if self._tmp.exists():  # read-only files left by a test: make them writable and retry
            subprocess.run(["chmod", "-R", "u+rwX", str(self._tmp)], check=False)
            shutil.rmtree(self._tmp, ignore_errors=True)


def _identity(st: os.stat_result) -> tuple[int, ...]:
    """What says a file is unchanged: size and mtime can be forged with ``os.utime``, but the
    inode and the change time (set by the kernel on every write or metadata change) cannot."""
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
