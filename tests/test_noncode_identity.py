"""``strip_noncode`` removes what is not code and nothing else: it returns the ground truth of any
hole unchanged, bare and fenced with a preamble, white space included; a line that only reads
like a sentence (``TableFormat = namedtuple(``) is code when it parses as code, alone or in its
place; prose, fences and ``<think>`` blocks still go (issue 14).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from postprocess import HoleContext
from postprocess.steps import strip_noncode
from postprocess.steps.noncode import is_prose

from .holes import PROPERTY_SETTINGS, Hole, bundled_sources, cut, devbench_holes, fenced, one_per_repository

# ----------------------------------------------------------------------------- the quoted lines

PY_TABLE = "TableFormat = namedtuple("
PY_PREFIX = 'from collections import namedtuple\n\nRow = namedtuple("Row", ["cells"])\n'
PY_REST = '    "TableFormat", ["lineabove", "linebelow", "padding"])\n\n\ndef simple():\n    return TableFormat(None, None, 0)\n'

JAVA_ALPHABET = "String alphabet = new StringBuilder(this.alphabet.substring(offset))"
JAVA_CONTINUED = "        .append(this.alphabet, 0, offset).toString();"
JAVA_PREFIX = (
    "package org.example;\n\npublic final class Caesar {\n    private final String alphabet;\n\n"
    "    public Caesar(String alphabet) {\n        this.alphabet = alphabet;\n    }\n\n"
    "    public Caesar rotate(int offset) {\n        "
)
JAVA_REST = "        return new Caesar(alphabet);\n    }\n}\n"


def _both(truth: str, ctx: HoleContext) -> None:
    assert strip_noncode(truth, ctx) == truth
    assert strip_noncode(f"Here is the code:\n```{ctx.language}\n{truth}\n```", ctx) == truth


@pytest.mark.parametrize("infill", [True, False], ids=["infill", "completion"])
def test_namedtuple_line_first_in_the_answer_is_kept(infill: bool) -> None:
    truth = PY_TABLE + "\n" + PY_REST.split("\n\n\n")[0]
    _both(truth, HoleContext("python", PY_PREFIX, "\n\n\ndef simple():\n    return TableFormat(None, None, 0)\n" if infill else ""))


@pytest.mark.parametrize("infill", [True, False], ids=["infill", "completion"])
def test_namedtuple_line_last_in_the_answer_is_kept(infill: bool) -> None:
    prefix, truth = PY_PREFIX.split("Row")[0], 'Row = namedtuple("Row", ["cells"])\n' + PY_TABLE
    _both(truth, HoleContext("python", prefix, "\n" + PY_REST if infill else ""))


@pytest.mark.parametrize("infill", [True, False], ids=["infill", "completion"])
def test_java_statement_continued_on_the_next_line_first_in_the_answer_is_kept(infill: bool) -> None:
    truth = JAVA_ALPHABET + "\n" + JAVA_CONTINUED
    _both(truth, HoleContext("java", JAVA_PREFIX, "\n" + JAVA_REST if infill else ""))


@pytest.mark.parametrize("infill", [True, False], ids=["infill", "completion"])
def test_java_statement_continued_on_the_next_line_last_in_the_answer_is_kept(infill: bool) -> None:
    truth = "int shift = offset % alphabet.length();\n        " + JAVA_ALPHABET
    _both(truth, HoleContext("java", JAVA_PREFIX, "\n" + JAVA_CONTINUED + "\n" + JAVA_REST if infill else ""))


def test_the_quoted_lines_are_not_prose_even_alone() -> None:
    assert not is_prose(PY_TABLE, "python")
    assert not is_prose(JAVA_ALPHABET, "java")
    assert is_prose("Here is the completed code:", "java")
    assert is_prose("Explanation: the code above completes the block.", "python")


# ----------------------------------------------------------------------------- what still goes

PY_AREA = 'def area(w, h):\n    """Area of a rectangle."""\n    '
PY_BLOCK = HoleContext("python", PY_AREA, "\n\n\ndef perimeter(w, h):\n    return 2 * (w + h)\n")
PY_EOF = HoleContext("python", PY_AREA, "")
JAVA_AREA = "class Box {\n    int w, h;\n\n    int area() {\n        "
JAVA_BLOCK = HoleContext("java", JAVA_AREA, "\n    }\n}\n")
JAVA_EOF = HoleContext("java", JAVA_AREA, "")
CODE = {
    "python": "if w < 0:\n        raise ValueError(w)\n    return w * h",
    "java": "if (w < 0) {\n            throw new IllegalStateException();\n        }\n        return w * h;",
}
CONTEXTS = [PY_BLOCK, PY_EOF, JAVA_BLOCK, JAVA_EOF]
IDS = ["python-infill", "python-completion", "java-infill", "java-completion"]


@pytest.mark.parametrize("ctx", CONTEXTS, ids=IDS)
@pytest.mark.parametrize(
    "template",
    [
        pytest.param("Here is the completed code:\n{code}", id="preamble"),
        pytest.param("Here is the completed code:\n\n{code}", id="preamble-blank-line"),
        pytest.param("Sure! Here's the missing part:\n{code}", id="sure-preamble"),
        pytest.param("Sure!\n{code}", id="sure-line"),
        pytest.param("{code}\n\nExplanation: the code above completes the block.", id="explanation-trailer"),
        pytest.param("{code}\n\nThis keeps the behaviour of the surrounding code.\nNote that no other changes are needed.", id="two-trailers"),
        pytest.param("Certainly. The code that fills the hole is:\n{code}\n\nExplanation: it checks first.", id="preamble-and-trailer"),
        pytest.param("```{language}\n{code}\n```", id="fence"),
        pytest.param("Here is the implementation.\n\n```{language}\n{code}\n```\n\nThis keeps the behaviour.", id="fence-with-prose"),
        pytest.param("{code}\n```\nExplanation: product.", id="closing-fence-only"),
        pytest.param("<think>\nThe hole needs a check first.\n</think>\n{code}", id="think"),
        pytest.param("<think>unfinished reasoning", id="unclosed-think"),
        pytest.param("<think>x</think>\n\nHere is the code:\n```{language}\n{code}\n```", id="think-then-fence"),
    ],
)
def test_noncode_is_removed(template: str, ctx: HoleContext) -> None:
    code = CODE[ctx.language]
    expected = "" if "unfinished" in template else code
    assert strip_noncode(template.format(code=code, language=ctx.language), ctx) == expected


@pytest.mark.parametrize("ctx", [PY_BLOCK, JAVA_BLOCK], ids=["python", "java"])
def test_interjection_before_code_on_the_same_line(ctx: HoleContext) -> None:
    code = "return w * h" + (";" if ctx.language == "java" else "")
    assert strip_noncode("Sure! " + code, ctx) == code


def test_a_line_that_opens_like_an_interjection_but_is_code_is_kept() -> None:
    ctx = HoleContext("python", "", "\n")
    _both("OK, FAILED = 0, 1", ctx)


def test_prose_only_answer_becomes_empty() -> None:
    assert strip_noncode("The code is designed to replace the hole.\n\nIt returns the area.", PY_BLOCK) == ""


# ----------------------------------------------------------------------------- white space, exactly


@pytest.mark.parametrize(
    "truth",
    [
        pytest.param("\n    return w * h", id="leading-newline"),
        pytest.param("return w * h\n", id="trailing-newline"),
        pytest.param("\n\n    return w * h\n\n", id="blank-lines-both-sides"),
        pytest.param("    return w * h", id="own-indentation"),
        pytest.param("return w * h  ", id="trailing-spaces"),
        pytest.param("\n", id="only-a-newline"),
    ],
)
def test_white_space_is_kept_when_nothing_is_removed(truth: str) -> None:
    _both(truth, PY_BLOCK)
    _both(truth.replace("return w * h", "return w * h;"), JAVA_BLOCK)


def test_only_the_prose_and_the_blank_lines_next_to_it_go() -> None:
    raw = "\nHere is the code:\n\n    if w:\n        return w\n\nExplanation: early exit.\n"
    assert strip_noncode(raw, PY_BLOCK) == "    if w:\n        return w"
    assert strip_noncode("<think>hm</think>\n\n    return w", PY_BLOCK) == "    return w"  # its indentation stays


def test_crlf_follows_the_document() -> None:
    assert strip_noncode("return w * h\r\n", PY_BLOCK) == "return w * h\n"
    crlf = HoleContext("python", "def area(w, h):\r\n    ", "\r\n")
    assert strip_noncode("return w * h\r\n", crlf) == "return w * h\r\n"


# ----------------------------------------------------------------------------- in its place


@pytest.mark.parametrize(
    "prefix, truth, suffix",
    [
        pytest.param('def f():\n    """Return the area.\n\n    ', "Negative sides are refused with an error.", '\n    """\n    return 1\n',
                     id="docstring-line"),
        pytest.param('def f():\n    """Return the area.\n\n    ', "Negative sides are refused with an error.", "", id="docstring-line-at-the-end"),
        pytest.param('def f(w):\n    raise ValueError("', 'Negative sides are refused: " + str(w))', "\n", id="string-continued"),
        pytest.param("from .model import (Constraint,\n                     ", "Solution, SolveError, Status, UnboundedError)", "\n", id="import-continued"),
        pytest.param("def cg(A, b, tol=DEFAULT_", "TOL, maxiter=None):\n    return A", "", id="signature-continued"),
        pytest.param('NAMES = {"cg": cg, "ja', 'cobi": jacobi}', "\n", id="cut-inside-a-string"),
        pytest.param("def residual(A, x, b):\n    ", "A = as", "", id="cut-inside-a-name-that-starts-like-a-keyword"),
        pytest.param("def objective(sense):\n    return MINIMIZ", "E if sense =", "", id="cut-inside-a-conditional"),
    ],
)
def test_python_lines_that_read_like_prose_but_are_code_in_place(prefix: str, truth: str, suffix: str) -> None:
    _both(truth, HoleContext("python", prefix, suffix))


