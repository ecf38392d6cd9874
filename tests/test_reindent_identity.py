"""``reindent`` on holes cut by someone else: a correct answer is returned exactly, whatever the
hole's shape, and an answer written at the wrong indentation is still moved to the hole.

The step judges an answer where it lands, between the prefix and the suffix; these cases are the
shapes that broke the old rule (cursor always after the indentation, one block at one level).
"""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from postprocess import HoleContext
from postprocess.blocks import Lexer
from postprocess.steps import reindent

from .holes import PROPERTY_SETTINGS, bundled_sources, cut, devbench_holes, one_per_repository, step_alters

TOTAL = "def total(xs):\n    s = 0\n"


def _py(prefix: str, suffix: str = "") -> HoleContext:
    return HoleContext("python", prefix, suffix)


@pytest.mark.parametrize(
    "prefix, answer, suffix",
    [
        pytest.param(TOTAL, "    for x in xs:\n        s += x", "\n    return s\n", id="column-0-keeps-its-indentation"),
        pytest.param(TOTAL, "    return s", "", id="column-0-single-line"),
        pytest.param(TOTAL + "    for x in xs:\n", "        s += x", "\n    return s\n", id="column-0-block-body"),
        pytest.param(TOTAL, "    for x in xs:\n        s += x\n", "    return s\n", id="column-0-whole-lines"),
        pytest.param(TOTAL + "    for x in xs:\n        s += x\n", "    return s", "", id="column-0-dedented-line"),
    ],
)
def test_answer_at_column_0_keeps_its_indentation(prefix: str, answer: str, suffix: str) -> None:
    assert reindent(answer, _py(prefix, suffix)) == answer


@pytest.mark.parametrize(
    "prefix, answer, suffix",
    [
        pytest.param(
            "def read(path):\n    try:", "\n        return open(path).read()", "\n    except OSError:\n        return None\n", id="after-try"
        ),
        pytest.param("def f(x):\n    y = g(x)", "\n    return y", "", id="after-a-statement"),
        pytest.param("def f(x):\n    y = g(x)\n", "\n    return y", "", id="blank-first-line-at-column-0"),
    ],
)
def test_leading_newline_at_an_end_of_line_cursor_is_kept(prefix: str, answer: str, suffix: str) -> None:
    assert reindent(answer, _py(prefix, suffix)) == answer


@pytest.mark.parametrize(
    "prefix, answer, suffix",
    [
        pytest.param(TOTAL + "    for x in xs:\n        ", "s += x\n    return s", "", id="return-after-a-loop-body"),
        pytest.param(
            TOTAL + "    for x in xs:\n        ", "s += x\n    return s", "\n\n\ndef other():\n    pass\n", id="return-after-a-loop-body-infill"
        ),
        pytest.param(
            "def sign(x):\n    if x > 0:\n        ",
            "return 1\n    elif x < 0:\n        return -1\n    else:\n        return 0",
            "",
            id="elif-else-after-a-return",
        ),
        pytest.param(
            "def pick(rows):\n    out = []\n    for row in rows:\n        if row:\n            ",
            "out.append(row)\n        else:\n            out.append(None)\n    return out",
            "\n",
            id="code-after-a-nested-block",
        ),
        pytest.param(
            "class Box:\n    def size(self):\n        ",
            "return len(self.items)\n\n    def empty(self):\n        return not self.items",
            "\n",
            id="next-method",
        ),
        pytest.param(
            "def f(xs):\n    total = 0\n    ",
            "for x in xs:\n        if x:\n            total += x\n    return total",
            "\n",
            id="nested-blocks-opened-and-left",
        ),
        pytest.param(
            "def outer():\n    def inner():\n        ",
            "return 1\n    data = inner()\n    return data",
            "",
            id="nested-function-left-without-a-blank-line",
        ),
        pytest.param(
            "def _copy_atomic(x, memo):\n    ",
            "return x\nd[int] = _copy_atomic\nd[float] = _copy_atomic",
            "",
            id="module-code-registering-the-function",
        ),
        pytest.param(
            "def f(x):\n    if x:\n        return 1\n",
            "    return 0\n\n\nprint(f(1))\n",
            "",
            id="module-code-after-blank-lines",
        ),
    ],
)
def test_dedenting_lines_stay_where_they_are(prefix: str, answer: str, suffix: str) -> None:
    assert reindent(answer, _py(prefix, suffix)) == answer


BLOCK = _py('def area(w, h):\n    """Area of a rectangle."""\n    ')
LOOP = _py("def total(xs):\n    s = 0\n    for x in xs:\n        ", "\n    return s\n")


