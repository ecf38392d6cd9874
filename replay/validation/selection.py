"""Test selection: for each hole, the tests that can notice what is put in it.

Running only those tests is what makes validating and replaying a large set affordable
(Codev-Bench traces tests to target code the same way). The gate then
proves the selection is strong enough: the neutral filler must make the *selected* tests fail.

* Python: one run of the whole pytest suite under coverage.py with a context per test
  (pytest-cov's ``--cov-context=test``), collected once per repository in the sandbox; a hole
  selects every test that executed one of its lines, in setup, call or teardown.
* Java, in two steps. Statically, the candidates: every test class that references the hole's
  class, or any repository class that (transitively) references it — found by a tree-sitter walk
  over identifiers, so a test of ``BTreeMap`` is a candidate for a hole in ``Node`` when
  ``BTreeMap`` uses ``Node``. For a one-class library that is every test class. Then, per hole,
  the gate learns which test *methods* reach it (``gate.py``): it runs the candidates once
  with a probe in the hole that throws an ``Error`` as soon as it is reached, and the methods that
  fail are the ones the hole's code runs in, like a line's coverage contexts in Python. An
  ``Error`` rather than an exception, because tests ``assertThrows`` the exceptions the code
  throws, and code catches them; few catch an ``Error``. Where nothing is learned (no probe
  compiles, a class-level failure such as a ``@BeforeAll`` that reaches the hole, a timeout) the
  candidate classes stay the selection.

Selected ids are stored on the Task (``Task.tests``): pytest node ids, JUnit test methods
(``pkg.FooTest#adds``, every run of that method, parameterized invocations included), or fully
qualified JUnit class names. ``None`` means "the whole suite" (``--full-suite``, or a repository
whose test command cannot be narrowed down).
"""

from __future__ import annotations

import os
import tempfile
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tree_sitter import Parser

from postprocess.syntax import language
from replay.config.manifest import Manifest, with_pytest_options
from replay.core.errors import SimpilotError
from replay.core.records import Task
from replay.environments.commands import suite_command, suite_env
from replay.execution.proof.check import Proof
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.execution.workcopies.copies import WorkCopy

COVERAGE_FILE = ".simpilot-coverage"
_JAVA = language("java")


@dataclass
class Selection:
    """Maps a (path, line range) to test ids for one repository."""

    language: str
    # Python: path -> line -> test ids that executed it
    lines: dict[str, dict[int, frozenset[str]]] = field(default_factory=dict)
    # Java: path -> test classes selected for a hole anywhere in that file
    by_file: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def tests_for(self, task: Task) -> tuple[str, ...]:
        if self.language == "java":
            return self.by_file.get(task.path, ())
        per_line = self.lines.get(task.path, {})
        found: set[str] = set()
        for line in range(task.span.start.line + 1, task.span.end.line + 2):
            found |= per_line.get(line, frozenset())
        return tuple(sorted(found))


def build_selection(manifest: Manifest, sandbox: Sandbox, paths: Iterable[str]) -> Selection | None:
    """The selection for ``manifest``'s repository, or None when its tests cannot be narrowed."""
    if manifest.compare_output:  # the program runs whole: its output is the one test
        return None
    if manifest.language == "java":
        return java_selection(manifest, paths)
    if manifest.is_pytest():
        return python_selection(manifest, sandbox)
    return None


# -- Python ------------------------------------------------------------------------------------


def coverage_command(manifest: Manifest) -> list[str]:
    """The repository's pytest command with per-test coverage contexts and without ``-x``/``--exitfirst``."""
    argv = [a for a in suite_command(manifest) if a not in ("-x", "--exitfirst")]
    sources = [f"--cov={s}" for s in manifest.sources]
    return with_pytest_options(argv, ["-p", "pytest_cov", *sources, "--cov-context=test", "--cov-report=", "--no-cov-on-fail"])


