"""Output comparison (``compare_output``): a run passes when the program prints what the untouched
program printed; the untouched program must exit 0 and print the same twice."""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

import pytest

from replay.config.manifest import RepoCatalog, open_repository
from replay.core.errors import SimpilotError
from replay.core.records import Kind, Status
from replay.execution.judge import Evaluator
from replay.execution.output import OUTPUT_LIMIT, OUTPUT_TEST, compared_lines, first_difference, judge, normalised, reference_lines
from replay.execution.proof.check import shortfall
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.marking import mark_repository

EXPECTED = "squares 1 4 9\ntotal 14\ntook 0.25 s\n"


def _lines(text: str, keep: str | None = None):
    return compared_lines(text, re.compile(keep) if keep else None)


# -- the comparison itself ---------------------------------------------------------------------


def test_equal_output_is_a_proven_pass_of_the_one_test() -> None:
    proof = judge(_lines(EXPECTED), EXPECTED, len(EXPECTED), 0, False, None)
    assert proof.outcomes == {OUTPUT_TEST: "passed"} and proof.finished
    assert shortfall(proof, (OUTPUT_TEST,)) is None


def test_a_differing_line_is_named_with_expected_and_got() -> None:
    got = "squares 1 4 9\ntotal 15\ntook 0.25 s\n"
    proof = judge(_lines(EXPECTED), got, len(got), 0, False, None)
    assert proof.failed == [OUTPUT_TEST]
    assert proof.errors == ("output differs at line 2: expected 'total 14', got 'total 15'",)


def test_missing_and_extra_lines_are_differences() -> None:
    assert "ends early after 1 line(s): expected line 2 'total 14'" in (first_difference(_lines(EXPECTED), _lines("squares 1 4 9\n")) or "")
    longer = EXPECTED + "extra\n"
    assert first_difference(_lines(EXPECTED), _lines(longer)) == "output goes on at line 4: expected the end of the output, got 'extra'"
    assert first_difference(_lines(EXPECTED), _lines(EXPECTED.rstrip("\n"))) is None  # a final newline is not a line


def test_compare_lines_keeps_only_matching_lines() -> None:
    other_timing = EXPECTED.replace("0.25", "0.31")
    assert first_difference(_lines(EXPECTED), _lines(other_timing)) is not None
    assert first_difference(_lines(EXPECTED, r"^(squares|total)"), _lines(other_timing, r"^(squares|total)")) is None
    wrong = "squares 1 4 9\nnoise\ntotal 13\n"
    assert first_difference(_lines(EXPECTED, "^total"), _lines(wrong, "^total")) == (
        "output differs at line 3 (line 2 of the expected output): expected 'total 14', got 'total 13'"
    )


def test_a_failing_killed_or_late_run_is_never_a_pass() -> None:
    reference = _lines(EXPECTED)
    assert judge(reference, EXPECTED, len(EXPECTED), 1, False, None).errors[0].startswith("the program exited with status 1")
    assert judge(reference, EXPECTED, len(EXPECTED), -9, False, None).errors == ("the program was killed by signal 9",)
    assert judge(reference, EXPECTED, len(EXPECTED), -9, True, None).errors == ("the program did not finish in time",)
    crashed = "Traceback (most recent call last):\n  File 'main.py', line 3\nZeroDivisionError: division by zero\n"
    assert judge(reference, crashed, len(crashed), 1, False, None).errors[0].endswith("ZeroDivisionError: division by zero")


def test_output_beyond_the_bound_fails_even_when_the_kept_lines_match() -> None:
    proof = judge(_lines(EXPECTED, "^total"), EXPECTED, OUTPUT_LIMIT + 1, 0, False, re.compile("^total"))
    assert proof.failed == [OUTPUT_TEST] and "more than the" in proof.errors[0]


def test_the_work_copy_path_compares_equal_across_copies() -> None:
    assert normalised("wrote /tmp/copy-1/repo/out.txt\n", ("/tmp/copy-1/repo",)) == "wrote {root}/out.txt\n"


def test_reference_refuses_nondeterministic_failing_and_huge_output() -> None:
    run = ("a\nb 1\n", 6, 0, False, "prog")
    assert reference_lines("r", [run, run], None, "simpilot.toml").texts() == ["a", "b 1"]
    with pytest.raises(SimpilotError, match=r"not reproducible, two runs differ \(output differs at line 2: first run 'b 1', second run 'b 2'\)"):
        reference_lines("r", [run, ("a\nb 2\n", 6, 0, False, "prog")], None, "simpilot.toml")
    assert reference_lines("r", [run, ("a\nb 2\n", 6, 0, False, "prog")], re.compile("^a"), "simpilot.toml").texts() == ["a"]
    with pytest.raises(SimpilotError, match=r"untouched program fails \(exit status 2: boom\)"):
        reference_lines("r", [("boom\n", 5, 2, False, "prog"), run], None, "simpilot.toml")
    with pytest.raises(SimpilotError, match="untouched program fails on its second run"):
        reference_lines("r", [run, ("boom\n", 5, 2, False, "prog")], None, "simpilot.toml")
    with pytest.raises(SimpilotError, match="did not finish in time"):
        reference_lines("r", [("", 0, -9, True, "prog")], None, "simpilot.toml")
    with pytest.raises(SimpilotError, match="more than the .* bytes compare_output keeps"):
        reference_lines("r", [("x" * 10, OUTPUT_LIMIT + 10, 0, False, "prog")], None, "simpilot.toml")


