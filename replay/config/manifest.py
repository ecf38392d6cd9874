"""Repository manifests: what simpilot needs to know about a repository to mark and test it.

A manifest is a TOML file, ``simpilot.toml`` at the repository root (or anywhere, for a
repository that the tool checks out from git)::

    [repository]
    name = "sparsela"
    language = "python"
    sources = ["sparsela"]          # folders whose files may hold holes
    tests = ["tests"]               # test folders: never marked, never shown to the model
    test_command = ["{python}", "-m", "pytest", "-q", "-x", "tests"]
    setup = []                      # commands run once in each fresh work copy
    timeout = 60                    # seconds for one test run
    env = { TZ = "UTC" }            # extra environment for the tests
    junit_xml = false               # test_command writes JUnit XML reports into $SIMPILOT_REPORTS
    compare_output = false          # no test suite: test_command runs a program, its output is the test
    # compare_lines = "^result"     # with compare_output, optional: compare only the lines matching this

    [environment]                   # Python only, optional: the interpreter that runs the tests
    setup = ["pip install -e '.[test]'"]   # build a venv once (cached), or:
    # python = ".venv"              # an interpreter or a venv folder (relative to the root)

    [programs]                      # optional: every source file is a whole program (DevBench's instances)
    checks = "checks"               # its checks: the file of the same relative path here, appended when it runs
    # environment = "<folder>"      # what 'simpilot import devbench --provision' installed for the programs

    [java]                          # Java only, optional
    classpath = ["lib/guava.jar"]   # extra jars for compiling and testing (JUnit 5 is added)

    [source]                        # optional: check the repository out instead
    git = "https://git.example.com/team/sparsela.git"
    commit = "3f2a…"                # a full commit id: runs must be reproducible

``{python}`` in a command stands for the tests' interpreter: the interpreter running simpilot, or
the ``[environment]``'s. ``[environment] python`` names an interpreter or a venv folder that has
the repository's dependencies (only ever read); ``[environment] setup`` lists commands (a string
is a shell command line, a list an argument vector) that install them into a venv simpilot
creates, run once outside the sandbox in a throw-away copy of the repository (they may download),
with the venv's ``bin`` first on ``PATH``; the venv is cached under ``envs/`` in simpilot's cache
folder, keyed by the commands, the dependency files and the base interpreter (``python``, if
also given, else simpilot's). simpilot's pytest plugins, and pytest, pytest-cov and coverage from
simpilot's own site-packages when the Python versions match, are appended to the tests'
``sys.path``; another version needs pytest and pytest-cov of its own (``environment.py``). The
work copy's code always comes first on ``sys.path``: a ``src/`` folder of packages (``sources``
under ``src/``, or a ``src/`` holding packages) goes on ``PYTHONPATH`` with no setting.

The pytest plugins a Python repository's tests load are those of its environment (what ``[environment]
setup`` installed, what the interpreter ``[environment] python`` names has), as in its own checkout;
simpilot's own (pytest-asyncio, pytest-timeout…) never load for them, and its proof reporter and
test selector are named with ``-p``. A manifest whose ``env`` sets ``PYTEST_DISABLE_PLUGIN_AUTOLOAD``
loads only the plugins its command names (``environments/plugins.py``).

``test_command`` is the repository's own way of running its whole suite (``--full-suite``). A
Java repository may leave it out: simpilot then compiles ``sources`` and ``tests`` with javac (``[java] classpath`` added) and
runs JUnit 5 itself for everything — the untouched-code check, and with ``--full-suite`` every test
class, each test proven by its own result; ``test_command`` is for Maven or Gradle builds.

Normally simpilot runs only the tests selected for a task: for pytest suites it runs
``test_command`` on the selected tests' files
with a plugin deselecting the other tests (or ``select_command`` with ``{tests}`` standing for
the node ids, if given);
for Java it compiles the edited file and runs the selected JUnit 5 test methods (or classes) itself.

A pass is proven by each test's own result (``execution/proof.py``). simpilot gets those results
itself from pytest commands and from its Java runner; any other ``test_command`` (a script, Maven,
Gradle) must write JUnit XML reports into the folder ``$SIMPILOT_REPORTS`` and say so with
``junit_xml = true`` (the JUnit console launcher: ``--reports-dir "$SIMPILOT_REPORTS"``; Maven:
``-Dsurefire.reportsDirectory="$SIMPILOT_REPORTS"``), or its runs are reported as ``unverified``.

A repository with a ``[programs]`` table holds single programs (``simpilot import devbench``
writes them): its language may also be ``javascript``, ``typescript``, ``cpp`` or ``csharp``, it
needs no ``test_command``, and a task's test is running its whole program with its checks
appended (``execution/programs/``); nothing but the program itself is its context.

A repository without a test suite can be tested by its program's output instead, as SimCopilot
tests its programs: ``compare_output = true`` makes ``test_command`` the program (e.g.
``["{python}", "main.py"]``), run whole for every task (no test selection), and a run passes when
its output — standard output and standard error together, in the order written — equals the
untouched program's, recorded by running the untouched program twice in the sandbox (it must exit
0 and print the same both times). ``compare_lines``, a regular expression, keeps only the lines
it matches (``re.search``) for the comparison, e.g. to leave timings out. The outcome is a proof
with one test, ``output`` (``execution/output.py``, which also gives the bounds).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from replay.config import simpilot_file as schema
from replay.config.errors import ConfigError
from replay.config.strict import read_toml, validate
from replay.core.errors import SimpilotError
from replay.core.paths import MANIFEST_NAME, cache_root

LANGUAGES = {
    "python": (".py",),
    "java": (".java",),
    # single programs only (a [programs] table): DevBench's other languages
    "javascript": (".js",),
    "typescript": (".ts",),
    "cpp": (".cpp",),
    "csharp": (".cs",),
}
MARKED_LANGUAGES = ("python", "java")  # languages whose repositories simpilot marks and tests with their suites
_TEST_NAME = re.compile(r"(^test_.*\.py$|.*_test\.py$|^conftest\.py$|.*Tests?\.java$)")
_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
# Every JVM the tests start (javac, java, build tools) gets a bounded heap, code cache and class
# space: by default a JVM reserves a quarter of the machine's memory up front, more than the
# sandbox's address-space limit, and then crashes when it grows. A manifest's env may override it.
JAVA_TOOL_OPTIONS = "-Xmx1g -XX:ReservedCodeCacheSize=64m -XX:CompressedClassSpaceSize=128m -XX:+UseSerialGC"
_SKIP_DIRS = {".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".venv", "venv", "node_modules", "build", "dist"}


def project_root() -> Path:
    """The folder holding the bundled ``repos/`` and ``scenarios/`` (the source checkout)."""
    return Path(__file__).resolve().parents[2]


def is_regular_file(path: Path) -> bool:
    """Whether ``path`` is (or links to) a regular file: a named pipe, socket or device named
    like a source file is no source, and opening a pipe to read it would wait forever."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


