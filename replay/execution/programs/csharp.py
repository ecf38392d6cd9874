"""C# programs: built by the .NET SDK inside the sandbox, with simpilot's launcher as entry point.

Untested where no .NET SDK is installed (the machine this was written on has none): there
:func:`missing` says so, and every C# task is reported as ``toolchain_missing``.

DevBench's C# checks are ``Debug.Assert`` calls, which the compiler keeps only when ``DEBUG`` is
defined: programs are built in the Debug configuration, and one that undefines ``DEBUG`` is
refused (that switches its checks off).

How a run proves a pass. Each program is compiled in a project of simpilot's together with a
launcher class (:data:`LAUNCHER_SOURCE`) that the project names as its entry point
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

Packages. :func:`needs` maps the programs' ``using`` namespaces to NuGet package ids;
:func:`provision` restores them into its folder (``dotnet restore --packages``) and pins the
versions it resolved (the lock) in the project the runner starts from.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path
from xml.sax.saxutils import quoteattr

from replay.core.errors import SimpilotError
from replay.environments.environment import allow_reading
from replay.execution.programs import COMPILE_ERROR, PROGRAM_TEST, Program
from replay.execution.programs.cpp import COMPILE_OUTPUT, failed_proof, run_once
from replay.execution.proof.check import ENV, Proof
from replay.execution.run_end import oom_kill_message
from replay.execution.sandbox.bubblewrap import ProcessResult, Sandbox

LANGUAGE = "csharp"
PROJECT = "simpilot"  # the project's (and the built assembly's) name
PROJECT_FOLDER = "project"  # in provision's folder: the restored project the runner copies
PACKAGES_FOLDER = "packages"  # in provision's folder: the NuGet packages
BUILD_TIMEOUT = 300.0
RESTORE_TIMEOUT = 1800.0
NO_SDK = (
    "C# programs need the .NET SDK (dotnet) on PATH: install it "
    "(https://learn.microsoft.com/dotnet/core/install/linux; Debian/Ubuntu: apt-get install dotnet-sdk-8.0 "
    "from packages.microsoft.com)"
)
LAUNCHER_FILE = "SimpilotLauncher.cs"
LAUNCHER_SOURCE = (
    r"""
// simpilot's C# launcher: reports through the proof channel whether the program's Main returned
// (see replay/execution/programs/csharp.py). It is the project's StartupObject.
using System;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Text;
using System.Threading.Tasks;
using Microsoft.Win32.SafeHandles;

static class SimpilotLauncher
{
    static readonly object Gate = new object();
    static string token;
    static FileStream report;
    static volatile bool returned;
    static int status;
    static bool written;

    sealed class AssertProvider : DebugProvider
    {
        public override void Fail(string message, string detailMessage)
        {
            string text = string.IsNullOrEmpty(detailMessage) ? message : message + " " + detailMessage;
            Failed("AssertionError: " + (string.IsNullOrEmpty(text) ? "Debug.Assert failed" : text));
            Environment.FailFast("Assertion failed: " + text);
        }
    }

    static int Main(string[] args)
    {
        TakeToken();
        Debug.SetProvider(new AssertProvider());
        AppDomain.CurrentDomain.ProcessExit += (sender, e) => Finish();
        MethodInfo[] entries = Assembly.GetExecutingAssembly().GetTypes()
            .Where(t => t != typeof(SimpilotLauncher))
            .SelectMany(t => t.GetMethods(BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.DeclaredOnly))
            .Where(m => m.Name == "Main" && !m.IsGenericMethod && (m.GetParameters().Length == 0
                || (m.GetParameters().Length == 1 && m.GetParameters()[0].ParameterType == typeof(string[]))))
            .ToArray();
        if (entries.Length != 1)
        {
            Failed("@COMPILE@" + (entries.Length == 0 ? "the program has no static Main method" : "the program has several static Main methods"));
            return 2;
        }
        MethodInfo entry = entries[0];
        try
        {
            object result = entry.Invoke(null, entry.GetParameters().Length == 0 ? null : new object[] { args });
            if (result is Task task)
            {
                task.GetAwaiter().GetResult();
                PropertyInfo value = task.GetType().GetProperty("Result");
                result = value != null && value.PropertyType == typeof(int) ? value.GetValue(task) : null;
            }
            status = result is int code ? code : 0;
            returned = true;
            return status;
        }
        catch (Exception e)
        {
            Exception cause = e is TargetInvocationException && e.InnerException != null ? e.InnerException : e;
            Failed(cause.GetType().FullName + ": " + cause.Message.Replace('\n', ' '));
            Console.Error.WriteLine("Unhandled exception. " + cause);
            return 1;
        }
    }

