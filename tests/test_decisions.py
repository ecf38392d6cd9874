"""Decision tasks without running tests: where they are found (Python and Java), what a model
would plausibly add there, how they are stored, how a suggestion at a place that needed nothing
is judged, and the report's decision figures on hand-computed cases."""

from __future__ import annotations

from pathlib import Path

from replay.core.records import Decision, Kind, Outcome, Position, Span, Status, Task, Validation
from replay.execution.nothing_verdict import suggested_needlessly, suggestion_detail
from replay.marking.decision_places import choose, find_spots, plausible_additions
from replay.marking.java import parser as java_parser
from replay.marking.python import parser as python_parser
from replay.reports.decision_figures import Share, answer_lines, decision_figures, stratum_table, summary_line
from replay.reports.strata import cutoffs

PYTHON = b'''def f(xs):
    """Sum."""
    total = 0
    for x in xs:
        total += x
    return total


def g(items, out):
    out.append(len(items))
    out.append(sum(items))  # a comment after the code


class C:
    def h(self, x):
        self.seen.append(x * 2)
        self.count = self.count + 1


if __name__ == "__main__":
    print(f([1, 2]))
'''

JAVA = b"""package p;

public final class Acc {
    private int total;

    public int add(int x) {
        total += x * 2;
        if (x > 3) {
            total -= limit(x);
        }
        return total;
    }

    public void reset() {
        Runnable r = () -> {
            total = 0;
        };
        total = Math.max(total, 0);
        r.run();
    }

    public static void main(String[] args) {
        System.out.println(new Acc().add(1));
    }
}
"""


def _spots(language: str, source: bytes) -> list[tuple[str, str, int]]:
    root = (python_parser() if language == "python" else java_parser()).parse(source).root_node
    return [(s.decision.value, s.construct, source[: s.start_byte].count(b"\n") + 1) for s in find_spots(language, root, source)]


def test_python_spots_end_complete_statements_and_skip_jumps_comments_and_main() -> None:
    assert _spots("python", PYTHON) == [
        ("no_suggestion", "statement_end", 3),  # `total = 0`: too small to be a one-line task
        ("no_suggestion", "block_end", 5),  # the loop's body ends; `return total` is a jump: no spot
        ("no_suggestion", "statement_end", 10),
        ("one_line", "statements", 10),
        # line 11 has a comment after the code: the cursor's place would be ambiguous
        ("no_suggestion", "statement_end", 16),
        ("one_line", "statements", 16),
        ("no_suggestion", "function_end", 17),
        # nothing under `if __name__ == "__main__":`
    ]


def test_java_spots_skip_lambdas_returns_and_main() -> None:
    assert _spots("java", JAVA) == [
        ("no_suggestion", "statement_end", 7),
        ("one_line", "statements", 7),
        ("no_suggestion", "block_end", 9),
        # line 16 is a lambda's body, not the method's; line 11 returns
        ("no_suggestion", "statement_end", 18),
        ("one_line", "statements", 18),
        ("no_suggestion", "function_end", 19),
    ]


def test_choose_is_seeded_and_takes_each_construct_in_turn() -> None:
    root = python_parser().parse(PYTHON).root_node
    spots = find_spots("python", root, PYTHON)
    one = choose(spots, seed=1, key="a.py", per_file=3)
    assert one == choose(spots, seed=1, key="a.py", per_file=3)
    nothing = [s for s in one if s.decision is Decision.NOTHING]
    assert len(nothing) == 3 and {s.construct for s in nothing} == {"statement_end", "block_end", "function_end"}
    assert len([s for s in one if s.decision is Decision.ONE_LINE]) == 2  # only two exist


def _task(language: str, source: bytes, line: int, decision: Decision, path: str = "m.py") -> Task:
    """The decision task of ``line`` (1-based) of ``source``: the statement's end, or the statement."""
    lines = source.split(b"\n")
    start_of_line = sum(len(x) + 1 for x in lines[: line - 1])
    text = lines[line - 1]
    indent = text[: len(text) - len(text.lstrip())]
    start = start_of_line + len(indent)
    end = start_of_line + len(text.rstrip())
    first = start if decision is Decision.ONE_LINE else end
    span = Span(first, end, Position(line - 1, first - start_of_line), Position(line - 1, end - start_of_line))
    return Task(
        id=f"r:{path}:{decision.value}:{line}",
        repo="r",
        language=language,
        path=path,
        kind=Kind.INFILL,
        construct="statements",
        block=decision is Decision.ONE_LINE,
        span=span,
        indent=indent.decode(),
        ground_truth=source[first:end].decode(),
        file_sha256="0" * 64,
        lines_removed=1 if decision is Decision.ONE_LINE else 0,
        decision=decision,
    )


def test_plausible_additions_repeat_the_line_add_the_next_one_and_return() -> None:
    nothing = _task("python", PYTHON, 10, Decision.NOTHING)
    assert nothing.ground_truth == ""
    assert plausible_additions(nothing, PYTHON) == [
        "\n    out.append(len(items))",
        "\n    out.append(sum(items))  # a comment after the code",
        "\n    return None",
    ]
    # the last statement of a function: the next line (`class C:`) cannot stand as a statement
    end = _task("python", PYTHON, 17, Decision.NOTHING)
    assert plausible_additions(end, PYTHON) == ["\n        self.count = self.count + 1", "\n        return None"]


def test_java_return_fits_the_method() -> None:
    in_int = _task("java", JAVA, 7, Decision.NOTHING, "Acc.java")
    assert plausible_additions(in_int, JAVA)[-1] == "\n        return 0;"
    in_void = _task("java", JAVA, 18, Decision.NOTHING, "Acc.java")
    assert plausible_additions(in_void, JAVA) == ["\n        total = Math.max(total, 0);", "\n        r.run();", "\n        return;"]


