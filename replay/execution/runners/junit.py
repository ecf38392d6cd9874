"""Running a Java repository's JUnit 5 tests so that the edited source shadows everything else.

Each work copy compiles the repository's main and test sources once, inside the sandbox, into
``.simpilot/classes/{main,test}``. A test run then compiles only the edited file into a fresh
folder that comes *first* on the class path and runs the selected test classes or methods
(``pkg.FooTest``, ``pkg.FooTest#adds``), compiler and JUnit in one JVM (``java/SimpilotJUnit.java``).
A repository without a test command has its whole suite run the same way (``--scan``). Recompiling one file is sound because a hole lies
inside a method, constructor or initializer body: it cannot change a signature or a constant that
another class inlined. SimCopilot's reference scripts let pre-compiled jars shadow the model's
code; the validation gate ("the blanked hole must fail") proves ours does not.

The runner itself is our own code, built once per machine into simpilot's cache together with a
class-data-sharing archive that trims JVM start-up, the cost that dominates a Java test run. Work
copies keep it running (``--serve``, see ``warm.py``) so that most runs pay no start-up at all.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from replay.config.manifest import Manifest
from replay.core.errors import SimpilotError
from replay.core.paths import cache_root
from replay.core.records import Status

CLASSES = ".simpilot/classes"
RUNNER_SOURCE = Path(__file__).resolve().parents[1] / "inside" / "SimpilotJUnit.java"
# the proof protocol of both Java launchers (this runner and the program launcher), compiled with each
PROOF_SOURCE = RUNNER_SOURCE.with_name("SimpilotProof.java")
# Quick start-up over peak speed (tests are short); a bounded heap and code cache so the JVM's
# up-front address-space reservations fit the sandbox's memory limit; no attach mechanism, through
# which a process the tests start could load an agent that rewrites the runner's classes.
JVM_FLAGS = (
    "-XX:+DisableAttachMechanism",
    "-XX:TieredStopAtLevel=1",
    "-XX:+UseSerialGC",
    "-XX:-UsePerfData",
    "-Xlog:disable",
    "-Xss4m",
    "-Xmx1g",
    "-XX:ReservedCodeCacheSize=64m",
    "-XX:CompressedClassSpaceSize=128m",
)
EXIT_COMPILE_ERROR = 3
EXIT_NO_TESTS = 4

_COMPILE_ERROR = re.compile(r"^(?:SIMPILOT-COMPILE-ERROR (.*)|(\S+\.java:\d+: error: .*))$", re.M)
_FAILED = re.compile(r"^SIMPILOT-FAILED (.*?) => ([\w.$]+)(?::(.*))?$", re.M)
_CONSOLE_FAILED = re.compile(r"=> ([\w.$]+(?:Error|Exception|Failure|Failures)\w*)(?::(.*))?$", re.M)
_ASSERTIONS = ("AssertionFailedError", "AssertionError", "MultipleFailuresError", "ComparisonFailure")


def junit_jar() -> Path:
    return Path(os.environ.get("SIMPILOT_JUNIT_JAR", "/usr/share/java/junit-platform-console-standalone.jar"))


def _cache_root() -> Path:
    return cache_root() / "java"


@dataclass(frozen=True, slots=True)
class JavaToolchain:
    java: str
    javac: str
    junit: Path
    runner: Path  # runner.jar
    archive: Path | None  # class-data-sharing archive, when the JVM could write one

    def jvm(self) -> list[str]:
        flags = [self.java, *JVM_FLAGS]
        if self.archive is not None:
            flags.append(f"-XX:SharedArchiveFile={self.archive}")
        return flags

    def compile_commands(self, manifest: Manifest, root: Path) -> list[list[str]]:
        """javac commands that build the untouched main and test classes of a work copy."""
        main = _java_files(root, manifest.sources)
        tests = _java_files(root, manifest.tests)
        extra = [str(root / c) for c in manifest.classpath]
        common = [
            self.javac,
            *(f"-J{flag}" for flag in JVM_FLAGS if flag != "-Xlog:disable"),
            "-encoding",
            "UTF-8",
            "-proc:none",
            "-nowarn",
            "-implicit:none",
        ]
        main_cp = ":".join(extra) or "."
        commands = [[*common, "-d", f"{CLASSES}/main", "-cp", main_cp, *main]]
        if tests:
            test_cp = ":".join([f"{CLASSES}/main", str(self.junit), *extra])
            commands.append([*common, "-d", f"{CLASSES}/test", "-cp", test_cp, *tests])
        return commands

    def test_command(self, manifest: Manifest, edited: str | None, tests: tuple[str, ...] | None) -> list[str]:
        """Compile ``edited`` (a repository-relative path) first, then run ``tests`` (class names,
        or ``Class#method`` for one test method), or every test class when ``tests`` is None."""
        return [*self._launch(manifest), *run_arguments(edited, tests)]

    def server_command(self, manifest: Manifest, sandboxed: bool) -> list[str]:
        """The runner kept warm for many runs, each one line of :func:`run_arguments` (the
        server adds ``--channel PATH``, its request channel). ``sandboxed``: the JVM's ``/tmp``
        and ``/dev/shm`` are a sandbox's own, emptied after each run (never the machine's)."""
        return [*self._launch(manifest), "--serve", *(["--clean-tmp"] if sandboxed else [])]

    def _launch(self, manifest: Manifest) -> list[str]:
        classpath = ":".join([f"{CLASSES}/main", f"{CLASSES}/test", str(self.junit), *manifest.classpath])
        return [*self.jvm(), "-cp", f"{self.junit}:{self.runner}", "SimpilotJUnit", "--classpath", classpath]


def run_arguments(edited: str | None, tests: tuple[str, ...] | None) -> list[str]:
    """The runner's arguments for one run: compile ``edited``, then run ``tests`` (all: None)."""
    argv = ["--compile", edited] if edited is not None else []
    if tests is None:
        return [*argv, "--scan", f"{CLASSES}/test"]
    for name in tests:
        argv += ["--select", name]
    return argv


def _java_files(root: Path, folders: tuple[str, ...]) -> list[str]:
    found: list[str] = []
    for folder in folders:
        base = root / folder
        if base.is_dir():
            found += sorted(p.relative_to(root).as_posix() for p in base.rglob("*.java"))
    return found


@functools.cache
def toolchain() -> JavaToolchain:
    """The JDK, JUnit and the runner, checked once per process; a clear error when missing."""
    java, javac = shutil.which("java"), shutil.which("javac")
    if not java or not javac:
        raise SimpilotError(
            "Java repositories need a JDK (java and javac): install one (Debian/Ubuntu: apt-get install default-jdk-headless)"
        )
    jar = junit_jar()
    if not jar.is_file():
        raise SimpilotError(
            f"JUnit 5 is not installed at {jar}: install it (Debian/Ubuntu: apt-get install junit5) or set SIMPILOT_JUNIT_JAR"
        )
    version = subprocess.run([java, "-version"], capture_output=True, text=True).stderr
    key = hashlib.sha256(launcher_bytes(RUNNER_SOURCE) + version.encode() + str(jar).encode()).hexdigest()[:16]
    home = _cache_root() / key
    if not (home / "runner.jar").is_file():
        _build_runner(home, javac, java, jar)
    archive = home / "app.jsa"
    return JavaToolchain(java, javac, jar, home / "runner.jar", archive if archive.is_file() else None)


_SELF_TEST = """import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
class SelfTest { @Test void adds() { assertEquals(4, 2 + 2); } }
"""


def _build_runner(home: Path, javac: str, java: str, jar: Path) -> None:
    """Compile the runner into a jar, then run it once on a tiny test to record which classes a
    run loads (the class-data-sharing archive; optional: older JVMs just skip it)."""
    home.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=home.parent) as tmp:
        work = Path(tmp)
        build_jar([javac, "-cp", str(jar)], RUNNER_SOURCE, work / "runner.jar", "JUnit runner")
        (work / "SelfTest.java").write_text(_SELF_TEST)
        probe = [
            java,
            *JVM_FLAGS,
            f"-XX:ArchiveClassesAtExit={work / 'app.jsa'}",
            "-cp",
            f"{jar}:{work / 'runner.jar'}",
            "SimpilotJUnit",
            "--classpath",
            str(jar),
            "--compile",
            "SelfTest.java",
            "--select",
            "SelfTest",
        ]
        proc = subprocess.run(probe, cwd=work, capture_output=True, text=True, timeout=300)
        if proc.returncode != 0 or "succeeded=1" not in proc.stdout:
            raise SimpilotError(f"simpilot's JUnit runner failed its self-test with {jar}: {(proc.stdout + proc.stderr).strip()[-300:]}")
        publish(work, home, ("runner.jar", "app.jsa"))