@dataclass(frozen=True, slots=True)
class EnvironmentConfig:
    """``[environment]`` of a manifest: the interpreter that runs a Python repository's tests
    (``replay.environments`` finds or builds it when the tests first need it)."""

    python: str | None = None  # an interpreter or a venv folder (relative: to the root), or a name on PATH
    setup: tuple[str | tuple[str, ...], ...] = ()  # commands building a cached venv: shell lines or argument lists


@dataclass(frozen=True, slots=True)
class Programs:
    """``[programs]``: every source file is one program whose test is running it whole, followed
    by the file of the same relative path under ``checks`` (its assertions; a test folder, never
    shown to the model). ``environment``: the folder ``simpilot import devbench --provision``
    installed the programs' packages into (None: the machine's own)."""

    checks: str = "checks"
    environment: Path | None = None

    def check_path(self, path: str) -> str:
        """The checks of the program at ``path`` (``programs/x/1.py`` → ``checks/x/1.py``)."""
        return str(PurePosixPath(self.checks, *PurePosixPath(path).parts[1:]))


@dataclass(frozen=True, slots=True)
class Manifest:
    name: str
    language: str
    root: Path
    sources: tuple[str, ...]
    tests: tuple[str, ...]
    test_command: tuple[str, ...]
    setup: tuple[tuple[str, ...], ...] = ()
    timeout: float = 60.0
    env: tuple[tuple[str, str], ...] = ()  # extra environment for the test command
    select_command: tuple[str, ...] = ()  # runs chosen tests; "{tests}" stands for their ids
    classpath: tuple[str, ...] = ()  # Java: extra jars, relative to the repository root
    junit_xml: bool = False  # test_command writes JUnit XML reports into $SIMPILOT_REPORTS
    git: str | None = None
    commit: str | None = None
    environment: EnvironmentConfig | None = None  # None: the tests run with simpilot's interpreter
    compare_output: bool = False  # test_command runs a program whose output is compared with the untouched one's
    compare_lines: str | None = None  # with compare_output: a regular expression choosing the compared lines
    programs: Programs | None = None  # each source file is a whole program, tested by running it (DevBench)

    @property
    def extensions(self) -> tuple[str, ...]:
        return LANGUAGES[self.language]

    def is_test_path(self, rel: str) -> bool:
        """Test files are never marked and never enter a prompt."""
        p = PurePosixPath(rel)
        if any(p.is_relative_to(t) for t in self.tests if t not in ("", ".")):
            return True
        if any(part in ("test", "tests") for part in p.parts[:-1]):
            return True
        return bool(_TEST_NAME.match(p.name))

    def source_files(self) -> list[str]:
        """Repository-relative POSIX paths of the non-test source files, sorted."""
        found: set[str] = set()
        for folder in self.sources:
            base = self.root / folder
            if not base.exists():
                raise SimpilotError(f"{self.name}: source folder {folder!r} listed in the manifest does not exist under {self.root}")
            for dirpath, dirnames, filenames in os.walk(base):
                dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
                for fn in filenames:
                    if fn.endswith(self.extensions) and is_regular_file(Path(dirpath) / fn):
                        rel = (Path(dirpath) / fn).relative_to(self.root).as_posix()
                        if not self.is_test_path(rel):
                            found.add(rel)
        return sorted(found)

    def is_pytest(self) -> bool:
        return "pytest" in self.test_command[:3] or any(p.endswith("pytest") for p in self.test_command[:1])

    def reports_tests(self) -> bool:
        """Whether the repository's own test command gives per-test results simpilot can read."""
        return self.is_pytest() or self.junit_xml or self.runner_suite() or self.compare_output

    def runner_suite(self) -> bool:
        """Whether the whole suite runs through simpilot's own JUnit runner: a Java repository
        without a ``test_command`` (a plain JUnit 5 library needs no build script)."""
        return self.language == "java" and not self.test_command

    def own_env(self) -> dict[str, str]:
        """The manifest's own extra environment, with the JVM bounds for a Java repository (its
        ``env`` may override them); ``environments.commands.suite_env`` adds the interpreter's."""
        defaults = {"JAVA_TOOL_OPTIONS": JAVA_TOOL_OPTIONS} if self.language == "java" else {}
        return {**defaults, **dict(self.env)}


