"""Python programs: run by ``program_server.py``, warm (a forking server) or one process each.

The programs' interpreter is the provisioned venv's (``provision``), else simpilot's own. The warm
server imports, once, the modules the programs it has seen import (standard library and installed
packages, never a program's own code) and forks a fresh child per run, so a run costs a fork
instead of an interpreter start and the imports; it is restarted with the longer list when a
program imports something new. Told every program it may run (``prepare``), it imports only the
modules that :data:`SHARED_BY` of them import (by dotted name: ``matplotlib.pyplot``), and never
restarts: a module one or two programs import (``openai``, ``moto``, ``cv2``) is imported by their
runs' children. Preloading it would cost every prepared runner its import to spare a handful of
runs theirs. A prepared runner keeps two servers: the programs that import one of the preloaded
installed packages fork from one that has them all, the others from one with only the standard
library's modules, since a fork costs with the memory it copies. Told no program (``prepare([])``:
a runner of programs that wait, ``program_runs.py``), it preloads nothing.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

from replay.core.errors import SimpilotError
from replay.environments.environment import allow_reading
from replay.execution.inside.server_protocol import SANDBOXED
from replay.execution.programs import Program, remove
from replay.execution.proof.check import Channel
from replay.execution.runners.warm import ForkServer, cpu_budget
from replay.execution.sandbox.bubblewrap import ProcessResult, Sandbox, with_budget

SERVER = Path(__file__).resolve().parents[1] / "inside" / "program_server.py"
# import name -> PyPI project, where they differ
PYPI_NAMES = {
    "cv2": "opencv-python-headless",
    "sklearn": "scikit-learn",
    "dotenv": "python-dotenv",
    "yaml": "PyYAML",
    "PIL": "Pillow",
    "bs4": "beautifulsoup4",
    "jwt": "PyJWT",
    "attr": "attrs",
    "dateutil": "python-dateutil",
    "google": "google-cloud-storage",
    "Crypto": "pycryptodome",
    "serial": "pyserial",
    "usb": "pyusb",
    "magic": "python-magic",
    "docx": "python-docx",
    "pptx": "python-pptx",
    "OpenSSL": "pyOpenSSL",
    "jose": "python-jose",
    "telegram": "python-telegram-bot",
    "websocket": "websocket-client",
    "slack": "slackclient",
}
# Too big to install by default (several hundred megabytes to gigabytes each); their programs fail
# the gate with ModuleNotFoundError, which the gate reports, unless installed by hand in the venv.
TOO_BIG = frozenset({"torch", "tensorflow", "jax", "jaxlib"})
# Modules that need a display or a device, or act on being imported: imported per run, never
# preloaded by the warm server (matplotlib needs neither: without a display it draws with Agg)
_NOT_PRELOADED = frozenset({"tkinter", "turtle", "antigravity", "this", "idlelib", "multiprocessing"})
# ``import a.b.c`` and ``from a.b import c``: the dotted name (what a warm server may preload)
_DOTTED = re.compile(r"^[ \t]*(?:from[ \t]+([A-Za-z_][\w.]*)[ \t]+import[ \t]+\(?[ \t]*([^\n#]*)|import[ \t]+([^\n#;]*))", re.M)
_NAME = re.compile(r"[A-Za-z_][\w.]*")
SHARED_BY = 5  # programs that must import a module for a prepared server to preload it


def shared_imports(sources: Iterable[str], shared_by: int = SHARED_BY) -> set[str]:
    """The modules, by dotted name (``matplotlib.pyplot``, and ``matplotlib`` with it), that at
    least ``shared_by`` of ``sources`` import (all of them, when there are fewer sources than
    that: a small set of programs is prepared for whole). A name a ``from`` import takes from a
    package may be a submodule (``from matplotlib import pyplot``): it is a candidate too, and a
    server trying one that is not a module only loses the try."""
    counts: dict[str, int] = {}
    listed = list(sources)
    for source in listed:
        for name in imported_modules(source):
            counts[name] = counts.get(name, 0) + 1
    least = shared_by if len(listed) >= shared_by else 1
    return {name for name, count in counts.items() if count >= least}


def imported_modules(source: str) -> set[str]:
    """The dotted names of the modules ``source`` imports, with their parent packages, and the
    names its ``from`` imports take from a module (maybe submodules); relative imports left out."""
    names: set[str] = set()
    for frm, taken, plain in _DOTTED.findall(source):
        if frm:
            taken_names = [t.split()[0] for t in taken.replace(")", "").split(",") if t.split()]
            found = [frm] + [f"{frm}.{name}" for name in taken_names if name.isidentifier()]
        else:
            found = [part.split()[0] for part in plain.split(",") if part.split()]
        for name in found:
            if _NAME.fullmatch(name) and ".." not in name and not name.endswith("."):
                parts = name.split(".")
                names.update(".".join(parts[: n + 1]) for n in range(len(parts)))
    return names


def missing(language: str) -> str | None:
    """Python programs always run: simpilot's own interpreter is there."""
    return None


def imported(source: str) -> set[str]:
    """The top-level names of the modules ``source`` imports (relative imports left out)."""
    return {name for name in imported_modules(source) if "." not in name}


def needs(sources: Iterable[str]) -> list[str]:
    """The PyPI projects that the programs' imports name: not the standard library's, not a
    module one of the programs is, and not the ones too big to install by default."""
    names: set[str] = set()
    for source in sources:
        names |= imported(source)
    third_party = {n for n in names if n not in sys.stdlib_module_names and n not in TOO_BIG and not n.startswith("_")}
    return sorted({PYPI_NAMES.get(n, n) for n in third_party})


