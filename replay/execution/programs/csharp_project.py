"""The .NET SDK and the project every C# program is built in: its packages, restored once.

:func:`needs` maps the programs' ``using`` namespaces (and EF Core's provider calls) to NuGet
package ids; :func:`provision` restores them into its folder (``dotnet restore --packages``),
outside any sandbox, and pins the versions it resolved (the lock) in the project the runner
starts from (:func:`project_file`). ``dotnet`` runs quietly and offline (:func:`dotnet_env`).
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path
from xml.sax.saxutils import quoteattr

from replay.core.errors import SimpilotError

PROJECT = "simpilot"  # the project's (and the built assembly's) name
PROJECT_FOLDER = "project"  # in provision's folder: the restored project the runner copies
PACKAGES_FOLDER = "packages"  # in provision's folder: the NuGet packages
RESTORE_TIMEOUT = 1800.0
NO_SDK = (
    "C# programs need the .NET SDK (dotnet) on PATH: install it "
    "(https://learn.microsoft.com/dotnet/core/install/linux; Debian/Ubuntu: apt-get install dotnet-sdk-8.0 "
    "from packages.microsoft.com)"
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


def require() -> str:
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


def dotnet_env(home: Path) -> dict[str, str]:
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
    command = require()
    packages = sorted(set(needed))
    project = folder / PROJECT_FOLDER
    project.mkdir(parents=True, exist_ok=True)
    framework = target_framework(command)
    home = folder / "home"
    home.mkdir(exist_ok=True)
    (project / f"{PROJECT}.csproj").write_text(project_file(framework, dict.fromkeys(packages, "*")))
    restore(command, project, folder / PACKAGES_FOLDER, home)
    lock = resolved_versions(project / "obj" / "project.assets.json", packages)
    (project / f"{PROJECT}.csproj").write_text(project_file(framework, lock))
    restore(command, project, folder / PACKAGES_FOLDER, home)
    return lock


def restore(command: str, project: Path, packages: Path, home: Path) -> None:
    """``dotnet restore`` of ``project`` into ``packages`` (``home``: the CLI's own files)."""
    packages.mkdir(parents=True, exist_ok=True)
    argv = [command, "restore", str(project), "--packages", str(packages)]
    try:
        proc = subprocess.run(
            argv,
            env={**os.environ, **dotnet_env(home)},
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