def with_pytest_options(argv: list[str], options: list[str]) -> list[str]:
    """``argv`` (a pytest command line) with ``options`` right after the word ``pytest``."""
    at = next(i for i, a in enumerate(argv) if _is_pytest_word(a)) + 1
    return argv[:at] + options + argv[at:]


def _is_pytest_word(arg: str) -> bool:
    return arg == "pytest" or arg.endswith("/pytest")


def has_pytest_word(argv: list[str]) -> bool:
    """Whether ``argv`` runs pytest (``python -m pytest …`` or ``pytest …``)."""
    return any(_is_pytest_word(a) for a in argv)


def load_manifest(path: Path, root: Path | None = None) -> Manifest:
    """Read a manifest file through its schema (``simpilot_file``), then check what its keys mean
    together. ``root`` overrides where the repository is (used after a checkout)."""
    if not path.exists():
        raise SimpilotError(f"no manifest at {path}: create {MANIFEST_NAME} (see README, 'Your own repository')")
    data = read_toml(path)
    file = validate(schema.SimpilotFile, data, path)
    repo, where = file.repository, _Where(path)
    if not _NAME.match(repo.name):
        raise where.error("repository.name", f"{repo.name!r} must be letters, digits, '.', '_' or '-'; rename it")
    root = (root or path.parent).resolve()
    programs = _programs(file.programs, where, root)
    if programs is None and repo.language not in MARKED_LANGUAGES:
        raise where.error(
            "repository.language", f"{repo.language!r} is for single programs only: add a [programs] table (see README, DevBench)"
        )
    if "test_command" not in data["repository"] and repo.language != "java" and programs is None:
        raise where.error("repository.test_command", "missing: add the command that runs the repository's tests")
    source = file.source or schema.Source(git=None, commit=None)
    if source.git and not (isinstance(source.commit, str) and re.fullmatch(r"[0-9a-f]{7,40}", source.commit)):
        raise where.error("source.commit", 'git needs commit = "<commit id>" so that runs are reproducible; add it')
    if repo.select_command and "{tests}" not in repo.select_command:
        raise where.error("repository.select_command", 'needs a "{tests}" argument where the selected test ids go; add it')
    if repo.timeout <= 0:
        raise where.error("repository.timeout", f"must be a positive number of seconds, not {repo.timeout!r}; fix it")
    _check_comparison(repo, where)
    return Manifest(
        name=repo.name,
        language=repo.language,
        root=root,
        sources=tuple(repo.sources),
        tests=tuple(repo.tests),
        test_command=tuple(repo.test_command),
        setup=tuple((c,) if isinstance(c, str) else tuple(c) for c in repo.setup),
        timeout=float(repo.timeout),
        env=tuple(sorted(repo.env.items())),
        select_command=tuple(repo.select_command),
        classpath=tuple(file.java.classpath) if file.java else (),
        junit_xml=repo.junit_xml,
        git=source.git,
        commit=source.commit,
        environment=_environment(file.environment, where, repo.language),
        compare_output=repo.compare_output,
        compare_lines=repo.compare_lines,
        programs=programs,
    )