    static void TakeToken()
    {
        string spec = Environment.GetEnvironmentVariable("@ENV@");
        Environment.SetEnvironmentVariable("@ENV@", null);
        if (spec == null) return;
        string[] parts = spec.Split(':');
        if (parts.Length != 2 || !int.TryParse(parts[0], out int tokenFd) || !int.TryParse(parts[1], out int reportFd)) return;
        using (var pipe = new FileStream(new SafeFileHandle((IntPtr)tokenFd, true), FileAccess.Read, 1))
        using (var reader = new StreamReader(pipe, Encoding.ASCII))
        {
            token = reader.ReadToEnd().Trim();
        }
        // write-only from here on: what the report holds cannot be read back by the program
        report = new FileStream("/proc/self/fd/" + reportFd, FileMode.Append, FileAccess.Write, FileShare.ReadWrite, 1);
        new SafeFileHandle((IntPtr)reportFd, true).Dispose();
        if (token.Length == 0 || !token.All(char.IsLetterOrDigit)) token = null;
    }

    static string Json(string text)
    {
        var builder = new StringBuilder("\"");
        foreach (char c in text)
        {
            if (c == '"' || c == '\\') builder.Append('\\').Append(c);
            else if (c < ' ') builder.Append("\\u").Append(((int)c).ToString("x4"));
            else builder.Append(c);
        }
        return builder.Append('"').ToString();
    }

    static void Write(params string[] records)
    {
        if (token == null || report == null) return;
        var text = new StringBuilder();
        foreach (string record in records) text.Append(token).Append('\t').Append(record).Append('\n');
        byte[] bytes = Encoding.UTF8.GetBytes(text.ToString());
        report.Write(bytes, 0, bytes.Length);
        report.Flush();
    }

    static void Failed(string message)
    {
        lock (Gate)
        {
            if (written) return;
            written = true;
            Write("{\"event\": \"start\"}", "{\"event\": \"test\", \"id\": \"@TEST@\", \"outcome\": \"failed\"}",
                  "{\"event\": \"error\", \"message\": " + Json(message) + "}");
        }
    }

