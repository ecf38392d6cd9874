"""C# programs: built by the .NET SDK inside the sandbox, with simpilot's launcher as entry point.

Untested where no .NET SDK is installed (the machine this was written on has none): there
:func:`missing` says so, and every C# task is reported as ``toolchain_missing``.

DevBench's C# checks are ``Debug.Assert`` calls, which the compiler keeps only when ``DEBUG`` is
defined: programs are built in the Debug configuration, and one that undefines ``DEBUG`` is
refused (that switches its checks off).

How a run proves a pass. Each program is compiled in a project of simpilot's together with a
launcher class (``inside/SimpilotLauncher.cs``) that the project names as its entry point
(``StartupObject``). The launcher takes the run's token from the pipe named by ``$SIMPILOT_PROOF``
before any of the program's code runs, replaces the debug provider so that a failed
``Debug.Assert`` writes ``AssertionError: <message>`` and ends the process at once (as .NET's own
provider does, with ``Environment.FailFast``), then calls the program's static ``Main`` (async or
not) by reflection. When ``Main`` returns (0, or nothing), the records ``start``, ``test``
``passed`` and ``end`` are written as the process exits (``ProcessExit``: after foreground
threads); an exception out of ``Main`` is written as its class and message;
``Environment.Exit`` before ``Main`` returned writes a ``SystemExit`` failure. A crash writes
nothing, and the runner names it from the output (``Unhandled exception. System.X: ...``).

Building and running. ``dotnet run`` builds and then runs; the runner does the two steps
itself, so that a compile error is told apart from a failed run and a program run twice (the gate
does) is built once: ``dotnet build`` in a project folder of the runner's, restored once
(outside the sandbox: it is simpilot's own project, with the provisioned packages), then
``dotnet <program>.dll`` in a fresh, empty folder per run. No warm mode: ``warm`` is ignored
(the build, not the start-up, is what a C# run costs).

Packages: ``csharp_project.py`` (:func:`needs`, :func:`provision`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path

from replay.core.errors import SimpilotError
from replay.environments.environment import allow_reading
from replay.execution.programs import COMPILE_ERROR, PROGRAM_TEST, Program, compiled, launcher_text, signal_name
from replay.execution.programs.csharp_project import (
    NO_SDK,
    PACKAGES_FOLDER,
    PROJECT,
    PROJECT_FOLDER,
    dotnet,
    dotnet_env,
    needs,
    project_file,
    provision,
    require,
    restore,
    target_framework,
)
from replay.execution.programs.scratch import runner_home
from replay.execution.proof.check import ENV, Proof
from replay.execution.sandbox.bubblewrap import ProcessResult, Sandbox

LANGUAGE = "csharp"
BUILD_TIMEOUT = 300.0
LAUNCHER_FILE = "SimpilotLauncher.cs"
LAUNCHER_SOURCE = launcher_text(LAUNCHER_FILE, ENV=ENV, TEST=PROGRAM_TEST, COMPILE=COMPILE_ERROR)
_DISABLES_CHECKS = re.compile(r"^[ \t]*#[ \t]*undef[ \t]+DEBUG\b", re.M)
_COMPILE_ERROR = re.compile(r"^(?:.*/)?([^/\n]*?\(\d+,\d+\): error [A-Z]+\d+: .*?)(?: \[[^\]\n]*\])?\s*$", re.M)
_MSBUILD_ERROR = re.compile(r"^.*\berror (?:[A-Z]+\d+|MSB\d+): .*$", re.M)
_UNHANDLED = re.compile(r"Unhandled exception\. ([\w.`]+(?:Exception|Error)\w*): ?(.*)")
_FAILFAST = re.compile(r"(?:Process terminated\. )?Assertion failed\.?\s*(.*)")


def missing(language: str) -> str | None:
    """Why the machine cannot run ``language``'s programs (None: it can)."""
    if language != LANGUAGE:
        return f"the C# harness runs csharp programs, not {language}"
    return None if dotnet() is not None else NO_SDK


# -- running ---------------------------------------------------------------------------------------


