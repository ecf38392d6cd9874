"""What Java programs need: the Debian packages whose jars their imports name, installed and locked.

Libraries come from Debian's Java packages: :func:`needs` maps a program's imports (and fully
qualified names, and JDBC URLs) to packages, :func:`provision` installs them with apt and locks,
for each, its jars and those of the Java libraries it depends on; :func:`program_jars` gives each
program the jars of its own needs only.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path

from replay.core.errors import SimpilotError

CLASSPATH_FILE = "classpath"  # in a provisioned folder: every jar, one a line (for people; runs read the lock)
LOCK_FILE = "lock.json"  # in a provisioned folder: the packages' versions and the jars
APT_TIMEOUT = 1800.0
DPKG_TIMEOUT = 60.0


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


# -- what a program needs ------------------------------------------------------------------------


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
