"""Similarity metrics against values worked out by hand (replay/scoring/similarity.py)."""

from __future__ import annotations

import pytest

from replay.scoring.similarity import (
    exact_match,
    first_line_match,
    identifier_match,
    identifiers,
    indel_similarity,
    levenshtein_similarity,
    similarity,
)


def test_the_two_edit_similarities_differ_as_documented() -> None:
    # kitten → sitting: Levenshtein distance 3 over max length 7; the longest common
    # subsequence "ittn" (4) gives an indel distance of 6 + 7 - 2·4 = 5 over 13 characters.
    assert levenshtein_similarity("kitten", "sitting") == pytest.approx(1 - 3 / 7)
    assert indel_similarity("kitten", "sitting") == pytest.approx(1 - 5 / 13)


def test_edit_similarity_ignores_surrounding_whitespace_only() -> None:
    assert indel_similarity("  x = 1\n", "x = 1") == 1.0
    assert levenshtein_similarity("x = 1", "x =  1") == pytest.approx(1 - 1 / 6)
    assert indel_similarity("", "") == 1.0 and levenshtein_similarity("", "abc") == 0.0


@pytest.mark.parametrize(
    "answer, truth, expected",
    [
        pytest.param("return a +  b\n", "    return a + b", 1, id="spaces-and-indent"),
        pytest.param("if x:\n\treturn y", "if x:\n    return y", 1, id="tabs-vs-spaces"),
        pytest.param("return a+b", "return a + b", 0, id="tokens-glued"),
        pytest.param("", "pass", 0, id="empty"),
    ],
)
def test_exact_match_normalises_whitespace(answer: str, truth: str, expected: int) -> None:
    assert exact_match(answer, truth) == expected


def test_first_line_match_takes_the_first_non_blank_line() -> None:
    assert first_line_match("\n   total = 0\n  wrong()", "total = 0\nfor x in xs:\n    total += x") == 1
    assert first_line_match("total = 1\n", "total = 0\n") == 0


def test_python_identifiers_skip_strings_comments_numbers_and_keywords() -> None:
    code = 'x = foo(bar, "baz qux", f\'{y}\') + len(x) * 1e5  # comment word\nif not x: return None'
    assert identifiers(code, "python") == ["x", "foo", "bar", "len", "x", "x"]


def test_java_identifiers_skip_strings_chars_comments_and_keywords() -> None:
    code = 'if (node != null && node.key.compareTo(k) > 0) return "x y"; /* note */ char c = \'a\'; // more'
    assert identifiers(code, "java") == ["node", "node", "key", "compareTo", "k", "c"]


def test_identifier_em_on_lists_and_f1_on_sets() -> None:
    em, precision, recall, f1 = identifier_match('x = foo(bar, "s") + len(x)', "x = foo(bar) + 1", "python")
    assert em == 0
    assert (precision, recall) == (pytest.approx(3 / 4), 1.0)
    assert f1 == pytest.approx(2 * 0.75 / 1.75)
    # the same names in another order: the sets agree, the ordered lists do not
    assert identifier_match("b(a)", "a(b)", "python") == (0, 1.0, 1.0, 1.0)
    assert identifier_match("a(b)", "a( b )", "python")[0] == 1


def test_identifier_match_edge_cases() -> None:
    assert identifier_match("1 + 2", "3", "python") == (1, 1.0, 1.0, 1.0)  # no names on either side
    assert identifier_match("", "total", "python") == (0, 0.0, 0.0, 0.0)


def test_similarity_of_a_missing_answer_is_that_of_an_empty_one() -> None:
    assert similarity(None, "return x", "python") == similarity("", "return x", "python")
    full = similarity("return x", "return x", "python")
    assert full.to_dict() == {"exact_match": 1, "indel_similarity": 1.0, "levenshtein_similarity": 1.0,
                              "first_line_match": 1, "identifier_em": 1, "identifier_f1": 1.0,
                              "devbench_line0": 1, "devbench_cosine": 1.0}
