"""Literal cases for each post-processing step, on the kind of text models really send."""

from __future__ import annotations

import pytest

from postprocess import HoleContext, run_preset
from postprocess.steps import drop_regenerated, reindent, strip_noncode
from postprocess.steps.noncode import is_prose

FUNC_PREFIX = "def area(w, h):\n    \"\"\"Area of a rectangle.\"\"\"\n    "
BLOCK = HoleContext("python", FUNC_PREFIX, "")
LOOP_PREFIX = "def total(xs):\n    s = 0\n    for x in xs:\n        "
LOOP_SUFFIX = "\n    return s\n"
LOOP = HoleContext("python", LOOP_PREFIX, LOOP_SUFFIX)
COND = HoleContext("python", "def f(x):\n    if ", ":\n        return 1\n    return 0\n")


@pytest.mark.parametrize(
    "raw, expected",
    [
        pytest.param("```python\nreturn w * h\n```", "return w * h", id="fenced"),
        pytest.param("Here is the completed code:\n```python\nreturn w * h\n```\nThis multiplies.", "return w * h", id="preamble-fence-epilogue"),
        pytest.param("Sure! return w * h", "return w * h", id="interjection-before-code"),
        pytest.param("Sure!\nreturn w * h", "return w * h", id="interjection-line"),
        pytest.param("<think>multiply them</think>\nreturn w * h", "return w * h", id="think-block"),
        pytest.param("return w * h\n```\nExplanation: product.", "return w * h", id="closing-fence-only"),
        # line ends as the file has them; the answer's own trailing newline is its own (identity)
        pytest.param("return w * h\r\n", "return w * h\n", id="crlf"),
        pytest.param('doc = """\n```\n"""\nreturn doc', 'doc = """\n```\n"""\nreturn doc', id="fence-inside-string-kept"),
        pytest.param("if w:\n    return w * h\nreturn 0", "if w:\n    return w * h\nreturn 0", id="plain-code-untouched"),
    ],
)
def test_strip_noncode(raw: str, expected: str) -> None:
    assert strip_noncode(raw, BLOCK) == expected


@pytest.mark.parametrize(
    "line, prose",
    [
        ("Here is the completed function:", True),
        ("This returns the area of the rectangle.", True),
        ("Explanation: we multiply.", True),
        ("return a if b else c", False),
        ("raise ValueError('Here is the problem')", False),
        ("import os", False),
        ("else:", False),
        ("# Here is a comment", False),
        ("Result = compute(a, b)", False),
    ],
)
def test_is_prose(line: str, prose: bool) -> None:
    assert is_prose(line, "python") is prose


@pytest.mark.parametrize(
    "raw, ctx, expected",
    [
        pytest.param('def area(w, h):\n    """Area of a rectangle."""\n    return w * h', BLOCK, "    return w * h", id="repeats-signature"),
        pytest.param("s += x\n    return s", LOOP, "s += x", id="repeats-line-below"),
        pytest.param("for x in xs:\n        s += x", LOOP, "        s += x", id="repeats-line-above"),
        pytest.param("x > 0:", COND, "x > 0", id="condition-with-colon"),
        pytest.param("if x > 0:", COND, "x > 0", id="condition-with-keyword"),
        pytest.param("x > 0:\n        return 1", COND, "x > 0", id="condition-with-body"),
        pytest.param("s += x", LOOP, "s += x", id="nothing-to-drop"),
    ],
)
def test_drop_regenerated(raw: str, ctx: HoleContext, expected: str) -> None:
    assert drop_regenerated(raw, ctx) == expected


@pytest.mark.parametrize(
    "raw, expected",
    [
        pytest.param("if w:\n    return w\nreturn h", "if w:\n        return w\n    return h", id="snippet-from-column-0"),
        pytest.param("    if w:\n        return w\n    return h", "if w:\n        return w\n    return h", id="model-indented-first-line"),
        pytest.param("if w:\n        return w\n    return h", "if w:\n        return w\n    return h", id="already-absolute"),
        pytest.param("if w:\n    return w", "if w:\n        return w", id="opener-body-too-shallow"),
        pytest.param('x = """\nraw\n  text\n"""\nreturn x', 'x = """\nraw\n  text\n"""\n    return x', id="string-lines-untouched"),
        pytest.param("if w:\n\treturn w", "if w:\n        return w", id="tabs-to-spaces"),
        pytest.param("   return w * h", "return w * h", id="single-line"),
    ],
)
def test_reindent(raw: str, expected: str) -> None:
    assert reindent(raw, BLOCK) == expected


def test_preset_records_changing_steps() -> None:
    processed = run_preset("simcopilot", "```python\nif w:\n    return w\nreturn h\n```", BLOCK)
    assert processed.text == "if w:\n        return w\n    return h"
    assert processed.changed_by == ("strip_noncode", "reindent")


def test_none_preset_only_strips() -> None:
    assert run_preset("none", "Here is the code:\nif w:\n    return w", BLOCK).text == "if w:\n    return w"
