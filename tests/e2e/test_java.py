"""Java end to end: the edited source shadows the compiled classes, failures are classified,
test classes are selected by reference, and a mark → replay round trip measures what it should."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from replay.config.manifest import RepoCatalog, open_repository
from replay.core.records import Kind, Position, Span, Status, Task
from replay.execution.judge import Evaluator
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.validation.selection import java_selection
from tests.conftest import DATA

from .conftest import simpilot, tree_digest

pytestmark = pytest.mark.e2e

STATS = "src/main/java/tiny/Stats.java"
REPORT = "src/main/java/tiny/Report.java"


@pytest.fixture
def tiny_java(tmp_path: Path) -> Path:
    target = tmp_path / "tinyjava"
    shutil.copytree(DATA / "tinyjava", target)
    return target


def _task(repo: Path, path: str, needle: str, *, block: bool, tests: tuple[str, ...] | None = None) -> Task:
    source = (repo / path).read_bytes()
    start = source.index(needle.encode())
    end = start + len(needle.encode())

    def at(offset: int) -> Position:
        before = source[:offset].decode()
        return Position(before.count("\n"), len(before) - before.rfind("\n") - 1)

    return Task(
        id=f"tinyjava:{path}:{start}", repo="tinyjava", language="java", path=path, kind=Kind.INFILL,
        construct="if_condition" if not block else "statements", block=block, span=Span(start, end, at(start), at(end)),
        indent="", ground_truth=needle, file_sha256="", lines_removed=needle.count("\n") + 1, tests=tests,
    )


@pytest.mark.parametrize(("full_suite", "warm"), [(False, True), (False, False), pytest.param(True, False, marks=pytest.mark.slow)], ids=["selected-warm", "selected-cold", "full-suite"])
def test_edited_source_shadows_compiled_classes_and_failures_are_classified(tiny_java: Path, full_suite: bool, warm: bool) -> None:
    before = tree_digest(tiny_java)
    manifest = open_repository(tiny_java)
    condition = _task(tiny_java, STATS, "value > LIMIT", block=False, tests=("tiny.StatsTest",))
    loop = _task(tiny_java, STATS, "total += v;", block=True, tests=("tiny.StatsTest", "tiny.ReportTest"))
    cases = [
        (condition, "value > LIMIT", Status.PASS),
        (condition, "true", Status.FAIL),  # the blanked condition fails: the edit is what runs
        (condition, "value > LIMT", Status.UNDEFINED_NAME),
        (condition, "value >", Status.COMPILE_ERROR),
        (loop, "{}", Status.FAIL),
        (loop, "total += samples.get(99);", Status.RUNTIME_ERROR),
        (loop, "", Status.EMPTY),
    ]
    if full_suite:  # the repository's own script recompiles everything: slow, so the main cases only
        cases = [c for c in cases if c[2] in (Status.PASS, Status.FAIL, Status.UNDEFINED_NAME)]
    with Evaluator(RepoCatalog([manifest]), Sandbox.create(), jobs=1, full_suite=full_suite, warm=warm) as evaluator:
        for task, text, expected in cases:
            verdict = evaluator.evaluate(task, text)
            assert verdict.status is expected, (text, verdict)
    assert tree_digest(tiny_java) == before


def test_gate_drops_an_uncompilable_filler_that_no_test_notices(tiny_java: Path) -> None:
    from replay.validation.gate import gate

    manifest = open_repository(tiny_java)
    untested = _task(tiny_java, STATS, "int result = sum() * factor;\n        return result;", block=True, tests=("tiny.StatsTest",))
    tested = _task(tiny_java, STATS, "int total = 0;\n        for (int v : samples) {\n            total += v;\n        }\n        return total;",
                   block=True, tests=("tiny.StatsTest",))
    with Evaluator(RepoCatalog([manifest]), Sandbox.create(), jobs=1) as evaluator:
        report = gate(evaluator, [untested, tested], jobs=1)
    # `{}` fails to compile in both (a value must be returned); only the throwing probe tells them apart
    assert [t.ground_truth for t in report.kept] == [tested.ground_truth]
    assert report.kept[0].validation.filler_status == "compile_error" and report.kept[0].validation.probe_status == "runtime_error"
    (only,) = report.dropped
    dropped, why = only.task, only.why.message
    assert dropped.ground_truth == untested.ground_truth and "no test executes the hole" in why


def test_the_warm_jvm_carries_nothing_from_one_run_to_the_next(tiny_java: Path) -> None:
    stats = tiny_java / STATS
    stats.write_text(stats.read_text().replace("private static final int LIMIT", "static final int[] COUNTER = {0};\n    private static final int LIMIT"))
    loop = _task(tiny_java, STATS, "total += v;", block=True, tests=("tiny.StatsTest",))
    # A static counter (fresh class loader per run) and a system property (put back after each
    # run) must agree: in each run the first execution sees neither, later ones see both.
    leak = (
        'int n = COUNTER[0]++; boolean seen = System.getProperty("simpilot.leak") != null;'
        ' if ((n == 0) == seen) { throw new IllegalStateException("leaked: " + n + " " + seen); }'
        ' System.setProperty("simpilot.leak", "1"); total += v;'
    )
    with Evaluator(RepoCatalog([open_repository(tiny_java)]), Sandbox.create(), jobs=1) as evaluator:
        assert [evaluator.evaluate(loop, leak).status for _ in range(3)] == [Status.PASS] * 3
        server = evaluator._copies[0].junit_server()
        assert server.starts == 1
        # a run that leaves a thread running gets the next run a new JVM
        spinner = "new Thread(() -> { while (true) { Thread.onSpinWait(); } }).start(); total += v;"
        assert evaluator.evaluate(loop, "if (total == 0) { " + spinner + " } else { total += v; }").status is Status.PASS
        assert evaluator.evaluate(loop, "total += v;").status is Status.PASS
        assert server.starts == 2


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_hanging_java_code_times_out(tiny_java: Path) -> None:
    toml = tiny_java / "simpilot.toml"
    toml.write_text(toml.read_text().replace("timeout = 120", "timeout = 8"))
    manifest = open_repository(tiny_java)
    loop = _task(tiny_java, STATS, "total += v;", block=True, tests=("tiny.StatsTest",))
    with Evaluator(RepoCatalog([manifest]), Sandbox.create(), jobs=1) as evaluator:
        assert evaluator.evaluate(loop, "while (v > 0) { }").status is Status.TIMEOUT


@pytest.mark.slow
def test_a_java_busy_loop_is_stopped_by_its_cpu_budget(tiny_java: Path) -> None:
    """On the warm JVM the CPU budget counts the JVM's CPU time during the run: a busy loop is
    stopped at it (long before the 60 s wall-clock limit) and classed as a timeout."""
    manifest = open_repository(tiny_java)
    loop = _task(tiny_java, STATS, "total += v;", block=True, tests=("tiny.StatsTest",))
    with Evaluator(RepoCatalog([manifest]), Sandbox.create(), jobs=1) as evaluator:
        verdict = evaluator.evaluate(loop, "while (v > 0) { }", timeout=60, cpu=2)
        assert verdict.status is Status.TIMEOUT and "CPU time" in verdict.detail
        assert evaluator.evaluate(loop, "total += v;", timeout=60, cpu=2).status is Status.PASS


def test_test_classes_are_selected_by_reference() -> None:
    manifest = open_repository(DATA / "tinyjava")
    selection = java_selection(manifest, [STATS, REPORT])
    assert selection.by_file[REPORT] == ("tiny.ReportTest",)
    # Report uses Stats, so a change in Stats can show in ReportTest too
    assert selection.by_file[STATS] == ("tiny.ReportTest", "tiny.StatsTest")


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_mark_then_replay_java(tiny_java: Path, tmp_path: Path) -> None:
    before = tree_digest(tiny_java)
    out = tmp_path / "scenarios"
    r = simpilot("mark", str(tiny_java), "--out", str(out), "--per-kind", "3", "--jobs", "2")
    assert r.returncode == 0, r.stderr
    lines = (out / "tinyjava.jsonl").read_text().splitlines()
    tasks = [json.loads(line) for line in lines]
    assert len(tasks) >= 4 and {t["kind"] for t in tasks} == {"infill", "completion"}
    for t in tasks:
        assert t["language"] == "java" and t["tests"] and t["validation"]["filler_fails"] and t["validation"]["stable"]
        assert t["validation"]["filler"] in ("{}", "true")
    db = tmp_path / "runs.db"
    for model, passed in (("oracle", len(tasks)), ("empty", 0)):
        r = simpilot("--db", str(db), "replay", str(out / "tinyjava.jsonl"), "--model", model, "--repo", str(tiny_java),
                     "--run", model, "-p", "simcopilot", "--jobs", "2")
        assert r.returncode == 0, r.stderr
        report = json.loads(simpilot("--db", str(db), "report", model, "--json").stdout)
        overall = report["sections"][0]["rows"][0]
        assert (overall["passed"], overall["n"]) == (passed, len(tasks)), overall
    assert tree_digest(tiny_java) == before


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_java_suite_problems_are_named(tiny_java: Path, tmp_path: Path) -> None:
    failing = tiny_java / "src/test/java/tiny/BrokenTest.java"
    failing.write_text(
        "package tiny;\nimport org.junit.jupiter.api.Test;\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n"
        "class BrokenTest { @Test void broken() { assertEquals(1, 2); } }\n"
    )
    r = simpilot("mark", str(tiny_java), "--out", str(tmp_path))
    assert r.returncode == 1 and "tinyjava: the tests fail on the untouched code" in r.stderr
    failing.unlink()
    for test in (tiny_java / "src/test/java/tiny").glob("*.java"):
        test.unlink()
    r = simpilot("mark", str(tiny_java), "--out", str(tmp_path))
    assert r.returncode == 1 and "tinyjava:" in r.stderr and "Traceback" not in r.stderr
