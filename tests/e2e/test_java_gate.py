"""The gate on Java holes, in the sandbox: a throwing probe learns which test methods reach a hole;
a filler that does not compile is always followed by a probe, for block and expression holes; a
task that no compiling probe can show to be noticed is dropped; and a Java repository without a
test command has its untouched code checked by simpilot's own runner, with errors that say what
to fix."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from replay.config.manifest import RepoCatalog, open_repository
from replay.core.errors import SimpilotError
from replay.execution.judge import Evaluator
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.validation.gate import check_baseline, gate
from tests.conftest import DATA

from .test_java import STATS, _task

pytestmark = pytest.mark.e2e

# A loop condition whose filler `true` leaves `return i;` unreachable (javac rejects it), and a
# subclass whose hole is its `super(…)` call: no probe can come before it, none replaces it.
EXTRA_SOURCE = {
    "src/main/java/tiny/Scan.java": """package tiny;

public final class Scan {
    private Scan() {}

    public static int firstAbove(int[] xs, int threshold) {
        int i = 0;
        while (i < xs.length && xs[i] <= threshold) {
            i++;
        }
        return i;
    }
}
""",
    "src/main/java/tiny/Base.java": """package tiny;

public class Base {
    protected final int size;

    public Base(int size) {
        this.size = size;
    }
}
""",
    "src/main/java/tiny/Sized.java": """package tiny;

