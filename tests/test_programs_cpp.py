"""The C++ and C# program harnesses: what a run proves, and what the programs need.

C++ programs run for real (g++ and bubblewrap; skipped without them). C# is checked as far as a
machine without a .NET SDK allows: the harness must say the toolchain is missing, map namespaces
to packages, and refuse to provision or run.
"""

from __future__ import annotations

import json
import shutil
import signal
from pathlib import Path

import pytest

from replay.core.errors import SimpilotError
from replay.core.programs import join
from replay.core.records import Status
from replay.execution.programs import COMPILE_ERROR, PROGRAM_TEST, Program, cpp, cpp_packages, csharp, error_class
from replay.execution.programs.runs import classify_program, program_shortfall
from replay.execution.proof.check import Proof, shortfall
from replay.execution.sandbox.bubblewrap import ProcessResult, Sandbox

DATA = Path(__file__).parent / "data" / "devbench"
HAS_GXX = shutil.which("g++") is not None
HAS_BWRAP = shutil.which("bwrap") is not None
needs_gxx = pytest.mark.skipif(not (HAS_GXX and HAS_BWRAP), reason="needs g++ and bubblewrap (apt-get install g++ bubblewrap)")

# Bundled instances whose golden program fails on g++ 12 / libstdc++ 12, and how: a missing
# standard include (libstdc++'s headers include less of each other than other libraries'), and a
# golden median that std::nth_element does not compute.
BROKEN_GOLDEN = {
    ("api_usage", "2"): "CompileError",  # strlen without <cstring>
    ("code_purpose_understanding", "8"): "AssertionError",
    ("low_context", "2"): "CompileError",  # assert without <cassert>
    ("low_context", "5"): "CompileError",
    ("low_context", "6"): "CompileError",
}
# Bundled instances whose blanked hole fails, and the class of the failure.
EMPTY_FAILS = {
    ("api_usage", "3"): "CompileError",
    ("code2NL_NL2code", "1"): "CompileError",  # a link error: the answer defines a declared function
    ("code2NL_NL2code", "2"): "SIGSEGV",
    ("code_purpose_understanding", "4"): "AssertionError",
    ("low_context", "1"): "AssertionError",
    ("pattern_matching", "1"): "CompileError",
    ("syntax_completion", "1"): "AssertionError",
    ("syntax_completion", "3"): "AssertionError",
}
# Bundled instances whose cursor lies in a function body that can call std::exit (<cstdlib> is
# included, if only through <iostream>).
EXIT_BEFORE_CHECKS = [
    ("code2NL_NL2code", "2"),
    ("code_purpose_understanding", "4"),
    ("low_context", "8"),
    ("pattern_matching", "1"),
    ("syntax_completion", "1"),
    ("syntax_completion", "3"),
]


def compose(prefix: str, answer: str, suffix: str, assertions: str) -> str:
    """A DevBench program: the parts joined by a newline where neither side has one."""
    return join(join(join(prefix, answer), suffix), assertions)


def instances(language: str = "cpp") -> dict[tuple[str, str], dict]:
    found = {}
    for path in sorted((DATA / language).glob("*.jsonl")):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            found[(path.stem, record["id"])] = record
    return found


def program(key: tuple[str, str], answer: str | None = None) -> Program:
    record = instances()[key]
    answer = record["golden_completion"] if answer is None else answer
    source = compose(record["prefix"], answer, record["suffix"], record["assertions"])
    return Program("cpp", f"programs/{key[0]}/{key[1]}.cpp", source)


def unmet(source: str) -> list[str]:
    return cpp.needs([source])


def verdict(result: ProcessResult) -> str:
    """passed, or the failure's error class."""
    proof = result.proof
    assert proof is not None
    if shortfall(proof, [PROGRAM_TEST]) is None:
        assert not result.timed_out
        return "passed"
    assert proof.outcomes == {PROGRAM_TEST: "failed"} and len(proof.errors) == 1, proof
    message = proof.errors[0]
    return error_class(message)


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    made = cpp.runner("cpp", Sandbox.create(), warm=False, workdir=tmp_path_factory.mktemp("cpp"))
    yield made
    made.close()