    static void Finish()
    {
        if (!returned)
        {
            Failed("SystemExit: Environment.Exit was called before Main returned, so the checks after it did not run");
        }
        else if (status != 0)
        {
            Failed("ExitFailure: Main returned " + status);
        }
        else
        {
            lock (Gate)
            {
                if (written) return;
                written = true;
                Write("{\"event\": \"start\"}", "{\"event\": \"test\", \"id\": \"@TEST@\", \"outcome\": \"passed\"}", "{\"event\": \"end\"}");
            }
        }
    }
}
""".replace("@ENV@", ENV)
    .replace("@TEST@", PROGRAM_TEST)
    .replace("@COMPILE@", COMPILE_ERROR)
)

# namespace (or namespace prefix) -> NuGet package id; the longest prefix wins. Not mapped:
# ``Microsoft.Azure.Documents`` (the retired DocumentDB client, under Microsoft's own licence terms;
# Microsoft.Azure.Cosmos replaces it): its programs fail to compile, and the gate drops them.
PACKAGES: dict[str, str] = {
    "Newtonsoft.Json": "Newtonsoft.Json",
    "MongoDB.Driver": "MongoDB.Driver",
    "MongoDB.Bson": "MongoDB.Bson",
    "Microsoft.ML": "Microsoft.ML",
    "Microsoft.Azure.Cosmos": "Microsoft.Azure.Cosmos",
    "Microsoft.EntityFrameworkCore": "Microsoft.EntityFrameworkCore",
    "Microsoft.Extensions.DependencyInjection": "Microsoft.Extensions.DependencyInjection",
    "Microsoft.Extensions.Logging": "Microsoft.Extensions.Logging",
    "Microsoft.Extensions.Configuration": "Microsoft.Extensions.Configuration",
    "Azure": "Azure.Core",
    "Azure.Core": "Azure.Core",
    "Azure.Identity": "Azure.Identity",
    "Azure.AI.TextAnalytics": "Azure.AI.TextAnalytics",
    "Azure.Security.KeyVault.Secrets": "Azure.Security.KeyVault.Secrets",
    "Azure.Security.KeyVault.Keys": "Azure.Security.KeyVault.Keys",
    "Azure.Storage.Blobs": "Azure.Storage.Blobs",
    "Azure.Storage.Queues": "Azure.Storage.Queues",
    "Azure.Data.Tables": "Azure.Data.Tables",
    "Azure.Messaging.ServiceBus": "Azure.Messaging.ServiceBus",
    "Azure.Messaging.EventHubs": "Azure.Messaging.EventHubs",
}
# what a program calls that needs a package its namespaces do not name (EF Core's providers)
CALLS: dict[str, str] = {
    "UseInMemoryDatabase": "Microsoft.EntityFrameworkCore.InMemory",
    "UseSqlite": "Microsoft.EntityFrameworkCore.Sqlite",
    "UseSqlServer": "Microsoft.EntityFrameworkCore.SqlServer",
}
_AZURE_SUFFIXES = ("Models", "Specialized", "Sas", "Extensions")
_USING = re.compile(r"^[ \t]*(?:global[ \t]+)?using[ \t]+(?:static[ \t]+)?(?:\w+[ \t]*=[ \t]*)?([\w.]+)[ \t]*;", re.M)
_DISABLES_CHECKS = re.compile(r"^[ \t]*#[ \t]*undef[ \t]+DEBUG\b", re.M)
_COMPILE_ERROR = re.compile(r"^(?:.*/)?([^/\n]*?\(\d+,\d+\): error [A-Z]+\d+: .*?)(?: \[[^\]\n]*\])?\s*$", re.M)
_MSBUILD_ERROR = re.compile(r"^.*\berror (?:[A-Z]+\d+|MSB\d+): .*$", re.M)
_UNHANDLED = re.compile(r"Unhandled exception\. ([\w.`]+(?:Exception|Error)\w*): ?(.*)")
_FAILFAST = re.compile(r"(?:Process terminated\. )?Assertion failed\.?\s*(.*)")


# -- the toolchain ---------------------------------------------------------------------------------


def dotnet() -> str | None:
    """The ``dotnet`` command on PATH, when it has an SDK (a runtime alone cannot build)."""
    found = shutil.which("dotnet")
    return found if found is not None and _has_sdk(found) else None


@functools.cache
def _has_sdk(command: str) -> bool:
    try:
        proc = subprocess.run([command, "--list-sdks"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0 and bool(proc.stdout.strip())


def missing(language: str) -> str | None:
    """Why the machine cannot run ``language``'s programs (None: it can)."""
    if language != LANGUAGE:
        return f"the C# harness runs csharp programs, not {language}"
    return None if dotnet() is not None else NO_SDK


def _require() -> str:
    command = dotnet()
    if command is None:
        raise SimpilotError(NO_SDK)
    return command


@functools.cache
def target_framework(command: str) -> str:
    """``net8.0`` for SDK 8.0.x: the newest framework the SDK builds for."""
    version = subprocess.run([command, "--version"], capture_output=True, text=True, timeout=60).stdout.strip()
    major = version.split(".", 1)[0]
    if not major.isdigit():
        raise SimpilotError(f"could not read the .NET SDK's version from '{command} --version' ({version!r}): check the installation")
    return f"net{major}.0"


