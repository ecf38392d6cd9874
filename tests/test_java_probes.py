"""The gate's probes and method-level selection, without a sandbox: every probe compiles where it
must (checked with javac and Python's compiler) and throws when reached; proof ids of test
methods map to selection ids; a method selection is proven by all of its runs."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from replay.config.manifest import load_manifest
from replay.core.records import Kind, Position, Span, Task
from replay.execution.proof.check import Proof, shortfall
from replay.validation.gate import PROBE_MESSAGE, probe_texts
from replay.validation.selection import is_method_id, reaching_methods
from tests.conftest import DATA


def _task(language: str, block: bool, ground_truth: str, indent: str = "") -> Task:
    span = Span(0, len(ground_truth), Position(0, 0), Position(0, len(ground_truth)))
    return Task("t", "r", language, "f", Kind.INFILL, "statements" if block else "if_condition", block, span, indent, ground_truth, "", 1)


# Holes in contexts where the neutral filler does not compile: a value must be returned, a local the
# hole declares is read later, a final field must be set, `while (true)` makes the rest unreachable.
JAVA_CONTEXTS = [
    ("int sum(int[] xs) { int t = 0; for (int x : xs) { t += x; } HOLE }", True, "return t;"),
    ("int twice(int x) { HOLE return y; }", True, "int y = 2 * x;"),
    ("final int f; Ctx(int x) { HOLE }", True, "f = x;"),
    ("int first(int[] xs) { int i = 0; while (HOLE) { i++; } return i; }", False, "i < xs.length && xs[i] < 0"),
    ("boolean any(int[] xs) { return HOLE; }", False, "xs.length > 0"),
    ("int pick(boolean c) { int v = HOLE; return v; }", False, "c ? 1 : 2"),
    ("String name(String s) { return HOLE; }", False, "s.trim()"),
]


@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK")
def test_some_java_probe_compiles_in_every_context_and_throws_an_error(tmp_path: Path) -> None:
    methods = []
    for n, (context, block, truth) in enumerate(JAVA_CONTEXTS):
        probe = probe_texts(_task("java", block, truth))[0]
        methods.append(context.replace("Ctx(", f"Ctx{n}(").replace("HOLE", probe))
    # one class per context (a constructor needs its own class name)
    source = "\n".join(f"class Ctx{n} {{ {m} }}" for n, m in enumerate(methods))
    (tmp_path / "Ctx.java").write_text(source + "\nclass Run { public static void main(String[] a) {"
                                       " try { new Ctx2(1); } catch (Error e) { System.out.print(e.getMessage()); } } }\n")
    r = subprocess.run(["javac", "-d", str(tmp_path), str(tmp_path / "Ctx.java")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(["java", "-cp", str(tmp_path), "Run"], capture_output=True, text=True)
    assert r.stdout == PROBE_MESSAGE


def test_java_probes_throw_an_error_not_an_exception_that_tests_expect() -> None:
    for block in (True, False):
        for probe in probe_texts(_task("java", block, "x = 1;" if block else "x > 1")):
            assert "new Error(" in probe and "Exception" not in probe


def test_python_probes_compile_and_raise() -> None:
    block = _task("python", True, "total = sum(xs)\n    return total", indent="    ")
    for probe in probe_texts(block):
        source = "def f(xs):\n    " + probe + "\n"
        namespace: dict = {}
        exec(compile(source, "f.py", "exec"), namespace)
        with pytest.raises(RuntimeError, match=PROBE_MESSAGE):
            namespace["f"]([1])
    (expression,) = probe_texts(_task("python", False, "x > 1"))
    for context in ("if {}:\n        return 1\n    return 0", "return {}", "y = 1 + {}\n    return y"):
        source = "def f(x):\n    " + context.format(expression) + "\n"
        namespace = {}
        exec(compile(source, "f.py", "exec"), namespace)
        with pytest.raises(RuntimeError, match=PROBE_MESSAGE):
            namespace["f"](2)


def _proof(outcomes: dict[str, str], errors: tuple[str, ...] = (), finished: bool = True) -> Proof:
    classes = {test: test.split("#")[0] for test in outcomes}
    return Proof(outcomes, classes, errors, (), True, finished)


def test_probe_failures_become_method_selections() -> None:
    proof = _proof({
        "pkg.FooTest#adds()": "failed",
        "pkg.FooTest#parses(String, long)[1]": "failed",
        "pkg.FooTest#parses(String, long)[2]": "passed",
        "pkg.FooTest#other()": "passed",
        "pkg.Outer$InnerTest#nested()": "failed",
    })
    assert reaching_methods(proof) == ("pkg.FooTest#adds", "pkg.FooTest#parses", "pkg.Outer$InnerTest#nested")
    assert all(is_method_id(t) for t in reaching_methods(proof) or ()) and not is_method_id("pkg.FooTest")
    # nothing precise: a class-level failure (a @BeforeAll hides its tests), an unfinished run, no failure
    assert reaching_methods(_proof({"pkg.FooTest#adds()": "failed"}, errors=("pkg.BarTest => java.lang.Error",))) is None
    assert reaching_methods(_proof({"pkg.FooTest#adds()": "failed"}, finished=False)) is None
    assert reaching_methods(_proof({"pkg.FooTest#adds()": "passed"})) is None
    assert reaching_methods(None) is None


def test_a_method_selection_is_proven_by_every_run_of_the_method() -> None:
    passing = _proof({"pkg.FooTest#parses(String)[1]": "passed", "pkg.FooTest#parses(String)[2]": "passed", "pkg.FooTest#adds()": "passed"})
    assert shortfall(passing, ["pkg.FooTest#parses", "pkg.FooTest#adds"]) is None
    assert shortfall(passing, ["pkg.FooTest"]) is None  # a class still stands for its tests
    gap = shortfall(passing, ["pkg.FooTest#missing"])
    assert gap is not None and gap.kind == "not_run" and "pkg.FooTest#missing" in gap.detail
    # a name that is only a prefix of another method's is not that method
    assert shortfall(_proof({"pkg.FooTest#parsesAll()": "passed"}), ["pkg.FooTest#parses"]) is not None
    failing = _proof({"pkg.FooTest#parses(String)[1]": "passed", "pkg.FooTest#parses(String)[2]": "failed"})
    gap = shortfall(failing, ["pkg.FooTest#parses"])
    assert gap is not None and gap.kind == "failed"


def test_a_java_manifest_needs_no_test_command(tmp_path: Path) -> None:
    manifest = load_manifest(DATA / "fixtures" / "javalib" / "simpilot.toml")
    assert manifest.test_command == () and manifest.runner_suite() and manifest.reports_tests()
    assert not load_manifest(DATA / "tinyjava" / "simpilot.toml").runner_suite()
    python = tmp_path / "simpilot.toml"
    python.write_text('[repository]\nname = "p"\nlanguage = "python"\nsources = ["p"]\n')
    with pytest.raises(Exception, match=r"repository\.test_command: missing: add the command"):
        load_manifest(python)