@pytest.mark.parametrize(
    "prefix, truth",
    [
        pytest.param("class A {\n    /** ", "Number of columns. */\n    int cols;", id="javadoc-end"),
        pytest.param("class A {\n    int f(int x) {\n        ", "Integer i =", id="cut-after-an-operator"),
        pytest.param("class A {\n    Object f(int i) {\n        ", "Object low = i == 0 ? null :", id="cut-inside-a-conditional"),
        pytest.param("class A {\n    Object f(Object source) {\n        ", "BufferedReader in = source inst", id="cut-inside-a-keyword"),
        pytest.param("class A {\n    String f() {\n        ", "StringBuilder sb = new StringBuilder(\"(\").append('", id="cut-after-a-quote"),
        pytest.param("enum Kind {\n    ", "UNDERFLOW, OVERFLOW, ORDER, SEPARATOR, M", id="enum-constants"),
        pytest.param("class A {\n    A(int min", "Degree, Comparator<? super K> ", id="cut-inside-parameters"),
        pytest.param("class A {\n    String f() {\n        ", "StringBuilder sb = new StringBuilder(h()).append('\\", id="cut-inside-an-escape"),
    ],
)
def test_java_lines_that_read_like_prose_but_are_code_in_place(prefix: str, truth: str) -> None:
    _both(truth, HoleContext("java", prefix, ""))