def run_source(runner, source: str, timeout: float = 20.0, cpu: float | None = None, name: str = "programs/t/1.cpp") -> ProcessResult:
    return runner.run(Program("cpp", name, source), timeout, cpu)


# -- what the programs need (no compiler run) ----------------------------------------------------


def test_includes_map_to_debian_packages(monkeypatch):
    monkeypatch.setattr(cpp_packages, "installed_versions", lambda packages: {})
    source = (
        "#include <Eigen/Dense>\n#include <openssl/evp.h>\n# include <sqlite3.h>\n#include <harfbuzz/hb.h>\n"
        "#include <ft2build.h>\n#include <boost/asio.hpp>\n#include <nlohmann/json.hpp>\n#include <armadillo>\n"
        '#include <Python.h>\n#include <vector>\n#include "local.h"\n'
    )
    assert cpp.needs([source]) == [
        "libarmadillo-dev",
        "libboost-dev",
        "libeigen3-dev",
        "libfreetype-dev",
        "libharfbuzz-dev",
        "libsqlite3-dev",
        "libssl-dev",
        "nlohmann-json3-dev",
        "python3-dev",
    ]
    # OpenCV (hundreds of megabytes with its dependencies) only for a program that includes it
    assert "libopencv-dev" not in cpp.needs([source])
    assert cpp.needs(["#include <opencv2/opencv.hpp>\n"]) == ["libopencv-dev"]
    assert cpp.needs(["#include <boost/thread.hpp>\n"]) == ["libboost-dev", "libboost-thread-dev"]
    assert cpp.needs(["#include <iostream>\n#include <cassert>\nint main() {}\n"]) == []


def test_needs_names_installed_packages_too_so_the_lock_pins_them():
    assert cpp.needs(["#include <openssl/sha.h>\n#include <Eigen/Dense>\n#include <vector>\n"]) == ["libeigen3-dev", "libssl-dev"]


def test_provision_installs_only_what_is_missing(monkeypatch, tmp_path):
    installed = {"libssl-dev": "3.0"}
    asked: list[list[str]] = []

    def install(packages: list[str]) -> None:
        asked.append(packages)
        installed.update(dict.fromkeys(packages, "1.0"))

    monkeypatch.setattr(cpp_packages, "installed_versions", lambda packages: {p: v for p, v in installed.items() if p in set(packages)})
    monkeypatch.setattr(cpp_packages, "_apt_install", install)
    assert cpp.provision(["libeigen3-dev", "libssl-dev"], tmp_path) == {"libeigen3-dev": "1.0", "libssl-dev": "3.0"}
    assert asked == [["libeigen3-dev"]]


