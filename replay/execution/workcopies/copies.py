"""Work copies: the only place model output is written.

A work copy is made once per repository and worker (for Java, with its classes compiled once) and
keeps its warm test servers (``warm.py``); each task writes one patched file and the original
bytes are put back afterwards. The user's repository is only ever read. Byte-code caches
are removed from the copy and never written (``PYTHONDONTWRITEBYTECODE``), because a stale
``.pyc`` whose source has the same size and mtime second would silently run the old code; the
warm pytest server keeps its compiled code in its own memory.

The copy is what the code under test may write, so the host treats it as hostile: it writes
there only through :mod:`beneath` (no link followed), and after every run it compares the whole
tree with its state when built (every entry, caches and links included) and rebuilds the copy on
any difference. Each run therefore starts from a verified state.

Python commands run with the repository's test interpreter (``commands.suite_python``: its
``[environment]``'s, see ``environment.py``) and the copy's own ``src/`` on ``PYTHONPATH``
(``commands.suite_env``), so the copy's code, never an installed copy, is what is tested.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from replay.config.manifest import Manifest
from replay.core.errors import SimpilotError
from replay.environments.commands import suite_env, suite_python
from replay.execution.runners.junit import CLASSES, toolchain
from replay.execution.runners.warm import JUnitServer, PytestServer
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.execution.workcopies import beneath

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
        self.planted: list[str] = []  # what the last run planted for the harness or the next run (see ``planted``)
        self._pytest: PytestServer | None = None
        self._originals: dict[str, bytes] = {}
        self._junit: JUnitServer | None = None
        try:
            self._build()
        except BaseException:
            self.close()
            raise

    def _build(self) -> None:
        shutil.copytree(self.manifest.root, self.root, ignore=_IGNORE, symlinks=True)
        for step in self.manifest.setup:
            command = [p.replace("{python}", suite_python(self.manifest)) for p in step]
            result = self.sandbox.run(command, self.root, self.manifest.timeout, suite_env(self.manifest, self.root))
            if result.returncode != 0:
                last = (result.output_tail.strip().splitlines() or [""])[-1]
                raise SimpilotError(f"{self.manifest.name}: set-up command {' '.join(step)!r} failed (exit {result.returncode}): {last}")
        if self.manifest.language == "java" and self.java_classes:
            if self.classes_from is not None:
                shutil.copytree(self.classes_from, self.root / CLASSES, symlinks=True)
            else:
                self._compile_java()
        self._clean = beneath.tree_state(str(self.root))

    def save_classes(self, target: Path) -> Path:
        """Copy this copy's compiled untouched classes to ``target`` (call before any task runs
        here), for other copies of the repository to start from."""
        shutil.copytree(self.root / CLASSES, target, symlinks=True)
        return target

    def _compile_java(self) -> None:
        """Build the untouched classes once per copy; each test run then recompiles one file."""
        for command in toolchain().compile_commands(self.manifest, self.root):
            result = self.sandbox.run(command, self.root, max(self.manifest.timeout, 300), suite_env(self.manifest))
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
        """Write ``content`` to ``path`` for the duration of the block, then put the original back
        (its bytes and modification time, taken from the repository itself, never from the copy).

        The run in the block may have changed anything writable in the copy, so every write here
        goes through :mod:`beneath` (no link followed, nothing but the copy's own regular file),
        and afterwards the whole copy is compared with its state when it was built: any
        difference, a byte-code cache or a mode included, rebuilds it before its next use (and
        what the run planted is kept in ``planted``). One task's code can never influence the
        next task's verdict, nor steer a write of the host."""
        original = self._original(path)
        self.planted = []
        try:
            self._write(path, content)
            yield self.root / path
        finally:
            after = beneath.tree_state(str(self.root))
            if after == self._clean:
                self._write(path, original)
            else:  # rebuilt rather than repaired: nothing the run left is trusted, not even to be removed
                self.planted = planted(self._clean, after, self.manifest.tests)
                self._rebuild()

    @contextmanager
    def checked(self) -> Iterator[Path]:
        """A run of the untouched copy (a reference or baseline run): afterwards the copy is
        checked as after a patched run, and rebuilt on any difference, so that what the
        repository's own tests leave is not taken for the next answer's doing."""
        try:
            yield self.root
        finally:
            if beneath.tree_state(str(self.root)) != self._clean:
                self._rebuild()

    def _original(self, path: str) -> bytes:
        """The file's bytes as the repository has them (the copy is what runs may change)."""
        if path not in self._originals:
            self._originals[path] = (self.manifest.root / path).read_bytes()
        return self._originals[path]

    def _write(self, path: str, content: bytes) -> None:
        """Put ``content`` in the copy's file ``path`` with the file's clean modification time,
        and record its new state as clean (writing changes its change time). A copy whose file
        is no longer the one it was built with is rebuilt first."""
        try:
            st = self._write_clean(path, content)
        except beneath.Escape:
            self._rebuild()
            st = self._write_clean(path, content)
        self._clean[path] = beneath.identity(st)

    def _write_clean(self, path: str, content: bytes) -> os.stat_result:
        clean = self._clean.get(path)
        if clean is None or len(clean) != 7 or not stat.S_ISREG(int(clean[0])):
            raise SimpilotError(f"{self.manifest.name}: {path} is not a file of the repository")
        inode, mtime = int(clean[6]), int(clean[4])
        return beneath.write_file(str(self.root), path, content, inode=inode, times_ns=(mtime, mtime))

    def pytest_server(self) -> PytestServer:
        """This copy's warm pytest (started on its first run)."""
        if self._pytest is None:
            self._pytest = PytestServer(self.sandbox, self.root, suite_env(self.manifest, self.root), suite_python(self.manifest))
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


# Files the code under test has no business writing: byte-code and compiled classes (what the next
# run would load instead of the source), and the hooks an interpreter or pytest runs by themselves.
_CACHES = (".pyc", ".pyo", ".class")
_HOOKS = ("conftest.py", "sitecustomize.py", "usercustomize.py")
_SOURCES = (".py", ".java")


def planted(clean: dict[str, beneath.Entry], after: dict[str, beneath.Entry], tests: tuple[str, ...]) -> list[str]:
    """The tampering a run left in the copy (``clean`` and ``after``: :func:`beneath.tree_state`
    before and after it), as ``proof.py``'s events: a file or folder of the repository replaced
    by a link or a special file (``planted-link``: the host would write through it), byte-code
    or compiled classes written (``planted-cache``: the next run would load them instead of the
    source), an interpreter or pytest hook or a ``.pth`` file added (``planted-hook``), a test
    source file changed (``changed-test-file``). A file the tests write and read is none of these."""
    events = []
    for path, entry in sorted(after.items()):
        before = clean.get(path)
        if before == entry:
            continue
        mode = int(entry[0])
        name = path.rsplit("/", 1)[-1]
        if stat.S_ISLNK(mode) or not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or mode < 0):
            if before is not None:  # a new link elsewhere is the tests' own business (and never followed)
                target = f" -> {entry[3]}" if stat.S_ISLNK(mode) and len(entry) > 3 else ""
                events.append(f"planted-link {path}{target}")
        elif stat.S_ISREG(mode) and (name.endswith(_CACHES) or "/__pycache__/" in f"/{path}" or path.startswith(CLASSES + "/")):
            events.append(f"planted-cache {path}")
        elif stat.S_ISREG(mode) and before is None and (name in _HOOKS or name.endswith(".pth")):
            events.append(f"planted-hook {path}")
        elif (
            stat.S_ISREG(mode)
            and before is not None
            and name.endswith(_SOURCES)
            and any(path.startswith(t.rstrip("/") + "/") for t in tests)
        ):
            events.append(f"changed-test-file {path}")
    return events
