"""Bracket balancing and syntax-aware truncation decide from the editor's view, not from the shape
of the hole: each returns a correct answer unchanged on any hole (arbitrary cuts of the bundled
files, DevBench's golden completions), and still repairs a wrong one."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from postprocess import HoleContext
from postprocess.steps import balance_brackets, truncate_syntax

from .holes import PROPERTY_SETTINGS, bundled_sources, cut, devbench_holes, one_per_repository, step_alters

JAVA_METHOD = "class A {\n    int f(int x) {\n        "
JAVA_END = "\n        return x;\n    }\n}\n"
JAVA_SUM = "class A {\n    int sum(int[] xs) {\n        int t = 0;\n        "
JAVA_INFILL = HoleContext("java", JAVA_SUM, "\n        return t;\n    }\n}\n")
JAVA_COMPLETION = HoleContext("java", JAVA_SUM, "")
JAVA_COND = HoleContext("java", JAVA_METHOD + "if (", ") {\n            return 1;\n        }" + JAVA_END)
PY_LOOP = HoleContext("python", "def total(xs):\n    s = 0\n    for x in xs:\n        ", "\n    return s\n")
PY_COND = HoleContext("python", "def f(x):\n    if ", ":\n        return 1\n    return 0\n")


# --- balance_brackets: correct answers whose balance is not zero on their own ------------------

@pytest.mark.parametrize(
    "ctx, answer",
    [
        pytest.param(HoleContext("java", JAVA_METHOD + "if (x > 0) {\n            ", JAVA_END),
                     "x++;\n        }", id="ends-with-the-closer-of-a-block-the-prefix-opened"),
        pytest.param(HoleContext("java", JAVA_METHOD, "\n            x = 1;\n        }" + JAVA_END),
                     "if (x == 0) {", id="opens-a-block-whose-body-is-in-the-suffix"),
        pytest.param(HoleContext("java", JAVA_METHOD + "if (x > 0) {\n            x = 1;\n        ", "\n        }" + JAVA_END),
                     "} else if (x < 0) {\n            x = -1;", id="closes-a-block-and-opens-the-next"),
        pytest.param(HoleContext("java", JAVA_METHOD + "if (x > 0) {\n            x = 1;\n        ", JAVA_END),
                     "} else if (x < 0) {\n            x = -1;\n        }", id="else-if-closed-in-the-hole"),
        pytest.param(JAVA_COMPLETION, "for (int x : xs) {\n            t += x;", id="completion-ends-inside-a-block"),
        pytest.param(JAVA_COMPLETION, "for (int i = 0;", id="completion-ends-in-a-for-header"),
        pytest.param(JAVA_COMPLETION, "t += f(xs,", id="completion-ends-in-an-argument-list"),
        pytest.param(HoleContext("java", JAVA_SUM + 'log("(', '");\n        return t;\n    }\n}\n'), 'x', id="cursor-in-a-string"),
        pytest.param(HoleContext("java", JAVA_SUM + "// see f(", "\n        return t;\n    }\n}\n"), "x)", id="cursor-in-a-comment"),
        pytest.param(HoleContext("java", JAVA_SUM + "// add them up", "\n        return t;\n    }\n}\n"),
                     "        for (int x : xs) {\n            t += x;\n        }", id="prefix-ends-in-a-comment-without-newline"),
        pytest.param(HoleContext("java", JAVA_SUM + "t += f(xs[0", "));\n        return t;\n    }\n}\n"), "] + g(1", id="character-cut"),
    ],
)
def test_balance_brackets_keeps_correct_answers(ctx: HoleContext, answer: str) -> None:
    assert balance_brackets(answer, ctx) == answer


@pytest.mark.parametrize(
    "raw, ctx, expected",
    [
        pytest.param("t += 1;\n        }", JAVA_INFILL, "t += 1;", id="extra-closing-brace-cut"),
        pytest.param("for (int x : xs) {\n            t += x;\n        }\n    }\n\n    int other() {\n        return 1;\n    }",
                     JAVA_INFILL, "for (int x : xs) {\n            t += x;\n        }", id="run-on-into-the-next-method-cut"),
        pytest.param("x > 0) {", JAVA_COND, "x > 0", id="condition-cut-before-the-suffix's-paren"),
        pytest.param("x > 0)", JAVA_COND, "x > 0", id="extra-paren-cut"),
        pytest.param("for (int x : xs) {\n            t += x;", JAVA_INFILL, "for (int x : xs) {\n            t += x;\n        }",
                     id="missing-brace-added"),
        pytest.param("t += g(xs[0];", JAVA_INFILL, "t += g(xs[0]);", id="missing-paren-added-before-semicolon"),
        pytest.param("f(x", JAVA_COND, "f(x)", id="missing-paren-added-in-a-condition"),
        pytest.param("t += g(xs[0];", JAVA_COMPLETION, "t += g(xs[0]);", id="completion-paren-before-semicolon"),
        # a completion task ends within the innermost block: its closer is past the hole
        pytest.param("for (int x : xs) {\n            t += x;\n        }\n        return t;\n    }\n\n    int g() {",
                     JAVA_COMPLETION, "for (int x : xs) {\n            t += x;\n        }\n        return t;", id="completion-past-the-block-cut"),
        pytest.param("return t;\n    }\n}\n}", JAVA_COMPLETION, "return t;", id="completion-closer-of-nothing-cut"),
    ],
)
def test_balance_brackets_repairs(raw: str, ctx: HoleContext, expected: str) -> None:
    assert balance_brackets(raw, ctx) == expected


# --- truncate_syntax ---------------------------------------------------------------------------

@pytest.mark.parametrize(
    "ctx, answer",
    [
        pytest.param(HoleContext("python", "def f(xs):\n    for x in xs:\n        ", "\n\n\ndef g():\n    pass\n"),
                     "print(x)\n    return len(xs)", id="python-dedented-trailing-line"),
        pytest.param(HoleContext("python", "def f(xs):\n    for x in xs:\n        ", ""),
                     "print(x)\n    return len(xs)\n\n\nclass", id="python-completion-dedented-and-cut-short"),
        pytest.param(HoleContext("python", "def f(x):\n    if x > 0 and x", " 0\n"),
                     " < 10:\n        return 1\n    return", id="python-mid-expression-character-cut"),
        pytest.param(HoleContext("python", "def f(x):\n    if x > 0 an", ""), "d x < 10:\n        ret", id="python-mid-token-completion"),
        pytest.param(HoleContext("python", "def f(x):\n    '''Doc", ""), "string.\n\n    More", id="python-completion-in-a-docstring"),
        pytest.param(HoleContext("python", "x = 1\n", ""), "@decorator(1)\ncla", id="python-completion-after-a-decorator"),
        pytest.param(HoleContext("python", "# Implementation:", "\nprint(f(1))\n"),
                     "def f(x):\n    return x", id="python-prefix-ends-in-a-comment-without-newline"),
        pytest.param(HoleContext("python", "def f(x):\n", "    return y\n"), "    y = x", id="python-suffix-starts-without-newline"),
        pytest.param(HoleContext("java", JAVA_METHOD + "if (x > 0) {\n            x = 1;\n        }\n        ", JAVA_END),
                     "x++;\n    }\n\n    int g() {\n        int x = 0;", id="java-hole-spans-two-methods"),
        pytest.param(HoleContext("java", JAVA_METHOD + "if (x > 0 && x", " 0) {\n            x = 1;\n        }" + JAVA_END),
                     " < 10) {\n            x = 2;\n        }\n        if (x >", id="java-mid-expression-character-cut"),
        pytest.param(JAVA_COMPLETION, "for (int x : xs) {\n            t += x;\n        }\n        return t;\n    }\n\n    /** Other", id="java-completion-in-a-comment"),
    ],
)
def test_truncate_syntax_keeps_correct_answers(ctx: HoleContext, answer: str) -> None:
    assert truncate_syntax(answer, ctx) == answer


@pytest.mark.parametrize(
    "raw, ctx, expected",
    [
        pytest.param("t += 1;\n        }\n    }\n\n    void other() {}", JAVA_INFILL, "t += 1;", id="java-run-on-cut"),
        pytest.param("s += x\n```\nThis adds x.", PY_LOOP, "s += x", id="python-run-on-cut"),
        pytest.param("x > 0\n        return 1", PY_COND, "x > 0", id="python-condition-first-line"),
        pytest.param("x > 0) {\n            return 1;", JAVA_COND, "x > 0", id="java-condition-cut-before-paren"),
        pytest.param("for (int x : xs) {\n            t += x;\n        }\n        return t;\n    }\n}\n}\nclass B {", JAVA_COMPLETION,
                     "for (int x : xs) {\n            t += x;\n        }\n        return t;\n    }\n}", id="java-completion-past-the-file's-end"),
        pytest.param("t += (", JAVA_INFILL, "t += (", id="no-cut-parses-left-unchanged"),
    ],
)
def test_truncate_syntax_repairs(raw: str, ctx: HoleContext, expected: str) -> None:
    assert truncate_syntax(raw, ctx) == expected


# --- the identity property on holes cut by someone else ----------------------------------------

STEPS = ("balance_brackets", "truncate_syntax")
SOURCES = bundled_sources()
# One file per bundled repository in the default run (all of them in the slow one)
SAMPLE = one_per_repository(SOURCES)
_SETTINGS = PROPERTY_SETTINGS


def _unchanged(data: st.DataObject, source: tuple[str, str, str]) -> None:
    hole = data.draw(cut(*source))
    assert [step for step in STEPS if step_alters(step, hole)] == [], hole.where


@pytest.mark.parametrize("source", SAMPLE, ids=[s[0] for s in SAMPLE])
@settings(max_examples=150, **_SETTINGS)
@given(data=st.data())
def test_steps_return_an_arbitrary_cut_unchanged(source: tuple[str, str, str], data: st.DataObject) -> None:
    _unchanged(data, source)


@pytest.mark.slow
@pytest.mark.parametrize("source", SOURCES, ids=[s[0] for s in SOURCES])
@settings(max_examples=300, **_SETTINGS)
@given(data=st.data())
def test_steps_return_an_arbitrary_cut_of_every_bundled_file_unchanged(source: tuple[str, str, str], data: st.DataObject) -> None:
    _unchanged(data, source)


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("language", ["python", "java"])
def test_steps_return_devbench_golden_completions_unchanged(step: str, language: str) -> None:
    holes = list(devbench_holes(language))
    assert len(holes) == 300
    altered = [hole.where for hole in holes if step_alters(step, hole)]
    assert altered == []