def provision(needed: list[str], folder: Path) -> dict[str, str]:
    """A venv in ``folder`` with ``needed`` installed from PyPI (all in one go; when that fails,
    one by one, leaving out those that do not install); the lock is ``pip freeze``'s pins."""
    python = folder / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, capture_output=True)
    pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    failed: list[str] = []
    if needed and subprocess.run([*pip, *needed], capture_output=True).returncode != 0:
        for name in needed:
            if subprocess.run([*pip, name], capture_output=True).returncode != 0:
                failed.append(name)
    if needed and len(failed) == len(needed):
        raise SimpilotError(f"no Python package could be installed into {folder} ({', '.join(failed)}): is PyPI reachable?")
    frozen = subprocess.run([str(python), "-m", "pip", "freeze", "--all"], capture_output=True, text=True, check=True).stdout
    lock = dict(line.split("==", 1) for line in frozen.splitlines() if "==" in line)
    (folder / "not-installed.json").write_text(json.dumps(sorted(failed)))
    return lock


def interpreter(environment: Path | None) -> str:
    """The programs' interpreter: the provisioned venv's, else simpilot's own."""
    if environment is not None and (environment / "bin" / "python").exists():
        allow_reading(str(environment))
        return str(environment / "bin" / "python")
    return sys.executable


class PythonRunner:
    """Runs Python programs, each in a fresh, empty folder of its own (``run/`` under
    ``workdir``, emptied after every run)."""

    def __init__(self, sandbox: Sandbox, environment: Path | None, warm: bool, workdir: Path | None = None):
        self.sandbox, self.warm = sandbox, warm
        self.python = interpreter(environment)
        self.home = Path(tempfile.mkdtemp(prefix="simpilot-programs-", dir=workdir))
        self.folder = self.home / "run"
        self.folder.mkdir()
        self.preloaded: frozenset[str] = frozenset()
        self.expected: frozenset[str] = frozenset()
        self.prepared = False  # told every program it may run: preload ``expected``, never restart
        self.server: ForkServer | None = None  # the standard library's modules preloaded (all the shared ones unless prepared)
        self.full: ForkServer | None = None  # prepared: every shared module preloaded

    def _write(self, program: Program) -> Path:
        path = self.folder / "main.py"
        path.write_text(program.source, encoding="utf-8")
        return path

    def _clear(self) -> None:
        remove(self.folder, keep=True)

    def run(self, program: Program, timeout: float, cpu: float | None = None) -> ProcessResult:
        path = self._write(program)
        try:
            if self.warm:
                return self._run_warm(program, path, timeout, cpu)
            budget = cpu_budget(cpu, self.sandbox.limits.cpu_seconds)
            with Channel() as channel:
                result = self.sandbox.run(
                    [self.python, str(SERVER), "--run", str(path), "--cpu", str(budget)], self.folder, timeout, {}, channel
                )
            return with_budget(result, budget)  # the program's own limit, set by the server on itself
        finally:
            self._clear()

    def prepare(self, sources: list[str]) -> None:
        """Preload what the programs share (:func:`shared_imports`), so that the server starts
        once, not once per new import; the rest is imported by the runs that need it."""
        self.expected = frozenset(n for n in shared_imports(sources) if n.split(".")[0] not in _NOT_PRELOADED)
        self.prepared = True

    def _uses_packages(self, program: Program) -> bool:
        """Whether ``program`` imports one of the installed packages the server preloads."""
        return any(n.split(".")[0] not in sys.stdlib_module_names for n in imported_modules(program.source) & self.expected)

    def _server(self, program: Program) -> ForkServer:
        """The server for ``program``. A prepared runner has two: one with every shared module
        loaded, for the programs that import one of its installed packages, and one with only
        the standard library's (a fork costs with the memory it copies: about 10 ms a run with
        numpy, scipy and matplotlib loaded, 3 ms without), for the others."""
        if self.prepared and self._uses_packages(program):
            if self.full is None:
                self.full = self._start(self.expected)
            return self.full
        own = set() if self.prepared else imported(program.source)
        standard = {n for n in self.expected if n.split(".")[0] in sys.stdlib_module_names}
        wanted = {n for n in own | standard if n.split(".")[0] not in _NOT_PRELOADED and n != "main"}
        if self.server is None or not wanted <= self.preloaded:
            if self.server is not None:
                self.server.close()
            self.preloaded = self.preloaded | wanted
            self.server = self._start(self.preloaded)
        return self.server

    def _start(self, preload: Iterable[str]) -> ForkServer:
        command = [self.python, str(SERVER), "--preload", ",".join(sorted(preload))]
        if self.sandbox.enabled:
            command.append(SANDBOXED)
        env = {} if self.sandbox.enabled else {"SIMPILOT_SCRATCH": str(self.home)}
        return ForkServer(self.sandbox, self.folder, command, env)

    def _run_warm(self, program: Program, path: Path, timeout: float, cpu: float | None) -> ProcessResult:
        return self._server(program).request({"program": str(path), "env": {}}, timeout, cpu)

    def close(self) -> None:
        for server in (self.server, self.full):
            if server is not None:
                server.close()
        self.server = self.full = None
        shutil.rmtree(self.home, ignore_errors=True)


def runner(language: str, sandbox: Sandbox, environment: Path | None, warm: bool, workdir: Path | None = None) -> PythonRunner:
    return PythonRunner(sandbox, environment, warm, workdir)