@pytest.mark.parametrize(
    "ctx, raw, expected",
    [
        pytest.param(BLOCK, "if w:\n    return w\nreturn h", "if w:\n        return w\n    return h", id="written-from-column-0"),
        pytest.param(LOOP, "s += x\nprint(s)", "s += x\n        print(s)", id="from-column-0-in-a-loop"),
        pytest.param(BLOCK, "   return w * h", "return w * h", id="first-line-indented-too-far"),
        pytest.param(
            BLOCK, "    if w:\n        return w\n    return h", "if w:\n        return w\n    return h", id="indented-by-one-level-too-many"
        ),
        pytest.param(
            _py("def f(root):\n    stats = {}\n    if root is None:\n        return stats\n    ", "\n    return stats\n"),
            "    total = 0\n    queue = [root]",
            "total = 0\n    queue = [root]",
            id="first-line-indented-after-a-return",
        ),
        pytest.param(
            _py("class A:\n    def f(self, x):\n        self.x = x\n        "),
            "self.y = x\nif x:\n    self.z = x",
            "self.y = x\n        if x:\n            self.z = x",
            id="module-code-glued-to-the-function",
        ),
        pytest.param(BLOCK, "if w:\n\treturn w", "if w:\n        return w", id="tabs-in-a-file-indented-with-spaces"),
        pytest.param(
            _py("def total(xs):\n\ts = 0\n\tfor x in xs:\n\t\t", "\n\treturn s\n"),
            "s += x\nif s:\n    s -= 1",
            "s += x\n\t\tif s:\n\t\t\ts -= 1",
            id="spaces-in-a-file-indented-with-tabs",
        ),
        pytest.param(_py("def f(x):\n    y = x\n", "\n    return y\n"), "y += 1", "    y += 1", id="column-0-answer-outside-every-block"),
        pytest.param(_py("def f(x):\n", "\n    return y\n"), "y = x", "    y = x", id="column-0-block-body-flush"),
    ],
)
def test_wrong_indentation_is_repaired(ctx: HoleContext, raw: str, expected: str) -> None:
    assert reindent(raw, ctx) == expected


def test_devbench_whole_line_after_white_space_is_kept() -> None:
    """DevBench's prefix may end with the indentation of an empty line and its answer repeat it."""
    ctx = _py("def f(file):\n    with file:\n        file.write(b'x')\n        ", "\n        name = file.name\n")
    assert reindent("        file.flush()\n", ctx) == "        file.flush()\n"


@pytest.mark.parametrize(
    "prefix",
    [
        pytest.param("x = f(a,\n", id="inside-brackets"),
        pytest.param('def f():\n    """Doc\n', id="inside-a-docstring"),
    ],
)
def test_continuation_lines_are_free(prefix: str) -> None:
    assert reindent("      b)\n", _py(prefix)) == "      b)\n"


def test_lexing_an_open_string_ending_in_a_backslash_terminates() -> None:
    start = time.perf_counter()
    assert reindent('x = """abc\\', _py("def f():\n    ")) == 'x = """abc\\'
    lexer = Lexer()
    assert len(lexer.lines('x = """abc\\')) == 1 and lexer.quote == '"""'
    assert time.perf_counter() - start < 1


def test_prefix_deep_in_a_long_literal_is_not_judged() -> None:
    prefix = "TABLE = {\n" + "".join(f"    'k{i}': {i},\n" for i in range(300))
    assert reindent("'x': 1,\n  'y': 2,", _py(prefix)) == "'x': 1,\n  'y': 2,"


PYTHON = tuple(s for s in bundled_sources() if s[1] == "python")
# The default run's share: one Python file per bundled repository
SAMPLE = one_per_repository(PYTHON)
_SETTINGS = PROPERTY_SETTINGS


@pytest.mark.parametrize("source", SAMPLE, ids=[s[0] for s in SAMPLE])
@settings(max_examples=150, **_SETTINGS)
@given(data=st.data())
def test_reindent_returns_an_arbitrary_cut_unchanged(source: tuple[str, str, str], data: st.DataObject) -> None:
    hole = data.draw(cut(*source))
    assert not step_alters("reindent", hole), hole.where


@pytest.mark.slow
@pytest.mark.parametrize("source", PYTHON, ids=[s[0] for s in PYTHON])
@settings(max_examples=400, **_SETTINGS)
@given(data=st.data())
def test_reindent_returns_an_arbitrary_cut_of_every_bundled_file_unchanged(source: tuple[str, str, str], data: st.DataObject) -> None:
    hole = data.draw(cut(*source))
    assert not step_alters("reindent", hole), hole.where


def test_reindent_returns_devbench_golden_completions_unchanged() -> None:
    holes = list(devbench_holes("python"))
    assert len(holes) == 300
    altered = [hole.where for hole in holes if step_alters("reindent", hole)]
    assert altered == []