def python_selection(manifest: Manifest, sandbox: Sandbox) -> Selection:
    """Run the suite once under coverage in a throw-away work copy and read the contexts."""
    import coverage

    with tempfile.TemporaryDirectory(prefix="simpilot-coverage-") as tmp:
        copy = WorkCopy(manifest, sandbox, Path(tmp))
        try:
            env = {**suite_env(manifest, copy.root), "COVERAGE_FILE": str(copy.root / COVERAGE_FILE)}
            result = sandbox.run(coverage_command(manifest), copy.root, max(manifest.timeout * 3, 120), env)
            data_file = copy.root / COVERAGE_FILE
            if result.returncode != 0 or not data_file.exists():
                from replay.environments.hints import details

                last = (result.output_tail.strip().splitlines() or [f"exit {result.returncode}"])[-1]
                raise SimpilotError(
                    f"{manifest.name}: collecting per-test coverage failed ({last}): "
                    "check that the suite passes under pytest-cov (the test interpreter needs pytest-cov), or mark with --full-suite"
                    + details(coverage_command(manifest), result.output_tail)
                )
            data = coverage.CoverageData(basename=str(data_file))
            data.read()
            selection = Selection("python")
            root = str(copy.root) + os.sep
            for measured in data.measured_files():
                if not measured.startswith(root):
                    continue
                rel = Path(measured[len(root) :]).as_posix()
                per_line: dict[int, frozenset[str]] = {}
                for line, contexts in data.contexts_by_lineno(measured).items():
                    ids = frozenset(c.rsplit("|", 1)[0] for c in contexts if c)
                    if ids:
                        per_line[line] = ids
                selection.lines[rel] = per_line
            return selection
        finally:
            copy.close()


# -- Java --------------------------------------------------------------------------------------


@dataclass
class _JavaFile:
    package: str
    declared: set[str]
    referenced: set[str]
    has_tests: bool


def _scan_java(source: bytes, parser: Parser) -> _JavaFile:
    root = parser.parse(source).root_node
    package, declared, referenced = "", set(), set()
    stack = [root]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind == "package_declaration":
            name = next((c for c in node.named_children if c.type in ("scoped_identifier", "identifier")), None)
            package = name.text.decode() if name is not None and name.text else ""
            continue
        if kind in ("class_declaration", "interface_declaration", "enum_declaration", "record_declaration", "annotation_type_declaration"):
            name = node.child_by_field_name("name")
            if name is not None and name.text:
                declared.add(name.text.decode())
        elif kind in ("type_identifier", "identifier") and node.text:
            referenced.add(node.text.decode())
        stack.extend(node.children)
    return _JavaFile(package, declared, referenced, b"@Test" in source or b"@ParameterizedTest" in source or b"@RepeatedTest" in source)


def _read_java(root: Path, folders: tuple[str, ...], parser: Parser) -> dict[str, _JavaFile]:
    files: dict[str, _JavaFile] = {}
    for folder in folders:
        base = root / folder
        if base.is_dir():
            for p in sorted(base.rglob("*.java")):
                files[p.relative_to(root).as_posix()] = _scan_java(p.read_bytes(), parser)
    return files


def java_selection(manifest: Manifest, paths: Iterable[str]) -> Selection:
    parser = Parser(_JAVA)
    main = _read_java(manifest.root, manifest.sources, parser)
    tests = {p: f for p, f in _read_java(manifest.root, manifest.tests, parser).items() if f.has_tests}
    # who uses whom among the main files: file -> files it references
    owner = {name: path for path, f in main.items() for name in f.declared}
    users: dict[str, set[str]] = defaultdict(set)
    for path, f in main.items():
        for name in f.referenced:
            if name in owner and owner[name] != path:
                users[owner[name]].add(path)
    selection = Selection("java")
    for path in paths:
        relevant, todo = {path}, [path]
        while todo:
            for user in users.get(todo.pop(), ()):
                if user not in relevant:
                    relevant.add(user)
                    todo.append(user)
        names = set().union(*(main[p].declared for p in relevant if p in main))
        chosen = sorted((f"{t.package}." if t.package else "") + Path(tp).stem for tp, t in tests.items() if t.referenced & names)
        selection.by_file[path] = tuple(chosen)
    return selection


def is_method_id(test: str) -> bool:
    """Whether ``test`` names one JUnit test method (``pkg.FooTest#adds``) rather than a class."""
    return "#" in test


def reaching_methods(proof: Proof | None) -> tuple[str, ...] | None:
    """The test methods a probe run shows failing, as selection ids, or None when the run shows
    nothing precise: no per-test results, a failure outside any test (a class's ``@BeforeAll``
    fails before its tests are reported), or a failed test without a class.

    The proof's ids are ``Class#method(Types)`` and, for a parameterized test's invocations,
    ``Class#method(Types)[n]``; a selection names the method once, without its parameters.
    """
    if proof is None or proof.errors or not proof.finished:
        return None
    found = set()
    for test in proof.failed:
        cls = proof.classes.get(test, "")
        name = test.split("#", 1)[1].split("(", 1)[0] if "#" in test else ""
        if not cls or not name:
            return None
        found.add(f"{cls}#{name}")
    return tuple(sorted(found)) or None