def _dotnet_env(home: Path) -> dict[str, str]:
    """What dotnet needs to run quietly and offline: no first-run experience, no telemetry, no
    build servers outliving the command, its writable home in ``home``."""
    return {
        "DOTNET_CLI_HOME": str(home),
        "DOTNET_NOLOGO": "1",
        "DOTNET_CLI_TELEMETRY_OPTOUT": "1",
        "DOTNET_SKIP_FIRST_TIME_EXPERIENCE": "1",
        "DOTNET_GENERATE_ASPNET_CERTIFICATE": "false",
        "MSBUILDDISABLENODEREUSE": "1",
        "DOTNET_CLI_UI_LANGUAGE": "en",
    }


# -- what the programs need ------------------------------------------------------------------------


def namespaces(source: str) -> list[str]:
    """The namespaces a program's ``using`` directives name, in order."""
    return _USING.findall(source)


def package_of(namespace: str) -> str | None:
    """The NuGet package providing ``namespace`` (None: the framework's own, or unknown). An
    Azure SDK namespace not in :data:`PACKAGES` names its package (``Azure.Data.Tables.Models``:
    ``Azure.Data.Tables``), as Azure's client libraries do."""
    parts = namespace.split(".")
    for end in range(len(parts), 1, -1):
        found = PACKAGES.get(".".join(parts[:end]))
        if found is not None:
            return found
    if parts[0] == "Azure" and len(parts) > 1:
        while parts[-1] in _AZURE_SUFFIXES:
            parts.pop()
        return ".".join(parts) if len(parts) > 1 else "Azure.Core"
    return PACKAGES.get(namespace)


def needs(sources: Iterable[str]) -> list[str]:
    """The NuGet packages the programs' ``using`` directives (and EF Core provider calls) need.
    Pure: nothing is installed machine-wide, every set of needs is a provisioned folder."""
    found: set[str] = set()
    for source in sources:
        found.update(p for p in map(package_of, namespaces(source)) if p is not None)
        found.update(package for call, package in CALLS.items() if re.search(rf"\b{call}\b", source))
    return sorted(found)


def project_file(framework: str, packages: dict[str, str]) -> str:
    """The project every program is built in: Debug (``Debug.Assert`` is kept), the launcher
    as entry point, no implicit usings (the programs name theirs), the given package versions
    (``*``: the newest, which provision then pins)."""
    references = "".join(
        f"    <PackageReference Include={quoteattr(name)} Version={quoteattr(version)} />\n" for name, version in sorted(packages.items())
    )
    return (
        '<Project Sdk="Microsoft.NET.Sdk">\n'
        "  <PropertyGroup>\n"
        "    <OutputType>Exe</OutputType>\n"
        f"    <TargetFramework>{framework}</TargetFramework>\n"
        f"    <AssemblyName>{PROJECT}</AssemblyName>\n"
        "    <RootNamespace>Simpilot</RootNamespace>\n"
        "    <StartupObject>SimpilotLauncher</StartupObject>\n"
        "    <Configuration>Debug</Configuration>\n"
        "    <ImplicitUsings>disable</ImplicitUsings>\n"
        "    <Nullable>disable</Nullable>\n"
        "    <LangVersion>latest</LangVersion>\n"
        "    <AllowUnsafeBlocks>true</AllowUnsafeBlocks>\n"
        "    <InvariantGlobalization>true</InvariantGlobalization>\n"
        "    <UseAppHost>false</UseAppHost>\n"
        "    <SatelliteResourceLanguages>en</SatelliteResourceLanguages>\n"
        "    <GenerateDocumentationFile>false</GenerateDocumentationFile>\n"
        "    <TreatWarningsAsErrors>false</TreatWarningsAsErrors>\n"
        "    <NoWarn>$(NoWarn);CS0168;CS0219;CS1998;CS8632</NoWarn>\n"
        "  </PropertyGroup>\n"
        "  <ItemGroup>\n"
        f"{references}"
        "  </ItemGroup>\n"
        "</Project>\n"
    )