def test_java_line_in_a_nested_class_judged_in_its_place() -> None:
    prefix = ("public final class RangeIterator<K, V> {\n\n    private static final class Frame<K, V> {\n"
              "        final Node<K, V> node;\n        int index;\n\n        Frame(Node<")
    suffix = (") {\n            this.node = node;\n            this.index = index;\n        }\n    }\n\n"
              "    private final Comparator<? super K> cmp;\n}\n")
    _both("K, V> node, int index", HoleContext("java", prefix, suffix))


# ----------------------------------------------------------------------------- any hole

SOURCES = bundled_sources()
SAMPLE = one_per_repository(SOURCES)
_SETTINGS = PROPERTY_SETTINGS


def _altered(hole: Hole) -> list[str]:
    return [f"{how}: {hole.truth!r} -> {got!r}" for how, raw in (("bare", hole.truth), ("fenced", fenced(hole)))
            if (got := strip_noncode(raw, hole.context)) != hole.truth]


@pytest.mark.parametrize("source", SAMPLE, ids=[s[0] for s in SAMPLE])
@settings(max_examples=150, **_SETTINGS)
@given(data=st.data())
def test_an_arbitrary_cut_comes_back_unchanged(source: tuple[str, str, str], data: st.DataObject) -> None:
    hole = data.draw(cut(*source))
    assert _altered(hole) == [], hole.where


@pytest.mark.slow
@pytest.mark.parametrize("source", SOURCES, ids=[s[0] for s in SOURCES])
@settings(max_examples=500, **_SETTINGS)
@given(data=st.data())
def test_an_arbitrary_cut_of_every_bundled_file_comes_back_unchanged(source: tuple[str, str, str], data: st.DataObject) -> None:
    hole = data.draw(cut(*source))
    assert _altered(hole) == [], hole.where


@pytest.mark.parametrize("language", ["python", "java"])
def test_devbench_golden_completions_come_back_unchanged(language: str) -> None:
    holes = list(devbench_holes(language))
    assert len(holes) == 300
    broken = {hole.where: found for hole in holes if (found := _altered(hole))}
    assert broken == {}, f"{len(broken)} of 300 altered; first: {next(iter(broken.items()), None)}"
