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

Libraries come from Debian's Java packages: :func:`needs` maps a program's imports to packages,
:func:`provision` installs them with apt and locks, for each, its jars and those of the Java
libraries it depends on; :func:`runner` gives each program the jars of its own needs only.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import zipfile
from collections.abc import Iterable
from pathlib import Path

from replay.core.errors import SimpilotError
from replay.core.paths import cache_root
from replay.execution.programs import Program, Runner, remove
from replay.execution.proof.check import Channel
from replay.execution.runners.junit import JVM_FLAGS, publish
from replay.execution.runners.warm import JvmServer, cpu_budget
from replay.execution.sandbox.bubblewrap import ProcessResult, Sandbox

LANGUAGE = "java"
LAUNCHER_SOURCE = Path(__file__).resolve().parents[1] / "inside" / "SimpilotProgram.java"
MAIN_CLASS = "SimpilotProgram"
CLASSPATH_FILE = "classpath"  # in a provisioned folder: every jar, one a line (for people; runs read the lock)
LOCK_FILE = "lock.json"  # in a provisioned folder: the packages' versions and the jars
APT_TIMEOUT = 1800.0
DPKG_TIMEOUT = 60.0
BUILD_TIMEOUT = 300.0
START_CPU = 2.0  # CPU seconds a fresh JVM spends starting and compiling a program before it runs

# Imports of what the JDK holds need nothing; the rest name the Debian packages shipping the jars.
# The longest matching prefix (whole dotted components) decides; an unknown import needs nothing
# installable, and the program then fails to compile, as it would on a machine without the jar.
JDK = ()
PACKAGES: dict[str, tuple[str, ...]] = {
    "java": JDK,
    "javax": JDK,
    "jdk": JDK,
    "sun": JDK,
    "com.sun": JDK,
    "org.w3c": JDK,
    "org.xml.sax": JDK,
    "org.ietf.jgss": JDK,
    "javax.xml.bind": ("libjaxb-api-java", "libjaxb-java"),  # left the JDK in 11; the API needs its implementation
    "javax.persistence": ("libgeronimo-jpa-2.0-spec-java",),
    "javax.inject": ("libatinject-jsr330-api-java",),
    "javax.servlet": ("libservlet-api-java",),
    "javax.annotation.PostConstruct": ("libgeronimo-annotation-1.3-spec-java",),
    "javax.annotation.PreDestroy": ("libgeronimo-annotation-1.3-spec-java",),
    "javax.annotation.Resource": ("libgeronimo-annotation-1.3-spec-java",),
    "javax.annotation.Generated": ("libgeronimo-annotation-1.3-spec-java",),
    "javax.annotation.Nonnull": ("libjsr305-java",),
    "javax.annotation.Nullable": ("libjsr305-java",),
    "org.junit": ("junit5",),  # the console-standalone jar holds JUnit 4's org.junit too
    "org.opentest4j": ("junit5",),
    "org.hamcrest": ("libhamcrest-java",),
    "org.mockito": ("libmockito-java",),
    "org.assertj": ("libassertj-core-java",),
    "org.apache.commons.lang3": ("libcommons-lang3-java",),
    "org.apache.commons.lang": ("libcommons-lang-java",),
    "org.apache.commons.text": ("libcommons-text-java",),
    "org.apache.commons.io": ("libcommons-io-java",),
    "org.apache.commons.compress": ("libcommons-compress-java",),
    "org.apache.commons.codec": ("libcommons-codec-java",),
    "org.apache.commons.math3": ("libcommons-math3-java",),
    "org.apache.commons.csv": ("libcommons-csv-java",),
    "org.apache.commons.cli": ("libcommons-cli-java",),
    "org.apache.commons.logging": ("libcommons-logging-java",),
    "org.apache.commons.collections4": ("libcommons-collections4-java",),
    "org.apache.commons.collections": ("libcommons-collections3-java",),
    "org.apache.commons.beanutils": ("libcommons-beanutils-java",),
    "org.apache.commons.dbcp2": ("libcommons-dbcp2-java",),
    "org.apache.commons.dbcp": ("libcommons-dbcp-java",),
    "org.apache.commons.pool2": ("libcommons-pool2-java",),
    "org.apache.commons.pool": ("libcommons-pool-java",),
    "org.apache.logging.log4j": ("liblog4j2-java",),
    "org.apache.log4j": ("liblog4j1.2-java",),
    "org.slf4j": ("libslf4j-java",),
    "org.apache.poi": ("libapache-poi-java",),
    "org.apache.http": ("libhttpclient-java",),
    "org.apache.derby": ("libderby-java",),
    "com.fasterxml.jackson.core": ("libjackson2-core-java",),
    "com.fasterxml.jackson.databind": ("libjackson2-databind-java",),
    "com.fasterxml.jackson.annotation": ("libjackson2-annotations-java",),
    "com.fasterxml.jackson.dataformat.xml": ("libjackson2-dataformat-xml-java",),
    "com.fasterxml.jackson.dataformat.yaml": ("libjackson2-dataformat-yaml",),
    "com.google.gson": ("libgoogle-gson-java",),
    "com.google.common": ("libguava-java",),
    "org.json": ("libandroid-json-java",),  # Debian has no json.org build; Android's has the same API
    "org.dom4j": ("libdom4j-java",),
    "org.jdom2": ("libjdom2-java",),
    "org.jsoup": ("libjsoup-java",),
    "org.yaml.snakeyaml": ("libyaml-snake-java",),
    "org.joda.time": ("libjoda-time-java",),
    "com.opencsv": ("libopencsv-java",),
    "com.thoughtworks.xstream": ("libxstream-java",),
    "org.springframework.context": ("libspring-context-java",),
    "org.springframework.beans": ("libspring-beans-java",),
    "org.springframework.core": ("libspring-core-java",),
    "org.springframework.jdbc": ("libspring-jdbc-java",),
    "org.hibernate": ("libhibernate3-java",),  # Hibernate 3.6: newer APIs (org.hibernate.query) fail to compile
    "org.h2": ("libh2-java",),
    "org.hsqldb": ("libhsqldb-java",),
    "org.sqlite": ("libxerial-sqlite-jdbc-java",),
}
# JDBC drivers are named in URLs rather than imported.
DRIVERS = {"h2": "libh2-java", "hsqldb": "libhsqldb-java", "derby": "libderby-java", "sqlite": "libxerial-sqlite-jdbc-java"}
# Packages that ship more jars than a program wants on its class path: the ones to take. The rest
# repeat them (JUnit 5's parts, in the standalone jar) or fight them (SLF4J's bindings and bridges,
# Log4j's adapters to other logging APIs), or are tools and test kits.
JARS = {
    "junit5": ("junit-platform-console-standalone.jar",),
    "libslf4j-java": ("slf4j-api.jar",),
    "liblog4j2-java": ("log4j-api.jar", "log4j-core.jar"),
    "libcommons-logging-java": ("commons-logging.jar",),
    "libhibernate3-java": ("hibernate-core.jar",),
    "libjaxb-java": ("jaxb-runtime.jar", "jaxb-core.jar"),
    "libistack-commons-java": ("istack-commons-runtime.jar",),
}
# Whose dependencies are not followed: the jars taken above need none of them (the standalone jar
# holds its own; Log4j's core needs its optional dependencies only for appenders such as MongoDB's).
LEAVES = frozenset({"junit5", "liblog4j2-java", "libistack-commons-java"})
# Never on a class path: build tools some libraries' packages depend on, and XML parsers that would
# replace the JDK's own (their service entries win over it) with an older API beside java.xml.
EXCLUDED = frozenset({"libxerces2-java", "libxml-commons-external-java"})
EXCLUDED_PREFIXES = ("libmaven", "libplexus", "libwagon", "libsisu")

