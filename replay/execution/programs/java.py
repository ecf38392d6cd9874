"""Java programs: compile one file in memory, run its ``main`` with assertions on, prove its end.

DevBench's Java instances are whole programs whose checks are ``assert`` statements (or JUnit's
``Assert`` calls) in ``main``. simpilot's launcher (``java/SimpilotProgram.java``, built once per
machine and JDK into simpilot's cache, like the JUnit runner, with a class-data-sharing archive)
takes the run's token before any of the program's code runs, compiles the program with
``javax.tools`` (in a file named after its public class, so javac's checks and messages are the
ones ``javac File.java`` gives; a ``package`` declaration is respected), loads it and its library
jars in class loaders of the run's own with assertions enabled (what ``-ea`` does for a class
loader), runs ``main`` in a thread named ``main``, waits for the non-daemon threads it started (as
a JVM does before it exits), and only then writes the records. A ``System.exit`` (or ``halt``) of
the program becomes an error through a security manager, and the run fails even when the program
caught it (JDK 17 needs ``-Djava.security.manager=allow``; on a JDK without one, exit ends the JVM
before any pass was written: no pass either way).

* fresh (``warm=False``): one sandboxed JVM per program, in an empty folder of its own. The
  launcher compiles in that JVM rather than running ``javac`` before ``java``: one JVM start
  instead of two, and the very code path of the warm mode, so both give the same diagnostics.
* warm (``warm=True``): one sandboxed JVM per runner, one compiler and one file manager for all
  runs. It speaks :class:`warm.JvmServer`'s line protocol, so the reading of answers, the CPU
  budget and the restarts are that class's. After each run the JVM puts back what a new JVM would
  not carry over (standard streams, system properties, default locale and time zone,
  java.util.logging's configuration, the MBeans the run registered) and deletes what the run added
  to its working folder and its ``/tmp``; a run that leaves a thread running, files it cannot
  delete, a shutdown hook, a JDBC driver or another JVM-wide registration has the JVM replaced
  before the next run.

Libraries come from Debian's Java packages (``java_packages.py``); :func:`runner` gives each
program the jars of its own needs only.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from replay.core.errors import SimpilotError
from replay.core.paths import cache_root
from replay.execution.programs import INSIDE, Program, Runner, remove
from replay.execution.programs.java_packages import DPKG_TIMEOUT, environment_jars, needs, program_jars, provision
from replay.execution.programs.scratch import budgeted, run_folder, runner_home
from replay.execution.proof.check import Channel
from replay.execution.runners.junit import JVM_FLAGS, build_jar, launcher_bytes, publish
from replay.execution.runners.warm import JvmServer
from replay.execution.sandbox.bubblewrap import ProcessResult, Sandbox

LANGUAGE = "java"
LAUNCHER_SOURCE = INSIDE / "SimpilotProgram.java"
MAIN_CLASS = "SimpilotProgram"
BUILD_TIMEOUT = 300.0
START_CPU = 2.0  # CPU seconds a fresh JVM spends starting and compiling a program before it runs
_VERSION = re.compile(r'version "(\d+)(?:\.(\d+))?')
# JDK 17 prints this when the launcher installs its security manager; it is not the program's output
_WARNING = re.compile(
    r"^WARNING: A terminally deprecated method in java\.lang\.System has been called\n"
    r"WARNING: System::setSecurityManager has been called by .*\n"
    r"WARNING: Please consider reporting this to the maintainers of .*\n"
    r"WARNING: System::setSecurityManager will be removed in a future release\n",
    re.M,
)


def missing(language: str) -> str | None:
    """Why this machine cannot run ``language``'s programs here, or None."""
    if language != LANGUAGE:
        return f"the Java program harness runs Java programs, not {language}"
    if not shutil.which("java") or not shutil.which("javac"):
        return "Java programs need a JDK (java and javac): install one (Debian/Ubuntu: apt-get install default-jdk-headless)"
    return None


