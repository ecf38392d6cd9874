"""Program harnesses: the test of a single-program task is running the whole program.

DevBench's instances (``validation/devbench.py``) are programs, not repositories with test
suites: the program is the prefix, the answer and the suffix, followed by the instance's checks
(its assertions), run as one program. A repository whose manifest has a ``[programs]`` table holds
such programs, one per source file, each with its checks in a file of the same relative path
under the checks folder (never shown to the model).

One module per toolchain serves one or more languages:

================  ============================================  ==========================================
module            languages                                     warm runner
================  ============================================  ==========================================
``python.py``     python                                        a forking server (``python_server.py``)
``java.py``       java                                          a resident JVM compiling in memory
``node.py``       javascript, typescript                        one node process: a worker thread per run
``cpp.py``        cpp                                           none (g++ per distinct program, cached)
``csharp.py``     csharp                                        none (needs a .NET SDK)
================  ============================================  ==========================================

Every module has the same parts:

* ``missing(language) -> str | None``: why the machine cannot run the language's programs (None:
  it can). Such tasks are reported as ``toolchain_missing``, never as failures.
* ``needs(sources) -> list[str]``: pure; the packages, in the toolchain's own namespace (PyPI
  project names, npm package names, Debian package names), that the programs' imports, requires
  or includes name (installed already or not: the lock pins every one).
* ``provision(needed, folder) -> dict[str, str]``: installs those not installed yet, outside any
  sandbox, before a run (never during one), into ``folder`` (cached per language and set of needs), and returns
  what was installed with exact versions (the lock). Raises ``SimpilotError`` saying what to do.
* ``runner(language, sandbox, environment, warm, workdir) -> Runner``: runs programs.
  ``environment`` is the provisioned folder (None: nothing provisioned).

How a run proves a pass. The program runs under a launcher of simpilot's that takes the run's
token from the proof channel (``proof.py``) before any of the program's code runs, runs the
program, and only if the program returned normally (its last statement, the checks, ran; no
uncaught error; for compiled languages the compilation succeeded) writes the records ``start``,
``test`` (:data:`PROGRAM_TEST`, ``passed``) and ``end``. A program that exits early
(``sys.exit``, ``process.exit``, ``System.exit``, ``std::exit``) skipped its checks: no passing
record, whatever its exit status. A failed run writes ``test`` ``failed`` and an ``error`` record
with the error's class and message (``AssertionError: expected 3``), or a ``compile`` error. The
exit status is never read as a pass.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import stat
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Protocol

from postprocess.registry import Registry
from replay.core.programs import EXTENSIONS, LANGUAGES, join
from replay.execution.sandbox.bubblewrap import ProcessResult, Sandbox

PROGRAM_TEST = "program"  # the one test id of a program run
INSIDE = Path(__file__).resolve().parents[1] / "inside"  # the launchers, as files: what runs in the sandbox
COMPILE_ERROR = "compile error: "  # how a launcher's error record names a compilation failure
_NAMED = re.compile(r"^(?:[\w$]+\.)*([A-Za-z_$][\w$]*):")  # ``gaierror: ...``, ``socket.timeout: ...``
_ERROR_CLASS = re.compile(r"^(?:[\w$]+[.:])*([\w$]*(?:Error|Exception|Exit|Failure|Interrupt|Warning))\b")


@dataclass(frozen=True, slots=True)
class Program:
    """One program to run: ``source`` is the whole text (the edited file, then its checks)."""

    language: str
    name: str  # where it comes from, e.g. ``programs/api_usage/12.py`` (messages, file names)
    source: str


class Runner(Protocol):
    """Runs programs of one language in the sandbox; safe to call from one thread at a time
    unless its module says otherwise (:func:`concurrent`)."""

    def run(self, program: Program, timeout: float, cpu: float | None = None) -> ProcessResult:
        """Run ``program``; the result's proof says whether it ran to its end (see above)."""
        ...

    def close(self) -> None: ...


def launcher_text(name: str, **values: str) -> str:
    """The launcher ``name`` of :data:`INSIDE` with its ``@KEY@`` placeholders filled in: the
    names the Python side defines once (the proof channel's variable, the program's test id)
    are never spelt again in another language."""
    text = (INSIDE / name).read_text(encoding="utf-8")
    for key, value in values.items():
        text = text.replace(f"@{key}@", value)
    return text


def preparable(made: Runner) -> bool:
    """Whether ``made`` wants to be told the programs it may run (:func:`prepare`)."""
    return callable(getattr(made, "prepare", None))


def prepare(made: Runner, sources: list[str]) -> None:
    """Tell ``made`` every program it may run (their texts), if it wants to know: a warm runner
    loads the libraries they share once, up front (``prepare(sources)``, optional)."""
    if preparable(made):
        made.prepare(sources)  # type: ignore[attr-defined]


MODULES = {"python": "python", "java": "java", "javascript": "node", "typescript": "node", "cpp": "cpp", "csharp": "csharp"}
# language -> its harness module: the built-in ones above, plugins through the entry-point group
# ``simpilot.programs`` (``postprocess.registry``)
HARNESSES: Registry[ModuleType] = Registry("program language", "simpilot.programs")
for _language, _module in MODULES.items():
    HARNESSES.register_lazy(_language, f"{__name__}.{_module}")


def toolchain(language: str) -> ModuleType:
    """The module running ``language``'s programs (imported on first use: each needs only its own tools)."""
    return HARNESSES[language]


def missing(language: str) -> str | None:
    """Why this machine cannot run ``language``'s programs (None: it can)."""
    return toolchain(language).missing(language)


def concurrent(language: str) -> bool:
    """Whether one runner of ``language`` may serve several calls at once (its module says
    ``CONCURRENT_RUNNER = True``: nothing resident, e.g. C++'s cache of binaries)."""
    return bool(getattr(toolchain(language), "CONCURRENT_RUNNER", False))


def runner(language: str, sandbox: Sandbox, environment: Path | None, warm: bool, workdir: Path | None = None) -> Runner:
    return toolchain(language).runner(language, sandbox, environment, warm, workdir)


def remove(folder: Path, keep: bool = False) -> None:
    """Delete ``folder`` (``keep``: only what is inside it), whatever a program did to the
    permissions of the folders it made there."""
    if not folder.is_dir():
        return
    os.chmod(folder, stat.S_IRWXU)  # a program may have closed its own working folder
    for root, dirs, _ in os.walk(folder):  # top-down: a folder is opened up before it is entered
        for name in dirs:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                try:
                    os.chmod(path, stat.S_IRWXU)
                except OSError:
                    pass
    for entry in list(folder.iterdir()) if keep else [folder]:
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


def signal_name(code: int) -> str:
    """The name of the signal a negative exit status ``code`` stands for (``SIGSEGV``)."""
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


def error_class(message: str) -> str:
    """The class of the error a failed run's record names (``AssertionError``), or ''."""
    if message.startswith(COMPILE_ERROR):
        return "CompileError"
    found = _ERROR_CLASS.match(message.strip()) or _NAMED.match(message.strip())
    return found.group(1) if found else ""


__all__ = [
    "COMPILE_ERROR",
    "EXTENSIONS",
    "LANGUAGES",
    "PROGRAM_TEST",
    "Program",
    "Runner",
    "concurrent",
    "error_class",
    "join",
    "missing",
    "runner",
    "toolchain",
]