public final class Sized extends Base {
    public Sized() {
        super(3);
    }
}
""",
    "src/test/java/tiny/ScanTest.java": """package tiny;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ScanTest {
    @Test
    void findsTheFirstValueAbove() {
        assertEquals(2, Scan.firstAbove(new int[] {1, 2, 5, 1}, 2));
    }

    @Test
    void sizes() {
        assertEquals(3, new Sized().size);
    }
}
""",
}


@pytest.fixture
def tiny_java(tmp_path: Path) -> Path:
    target = tmp_path / "tinyjava"
    shutil.copytree(DATA / "tinyjava", target)
    for path, text in EXTRA_SOURCE.items():
        (target / path).write_text(text)
    return target


def _gate(repo: Path, tasks: list) -> tuple[dict, dict]:
    with Evaluator(RepoCatalog([open_repository(repo)]), Sandbox.create(), jobs=1) as evaluator:
        report = gate(evaluator, tasks, jobs=1)
    return {t.ground_truth: t for t in report.kept}, {d.task.ground_truth: d.why.message for d in report.dropped}


def test_the_probe_narrows_classes_to_the_methods_that_reach_the_hole(tiny_java: Path) -> None:
    loop = _task(tiny_java, STATS, "total += v;", block=True, tests=("tiny.ReportTest", "tiny.StatsTest"))
    # the test expects an IllegalStateException from here: an exception probe would pass in it
    empty = _task(tiny_java, STATS, 'throw new IllegalStateException("no samples");', block=True, tests=("tiny.StatsTest",))
    kept, dropped = _gate(tiny_java, [loop, empty])
    assert not dropped
    # sum() runs in every test of both classes (mean() and describe() call it)
    assert kept[loop.ground_truth].tests == (
        "tiny.ReportTest#describesStats",
        "tiny.StatsTest#meanOfSamples",
        "tiny.StatsTest#sumsAndClamps",
    )
    assert kept[empty.ground_truth].tests == ("tiny.StatsTest#meanOfSamples",)


def test_an_uncompilable_expression_filler_is_followed_by_a_probe(tiny_java: Path) -> None:
    scan = "src/main/java/tiny/Scan.java"
    condition = _task(tiny_java, scan, "i < xs.length && xs[i] <= threshold", block=False, tests=("tiny.ScanTest",))
    kept, dropped = _gate(tiny_java, [condition])
    task = kept[condition.ground_truth]
    assert task.validation.filler_status == "compile_error" and task.validation.probe_status == "runtime_error"
    assert task.tests == ("tiny.ScanTest#findsTheFirstValueAbove",) and not dropped


def test_a_task_no_probe_compiles_for_is_dropped(tiny_java: Path) -> None:
    sized = _task(tiny_java, "src/main/java/tiny/Sized.java", "super(3);", block=True, tests=("tiny.ScanTest",))
    kept, dropped = _gate(tiny_java, [sized])
    assert not kept
    assert "neither the filler nor a throwing probe compiles" in dropped[sized.ground_truth]


def test_a_task_whose_probe_passes_is_dropped(tiny_java: Path) -> None:
    untested = _task(tiny_java, STATS, "int result = sum() * factor;\n        return result;", block=True, tests=("tiny.StatsTest",))
    kept, dropped = _gate(tiny_java, [untested])
    assert not kept and "no test executes the hole (a throwing probe passed)" in dropped[untested.ground_truth]


@pytest.fixture
def javalib(tmp_path: Path) -> Path:
    target = tmp_path / "javalib"
    shutil.copytree(DATA / "fixtures" / "javalib", target)
    return target


def _baseline_error(repo: Path) -> str:
    with Evaluator(RepoCatalog([open_repository(repo)]), Sandbox.create(), jobs=1) as evaluator:
        with pytest.raises(SimpilotError) as info:
            check_baseline(evaluator, open_repository(repo))
    return str(info.value)


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_without_a_test_command_the_untouched_code_is_checked_by_simpilots_runner(javalib: Path) -> None:
    manifest = open_repository(javalib)
    with Evaluator(RepoCatalog([manifest]), Sandbox.create(), jobs=1) as evaluator:
        check_baseline(evaluator, manifest)  # passes: no script, no command
    tests = javalib / "src/test/java/javalib"
    (tests / "BrokenTest.java").write_text(
        "package javalib;\nimport org.junit.jupiter.api.Test;\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n"
        "class BrokenTest { @Test void broken() { assertEquals(1, 2); } }\n"
    )
    error = _baseline_error(javalib)
    assert "javalib: the tests fail on the untouched code" in error and "BrokenTest" in error and "make them pass first" in error
    for test in tests.glob("*.java"):
        test.unlink()
    assert "javalib: no JUnit 5 tests found under src/test/java" in _baseline_error(javalib)


def test_sources_that_do_not_compile_show_javacs_first_errors(javalib: Path) -> None:
    source = javalib / "src/main/java/javalib/RunLength.java"
    source.write_text(source.read_text().replace("int best = 0;", "int best = 0").replace("int current = 0;", "int current = missing;"))
    error = _baseline_error(javalib)
    assert "javalib: the untouched Java sources do not compile" in error
    assert "RunLength.java:" in error and "';' expected" in error
    assert "[java] classpath" in error


def test_python_holes_follow_the_same_rule(tiny_repo: Path) -> None:
    """Python's compile check plays javac's part: `True += v` and the throwing expression probe are
    both syntax errors in an assignment target, so nothing can show a test noticing that hole."""
    from dataclasses import replace

    target = replace(
        _task(tiny_repo, "tiny/stats.py", "total += v", block=False, tests=("tests/test_stats.py::test_mean",)),
        repo="tinyrepo",
        language="python",
        ground_truth="total",
    )
    target = replace(
        target,
        span=replace(
            target.span,
            end_byte=target.span.start_byte + len("total"),
            end=replace(target.span.end, character=target.span.start.character + len("total")),
        ),
    )
    with Evaluator(RepoCatalog([open_repository(tiny_repo)]), Sandbox.create(), jobs=1) as evaluator:
        report = gate(evaluator, [target], jobs=1)
    assert not report.kept
    (only,) = report.dropped
    task, why = only.task, only.why.message
    assert task.validation.filler_status == "syntax_error" and "neither the filler nor a throwing probe compiles" in why


def test_a_selected_method_runs_alone_not_the_methods_its_name_starts(tiny_java: Path) -> None:
    """``tiny.PrefixTest#adds`` runs ``adds()`` (each overload) and not ``addsAll(…)``, which would
    fail an answer for a test the hole never reached. (``addsAll(String)``: the runner selects
    one method per parameter list, so a prefix match shows with a list ``adds`` does not have.)"""
    (tiny_java / "src/test/java/tiny/PrefixTest.java").write_text(
        "package tiny;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\n"
        "import org.junit.jupiter.api.Test;\nimport org.junit.jupiter.params.ParameterizedTest;\n"
        "import org.junit.jupiter.params.provider.ValueSource;\n\n"
        "class PrefixTest {\n"
        "    @Test\n    void adds() {\n        assertEquals(2, 1 + 1);\n    }\n\n"
        "    @ParameterizedTest\n    @ValueSource(ints = {1, 2})\n    void adds(int n) {\n        assertEquals(n + 1, n + 1);\n    }\n\n"
        "    @Test\n    void addsAll() {\n        assertEquals(1, 2);\n    }\n\n"
        '    @ParameterizedTest\n    @ValueSource(strings = {"x"})\n    void addsAll(String s) {\n        assertEquals("y", s);\n    }\n}\n'
    )
    manifest = open_repository(tiny_java)
    with Evaluator(RepoCatalog([manifest]), Sandbox.create(), jobs=1) as evaluator:
        result = evaluator.run_tests(manifest, tests=("tiny.PrefixTest#adds",))
    assert result.proof is not None and result.proof.finished
    assert result.proof.outcomes == {
        "tiny.PrefixTest#adds()": "passed",
        "tiny.PrefixTest#adds(int)[1]": "passed",
        "tiny.PrefixTest#adds(int)[2]": "passed",
    }