# -- the launcher --------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class Launcher:
    """The JVM and simpilot's program launcher, built into the cache."""

    java: str
    jar: Path
    archive: Path | None  # class-data-sharing archive, when the JVM could write one
    major: int  # the JDK's feature version

    def jvm(self, tmpdir: str | None) -> list[str]:
        """The JVM's command line up to the main class. ``tmpdir``: the JVM's temporary folder
        (None: ``/tmp``, which in a sandbox is the sandbox's own; naming it on the command line
        would bind the machine's). Where the JDK still has a security manager, it is allowed,
        so that the launcher can turn System.exit into an error."""
        flags = [self.java, *JVM_FLAGS, *([f"-Djava.io.tmpdir={tmpdir}"] if tmpdir else [])]
        if 12 <= self.major < 24:
            flags.append("-Djava.security.manager=allow")
        if self.archive is not None:
            flags.append(f"-XX:SharedArchiveFile={self.archive}")
        return [*flags, "-cp", str(self.jar), MAIN_CLASS]

    def fresh_command(self, jars: tuple[str, ...], source: Path, tmpdir: str | None) -> list[str]:
        return [*self.jvm(tmpdir), "--classpath", ":".join(jars), "--source", str(source)]

    def serve_command(self, tmpdir: str | None, sandboxed: bool) -> list[str]:
        """The resident launcher (each request names its class path); ``sandboxed``: its /tmp is
        the sandbox's own, to be emptied after each run."""
        return [*self.jvm(tmpdir), "--serve", *(["--sandboxed"] if sandboxed else [])]


@functools.cache
def launcher() -> Launcher:
    """The launcher, built once per machine and JDK; a clear error without a JDK."""
    java, javac = shutil.which("java"), shutil.which("javac")
    if not java or not javac:
        raise SimpilotError(missing(LANGUAGE) or "no JDK")
    version = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=DPKG_TIMEOUT).stderr
    found = _VERSION.search(version)
    major = 0 if found is None else int(found.group(2) if found.group(1) == "1" and found.group(2) else found.group(1))
    key = hashlib.sha256(launcher_bytes(LAUNCHER_SOURCE) + version.encode() + " ".join(JVM_FLAGS).encode()).hexdigest()[:16]
    home = cache_root() / "java-programs" / key
    if not (home / "launcher.jar").is_file():
        _build(home, javac, Launcher(java, home / "launcher.jar", None, major))
    archive = home / "app.jsa"
    return Launcher(java, home / "launcher.jar", archive if archive.is_file() else None, major)


_SELF_TEST = """import java.util.*;
import java.util.stream.*;
public class SelfTest {
    public static void main(String[] args) {
        List<Integer> squares = IntStream.range(0, 10).map(i -> i * i).boxed().collect(Collectors.toList());
        Map<String, Integer> named = new HashMap<>();
        squares.forEach(s -> named.put("s" + s, s));
        assert named.size() == 10 : String.format("expected %d", 10);
        System.out.println("self-test passed");
    }
}
"""


def _build(home: Path, javac: str, unarchived: Launcher) -> None:
    """Compile the launcher into a jar, then run it once on a small program to record the classes
    a run loads (the class-data-sharing archive; optional: a JVM that cannot write one skips it)."""
    home.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=home.parent) as tmp:
        work = Path(tmp)
        build_jar([javac, "-Xlint:-removal"], LAUNCHER_SOURCE, work / "launcher.jar", "Java program launcher", BUILD_TIMEOUT)
        (work / "SelfTest.java").write_text(_SELF_TEST)
        probe = dataclasses.replace(unarchived, jar=work / "launcher.jar").fresh_command((), work / "SelfTest.java", tmp)
        probe.insert(len(JVM_FLAGS) + 1, f"-XX:ArchiveClassesAtExit={work / 'app.jsa'}")
        proc = subprocess.run(probe, cwd=work, capture_output=True, text=True, timeout=BUILD_TIMEOUT)
        if proc.returncode != 0 or "self-test passed" not in proc.stdout:
            raise SimpilotError(f"simpilot's Java program launcher failed its self-test: {(proc.stdout + proc.stderr).strip()[-300:]}")
        publish(work, home, ("launcher.jar", "app.jsa"))


# -- running programs ----------------------------------------------------------------------------


