"""``drop_regenerated`` and the IDE filters on holes of any shape: a correct answer comes back
unchanged (a hole that leaves its first block, a line that really does repeat its neighbour, the
answer's own white space), while the repairs they exist for still happen (copied lines, a run-on
answer, a model stuck in a loop).

Literal cases first; then Hypothesis cuts arbitrary holes from the bundled files (``tests/holes.py``)
and each step alone must return them unchanged, as it must DevBench's 600 golden completions.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from postprocess import HoleContext
from postprocess.steps import cut_repetition, drop_regenerated, drop_suffix_closer, limit_scope, stop_at_suffix_line

from .holes import PROPERTY_SETTINGS, bundled_sources, cut, devbench_holes, one_per_repository, step_alters

STEPS = ("drop_regenerated", "stop_at_suffix_line", "cut_repetition", "limit_scope", "drop_suffix_closer")

PY_LOOP_PREFIX = "def total(xs):\n    s = 0\n    for x in xs:\n        "
PY_LOOP = HoleContext("python", PY_LOOP_PREFIX, "\n    return s\n")
JAVA_TRY_PREFIX = "class A {\n    void f() {\n        try {\n            "
JAVA_SUM_PREFIX = "class A {\n    int sum(int[] xs) {\n        int t = 0;\n        "
JAVA_SUM = HoleContext("java", JAVA_SUM_PREFIX, "\n        return t;\n    }\n}\n")


# --- a hole that leaves its first block -----------------------------------------------------------


@pytest.mark.parametrize("suffix", ["\n            h();\n        }\n    }\n}\n"], ids=["infill"])
def test_limit_scope_keeps_a_java_hole_that_closes_its_try_block(suffix: str) -> None:
    truth = "g();\n        } catch (IllegalStateException e) {\n            log(e);"
    assert limit_scope(truth, HoleContext("java", JAVA_TRY_PREFIX, suffix)) == truth


@pytest.mark.parametrize("suffix", ["\n\n\ndef other():\n    pass\n", ""], ids=["infill", "completion"])
def test_limit_scope_keeps_a_python_hole_that_dedents_out_of_its_loop(suffix: str) -> None:
    truth = "s += x\n    return s"
    assert limit_scope(truth, HoleContext("python", PY_LOOP_PREFIX, suffix)) == truth


def test_limit_scope_keeps_a_hole_that_closes_a_method_and_opens_the_next() -> None:
    truth = "return t;\n    }\n\n    int other() {\n        return 1;"
    ctx = HoleContext("java", JAVA_SUM_PREFIX, "\n    }\n}\n")
    assert limit_scope(truth, ctx) == truth


def test_limit_scope_keeps_an_elif_after_a_return() -> None:
    prefix = "def sign(x):\n    if x > 0:\n        "
    truth = "return 1\n    elif x < 0:\n        return -1"
    assert limit_scope(truth, HoleContext("python", prefix, "\n    return 0\n")) == truth


# --- lines that really repeat a neighbour ------------------------------------------------------------


def test_a_nested_repeat_of_the_line_above_is_kept_when_the_cut_would_break_the_file() -> None:
    prefix = "class A {\n    void f(boolean a) {\n        if (a) {\n            "
    truth = "if (a) {\n                g();\n            }"
    assert drop_regenerated(truth, HoleContext("java", prefix, "\n        }\n    }\n}\n")) == truth


def test_a_last_line_equal_to_the_line_below_is_kept_when_the_cut_would_break_the_file() -> None:
    prefix = "class A {\n    void f(boolean a) {\n        "
    truth = "if (a) {\n            g();\n        }\n        if (a) {"
    suffix = "\n        if (a) {\n            h();\n        }\n        }\n    }\n}\n"
    assert drop_regenerated(truth, HoleContext("java", prefix, suffix)) == truth


def test_a_repeat_written_after_leaving_the_block_is_new_code() -> None:
    prefix = "def stem(word):\n    if word.endswith('s'):\n        return word\n    "
    truth = "return word\n\n\ndef other():\n    pass"
    assert drop_regenerated(truth, HoleContext("python", prefix, "")) == truth


def test_a_line_typed_at_column_0_with_its_own_indentation_is_not_a_copy() -> None:
    # DevBench's golden completions restate the comment right above the cursor
    prefix = "class A {\n    void f() {\n        // halve the values\n"
    truth = "        // halve the values\n        g(values, 2);\n"
    assert drop_regenerated(truth, HoleContext("java", prefix, "\n    }\n}\n")) == truth


def test_a_first_line_equal_to_the_line_after_the_cursor_is_kept() -> None:
    # the cursor at column 0 of a line of code: the answer's first line does not meet that line
    prefix = "def get(self, url):\n    try:\n        response = fetch(url)\n"
    truth = "        return response.json()\n    except OSError as err:\n        print(err)\n"
    suffix = "        return response.json()\n    except ValueError:\n        return None\n"
    assert drop_regenerated(truth, HoleContext("python", prefix, suffix)) == truth


def test_a_start_that_repeats_the_line_before_the_cursor_is_kept_when_it_is_code() -> None:
    ctx = HoleContext("python", "def f(x):\n    y = g(", "\n    return y\n")
    assert drop_regenerated("y = g(1))", ctx) == "y = g(1))"  # y = g(y = g(1)): a keyword argument


def test_an_end_that_repeats_the_rest_of_the_line_is_kept_when_it_is_code() -> None:
    ctx = HoleContext("python", "def f(x):\n    y = g(f(", ")\n    return y\n")
    assert drop_regenerated("x)", ctx) == "x)"


def test_a_repeat_inside_a_comment_is_left_alone() -> None:
    ctx = HoleContext("python", "x = 1\n# -----------", "--\ny = 2\n")
    assert drop_regenerated("------------------", ctx) == "------------------"


def test_stop_at_suffix_line_keeps_a_line_the_file_repeats() -> None:
    prefix = "@dataclass(frozen=True)\nclass ColumnRef:\n    name: str\n"
    truth = "    table: str | None = None\n\n\n@dataclass(frozen=True)\nclass Star:\n    arity: int"
    suffix = "\n\n\n@dataclass(frozen=True)\nclass UnaryOp:\n    op: str\n"
    assert stop_at_suffix_line(truth, HoleContext("python", prefix, suffix)) == truth


def test_stop_at_suffix_line_keeps_lines_that_match_the_suffix_and_then_differ() -> None:
    prefix = "class A {\n    int f(int n) {\n        int s = 0;\n        while (n > 0) {\n            if (n == 3) {\n                "
    truth = "break;\n            }\n            s++;\n        }\n        for (int i = 0; i < n; i++) {"
    suffix = "\n            s++;\n        }\n        return s;\n    }\n}\n"
    assert stop_at_suffix_line(truth, HoleContext("java", prefix, suffix)) == truth


def test_cut_repetition_keeps_three_equal_lines_the_code_goes_on_after() -> None:
    truth = "x += 1\n        x += 1\n        x += 1\n    return x"
    assert cut_repetition(truth, PY_LOOP) == truth


def test_drop_suffix_closer_keeps_a_closer_the_file_needs() -> None:
    # a block of its own that ends at the indentation of the suffix's first closer
    ctx = HoleContext("java", "class A {\n    void f() {\n        if (a) {\n        g();\n        ", "\n        }\n    }\n}\n")
    truth = "if (c) {\n            d();\n        }"
    assert drop_suffix_closer(truth, ctx) == truth


# --- the answer's own white space -----------------------------------------------------------------------


@pytest.mark.parametrize("truth", ["s += x\n", "s += x\n\n", "s += x\n    \n", "\n        s += x"])
def test_drop_regenerated_keeps_white_space_when_nothing_is_cut(truth: str) -> None:
    assert drop_regenerated(truth, PY_LOOP) == truth
    assert drop_regenerated(truth, HoleContext("python", PY_LOOP_PREFIX, "")) == truth


def test_a_leading_newline_at_an_end_of_line_cursor_is_kept() -> None:
    ctx = HoleContext("java", "class A {\n    void f() {\n        g();", "\n    }\n}\n")
    assert drop_regenerated("\n        h();", ctx) == "\n        h();"


def test_a_cut_removes_only_the_copied_lines() -> None:
    assert drop_regenerated("for x in xs:\n        s += x\n", PY_LOOP) == "        s += x\n"
    assert drop_regenerated("s += x\n\n    return s", PY_LOOP) == "s += x\n"


# --- the repairs still happen ----------------------------------------------------------------------------


def test_lines_copied_from_above_are_removed() -> None:
    assert drop_regenerated("s = 0\n    for x in xs:\n        s += x", PY_LOOP) == "        s += x"
    assert drop_regenerated("int t = 0;\n        t += xs[0];", JAVA_SUM) == "        t += xs[0];"


def test_lines_copied_from_below_are_removed() -> None:
    ctx = HoleContext("python", PY_LOOP_PREFIX, "\n    return s\n\n\ndef other():\n    pass\n")
    assert drop_regenerated("s += x\n    return s", ctx) == "s += x"
    assert drop_regenerated("t += xs[0];\n        return t;\n    }", JAVA_SUM) == "t += xs[0];"


def test_a_copied_start_and_end_of_the_cursor_line_are_removed() -> None:
    ctx = HoleContext("python", "def f(x):\n    if ", ":\n        return 1\n    return 0\n")
    assert drop_regenerated("if x > 0:", ctx) == "x > 0"
    java = HoleContext("java", "class A {\n    int f(int x) {\n        if (", ") {\n            return 1;\n        }\n        return 0;\n    }\n}\n")
    assert drop_regenerated("x > 0) {\n            return 1;", java) == "x > 0"


@pytest.mark.parametrize(
    "raw, ctx, expected",
    [
        pytest.param("t += 1;\n    }\n\n    int g() {\n        return 1;\n    }", JAVA_SUM, "t += 1;", id="java-closes-the-method-the-suffix-closes"),
        pytest.param("s += x\nprint(s)", PY_LOOP, "s += x", id="python-dedent-no-block-can-take"),
        pytest.param("s += x\n  s *= 2", PY_LOOP, "s += x", id="python-dedent-to-no-level"),
        pytest.param("s += x\n    return s\n\n\ndef other():", HoleContext("python", PY_LOOP_PREFIX, "\n    return s\n\n\ndef other():\n    pass\n"),
                     "s += x", id="python-copies-the-suffix"),
        # a completion task ends within the innermost block: its closer is past the hole
        pytest.param("t += 1;\n    }\n}\n}", HoleContext("java", JAVA_SUM_PREFIX, ""), "t += 1;", id="java-completion-closes-too-much"),
    ],
)
def test_limit_scope_cuts_a_run_on_answer(raw: str, ctx: HoleContext, expected: str) -> None:
    assert limit_scope(raw, ctx) == expected


def test_stop_at_suffix_line_cuts_where_the_answer_rewrites_the_suffix() -> None:
    ctx = HoleContext("python", "def f(xs):\n    s = 0\n    ", "\n    s = sorted(s)\n    return s\n")
    assert stop_at_suffix_line("s = sum(xs)\n    s = sorted(s)\n    return s", ctx) == "s = sum(xs)"
    assert stop_at_suffix_line("s = sum(xs)\n    s = sorted(s)\n    ret", ctx) == "s = sum(xs)"  # cut off mid-line


def test_cut_repetition_cuts_a_loop_that_runs_to_the_end() -> None:
    assert cut_repetition("a = 1\n        x += 1\n        x += 1\n        x += 1\n        x +", PY_LOOP) == "a = 1\n        x += 1"


def test_drop_suffix_closer_drops_a_closer_too_many() -> None:
    ctx = HoleContext("java", "class A {\n    void f() {\n        if (a) {\n            ", "\n        }\n    }\n}\n")
    assert drop_suffix_closer("b();\n        }", ctx) == "b();"


# --- any hole: arbitrary cuts of the bundled files and DevBench's golden completions ----------------------

SOURCES = bundled_sources()
SAMPLE = one_per_repository(SOURCES)
_SETTINGS = PROPERTY_SETTINGS


def _unchanged_by_each_step(data: st.DataObject, source: tuple[str, str, str]) -> None:
    hole = data.draw(cut(*source))
    assert [step for step in STEPS if step_alters(step, hole)] == [], hole.where


@pytest.mark.parametrize("source", SAMPLE, ids=[s[0] for s in SAMPLE])
@settings(max_examples=200, **_SETTINGS)
@given(data=st.data())
def test_each_filter_returns_an_arbitrary_cut_unchanged(source: tuple[str, str, str], data: st.DataObject) -> None:
    _unchanged_by_each_step(data, source)


@pytest.mark.slow
@pytest.mark.parametrize("source", SOURCES, ids=[s[0] for s in SOURCES])
@settings(max_examples=300, **_SETTINGS)
@given(data=st.data())
def test_each_filter_returns_an_arbitrary_cut_of_every_bundled_file_unchanged(source: tuple[str, str, str], data: st.DataObject) -> None:
    _unchanged_by_each_step(data, source)


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("language", ["python", "java"])
def test_each_filter_returns_devbench_golden_completions_unchanged(step: str, language: str) -> None:
    holes = list(devbench_holes(language))
    assert len(holes) == 300
    altered = [hole.where for hole in holes if step_alters(step, hole)]
    assert altered == [], f"{len(altered)} of 300 altered, first: {altered[:1]}"


def test_drop_regenerated_keeps_a_comment_whose_end_looks_like_the_rest_of_the_line() -> None:
    # a hole cut inside a comment's rule of dashes: the answer opens the comment, and its last
    # dashes equal the line's rest, which is part of that comment, not a copy to cut
    ctx = HoleContext("python", "class P:\n    def f(self):\n        self.pos = 0\n\n", "------------\n    @property\n    def g(self):\n        return 1\n")
    truth = "    # -- token helpers ------------"
    assert drop_regenerated(truth, ctx) == truth