def provision(needed: Iterable[str], folder: Path) -> dict[str, str]:
    """Restore ``needed`` (NuGet package ids, from :func:`needs`) into ``folder``, outside any
    sandbox, into a project the runner starts from, with the resolved versions pinned there.
    Returns package -> version (the lock)."""
    command = _require()
    packages = sorted(set(needed))
    project = folder / PROJECT_FOLDER
    project.mkdir(parents=True, exist_ok=True)
    framework = target_framework(command)
    home = folder / "home"
    home.mkdir(exist_ok=True)
    (project / f"{PROJECT}.csproj").write_text(project_file(framework, dict.fromkeys(packages, "*")))
    _restore(command, project, folder / PACKAGES_FOLDER, home)
    lock = resolved_versions(project / "obj" / "project.assets.json", packages)
    (project / f"{PROJECT}.csproj").write_text(project_file(framework, lock))
    _restore(command, project, folder / PACKAGES_FOLDER, home)
    return lock


def _restore(command: str, project: Path, packages: Path, home: Path) -> None:
    """``dotnet restore`` of ``project`` into ``packages`` (``home``: the CLI's own files)."""
    packages.mkdir(parents=True, exist_ok=True)
    argv = [command, "restore", str(project), "--packages", str(packages)]
    try:
        proc = subprocess.run(
            argv,
            env={**os.environ, **_dotnet_env(home)},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=RESTORE_TIMEOUT,
        )
    except subprocess.TimeoutExpired as exc:
        raise SimpilotError(
            f"'{' '.join(argv)}' did not finish in {RESTORE_TIMEOUT:.0f} s: check the network and NuGet's configuration"
        ) from exc
    if proc.returncode != 0:
        tail = "\n".join(proc.stdout.strip().splitlines()[-8:])
        raise SimpilotError(f"'{' '.join(argv)}' failed (status {proc.returncode}); fix it and provision again:\n{tail}")


def resolved_versions(assets: Path, packages: Iterable[str]) -> dict[str, str]:
    """The versions NuGet resolved for ``packages`` (from a restored project's assets file)."""
    try:
        data = json.loads(assets.read_text())
    except (OSError, ValueError) as exc:
        raise SimpilotError(f"{assets} is missing or unreadable after a restore ({exc}): delete the folder and provision again") from exc
    resolved: dict[str, str] = {}
    for key in data.get("libraries", {}):
        name, _, version = key.partition("/")
        resolved[name.lower()] = version
    lock: dict[str, str] = {}
    for package in packages:
        version = resolved.get(package.lower())
        if version is None:
            raise SimpilotError(f"NuGet did not resolve {package}: check the package id and the network, then provision again")
        lock[package] = version
    return lock


# -- running ---------------------------------------------------------------------------------------