def runner(language: str, sandbox: Sandbox, environment: Path | None, warm: bool, workdir: Path | None = None) -> Runner:
    """A runner of ``language``'s programs, each with the jars of ``environment`` it needs on its class path;
    its scratch folders are made in a folder of its own in ``workdir`` (None: the system's
    temporary folder), deleted when it closes."""
    why = missing(language)
    if why is not None:
        raise SimpilotError(why)
    jars = environment_jars(environment)
    if workdir is not None:
        workdir.mkdir(parents=True, exist_ok=True)
    if warm:
        return WarmRunner(sandbox, launcher(), jars, workdir)
    return FreshRunner(sandbox, launcher(), jars, workdir)


class FreshRunner:
    """A JVM per program, in an empty folder of its own. The CPU budget is enforced by the kernel
    on the JVM's whole CPU time, so it gets :data:`START_CPU` more: what starting the JVM and
    compiling take, which the warm JVM paid before its runs (whose budget counts only the run)."""

    def __init__(self, sandbox: Sandbox, launcher: Launcher, jars: dict[str, tuple[str, ...]], workdir: Path | None):
        self.sandbox, self.launcher, self.jars = sandbox, launcher, jars
        self.folder = runner_home("simpilot-java-", workdir)

    def run(self, program: Program, timeout: float, cpu: float | None = None) -> ProcessResult:
        with run_folder(self.folder, program, "program.java") as (folder, source):
            tmpdir = None if self.sandbox.enabled else str(folder / "tmp")  # a sandbox has a /tmp of its own
            if tmpdir is not None:
                os.makedirs(tmpdir)
            sandbox = budgeted(self.sandbox, cpu + START_CPU if cpu is not None else None)
            with Channel() as channel:
                command = self.launcher.fresh_command(program_jars(program.source, self.jars), source, tmpdir)
                result = sandbox.run(command, folder / "work", timeout, channel=channel)
            # how it ended (CPU time at the budget, memory, ...) the sandbox decided, by its limits
            return dataclasses.replace(result, output_tail=_WARNING.sub("", result.output_tail, count=1))

    def close(self) -> None:
        remove(self.folder)


class _ProgramServer(JvmServer):
    """The launcher's ``--serve`` mode: it speaks the JUnit server's protocol (a request line of
    tab-separated arguments ending in ``--token TOKEN``; the output, the records, maybe
    ``SIMPILOT-RESTART``, then ``SIMPILOT-EXIT TOKEN STATUS``), so its reading, CPU budget and
    restarts are :meth:`JvmServer.run`'s. Its working folder is emptied by the server after each
    run and here, again, whenever the server is replaced."""

    def __init__(self, sandbox: Sandbox, workdir: Path, command: list[str], scratch: tuple[Path, ...]):
        super().__init__(sandbox, workdir, command, {})
        self.scratch = scratch

    def close(self) -> None:
        super().close()
        for folder in self.scratch:
            remove(folder, keep=True)


class WarmRunner:
    """One resident JVM for many programs (see the module's docstring)."""

    def __init__(self, sandbox: Sandbox, launcher: Launcher, jars: dict[str, tuple[str, ...]], workdir: Path | None):
        self.jars = jars
        self.folder = runner_home("simpilot-java-warm-", workdir)
        work = self.folder / "work"
        work.mkdir()
        scratch = [work]
        tmpdir = None  # the sandbox's own /tmp, where the server deletes what a run added
        if not sandbox.enabled:
            (self.folder / "tmp").mkdir()
            tmpdir = str(self.folder / "tmp")
            scratch.append(self.folder / "tmp")
        self.server = _ProgramServer(sandbox, work, launcher.serve_command(tmpdir, sandbox.enabled), tuple(scratch))

    @property
    def starts(self) -> int:
        """How many JVMs this runner has started (a restart is one more)."""
        return self.server.starts

    def run(self, program: Program, timeout: float, cpu: float | None = None) -> ProcessResult:
        encoded = base64.b64encode(program.source.encode("utf-8")).decode("ascii")
        classpath = ":".join(program_jars(program.source, self.jars))
        return self.server.run(["--classpath", classpath, "--source64", encoded], timeout, cpu)

    def close(self) -> None:
        self.server.close()
        remove(self.folder)


__all__ = ["FreshRunner", "WarmRunner", "launcher", "missing", "needs", "provision", "runner"]