@dataclass(frozen=True, slots=True)
class _Where:
    """The manifest file errors name."""

    path: Path

    def error(self, key: str, problem: str) -> ConfigError:
        return ConfigError(self.path, key, problem)


def _programs(table: schema.Programs | None, where: _Where, root: Path) -> Programs | None:
    """The ``[programs]`` table, checked."""
    if table is None:
        return None
    if not table.checks.strip():
        raise where.error("programs.checks", "must name the folder of the programs' checks; give a folder name")
    return Programs(table.checks, (root / table.environment).resolve() if table.environment else None)


def _check_comparison(repo: schema.Repository, where: _Where) -> None:
    """``compare_output`` and ``compare_lines``, checked against the rest of the table."""
    if repo.compare_lines is not None:
        if not repo.compare_output:
            raise where.error("repository.compare_lines", "needs compare_output = true; add it or remove compare_lines")
        try:
            re.compile(repo.compare_lines)
        except re.error as exc:
            raise where.error(
                "repository.compare_lines", f"{repo.compare_lines!r} is not a valid regular expression ({exc}); fix it"
            ) from None
    if repo.compare_output:
        if not repo.test_command:
            raise where.error("repository.test_command", "compare_output needs the command that runs the program; add it")
        clashing = [key for key in ("select_command", "junit_xml") if getattr(repo, key)]
        if clashing:
            raise where.error(
                f"repository.{clashing[0]}",
                f"compare_output compares the whole program's output: remove {' and '.join(clashing)} (there are no tests to select or report)",
            )