def test_provision_needs_root_and_names_the_command(monkeypatch, tmp_path):
    monkeypatch.setattr(cpp_packages.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(cpp_packages, "installed_versions", lambda packages: {})
    with pytest.raises(SimpilotError, match=r"apt-get install -y .*libeigen3-dev"):
        cpp.provision(["libeigen3-dev"], tmp_path)


@pytest.mark.skipif(shutil.which("dpkg-query") is None, reason="needs dpkg (a Debian system)")
def test_provision_writes_the_flags_the_runner_reads(tmp_path):
    assert cpp.provision([], tmp_path) == {}
    flags = cpp_packages.Flags.load(tmp_path)
    assert set(flags.provisioned) <= {library.name for library in cpp_packages.LIBRARIES}
    if "openssl" in flags.provisioned:
        assert flags.provisioned["openssl"][1] == ("-lssl", "-lcrypto")
    # each folder of -I on a word of its own, so that a sandbox shows folders under a hidden home
    cflags, libs = cpp_packages.Flags({"eigen": (("-I/root/x/eigen3",), ())}).for_source("#include <Eigen/Dense>\n")
    assert cflags == ["-I", "/root/x/eigen3"] and libs == []


def test_compile_errors_name_the_first_error():
    output = (
        "12.cpp: In function 'int main()':\n12.cpp:5:3: error: 'foo' was not declared in this scope\n"
        "12.cpp:6:3: error: 'bar' was not declared in this scope\n"
    )
    assert cpp.first_compile_error(output) == "12.cpp:5:3: error: 'foo' was not declared in this scope"
    link = "/usr/bin/ld: /tmp/cc.o: in function `main':\n1.cpp:(.text+0x5): undefined reference to `f()'\ncollect2: error: ld returned 1 exit status\n"
    assert cpp.first_compile_error(link) == "1.cpp:(.text+0x5): undefined reference to `f()'"
    assert cpp.first_compile_error("12.cpp:1:10: fatal error: Eigen/Dense: No such file or directory\n").startswith("12.cpp:1:10: fatal")


def test_failures_are_named_by_their_class():
    def message(code: int, output: str = "", errors: tuple[str, ...] = ()) -> str:
        return cpp.failure_message(ProcessResult(code, False, 0.1, output), Proof(errors=errors), 10.0)

    aborted = "Before\nprogram: 3.cpp:12: int main(): Assertion `x == 2' failed.\n"
    assert message(-signal.SIGABRT, aborted) == "AssertionError: 3.cpp:12: int main(): Assertion `x == 2' failed."
    thrown = "terminate called after throwing an instance of 'std::invalid_argument'\n  what():  bad size\n"
    assert message(-signal.SIGABRT, thrown) == "invalid_argument: bad size (std::invalid_argument)"
    assert message(-signal.SIGSEGV).startswith("SIGSEGV: ")
    assert message(0).startswith("SystemExit: ")
    assert message(1, errors=("ExitFailure: main returned 1",)) == "ExitFailure: main returned 1"
    timed_out = ProcessResult(-9, True, 10.0, "")
    assert cpp.failure_message(timed_out, Proof(), 10.0).startswith("TimeoutError: ")
    assert error_class(message(-signal.SIGABRT, aborted)) == "AssertionError"


@pytest.mark.skipif(not HAS_GXX, reason="needs g++")
def test_missing_and_the_launcher():
    assert cpp.missing("cpp") is None
    assert cpp.missing("java") is not None
    tools = cpp.toolchain()
    assert tools.launcher.is_file() and tools.version


# -- running C++ programs ------------------------------------------------------------------------


@needs_gxx
def test_a_program_that_returns_passes_and_one_that_exits_early_fails(runner):
    source = "#include <cassert>\n#include <cstdlib>\nint main() {\n    int x = 2;\n    // ANSWER\n    assert(x == 2);\n    return 0;\n}\n"
    assert verdict(run_source(runner, source)) == "passed"
    early = run_source(runner, source.replace("// ANSWER", "std::exit(0);"))
    assert verdict(early) == "SystemExit" and early.returncode == 0  # status 0 proves nothing


@pytest.mark.slow
@needs_gxx
def test_how_runs_end(runner):
    head = "#include <cassert>\n#include <cstdlib>\n#include <cstdio>\n#include <stdexcept>\n#include <unistd.h>\n"
    cases = {
        "assert": ("int main() { int x = 1; assert(x == 2); return 0; }", "AssertionError"),
        "return 3": ("int main() { return 3; }", "ExitFailure"),
        "_exit": ("int main() { _exit(0); }", "SystemExit"),
        "quick_exit": ("int main() { std::quick_exit(0); }", "SystemExit"),
        "abort": ("int main() { std::abort(); }", "SIGABRT"),
        "throw": ('int main() { throw std::runtime_error("boom"); }', "runtime_error"),
        "segfault": ("int main() { volatile int *p = nullptr; *p = 1; return 0; }", "SIGSEGV"),
        "compile": ("int main() { undefined_name(); return 0; }", "CompileError"),
        "link": ("int helper();\nint main() { return helper(); }", "CompileError"),
        "no main": ("int helper() { return 0; }", "CompileError"),
        "NDEBUG": ("#define NDEBUG\n#include <cassert>\nint main() { assert(false); return 0; }", "CompileError"),
        "undef NDEBUG": ("#undef NDEBUG\n#include <cassert>\nint main() { assert(true); return 0; }", "passed"),
        # a forked child that exits says nothing about the parent's run
        "fork": ("#include <sys/wait.h>\nint main() { if (fork() == 0) std::exit(0); wait(nullptr); return 0; }", "passed"),
        # a static constructor runs after the launcher took the token: it sees no channel
        "static": (
            '#include <cstring>\nstruct Probe { bool seen; Probe() : seen(std::getenv("SIMPILOT_PROOF") != nullptr) {} } probe;\n'
            "int main() { assert(!probe.seen); return 0; }",
            "passed",
        ),
    }
    for name, (body, expected) in cases.items():
        result = run_source(runner, head + body + "\n", name=f"programs/t/{name.replace(' ', '_')}.cpp")
        assert verdict(result) == expected, (name, result.proof, result.output_tail)
    compiled = run_source(runner, head + cases["compile"][0] + "\n", name="programs/t/compile.cpp")
    assert compiled.proof is not None and compiled.proof.errors[0].startswith(COMPILE_ERROR + "compile.cpp:")
    assert "undefined_name" in compiled.proof.errors[0]


@needs_gxx
def test_failures_map_to_the_report_statuses(runner):
    def status(source: str, answer: str = "x") -> Status:
        result = run_source(runner, source)
        gap = program_shortfall(result)
        assert gap is not None
        return classify_program(result, answer, gap)[0]

    head = "#include <cassert>\n#include <cstdlib>\n"
    assert status(head + "int main() { int x = 1; assert(x == 2); return 0; }\n") == Status.FAIL
    assert status(head + "int main() { std::exit(0); assert(false); }\n") == Status.TESTS_NOT_RUN
    assert status(head + "int main() { return missing_name; }\n") == Status.UNDEFINED_NAME
    assert status(head + "int main() { return 1; }\n") == Status.RUNTIME_ERROR


@pytest.mark.slow
@needs_gxx
def test_a_busy_loop_and_a_sleeper_time_out(runner):
    busy = run_source(runner, "int main() { volatile unsigned long i = 0; for (;;) i++; }\n", timeout=30, cpu=1)
    assert busy.timed_out and busy.busy and verdict(busy) == "TimeoutError"
    sleeper = run_source(runner, "#include <unistd.h>\nint main() { for (;;) sleep(1); }\n", timeout=1.5)
    assert sleeper.timed_out and not sleeper.busy and verdict(sleeper) == "TimeoutError"


@pytest.mark.slow
@needs_gxx
def test_files_a_run_writes_are_gone_for_the_next(runner):
    write = (
        "#include <cassert>\n#include <fstream>\nint main() {\n"
        '    std::ofstream("left.txt") << "x";\n    std::ofstream("/tmp/left.txt") << "x";\n'
        '    assert(std::ifstream("left.txt").good());\n    return 0;\n}\n'
    )
    read = (
        "#include <cassert>\n#include <fstream>\nint main() {\n"
        '    assert(!std::ifstream("left.txt").good());\n    assert(!std::ifstream("/tmp/left.txt").good());\n    return 0;\n}\n'
    )
    for _ in range(2):  # the same binary twice: its own leftovers are gone too
        assert verdict(run_source(runner, write, name="programs/t/write.cpp")) == "passed"
    assert verdict(run_source(runner, read, name="programs/t/read.cpp")) == "passed"


@pytest.mark.slow
@needs_gxx
def test_the_same_program_is_compiled_once(tmp_path):
    made = cpp.runner("cpp", Sandbox.create(), workdir=tmp_path)
    try:
        source = "#include <cassert>\nint main() { assert(1 + 1 == 2); return 0; }\n"
        first = run_source(made, source)
        second = run_source(made, source)
        assert verdict(first) == verdict(second) == "passed" and made.compilations == 1
        broken = "int main() { return nope; }\n"
        assert verdict(run_source(made, broken)) == verdict(run_source(made, broken)) == "CompileError"
        assert made.compilations == 2
    finally:
        made.close()
    assert not made.root.exists()


@pytest.mark.slow
@needs_gxx
def test_bundled_golden_programs_pass(runner):
    ran = 0
    for key in instances():
        prog = program(key)
        if unmet(prog.source):
            continue  # reported by needs(): provisioning installs them
        assert verdict(runner.run(prog, 60.0)) == BROKEN_GOLDEN.get(key, "passed"), key
        ran += 1
    assert ran >= 30


@pytest.mark.slow
@needs_gxx
def test_bundled_empty_answers_fail(runner):
    for key, expected in EMPTY_FAILS.items():
        assert verdict(runner.run(program(key, ""), 30.0)) == expected, key


@pytest.mark.slow
@needs_gxx
def test_exiting_before_the_checks_fails(runner):
    for key in EXIT_BEFORE_CHECKS:
        golden = instances()[key]["golden_completion"]
        early = runner.run(program(key, "std::exit(0);\n" + golden), 30.0)
        assert verdict(early) == "SystemExit", key


@pytest.mark.slow
@needs_gxx
def test_warm_and_fresh_agree(tmp_path):
    warm = cpp.runner("cpp", Sandbox.create(), warm=True, workdir=tmp_path / "warm")
    fresh = cpp.runner("cpp", Sandbox.create(), warm=False, workdir=tmp_path / "fresh")
    try:
        keys = [k for k in instances() if k[0] != "api_usage"][::3]
        for key in keys:
            for answer in (None, ""):
                prog = program(key, answer)
                assert verdict(warm.run(prog, 30.0)) == verdict(fresh.run(prog, 30.0)), (key, answer)
    finally:
        warm.close()
        fresh.close()


# -- C# --------------------------------------------------------------------------------------------


def test_csharp_namespaces_map_to_nuget_packages():
    source = (
        "using System;\nusing System.Diagnostics;\nusing Newtonsoft.Json.Linq;\nusing MongoDB.Driver;\nusing MongoDB.Bson;\n"
        "using Azure.Storage.Blobs.Models;\nusing Azure;\nusing Azure.Identity;\nusing Azure.Storage.Files.Shares.Models;\n"
        "using Microsoft.ML.Data;\n"
        "using Microsoft.Azure.Cosmos;\nusing Microsoft.Azure.Documents.Client;\nusing Microsoft.EntityFrameworkCore;\n"
        'class P { static void Main() { new DbContextOptionsBuilder().UseInMemoryDatabase("x"); } }\n'
    )
    assert csharp.needs([source]) == [
        "Azure.Core",
        "Azure.Identity",
        "Azure.Storage.Blobs",
        "Azure.Storage.Files.Shares",
        "Microsoft.Azure.Cosmos",
        "Microsoft.EntityFrameworkCore",
        "Microsoft.EntityFrameworkCore.InMemory",
        "Microsoft.ML",
        "MongoDB.Bson",
        "MongoDB.Driver",
        "Newtonsoft.Json",
    ]
    bundled = csharp.needs([record["prefix"] + record["suffix"] for record in instances("c_sharp").values()])
    assert bundled == ["Microsoft.ML"]  # the bundled instances' one third-party library
    assert csharp.needs(["using System;\nusing System.Linq;\nusing System.Text.Json;\n"]) == []


def test_csharp_project_and_messages():
    project = csharp.project_file("net8.0", {"Newtonsoft.Json": "13.0.3"})
    assert "<StartupObject>SimpilotLauncher</StartupObject>" in project and "<Configuration>Debug</Configuration>" in project
    assert '<PackageReference Include="Newtonsoft.Json" Version="13.0.3" />' in project
    output = (
        "/tmp/x/project/12.cs(7,13): error CS0103: The name 'y' does not exist in the current context [/tmp/x/project/simpilot.csproj]\n"
    )
    assert csharp.first_compile_error(output) == "12.cs(7,13): error CS0103: The name 'y' does not exist in the current context"
    crash = ProcessResult(134, False, 0.1, "Unhandled exception. System.InvalidOperationException: no items\n   at P.Main()\n")
    message = csharp.failure_message(crash, Proof(), 10.0)
    assert message == "System.InvalidOperationException: no items" and error_class(message) == "InvalidOperationException"
    assert "@ENV@" not in csharp.LAUNCHER_SOURCE and PROGRAM_TEST in csharp.LAUNCHER_SOURCE


@pytest.mark.skipif(csharp.dotnet() is not None, reason="a .NET SDK is installed here")
def test_without_a_dotnet_sdk_csharp_is_missing(tmp_path):
    reason = csharp.missing("csharp")
    assert reason is not None and "dotnet" in reason
    with pytest.raises(SimpilotError, match="dotnet"):
        csharp.provision(["Newtonsoft.Json"], tmp_path)
    with pytest.raises(SimpilotError, match="dotnet"):
        csharp.runner("csharp", Sandbox(enabled=False))