_IMPORT = re.compile(r"^\s*import\s+(?:static\s+)?([\w.]+)(?:\s*\.\s*\*)?\s*;", re.M)
_QUALIFIED = re.compile(r"\b((?:org|com|javax)(?:\s*\.\s*[a-z_]\w*)+)\s*\.\s*[A-Z]")  # org.junit.Assert.assertEquals(...) without an import
_JDBC = re.compile(r"jdbc:(\w+):")
_VERSION = re.compile(r'version "(\d+)(?:\.(\d+))?')
# JDK 17 prints this when the launcher installs its security manager; it is not the program's output
_WARNING = re.compile(
    r"^WARNING: A terminally deprecated method in java\.lang\.System has been called\n"
    r"WARNING: System::setSecurityManager has been called by .*\n"
    r"WARNING: Please consider reporting this to the maintainers of .*\n"
    r"WARNING: System::setSecurityManager will be removed in a future release\n",
    re.M,
)


# -- what a program needs ------------------------------------------------------------------------


def missing(language: str) -> str | None:
    """Why this machine cannot run ``language``'s programs here, or None."""
    if language != LANGUAGE:
        return f"the Java program harness runs Java programs, not {language}"
    if not shutil.which("java") or not shutil.which("javac"):
        return "Java programs need a JDK (java and javac): install one (Debian/Ubuntu: apt-get install default-jdk-headless)"
    return None


