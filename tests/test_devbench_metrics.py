"""DevBench's similarity metrics against values worked out by hand (replay/scoring/devbench.py)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.scoring.devbench import bow_cosine, char_grams, line0, line0_exact_match, words


@pytest.mark.parametrize(
    "answer, truth, expected",
    [
        # line 0 of both: "x = f(y)" (leading blank lines and indentation go with the text's strip)
        pytest.param("\n   \n    x = f(y)\n", "x = f(y)\nz = 1", 1, id="leading-blank-lines"),
        pytest.param("        xs.append(v)", "\txs.append(v)", 1, id="indentation"),
        # spacing inside the line counts: "x = f(y, z)" is not "x=f(y,z)"
        pytest.param("x = f(y, z)", "x=f(y,z)", 0, id="spacing-inside-the-line"),
        # "return a\r" loses its "\r" with the line's own strip
        pytest.param("return a\r\nb", "return a\n", 1, id="carriage-return"),
        # first lines equal, second lines "y = 2" and "y = 3": only line 0 counts
        pytest.param("x = 1\ny = 2", "x = 1\ny = 3", 1, id="different-second-lines"),
        pytest.param("x = 1\ny = 2", "x = 2\ny = 2", 0, id="different-first-lines"),
        # an empty or blank answer never matches
        pytest.param("", "pass", 0, id="empty-answer"),
        pytest.param("  \n\t\n", "pass", 0, id="blank-answer"),
    ],
)
def test_line0_exact_match(answer: str, truth: str, expected: int) -> None:
    assert line0_exact_match(answer, truth) == expected


def test_line0() -> None:
    assert line0("\n\n  foo(1)  \n  bar()") == "foo(1)"
    assert line0("") == ""


def test_words_and_char_grams() -> None:
    # lowercased \b\w+\b: one-character words count, repetitions counted
    assert words("x = Foo(a, BAR) + foo") == {"x": 1, "foo": 2, "a": 1, "bar": 1}
    # ");" → 1-grams ")", ";" ; 2-gram ");" (no 3-gram)
    assert char_grams(");") == {")": 1, ";": 1, ");": 1}
    # whitespace runs become one space: "a  b" → "a b"
    assert char_grams("a  b") == char_grams("a b")


@pytest.mark.parametrize(
    "answer, truth, expected",
    [
        # {a, foo, bar} · {x, foo, bar, baz} = 2; norms sqrt(3), sqrt(4) → 2 / sqrt(12) = 0.5774
        pytest.param("a = foo(bar)", "x = foo(bar, baz)", 2 / math.sqrt(12), id="words"),
        # {foo: 2, bar: 1} · {foo: 1, bar: 1} = 3; norms sqrt(5), sqrt(2) → 3 / sqrt(10) = 0.9487
        pytest.param("foo(foo, bar)", "foo(bar)", 3 / math.sqrt(10), id="repeated-words"),
        # case folded: {total, sum, items} on both sides → 1 (although the lines differ)
        pytest.param("Total = sum(Items)", "total = SUM(items)", 1.0, id="case-folding"),
        # {return, left} · {return, right} = 1 → 1 / (sqrt(2)·sqrt(2)) = 0.5
        pytest.param("return left", "return right", 0.5, id="one-of-two-shared"),
        pytest.param("foo()", "bar()", 0.0, id="disjoint"),
        # only line 0 counts: "if ok:" on both sides → equal lines → 1
        pytest.param("if ok:\n    go()", "if ok:\n    stop()", 1.0, id="first-line-only"),
        # no word on either side: character grams of ");" {")", ";", ");"} and "};" {"}", ";", "};"}
        # share ";" only → 1 / (sqrt(3)·sqrt(3)) = 1/3
        pytest.param(");", "};", 1 / 3, id="character-grams"),
        # one side without words, the other with: the word vectors share nothing → 0
        pytest.param(");", "x;", 0.0, id="one-side-without-words"),
        pytest.param("", "return total", 0.0, id="empty-answer"),
    ],
)
def test_bow_cosine(answer: str, truth: str, expected: float) -> None:
    assert bow_cosine(answer, truth) == pytest.approx(expected, abs=1e-12)


TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=60)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_a_non_blank_text_matches_itself(text: str) -> None:
    if text.strip():
        assert line0_exact_match(text, text) == 1
        assert bow_cosine(text, text) == 1.0


@settings(max_examples=300, deadline=None)
@given(TEXT, TEXT)
def test_the_metrics_are_symmetric_on_answers_and_bounded(a: str, b: str) -> None:
    if a.strip() and b.strip():
        assert line0_exact_match(a, b) == line0_exact_match(b, a)
        assert bow_cosine(a, b) == bow_cosine(b, a)
    assert 0.0 <= bow_cosine(a, b) <= 1.0