class CSharpRunner:
    """Builds each distinct program once in the runner's project (in the sandbox), and runs its
    assembly with ``dotnet`` in a fresh folder per run."""

    def __init__(self, sandbox: Sandbox, command: str, environment: Path | None, workdir: Path | None = None):
        self.sandbox, self.command = sandbox, command
        self.root = runner_home("simpilot-cs-", workdir)
        self.project = self.root / PROJECT_FOLDER
        self.packages = environment / PACKAGES_FOLDER if environment is not None else self.root / PACKAGES_FOLDER
        self.home = self.root / "home"
        self.home.mkdir()
        # dotnet itself and the packages may live under a home folder the sandbox hides
        allow_reading(str(Path(os.path.realpath(command)).parent), str(self.packages))
        self._prepare(environment)
        self._builds = compiled.Builds()

    def _prepare(self, environment: Path | None) -> None:
        """The runner's own copy of the project, restored here (outside the sandbox: no
        program is in it yet) so that builds run offline."""
        template = environment / PROJECT_FOLDER if environment is not None else None
        if template is not None and (template / f"{PROJECT}.csproj").is_file():
            shutil.copytree(template, self.project, ignore=shutil.ignore_patterns("obj", "bin"))
        else:
            self.project.mkdir()
            (self.project / f"{PROJECT}.csproj").write_text(project_file(target_framework(self.command), {}))
        (self.project / LAUNCHER_FILE).write_text(LAUNCHER_SOURCE)
        restore(self.command, self.project, self.packages, self.home)

    def run(self, program: Program, timeout: float, cpu: float | None = None) -> ProcessResult:
        """Build ``program`` (or take its assembly from the cache), then run it."""
        if _DISABLES_CHECKS.search(program.source):
            return compiled.refused(f"{COMPILE_ERROR}the program undefines DEBUG, which switches its Debug.Assert checks off")
        key = hashlib.sha256(json.dumps([program.source, _source_name(program.name)]).encode()).hexdigest()[:24]
        build = self._builds.get(key, lambda: self._build(program, key))
        if build.binary is None:
            assert build.failure is not None
            return build.failure
        return self._execute(build.binary, timeout, cpu)

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
        self._builds.clear()

    def _build(self, program: Program, key: str) -> compiled.Build:
        for old in self.project.glob("*.cs"):
            if old.name != LAUNCHER_FILE:
                old.unlink()
        (self.project / _source_name(program.name)).write_text(program.source, encoding="utf-8")
        out = self.root / "build" / key
        command = [
            self.command,
            "build",
            "--no-restore",
            "--nologo",
            "-c",
            "Debug",
            "-v",
            "q",
            "-clp:NoSummary",
            "-p:UseSharedCompilation=false",
            "-o",
            str(out),
        ]
        result = self.sandbox.run(
            command, self.project, BUILD_TIMEOUT, env=dotnet_env(self.home), writable=(self.root,), keep_output=compiled.COMPILE_OUTPUT
        )
        assembly = out / f"{PROJECT}.dll"
        if result.returncode == 0 and not result.timed_out and assembly.is_file():
            return compiled.Build(assembly)
        message = (
            f"{COMPILE_ERROR}dotnet build did not finish in {BUILD_TIMEOUT:.0f} s"
            if result.timed_out
            else COMPILE_ERROR + first_compile_error(result.output or result.output_tail)
        )
        return compiled.build_failure(result, message)

    def _execute(self, assembly: Path, timeout: float, cpu: float | None) -> ProcessResult:
        # the folder on the command line: the sandbox shows it (the assembly's dependencies are there)
        command = [self.command, "exec", "--additionalprobingpath", str(assembly.parent), str(assembly)]
        return compiled.run_once(self.sandbox, self.root, command, timeout, cpu, dotnet_env(self.home), failure_message)


def first_compile_error(output: str) -> str:
    """The compiler's first error (``12.cs(4,9): error CS0103: ...``), else MSBuild's, else the last line."""
    found = _COMPILE_ERROR.search(output)
    if found:
        return found.group(1).strip()
    found = _MSBUILD_ERROR.search(output)
    if found:
        return found.group(0).strip()
    return compiled.last_line(output, "dotnet build failed without a message")


def failure_message(result: ProcessResult, proof: Proof, timeout: float, budget: int | None = None) -> str:
    """Why a run that did not pass failed, led by the error's class: the launcher's record,
    else what the output and the exit status show."""
    said = compiled.stopped(result, proof, timeout, budget)
    if said is not None:
        return said
    output = result.output_tail
    unhandled = _UNHANDLED.findall(output)
    if unhandled:
        kind, message = unhandled[-1]
        return f"{kind}: {message.strip()}"
    failfast = _FAILFAST.findall(output)
    if failfast:
        return "AssertionError: " + (failfast[-1].strip() or "Debug.Assert failed")
    code = result.returncode
    if code < 0:
        return f"{signal_name(code)}: the program was killed by signal {-code}"
    return f"SystemExit: the program ended (status {code}) without returning from Main, so its checks did not all run"


def _source_name(name: str) -> str:
    """The file the program is compiled as (the compiler's messages name it)."""
    return compiled.source_name(name, ".cs", Path(LAUNCHER_FILE).stem, "Program.cs")


def runner(
    language: str, sandbox: Sandbox, environment: Path | None = None, warm: bool = False, workdir: Path | None = None
) -> CSharpRunner:
    """A runner of C# programs (raises when no .NET SDK is installed). ``environment``:
    :func:`provision`'s folder. ``warm`` is ignored (see the module's documentation)."""
    if language != LANGUAGE:
        raise SimpilotError(f"the C# harness runs csharp programs, not {language}")
    del warm
    return CSharpRunner(sandbox, require(), environment, workdir)


__all__ = [
    "CSharpRunner",
    "dotnet",
    "failure_message",
    "first_compile_error",
    "missing",
    "needs",
    "project_file",
    "provision",
    "runner",
]