def needs(sources: Iterable[str]) -> list[str]:
    """The Debian packages whose jars the programs' imports name (and their fully qualified names
    and JDBC URLs), sorted; what the JDK holds needs none."""
    found: set[str] = set()
    for source in sources:
        for name in [*_IMPORT.findall(source), *_QUALIFIED.findall(source)]:
            found.update(packages_of(re.sub(r"\s", "", name)))
        for driver in _JDBC.findall(source):
            if driver in DRIVERS:
                found.add(DRIVERS[driver])
    return sorted(found)


def packages_of(name: str) -> tuple[str, ...]:
    """The Debian packages an imported name (``org.dom4j.io.SAXReader``) needs: its longest known
    prefix's, else none."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        found = PACKAGES.get(".".join(parts[:end]))
        if found is not None:
            return found
    return ()


# -- installing it -------------------------------------------------------------------------------


def provision(needed: Iterable[str], folder: Path) -> dict[str, str]:
    """Install the Debian packages ``needed`` (apt-get, as root; never inside a sandbox), then
    write into ``folder`` the lock (``lock.json``: each package's version, and for each needed
    package the jars of it and of the Java libraries it depends on, in class-path order) and the
    class path of them all (``classpath``, one jar a line). Returns each package on a class path
    with its version; a needed package apt could not install is left out (its programs then fail
    to compile, as on a machine without it)."""
    wanted = sorted(set(needed))
    absent = [name for name in wanted if _status(name) is None]
    if absent:
        _apt_install(absent)
    closures = {name: _closure(name) for name in wanted if _status(name) is not None}
    versions = dict(sorted({pkg: version for closure in closures.values() for pkg, version in closure.items()}.items()))
    shipped = {pkg: _jars(pkg) for pkg in versions}
    jars = {name: list(dict.fromkeys(jar for pkg in closure for jar in shipped[pkg])) for name, closure in closures.items()}
    folder.mkdir(parents=True, exist_ok=True)
    every = dict.fromkeys(jar for name in sorted(jars) for jar in jars[name])
    (folder / CLASSPATH_FILE).write_text("".join(f"{jar}\n" for jar in every))
    lock = {"packages": versions, "jars": jars}
    (folder / LOCK_FILE).write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n")
    return versions


def _apt_install(names: list[str]) -> None:
    """``apt-get install`` ``names`` (refreshing the package lists once when a name is unknown);
    when the whole set fails, each one alone, so that one missing package does not keep the rest
    out. Raises when nothing could be installed, or when this process may not install (not root)."""
    command = ["apt-get", "install", "-y", "--no-install-recommends", "-o", "DPkg::Lock::Timeout=600"]
    if os.geteuid() != 0:
        raise SimpilotError(
            f"the Java programs need Debian packages that are not installed: run `sudo {' '.join([*command, *names])}`, then run again"
        )
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}

    def install(packages: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*command, *packages], capture_output=True, text=True, env=env, timeout=APT_TIMEOUT)

    proc = install(names)
    if proc.returncode != 0 and "Unable to locate package" in proc.stderr:
        subprocess.run(["apt-get", "update", "-o", "DPkg::Lock::Timeout=600"], capture_output=True, env=env, timeout=APT_TIMEOUT)
        proc = install(names)
    if proc.returncode == 0:
        return
    failed = [name for name in names if install([name]).returncode != 0] if len(names) > 1 else names
    if len(failed) == len(names):
        raise SimpilotError(f"`{' '.join([*command, *names])}` failed: {(proc.stderr or proc.stdout).strip()[-400:]}")


def _status(name: str) -> tuple[str, list[str]] | None:
    """An installed package's version and dependencies (the first of each set of alternatives), or None."""
    proc = subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}\t${Version}\t${Depends}", name], capture_output=True, text=True, timeout=DPKG_TIMEOUT
    )
    fields = proc.stdout.split("\t")
    if proc.returncode != 0 or len(fields) < 3 or not fields[0].endswith(" installed"):
        return None
    return fields[1], [d for d in _dependencies(fields[2]) if d]


def _dependencies(depends: str) -> list[str]:
    """Package names of a ``Depends`` field: the first of each group of alternatives."""
    names = []
    for group in depends.split(","):
        first = group.split("|")[0].strip()
        names.append(re.split(r"[\s(:]", first, maxsplit=1)[0])
    return names


def _closure(name: str) -> dict[str, str]:
    """``name`` and the installed Java libraries it depends on, directly or not, with their
    versions, breadth first (the class-path order)."""
    versions: dict[str, str] = {}
    todo = [name]
    while todo:
        current = todo.pop(0)
        found = _status(current) if current not in versions else None
        if found is None:
            continue
        versions[current] = found[0]
        if current not in LEAVES:
            todo += [d for d in found[1] if _library(d)]
    return versions


