import math
from collections import Counter

import pytest

from textindex import Analyzer, InvertedIndex, RankingError, explain, highlight, make_snippet, rank
from textindex.ranking import bm25_score, idf, tfidf_score
from textindex.snippets import ELLIPSIS, find_best_window


def small_index():
    index = InvertedIndex()
    index.add("apple banana apple")  # 1: apple x2, banana, length 3
    index.add("banana cherry")  # 2: length 2
    index.add("cherry cherry cherry date")  # 3: length 4
    index.add("the of and")  # 4: only stop words, length 0
    return index


def test_idf_values():
    index = small_index()
    n = 4
    assert idf(index, "apple") == pytest.approx(math.log(1 + (n - 1 + 0.5) / 1.5))
    assert idf(index, "banana") == pytest.approx(math.log(1 + (n - 2 + 0.5) / 2.5))
    assert idf(index, "durian") == 0.0
    assert idf(InvertedIndex(), "apple") == 0.0


def test_bm25_matches_formula():
    index = small_index()
    avg = 9 / 4
    k1, b = 1.2, 0.75
    tf, length = 2, 3
    expected = idf(index, "apple") * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avg))
    score = bm25_score(index, Counter(["apple"]), 1)
    assert score == pytest.approx(expected)
    # A repeated query term counts twice; an absent term adds nothing.
    assert bm25_score(index, Counter(["apple", "apple", "durian"]), 1) == pytest.approx(2 * expected)


def test_bm25_parameters_change_length_normalisation():
    index = small_index()
    terms = Counter(["banana"])
    no_norm = bm25_score(index, terms, 1, k1=1.2, b=0.0)
    expected = idf(index, "banana") * 1 * 2.2 / (1 + 1.2)
    assert no_norm == pytest.approx(expected)
    assert bm25_score(index, terms, 2) > bm25_score(index, terms, 1)


def test_bm25_rejects_bad_parameters():
    index = small_index()
    with pytest.raises(RankingError):
        bm25_score(index, Counter(["apple"]), 1, k1=-0.1)
    with pytest.raises(RankingError):
        bm25_score(index, Counter(["apple"]), 1, b=1.5)


def test_bm25_on_index_of_empty_documents():
    index = InvertedIndex()
    index.add("the and of")
    assert index.average_length == 0.0
    assert bm25_score(index, Counter(["apple"]), 1) == 0.0


def test_tfidf_matches_formula():
    index = small_index()
    expected = (1 + math.log(3)) * math.log(1 + 4 / 2) / math.sqrt(4)
    assert tfidf_score(index, Counter(["cherry"]), 3) == pytest.approx(expected)
    assert tfidf_score(index, Counter(["apple"]), 3) == 0.0
    assert tfidf_score(index, Counter(["apple"]), 4) == 0.0


def test_rank_orders_by_score_then_id():
    index = small_index()
    ranked = rank(index, ["banana"], {1, 2, 3})
    assert [doc_id for doc_id, _ in ranked] == [2, 1, 3]
    assert ranked[-1][1] == 0.0
    # Equal scores fall back to ascending ids.
    assert [d for d, _ in rank(index, [], {3, 1, 2})] == [1, 2, 3]


def test_rank_limit_and_method():
    index = small_index()
    top = rank(index, ["cherry", "apple"], {1, 2, 3}, method="tfidf", limit=2)
    assert len(top) == 2
    full = rank(index, ["cherry", "apple"], {1, 2, 3}, method="tfidf")
    assert top == full[:2]
    assert rank(index, ["apple"], {1, 2}, limit=0) == []


def test_rank_rejects_bad_arguments():
    index = small_index()
    with pytest.raises(RankingError, match="bm25, tfidf"):
        rank(index, ["apple"], {1}, method="cosine")
    with pytest.raises(RankingError, match="limit"):
        rank(index, ["apple"], {1}, limit=-1)


@pytest.mark.parametrize("method", ["bm25", "tfidf"])
def test_explain_parts_sum_to_score(method):
    index = small_index()
    terms = ["banana", "apple", "apple", "durian"]
    parts = explain(index, terms, 1, method=method)
    assert set(parts) == {"banana", "apple"}
    [(_, score)] = rank(index, terms, {1}, method=method)
    assert sum(parts.values()) == pytest.approx(score)


def test_explain_empty_document_and_unknown_method():
    index = small_index()
    assert explain(index, ["apple"], 4, method="tfidf") == {}
    with pytest.raises(RankingError):
        explain(index, ["apple"], 1, method="okapi")


def test_highlight_merges_adjacent_spans():
    text = "the quick brown fox"
    assert highlight(text, [(10, 15), (4, 9)]) == "the [quick brown] fox"
    assert highlight(text, [(10, 15), (4, 9)], merge=False) == "the [quick] [brown] fox"
    assert highlight(text, [(0, 3), (16, 19)], markers=("<b>", "</b>")) == "<b>the</b> quick brown <b>fox</b>"
    assert highlight(text, []) == text


def test_highlight_rejects_overlapping_spans():
    with pytest.raises(ValueError):
        highlight("abcdef", [(0, 3), (2, 4)])
    with pytest.raises(ValueError):
        highlight("abcdef", [(0, 3), (2, 4)], merge=False)


def tok(text):
    return Analyzer(stop_words=()).tokens(text)


def test_find_best_window_prefers_distinct_terms():
    tokens = tok("a b x x x c d e f g x y h i j")
    # The first window has three x's, but the later one has both x and y.
    assert find_best_window(tokens, {"x", "y"}, window=4) == (8, 12)
    assert find_best_window(tokens, {"x"}, window=4) == (1, 5)
    assert find_best_window(tokens, {"zzz"}, window=4) == (0, 4)
    assert find_best_window(tokens, {"x"}, window=50) == (0, 15)
    assert find_best_window([], {"x"}) == (0, 0)
    with pytest.raises(ValueError):
        find_best_window(tokens, {"x"}, window=0)


def test_find_best_window_handles_terms_leaving_the_window():
    tokens = tok("k m m n p q r s")
    assert find_best_window(tokens, {"m", "s"}, window=3) == (0, 3)
    assert find_best_window(tokens, {"m", "r", "s"}, window=3) == (5, 8)
    tokens = tok("m m x s y z m s")
    assert find_best_window(tokens, {"m", "s"}, window=3) == (1, 4)
    assert find_best_window(tokens, {"m", "s"}, window=2) == (6, 8)


def test_make_snippet_whole_short_text():
    analyzer = Analyzer()
    text = "  The lazy dogs sleep all day.  "
    assert make_snippet(text, analyzer, {"dog"}) == "The lazy [dogs] sleep all day."


def test_make_snippet_cuts_with_ellipses():
    analyzer = Analyzer()
    words = " ".join(f"w{i}" for i in range(20))
    text = f"{words} needle haystack needle {words}"
    snippet = make_snippet(text, analyzer, {"needle"}, window=3)
    assert snippet == f"{ELLIPSIS} [needle] haystack [needle] {ELLIPSIS}"
    head = make_snippet(text, analyzer, {"w1"}, window=3)
    assert head == f"w0 [w1] w2 {ELLIPSIS}"
    tail = make_snippet("alpha beta gamma delta.", analyzer, {"delta"}, window=2)
    assert tail == f"{ELLIPSIS} gamma [delta]."


def test_make_snippet_without_tokens():
    assert make_snippet("the and of", Analyzer(), {"the"}) == ""
