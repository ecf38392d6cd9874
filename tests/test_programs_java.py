"""The Java program harness: a pass is a program whose ``main`` returned, proven through the
channel; the resident JVM (warm) and a JVM per program (fresh) give the same verdicts, and
nothing one program leaves behind reaches the next.

The JVM tests are slow (a JVM per fresh run, a resident JVM per warm runner); the default run
keeps the pure parts: which Debian packages a program's imports need, and what a provisioned
environment holds."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from replay.core.errors import SimpilotError
from replay.core.programs import join
from replay.core.records import Status
from replay.execution.programs import COMPILE_ERROR, PROGRAM_TEST, Program, error_class, java_packages, remove
from replay.execution.programs import java as harness
from replay.execution.runners import junit as java_runner
from replay.execution.sandbox.bubblewrap import ProcessResult, Sandbox

DATA = Path(__file__).parent / "data" / "devbench" / "java"
# Bundled instances that need nothing beyond the JDK, whose golden completion passes and whose
# empty answer fails (code2NL_NL2code/50 declares a package; api_usage/20 writes a ZIP file).
SAMPLE = [
    ("api_usage", "3"),
    ("api_usage", "20"),
    ("code2NL_NL2code", "2"),
    ("code2NL_NL2code", "4"),
    ("code_purpose_understanding", "1"),
    ("code_purpose_understanding", "2"),
    ("low_context", "1"),
    ("low_context", "3"),
    ("pattern_matching", "2"),
    ("pattern_matching", "3"),
    ("syntax_completion", "2"),
    ("syntax_completion", "5"),
]
PACKAGED = ("code2NL_NL2code", "50")


def needs_jvm(test):
    """A test that starts JVMs in the sandbox: slow, and skipped without a JDK or bubblewrap."""
    for mark in (
        pytest.mark.slow,
        pytest.mark.skipif(harness.missing("java") is not None, reason="no JDK (java and javac) on this machine"),
        pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is installed by .ci/setup"),
    ):
        test = mark(test)
    return test


def instance(category: str, number: str) -> dict:
    for line in (DATA / f"{category}.jsonl").read_text(encoding="utf-8").splitlines():
        found = json.loads(line)
        if str(found["id"]) == number:
            return found
    raise KeyError((category, number))


def composed(found: dict, answer: str | None = None) -> str:
    """The program as DevBench runs it: prefix, answer, suffix, assertions."""
    text = found["golden_completion"] if answer is None else answer
    return join(join(join(found["prefix"], text), found["suffix"]), found["assertions"])


def program(source: str, name: str = "programs/x/1.java") -> Program:
    return Program("java", name, source)


def main_class(body: str, imports: str = "") -> str:
    return f"{imports}public class Main {{\n    public static void main(String[] args) throws Exception {{\n{body}\n    }}\n}}\n"


def outcome(result: ProcessResult) -> tuple[str, str]:
    """("passed", "") or ("failed", the error record), "timeout" for a run stopped by its limits."""
    if result.timed_out:
        return "timeout", "busy" if result.busy else ""
    proof = result.proof
    assert proof is not None
    if proof.finished and proof.outcomes == {PROGRAM_TEST: "passed"} and not proof.errors:
        return "passed", ""
    assert proof.outcomes.get(PROGRAM_TEST) != "passed"
    return "failed", proof.errors[0] if proof.errors else ""


# -- what a program needs (pure) -----------------------------------------------------------------


def test_imports_name_the_debian_packages_that_ship_their_jars() -> None:
    source = (
        "import java.util.List;\nimport javax.xml.parsers.DocumentBuilder;\nimport org.w3c.dom.Document;\n"
        "import org.apache.commons.lang3.StringUtils;\nimport com.fasterxml.jackson.databind.ObjectMapper;\n"
        "import static org.junit.Assert.assertEquals;\nimport org.dom4j.io.*;\nimport com.example.internal.Thing;\n"
    )
    assert harness.needs([source]) == ["junit5", "libcommons-lang3-java", "libdom4j-java", "libjackson2-databind-java"]


def test_what_the_jdk_holds_needs_nothing_but_what_left_it_does() -> None:
    assert harness.needs(["import javax.xml.xpath.XPath;\nimport javax.crypto.Cipher;\nimport org.xml.sax.InputSource;\n"]) == []
    assert harness.needs(["import javax.annotation.processing.Processor;\n"]) == []
    assert harness.needs(["import javax.xml.bind.JAXBContext;\n"]) == ["libjaxb-api-java", "libjaxb-java"]
    assert harness.needs(["import javax.annotation.PostConstruct;\n"]) == ["libgeronimo-annotation-1.3-spec-java"]


def test_qualified_names_and_jdbc_urls_count_as_needs() -> None:
    source = 'org.junit.Assert.assertTrue(ok);\nString s = "com.example.Foo";\nDriverManager.getConnection("jdbc:h2:mem:test");\n'
    assert harness.needs([source]) == ["junit5", "libh2-java"]


def test_every_bundled_instance_needs_only_known_packages() -> None:
    """The packages the bundled instances need are the ones provisioning was checked with."""
    sources = [composed(json.loads(line)) for path in sorted(DATA.glob("*.jsonl")) for line in path.read_text().splitlines()]
    found = set(harness.needs(sources))
    assert {"junit5", "libcommons-lang3-java", "libjackson2-databind-java", "libapache-poi-java", "libdom4j-java"} <= found
    assert all(name == "junit5" or name.endswith("-java") for name in found)


def test_an_environment_gives_each_program_only_the_jars_it_needs(tmp_path: Path) -> None:
    jar = tmp_path / "lang3.jar"
    jar.write_bytes(b"")
    other = tmp_path / "xml.jar"
    other.write_bytes(b"")
    lock = {"packages": {"libcommons-lang3-java": "3.12"}, "jars": {"libcommons-lang3-java": [str(jar)], "libdom4j-java": [str(other)]}}
    (tmp_path / java_packages.LOCK_FILE).write_text(json.dumps(lock))
    jars = java_packages.environment_jars(tmp_path)
    assert java_packages.program_jars("import org.apache.commons.lang3.StringUtils;\n", jars) == (str(jar),)
    assert java_packages.program_jars("import java.util.List;\n", jars) == ()
    assert java_packages.environment_jars(None) == {}
    other.unlink()
    with pytest.raises(SimpilotError, match="provision the environment again"):
        java_packages.environment_jars(tmp_path)
    with pytest.raises(SimpilotError, match="provision it first"):
        java_packages.environment_jars(tmp_path / "nothing")


def test_depends_fields_are_read_as_package_names() -> None:
    field = "libfoo-java (>= 1.2), libbar-java | libbaz-java, default-jre-headless:any"
    assert java_packages._dependencies(field) == ["libfoo-java", "libbar-java", "default-jre-headless"]


def test_without_root_provisioning_says_which_apt_command_to_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(java_packages, "_status", lambda name: None)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(SimpilotError, match=r"sudo apt-get install -y .* libdom4j-java"):
        harness.provision(["libdom4j-java"], tmp_path)


def _installed(package: str) -> str | None:
    if shutil.which("dpkg-query") is None:
        return None
    proc = subprocess.run(["dpkg-query", "-W", "-f=${Status}\t${Version}", package], capture_output=True, text=True)
    status, _, version = proc.stdout.partition("\t")
    return version if proc.returncode == 0 and status.endswith(" installed") else None


LANG3 = "libcommons-lang3-java"


@pytest.mark.skipif(_installed(LANG3) is None, reason=f"{LANG3} is not installed (Debian: apt-get install {LANG3})")
def test_provisioning_an_installed_package_locks_its_version_and_jars(tmp_path: Path) -> None:
    lock = harness.provision([LANG3], tmp_path)
    assert lock[LANG3] == _installed(LANG3)
    written = json.loads((tmp_path / java_packages.LOCK_FILE).read_text())
    assert written["packages"] == lock
    assert "/usr/share/java/commons-lang3.jar" in written["jars"][LANG3]
    assert "/usr/share/java/commons-lang3.jar" in (tmp_path / java_packages.CLASSPATH_FILE).read_text().splitlines()


def test_remove_deletes_what_a_program_locked(tmp_path: Path) -> None:
    locked = tmp_path / "run" / "locked"
    locked.mkdir(parents=True)
    (locked / "file").write_text("x")
    locked.chmod(0o500)
    remove(tmp_path / "run", keep=True)
    assert (tmp_path / "run").is_dir() and not any((tmp_path / "run").iterdir())
    remove(tmp_path / "run")
    assert not (tmp_path / "run").exists()


# -- running programs ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[harness.FreshRunner]:
    made = harness.runner("java", Sandbox.create(), None, False, tmp_path_factory.mktemp("fresh"))
    assert isinstance(made, harness.FreshRunner)
    yield made
    made.close()


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[harness.WarmRunner]:
    made = harness.runner("java", Sandbox.create(), None, True, tmp_path_factory.mktemp("warm"))
    assert isinstance(made, harness.WarmRunner)
    yield made
    made.close()


@pytest.fixture(params=["warm", "fresh"])
def runner(request: pytest.FixtureRequest) -> harness.FreshRunner | harness.WarmRunner:
    return request.getfixturevalue(request.param)


@needs_jvm
@pytest.mark.parametrize("case", SAMPLE, ids=["/".join(c) for c in SAMPLE])
def test_golden_programs_pass_and_empty_answers_fail_alike_warm_and_fresh(
    case: tuple[str, str], warm: harness.WarmRunner, fresh: harness.FreshRunner
) -> None:
    found = instance(*case)
    name = f"programs/{case[0]}/{case[1]}.java"
    for answer, expected in ((None, "passed"), ("", "failed")):
        source = composed(found, answer)
        verdicts = [outcome(made.run(program(source, name), 30)) for made in (warm, fresh)]
        assert verdicts[0] == verdicts[1]
        assert verdicts[0][0] == expected, verdicts[0]


@needs_jvm
def test_a_program_in_a_package_runs(runner: harness.FreshRunner | harness.WarmRunner) -> None:
    found = instance(*PACKAGED)
    assert re.search(r"^package ", found["prefix"], re.M)
    assert outcome(runner.run(program(composed(found)), 30)) == ("passed", "")


@needs_jvm
def test_a_failed_assert_is_an_assertion_error_and_a_fail(runner: harness.FreshRunner | harness.WarmRunner) -> None:
    result = runner.run(program(main_class('        int x = 2;\n        assert x == 3 : "expected 3";')), 30)
    assert outcome(result) == ("failed", "AssertionError: expected 3")
    assert java_runner.classify(result.output_tail) == (Status.FAIL, "program => java.lang.AssertionError: expected 3")
    # the trace ends in the program, as under java
    assert "at Main.main(Main.java:4)" in result.output_tail and "SimpilotProgram" not in result.output_tail


@needs_jvm
def test_assertions_are_enabled_and_junit_assertions_need_their_jar(runner: harness.FreshRunner | harness.WarmRunner) -> None:
    assert outcome(runner.run(program(main_class("        assert false;")), 30)) == ("failed", "AssertionError")
    junit = main_class('        org.junit.Assert.assertEquals("x", 1, 2);')
    status, message = outcome(runner.run(program(junit), 30))
    assert status == "failed" and message.startswith(COMPILE_ERROR) and "package org.junit does not exist" in message


@needs_jvm
def test_an_uncaught_exception_names_its_class(runner: harness.FreshRunner | harness.WarmRunner) -> None:
    result = runner.run(program(main_class('        throw new IllegalStateException("boom");')), 30)
    assert outcome(result) == ("failed", "IllegalStateException: boom")
    assert error_class(outcome(result)[1]) == "IllegalStateException"
    assert java_runner.classify(result.output_tail) == (Status.RUNTIME_ERROR, "program => java.lang.IllegalStateException: boom")


@needs_jvm
def test_compile_errors_are_classified(runner: harness.FreshRunner | harness.WarmRunner) -> None:
    result = runner.run(program(main_class('        int x = "text";')), 30)
    status, message = outcome(result)
    assert status == "failed" and message == COMPILE_ERROR + "Main.java:3: incompatible types: java.lang.String cannot be converted to int"
    assert error_class(message) == "CompileError"
    assert java_runner.classify(result.output_tail) == (
        Status.COMPILE_ERROR,
        "Main.java:3: compiler.err.prob.found.req: " + message.split(": ", 2)[2],
    )
    undefined = runner.run(program(main_class("        System.out.println(missingName);")), 30)
    classified = java_runner.classify(undefined.output_tail)
    assert classified is not None and classified[0] == Status.UNDEFINED_NAME
    assert "cannot find symbol symbol: variable missingName" in outcome(undefined)[1]


EXITS = {
    "exit": "        System.exit(0);",
    "halt": "        Runtime.getRuntime().halt(0);",
    "caught": "        try { System.exit(0); } catch (Throwable swallowed) { }",
    "thread": "        Thread t = new Thread(() -> System.exit(0)); t.start(); t.join();",
    "elsewhere": "        new Thread(() -> System.exit(0)).start();\n        Thread.sleep(60_000);",
}


@needs_jvm
@pytest.mark.parametrize("call", EXITS.values(), ids=EXITS.keys())
def test_leaving_before_the_checks_is_never_a_pass(runner: harness.FreshRunner | harness.WarmRunner, call: str) -> None:
    status, message = outcome(runner.run(program(main_class(f'{call}\n        System.out.println("checks ran");')), 30))
    assert status == "failed" and message.startswith("SystemExit: System.exit(0)")


@needs_jvm
def test_early_exit_in_a_golden_program_fails(runner: harness.FreshRunner | harness.WarmRunner) -> None:
    source = composed(instance("low_context", "1"))
    early = re.sub(r"(static void main\s*\([^)]*\)\s*(?:throws [\w., ]+)?\{)", r"\1 System.exit(0);", source, count=1)
    assert early != source
    assert outcome(runner.run(program(early), 30))[0] == "failed"


@needs_jvm
def test_a_busy_loop_times_out_and_the_runner_goes_on(runner: harness.FreshRunner | harness.WarmRunner) -> None:
    loop = program(main_class("        while (true) { }"))
    assert outcome(runner.run(loop, 3)) == ("timeout", "")
    assert outcome(runner.run(loop, 60, cpu=1)) == ("timeout", "busy")
    assert outcome(runner.run(program(main_class("        Thread.sleep(1500);")), 30, cpu=1)) == ("passed", "")  # waiting is not busy


@needs_jvm
def test_files_a_program_writes_do_not_reach_the_next(runner: harness.FreshRunner | harness.WarmRunner) -> None:
    writes = (
        '        java.nio.file.Files.writeString(java.nio.file.Path.of("left.txt"), "x");\n'
        '        java.io.File temp = java.io.File.createTempFile("left", ".txt");\n'
        '        java.nio.file.Files.writeString(java.nio.file.Path.of(System.getProperty("java.io.tmpdir"), "left-tmp.txt"), "x");\n'
        '        java.io.File locked = new java.io.File("locked"); locked.mkdir();\n'
        '        java.nio.file.Files.writeString(locked.toPath().resolve("in.txt"), "x"); locked.setWritable(false);\n'
        '        System.setProperty("simpilot.left", "yes");\n        java.util.Locale.setDefault(java.util.Locale.GERMANY);'
    )
    checks = (
        '        assert !new java.io.File("left.txt").exists() : "cwd";\n'
        '        assert !new java.io.File("locked").exists() : "locked";\n'
        '        assert !java.nio.file.Files.exists(java.nio.file.Path.of(System.getProperty("java.io.tmpdir"), "left-tmp.txt")) : "tmp";\n'
        '        assert System.getProperty("simpilot.left") == null : "property";\n'
        '        assert !java.util.Locale.getDefault().equals(java.util.Locale.GERMANY) : "locale";\n'
        '        assert new java.io.File(".").list().length == 0 : "empty";'
    )
    assert outcome(runner.run(program(main_class(writes)), 30)) == ("passed", "")
    assert outcome(runner.run(program(main_class(checks)), 30)) == ("passed", "")


@needs_jvm
def test_static_state_is_the_runs_own(warm: harness.WarmRunner) -> None:
    source = 'public class Main {\n    static int runs = 0;\n    public static void main(String[] a) { runs++; assert runs == 1 : "runs=" + runs; }\n}\n'
    for _ in range(3):
        assert outcome(warm.run(program(source), 30)) == ("passed", "")


@needs_jvm
def test_threads_are_waited_for_and_a_left_thread_replaces_the_jvm(warm: harness.WarmRunner) -> None:
    waited = main_class(
        '        new Thread(() -> { try { Thread.sleep(300); } catch (InterruptedException e) { } System.out.println("late"); }).start();'
    )
    result = warm.run(program(waited), 30)
    assert outcome(result) == ("passed", "") and "late" in result.output_tail
    starts = warm.starts
    daemon = main_class(
        "        Thread t = new Thread(() -> { while (true) { try { Thread.sleep(50); } catch (InterruptedException e) { } "
        'System.out.println("daemon"); } });\n        t.setDaemon(true); t.start();'
    )
    assert outcome(warm.run(program(daemon), 30)) == ("passed", "")
    after = warm.run(program(main_class("        Thread.sleep(200);")), 30)
    assert outcome(after) == ("passed", "") and "daemon" not in after.output_tail
    assert warm.starts == starts + 1
    hung = main_class(
        "        new Thread(() -> { while (true) { try { Thread.sleep(50); } catch (InterruptedException e) { } } }).start();"
    )
    assert outcome(warm.run(program(hung), 3)) == ("timeout", "")


@needs_jvm
def test_input_is_empty(runner: harness.FreshRunner | harness.WarmRunner) -> None:
    assert outcome(runner.run(program(main_class("        assert System.in.read() == -1;")), 30)) == ("passed", "")


@needs_jvm
@pytest.mark.skipif(_installed(LANG3) is None, reason=f"{LANG3} is not installed (Debian: apt-get install {LANG3})")
@pytest.mark.parametrize("warm_mode", [True, False], ids=["warm", "fresh"])
def test_a_provisioned_library_is_on_the_class_path_of_compile_and_run(tmp_path: Path, warm_mode: bool) -> None:
    harness.provision([LANG3], tmp_path / "env")
    made = harness.runner("java", Sandbox.create(), tmp_path / "env", warm_mode, tmp_path)
    try:
        source = main_class('        assert StringUtils.isBlank("  ") : "blank";', "import org.apache.commons.lang3.StringUtils;\n")
        assert outcome(made.run(program(source), 30)) == ("passed", "")
    finally:
        made.close()
    bare = harness.runner("java", Sandbox.create(), None, warm_mode, tmp_path)
    try:
        status, message = outcome(bare.run(program(source), 30))
        assert status == "failed" and "package org.apache.commons.lang3 does not exist" in message
    finally:
        bare.close()