def _library(name: str) -> bool:
    """Whether a dependency ``name`` may bring jars to a program's class path."""
    if name in EXCLUDED or name.startswith(EXCLUDED_PREFIXES):
        return False
    return name.endswith("-java") or name in JARS


def _jars(name: str) -> list[str]:
    """The jars a package ships in /usr/share/java, one path per jar file (versioned links left
    out), or the ones :data:`JARS` picks of them."""
    proc = subprocess.run(["dpkg-query", "-L", name], capture_output=True, text=True, timeout=DPKG_TIMEOUT)
    paths = [p for p in proc.stdout.splitlines() if p.startswith("/usr/share/java/") and p.endswith(".jar") and p.count("/") == 4]
    names: dict[str, set[str]] = {}  # a jar file: every name it has there
    chosen: dict[str, str] = {}
    for path in sorted(paths, key=lambda p: (len(p), p)):  # the shortest name: foo.jar over foo-1.2.jar
        real = os.path.realpath(path)
        chosen.setdefault(real, path)
        names.setdefault(real, {os.path.basename(real)}).add(os.path.basename(path))
    wanted = set(JARS.get(name, ()))
    picked = sorted(path for real, path in chosen.items() if names[real] & wanted)
    return picked or sorted(chosen.values())


def environment_jars(environment: Path | None) -> dict[str, tuple[str, ...]]:
    """What a provisioned ``environment`` holds: for each package it was given, the jars a program
    needing it gets on its class path (nothing without one)."""
    if environment is None:
        return {}
    lock = environment / LOCK_FILE
    if not lock.is_file():
        raise SimpilotError(f"{environment} holds no Java lock ({LOCK_FILE}): provision it first (programs.java.provision)")
    jars = {name: tuple(paths) for name, paths in json.loads(lock.read_text())["jars"].items()}
    gone = [jar for paths in jars.values() for jar in paths if not os.path.isfile(jar)]
    if gone:
        raise SimpilotError(f"{gone[0]}, on a class path of {environment}, is gone: provision the environment again")
    return jars


def program_jars(source: str, jars: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The class path of one program: the jars of the packages its imports need, as provisioned.
    Each program gets only its own, as it would from a build file naming its dependencies: a
    library another program needs (an XML parser with a service entry, say) does not change it."""
    return tuple(dict.fromkeys(jar for name in needs([source]) for jar in jars.get(name, ())))


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
    key = hashlib.sha256(LAUNCHER_SOURCE.read_bytes() + version.encode() + " ".join(JVM_FLAGS).encode()).hexdigest()[:16]
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
        classes = work / "classes"
        proc = subprocess.run(
            [javac, "-Xlint:-removal", "-d", str(classes), str(LAUNCHER_SOURCE)], capture_output=True, text=True, timeout=BUILD_TIMEOUT
        )
        if proc.returncode != 0:
            raise SimpilotError(f"could not compile simpilot's Java program launcher with {javac}: {proc.stderr.strip()[-300:]}")
        with zipfile.ZipFile(work / "launcher.jar", "w") as zf:
            for f in sorted(classes.rglob("*.class")):
                zf.write(f, f.relative_to(classes).as_posix())
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
        self.folder = Path(tempfile.mkdtemp(prefix="simpilot-java-", dir=workdir))

    def run(self, program: Program, timeout: float, cpu: float | None = None) -> ProcessResult:
        folder = Path(tempfile.mkdtemp(prefix="run-", dir=self.folder))
        try:
            work = folder / "work"
            work.mkdir()
            source = folder / "program.java"  # outside the work folder: the program does not find itself there
            source.write_text(program.source, encoding="utf-8")
            tmpdir = None if self.sandbox.enabled else str(folder / "tmp")  # a sandbox has a /tmp of its own
            if tmpdir is not None:
                os.makedirs(tmpdir)
            sandbox = self.sandbox
            if cpu is not None:
                budget = cpu_budget(cpu + START_CPU, sandbox.limits.cpu_seconds)
                sandbox = dataclasses.replace(sandbox, limits=dataclasses.replace(sandbox.limits, cpu_seconds=budget))
            with Channel() as channel:
                command = self.launcher.fresh_command(program_jars(program.source, self.jars), source, tmpdir)
                result = sandbox.run(command, work, timeout, channel=channel)
            # how it ended (CPU time at the budget, memory, ...) the sandbox decided, by its limits
            return dataclasses.replace(result, output_tail=_WARNING.sub("", result.output_tail, count=1))
        finally:
            remove(folder)

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
        self.folder = Path(tempfile.mkdtemp(prefix="simpilot-java-warm-", dir=workdir))
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