def test_the_sandbox_keeps_the_output_whole_up_to_the_bound(tmp_path: Path) -> None:
    script = "import sys\nsys.stdout.write('a' * 3000 + '\\n')\nsys.stderr.write('b' * 5000 + '\\n')\n"
    result = Sandbox.create().run([sys.executable, "-c", script], tmp_path, 30, keep_output=6000)
    assert result.output == "a" * 3000 + "\n" + "b" * 2999 and result.output_size == 8002
    assert len(result.output_tail) < 8002  # the tail alone would not be enough
    assert Sandbox.create().run([sys.executable, "-c", script], tmp_path, 30).output is None


# -- manifests ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "extra, message",
    [
        ('compare_output = "yes"', r'repository\.compare_output: expected true or false, got a string "yes"'),
        ('compare_lines = "^x"', r"repository\.compare_lines: needs compare_output = true"),
        ('compare_output = true\ncompare_lines = "(("', "not a valid regular expression"),
        ('compare_output = true\njunit_xml = true', "remove junit_xml"),
    ],
)
def test_bad_comparison_settings(tmp_path: Path, extra: str, message: str) -> None:
    (tmp_path / "simpilot.toml").write_text(f'[repository]\nname = "x"\ntest_command = ["true"]\n{extra}\n')
    with pytest.raises(SimpilotError, match=message):
        open_repository(tmp_path)


# -- through the evaluator, in the sandbox -----------------------------------------------------

PROGRAM = """\
import os, random, sys, time


def total(values):
    result = 0
    for value in values:
        result += value * value
    return result


def main():
    print("total", total([1, 2, 3]))
    print("squares", [v * v for v in range(4)])
    MODE


main()
"""


def _repo(tmp_path: Path, mode: str = "pass", extra: str = "") -> Path:
    root = tmp_path / "prog"
    root.mkdir()
    (root / "prog.py").write_text(PROGRAM.replace("MODE", mode))
    (root / "simpilot.toml").write_text(
        textwrap.dedent(f"""\
        [repository]
        name = "prog"
        sources = ["."]
        tests = []
        test_command = ["{{python}}", "prog.py"]
        compare_output = true
        timeout = 20
        {extra}
        """)
    )
    return root


def _evaluator(root: Path) -> Evaluator:
    return Evaluator(RepoCatalog([open_repository(root)]), Sandbox.create())


def test_answers_are_judged_by_the_programs_output(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    manifest = open_repository(root)
    task = next(t for t in mark_repository(manifest, seed=0, per_kind=50, kinds={Kind.INFILL}).tasks if t.ground_truth == "result += value * value")
    assert task.tests is None
    with _evaluator(root) as evaluator:
        assert evaluator.evaluate(task, task.ground_truth).status is Status.PASS
        wrong = evaluator.evaluate(task, "result += value")
        assert wrong.status is Status.FAIL and wrong.proven
        assert wrong.detail == "output differs at line 1: expected 'total 14', got 'total 6'"
        crash = evaluator.evaluate(task, "result += value / 0")
        assert crash.status is Status.RUNTIME_ERROR and crash.detail.endswith("ZeroDivisionError: division by zero")
        assert evaluator.evaluate(task, "result += valu").status is Status.UNDEFINED_NAME
        assert evaluator.evaluate(task, "while True:\n            pass", timeout=2).status is Status.TIMEOUT
        assert evaluator.evaluate(task, "pass").status is Status.FAIL  # a filler fails: the gate keeps the hole


def test_nondeterministic_untouched_output_is_refused(tmp_path: Path) -> None:
    root = _repo(tmp_path, "print('drawn', random.random())")
    with _evaluator(root) as evaluator, pytest.raises(SimpilotError, match="prog: the untouched program's output is not reproducible"):
        evaluator.run_tests(open_repository(root))


def test_compare_lines_leaves_timings_out(tmp_path: Path) -> None:
    root = _repo(tmp_path, "print('took', time.perf_counter_ns())", extra='compare_lines = "^(total|squares) "')
    manifest = open_repository(root)
    with _evaluator(root) as evaluator:
        result = evaluator.run_tests(manifest)
        assert evaluator.shortfall(manifest, result, None) is None
        assert evaluator.reference_output(manifest).texts() == ["total 14", "squares [0, 1, 4, 9]"]


def test_failing_untouched_program_is_refused(tmp_path: Path) -> None:
    root = _repo(tmp_path, "sys.exit('no input file')")
    with _evaluator(root) as evaluator, pytest.raises(SimpilotError, match=r"prog: the untouched program fails \(exit status 1: no input file\)"):
        evaluator.run_tests(open_repository(root))


def test_huge_untouched_output_is_refused(tmp_path: Path) -> None:
    root = _repo(tmp_path, f"sys.stdout.write('x' * {OUTPUT_LIMIT + 100})")
    with _evaluator(root) as evaluator, pytest.raises(SimpilotError, match="more than the 4194304 bytes compare_output keeps"):
        evaluator.run_tests(open_repository(root))