def launcher_bytes(source: Path) -> bytes:
    """What a Java launcher is built from (``source`` and the proof protocol): its cache key's part."""
    return source.read_bytes() + PROOF_SOURCE.read_bytes()


def build_jar(javac: list[str], source: Path, jar: Path, what: str, timeout: float | None = None) -> None:
    """Compile the launcher ``source`` with the proof protocol (``javac``: the compiler and its
    options) into the jar ``jar``, its classes staged in a folder beside it; raises naming ``what``
    when it does not compile."""
    classes = jar.parent / "classes"
    command = [*javac, "-d", str(classes), str(source), str(PROOF_SOURCE)]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise SimpilotError(f"could not compile simpilot's {what} with {javac[0]}: {proc.stderr.strip()[-300:]}")
    with zipfile.ZipFile(jar, "w") as zf:
        for f in sorted(classes.rglob("*.class")):
            zf.write(f, f.relative_to(classes).as_posix())


def publish(work: Path, home: Path, names: tuple[str, ...]) -> None:
    """Move the built ``names`` from ``work`` into the cache folder ``home`` in one rename, so
    that another process sees a whole build or none (the first build of two racing wins)."""
    staged = work / "out"
    staged.mkdir()
    for name in names:
        if (work / name).is_file():
            (work / name).rename(staged / name)
    try:
        staged.rename(home)
    except OSError:  # another process built it first
        pass


def classify(output: str) -> tuple[Status, str] | None:
    """The failure class of a Java test run's output, or None when nothing Java-specific shows.

    Compile errors come first (nothing ran); "cannot find symbol" is the Java face of a
    hallucinated name. A failed assertion is ``fail``; any other exception ``runtime_error``.
    """
    compile_errors = [a or b for a, b in _COMPILE_ERROR.findall(output)]
    if compile_errors:
        unresolved = [e for e in compile_errors if "cannot find symbol" in e or "cant.resolve" in e]
        if unresolved:
            return Status.UNDEFINED_NAME, unresolved[0]
        return Status.COMPILE_ERROR, compile_errors[0]
    failed = [(name, exc, (msg or "").strip()) for name, exc, msg in _FAILED.findall(output)]
    if not failed:
        failed = [("", exc, (msg or "").strip()) for exc, msg in _CONSOLE_FAILED.findall(output)]
    if not failed:
        return None
    name, exc, msg = failed[0]
    detail = (f"{name} => " if name else "") + exc + (f": {msg}" if msg else "")  # a message may end in '>' or ':'
    if all(e.rsplit(".", 1)[-1] in _ASSERTIONS for _, e, _ in failed):
        return Status.FAIL, detail
    return Status.RUNTIME_ERROR, detail