class CSharpRunner:
    """Builds each distinct program once in the runner's project (in the sandbox), and runs its
    assembly with ``dotnet`` in a fresh folder per run."""

    def __init__(self, sandbox: Sandbox, command: str, environment: Path | None, workdir: Path | None = None):
        self.sandbox, self.command = sandbox, command
        if workdir is not None:
            workdir.mkdir(parents=True, exist_ok=True)
        self.root = Path(tempfile.mkdtemp(prefix="simpilot-cs-", dir=workdir))
        self.project = self.root / PROJECT_FOLDER
        self.packages = environment / PACKAGES_FOLDER if environment is not None else self.root / PACKAGES_FOLDER
        self.home = self.root / "home"
        self.home.mkdir()
        # dotnet itself and the packages may live under a home folder the sandbox hides
        allow_reading(str(Path(os.path.realpath(command)).parent), str(self.packages))
        self._prepare(environment)
        self._builds: dict[str, tuple[Path | None, ProcessResult | None]] = {}

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
        _restore(self.command, self.project, self.packages, self.home)

    def run(self, program: Program, timeout: float, cpu: float | None = None) -> ProcessResult:
        """Build ``program`` (or take its assembly from the cache), then run it."""
        if _DISABLES_CHECKS.search(program.source):
            message = f"{COMPILE_ERROR}the program undefines DEBUG, which switches its Debug.Assert checks off"
            return ProcessResult(1, False, 0.0, message, failed_proof(message))
        key = hashlib.sha256(json.dumps([program.source, _source_name(program.name)]).encode()).hexdigest()[:24]
        if key not in self._builds:
            built = self._build(program, key)
            if built[1] is not None and built[1].timed_out:
                return built[1]
            self._builds[key] = built
        assembly, failure = self._builds[key]
        if assembly is None:
            assert failure is not None
            return failure
        return self._execute(assembly, timeout, cpu)

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
        self._builds.clear()

    def _build(self, program: Program, key: str) -> tuple[Path | None, ProcessResult | None]:
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
            command, self.project, BUILD_TIMEOUT, env=_dotnet_env(self.home), writable=(self.root,), keep_output=COMPILE_OUTPUT
        )
        assembly = out / f"{PROJECT}.dll"
        if result.returncode == 0 and not result.timed_out and assembly.is_file():
            return assembly, None
        message = (
            f"{COMPILE_ERROR}dotnet build did not finish in {BUILD_TIMEOUT:.0f} s"
            if result.timed_out
            else COMPILE_ERROR + first_compile_error(result.output or result.output_tail)
        )
        return None, ProcessResult(result.returncode, result.timed_out, result.duration_s, result.output_tail, failed_proof(message))

    def _execute(self, assembly: Path, timeout: float, cpu: float | None) -> ProcessResult:
        # the folder on the command line: the sandbox shows it (the assembly's dependencies are there)
        command = [self.command, "exec", "--additionalprobingpath", str(assembly.parent), str(assembly)]
        return run_once(self.sandbox, self.root, command, timeout, cpu, _dotnet_env(self.home), failure_message)


def first_compile_error(output: str) -> str:
    """The compiler's first error (``12.cs(4,9): error CS0103: ...``), else MSBuild's, else the last line."""
    found = _COMPILE_ERROR.search(output)
    if found:
        return found.group(1).strip()
    found = _MSBUILD_ERROR.search(output)
    if found:
        return found.group(0).strip()
    lines = [line for line in output.splitlines() if line.strip()]
    return lines[-1].strip() if lines else "dotnet build failed without a message"


def failure_message(result: ProcessResult, proof: Proof, timeout: float, budget: int | None = None) -> str:
    """Why a run that did not pass failed, led by the error's class: the launcher's record,
    else what the output and the exit status show."""
    if budget is not None:
        return f"TimeoutError: the program used up its CPU budget of {budget} s"
    if result.timed_out:
        return f"TimeoutError: the program did not finish in {timeout:g} s"
    if (killed := oom_kill_message(result.end)) is not None:
        return killed
    if proof.errors:
        return proof.errors[0]
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
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"{name}: the program was killed by signal {-code}"
    return f"SystemExit: the program ended (status {code}) without returning from Main, so its checks did not all run"


def _source_name(name: str) -> str:
    """The file the program is compiled as (the compiler's messages name it)."""
    stem = Path(name).stem
    return f"{stem}.cs" if re.fullmatch(r"[\w-]+", stem) and stem != "SimpilotLauncher" else "Program.cs"


def runner(
    language: str, sandbox: Sandbox, environment: Path | None = None, warm: bool = False, workdir: Path | None = None
) -> CSharpRunner:
    """A runner of C# programs (raises when no .NET SDK is installed). ``environment``:
    :func:`provision`'s folder. ``warm`` is ignored (see the module's documentation)."""
    if language != LANGUAGE:
        raise SimpilotError(f"the C# harness runs csharp programs, not {language}")
    del warm
    return CSharpRunner(sandbox, _require(), environment, workdir)