def test_decision_tasks_round_trip_and_ordinary_ones_keep_their_shape() -> None:
    one = _task("python", PYTHON, 10, Decision.ONE_LINE)
    validated = Validation(True, "pass", True, True, "fail", longer="out.append(len(items))\n    return None", longer_status="fail")
    task = Task.from_dict({**one.to_dict(), "validation": validated.to_dict()})
    assert task.decision is Decision.ONE_LINE and task.validation == validated and not task.nothing_needed
    plain = Task(
        **{**{f: getattr(one, f) for f in one.__dataclass_fields__}, "decision": None, "validation": Validation(True, "pass", True, True)}
    )
    data = plain.to_dict()
    assert "decision" not in data and "longer" not in data["validation"]
    assert Task.from_dict(data) == plain


def test_a_suggestion_where_nothing_was_needed_is_judged_by_its_text() -> None:
    nothing = _task("python", PYTHON, 10, Decision.NOTHING)
    one = _task("python", PYTHON, 10, Decision.ONE_LINE)
    assert suggested_needlessly(nothing, "\n    return None")
    assert not suggested_needlessly(nothing, "")
    assert not suggested_needlessly(nothing, "\n   \n")  # whitespace is shown as nothing
    assert not suggested_needlessly(one, "out.append(len(items))\n    return None")  # the tests judge it
    assert suggestion_detail("\n    x()\n    y()", Status.PASS, "") == (
        "nothing was needed here, 2 lines suggested; the tests still pass with it: useless, not harmful"
    )
    assert suggestion_detail("\n    x()", Status.FAIL, "FAILED t") == (
        "nothing was needed here, 1 line suggested; with it the tests give fail: harmful (FAILED t)"
    )


def test_decision_figures_on_hand_computed_cases() -> None:
    python_nothing = [_task("python", PYTHON, n, Decision.NOTHING, f"a{n}.py") for n in (3, 5, 10, 16)]
    python_one = [_task("python", PYTHON, n, Decision.ONE_LINE, f"b{n}.py") for n in (10, 16)]
    java_one = [_task("java", JAVA, n, Decision.ONE_LINE, f"C{n}.java") for n in (7, 18)]
    plain = Task(**{**{f: getattr(python_one[0], f) for f in python_one[0].__dataclass_fields__}, "id": "plain", "decision": None})
    answers = {
        python_nothing[0].id: "",  # silent
        python_nothing[1].id: "\n  \n",  # whitespace: silent
        python_nothing[2].id: "\n    return None",  # suggested where nothing was needed
        python_nothing[3].id: None,  # model error: left out
        python_one[0].id: "out.append(len(items))",  # one line
        python_one[1].id: "a = 1\n\nb = 2",  # two non-blank lines
        java_one[0].id: "total += x * 2;",  # one line
        java_one[1].id: "",  # nothing
        plain.id: "x = 1",
    }
    outcomes = {i: Outcome(i, "none", text, Status.PASS if text is not None else Status.MODEL_ERROR) for i, text in answers.items()}
    tasks = [*python_nothing, *python_one, *java_one, plain]
    f = decision_figures(tasks, outcomes, cutoffs(tasks))
    assert f is not None
    assert f.silence == Share(2, 3)  # 2 of the 3 answered no_suggestion places
    assert f.precision == Share(4, 5)  # suggestions: 1 needless + 3 one_line + 1 plain; 4 needed
    assert f.one_line == Share(2, 3) and f.one_line_longer == 1 and f.one_line_empty == 1
    rows = {(r.dimension, r.value): (r.passed, r.n) for r in f.one_line_rows}
    assert rows[("headline", "python infill")] == (1, 2) and rows[("headline", "java infill")] == (1, 1)
    assert {(r.dimension, r.value): (r.passed, r.n) for r in f.silence_rows}[("decision", "no_suggestion")] == (2, 3)
    assert ("decision", "one_line", "–", "100.0% (3/3)", "66.7% (2/3)") in stratum_table(f)
    assert summary_line(f).startswith("decisions: silent where nothing was needed 66.7% (2/3); suggestion precision 80.0% (4/5)")
    assert answer_lines("\n  x\n\n  y\n") == 2
    assert decision_figures([plain], outcomes, cutoffs([plain])) is None  # no decision task: no figures


def test_bundled_decision_scenarios_are_separate_and_large_enough() -> None:
    from collections import Counter

    from replay.config.manifest import project_root
    from replay.core.scenarios import read_tasks

    folder = project_root() / "scenarios" / "decisions"
    tasks = [t for path in sorted(folder.glob("*.jsonl")) for t in read_tasks(path)]
    counts = Counter((t.language, t.decision) for t in tasks)
    for language in ("python", "java"):
        for decision in Decision:
            assert counts[(language, decision)] >= 30, counts
    assert all(t.decision is not None for t in tasks)
    assert all(t.ground_truth == "" for t in tasks if t.nothing_needed)
    assert all("\n" not in t.ground_truth and t.ground_truth for t in tasks if t.decision is Decision.ONE_LINE)
    assert all(t.validation is not None and t.validation.ok for t in tasks)
    assert all(t.validation and t.validation.longer_status for t in tasks if t.decision is Decision.ONE_LINE)
    assert {Path(p).name for p in folder.glob("*.jsonl")} <= {
        f"{r}.jsonl" for r in ("lpsolve", "minisql", "ordtree", "sparsela", "textindex", "btreemap", "sparsemat", "variates")
    }