def _environment(table: schema.Environment | None, where: _Where, language: str) -> EnvironmentConfig | None:
    """The ``[environment]`` table, checked (what it names is looked for only when the tests run)."""
    if table is None:
        return None
    if language != "python":
        raise where.error("environment", "is for Python repositories: remove it (a Java repository lists its jars in [java] classpath)")
    if table.python is not None and not table.python.strip():
        raise where.error("environment.python", "must be the path of an interpreter or a venv folder (relative to the repository root)")
    commands: list[str | tuple[str, ...]] = []
    for i, command in enumerate(table.setup):
        if isinstance(command, str) and command.strip():
            commands.append(command)
        elif isinstance(command, list) and command:
            commands.append(tuple(command))
        else:
            raise where.error(
                f"environment.setup[{i}]", f"{command!r} is not a command: give a shell command line or a non-empty list of strings"
            )
    if table.python is None and not commands:
        raise where.error("environment", 'needs python = "<interpreter or venv>" or setup = ["pip install -e ."]; add one')
    return EnvironmentConfig(python=table.python, setup=tuple(commands))


def checkout_dir() -> Path:
    return cache_root() / "checkouts"


def _git(*args: str, cwd: Path | None = None) -> str:
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=600)
    except FileNotFoundError:
        raise SimpilotError("git is not installed: install it to check out repositories from a URL") from None
    if proc.returncode != 0:
        raise SimpilotError(
            f"git {' '.join(args[:2])} failed: {proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else proc.returncode}"
        )
    return proc.stdout.strip()


def checkout(manifest: Manifest) -> Manifest:
    """Check a git-sourced repository out at its pinned commit (once; later calls reuse it)."""
    assert manifest.git and manifest.commit
    key = hashlib.sha256(manifest.git.encode()).hexdigest()[:8]
    target = checkout_dir() / f"{manifest.name}-{key}-{manifest.commit[:12]}"
    if not (target / ".git").exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".partial")
        if tmp.exists():
            subprocess.run(["rm", "-rf", str(tmp)], check=False)
        _git("clone", "--quiet", "--no-checkout", manifest.git, str(tmp))
        _git("checkout", "--quiet", "--detach", manifest.commit, cwd=tmp)
        tmp.rename(target)
    head = _git("rev-parse", "HEAD", cwd=target)
    if not head.startswith(manifest.commit):
        raise SimpilotError(f"{manifest.name}: checkout at {target} is at {head[:12]}, not {manifest.commit}")
    return Manifest(**{**_fields(manifest), "root": target.resolve()})


def _fields(m: Manifest) -> dict:
    return {f: getattr(m, f) for f in m.__slots__}


def open_repository(location: str | Path) -> Manifest:
    """A repository from a folder holding ``simpilot.toml`` or from a manifest file.

    A manifest with a ``[source]`` table is checked out first; the user's folder is only read.
    """
    path = Path(location).expanduser()
    if not path.exists():
        raise SimpilotError(f"repository path {path} does not exist")
    manifest_path = path / MANIFEST_NAME if path.is_dir() else path
    if path.is_dir() and not manifest_path.exists():
        raise SimpilotError(f"{path} has no {MANIFEST_NAME}: add one naming the language, sources, tests and test_command (see README)")
    manifest = load_manifest(manifest_path)
    if manifest.git:
        manifest = checkout(manifest)
    return manifest


class RepoCatalog:
    """Finds a repository by the name stored in its tasks: explicitly given ones first, then
    the bundled ``repos/`` folder."""

    def __init__(self, explicit: list[Manifest] | None = None, search: list[Path] | None = None):
        self._by_name = {m.name: m for m in explicit or []}
        self._search = search if search is not None else [project_root() / "repos"]

    def get(self, name: str) -> Manifest:
        if name in self._by_name:
            return self._by_name[name]
        for folder in self._search:
            candidate = folder / name
            if (candidate / MANIFEST_NAME).exists():
                self._by_name[name] = open_repository(candidate)
                return self._by_name[name]
        raise SimpilotError(
            f"repository {name!r} not found: pass --repo PATH (a folder with {MANIFEST_NAME}, or a manifest file), "
            "or keep the scenario file beside the repositories.json that 'simpilot mark' wrote"
        )
