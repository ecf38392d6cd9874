import json

import pytest

from textindex import (
    Analyzer,
    DocumentNotFound,
    IndexFormatError,
    InvertedIndex,
    QuerySyntaxError,
    RankingError,
    SearchResult,
    build_index,
)
from textindex.index import FORMAT_VERSION

CORPUS = {
    "Foxes": "The quick brown fox jumps over the lazy dog. Foxes are quick.",
    "Dogs": "Lazy dogs sleep all day, and the dog dreams of a fox.",
    "Search": "Search engines build an inverted index; searching is fast.",
    "Café": "A café in Zürich serves crème brûlée and coffee.",
}


def corpus_index():
    return build_index(CORPUS)


def test_add_builds_positional_postings():
    index = InvertedIndex()
    doc_id = index.add("Dog eats dog food; the dog sleeps", title="dogs")
    assert doc_id == 1
    assert index.postings("dog") == {1: [0, 2, 5]}
    assert index.term_frequency("dog", 1) == 3
    assert index.term_frequency("cat", 1) == 0
    assert index.document_frequency("dog") == 1
    assert index.document_frequency("cat") == 0
    assert index.doc_length(1) == 6
    assert index.document(1).title == "dogs"
    assert 1 in index and 2 not in index


def test_add_with_explicit_ids_and_errors():
    index = InvertedIndex()
    assert index.add("first", doc_id=10) == 10
    assert index.add("second") == 11
    assert index.add("third", doc_id=3) == 3
    assert index.add("fourth") == 12
    with pytest.raises(ValueError, match="already indexed"):
        index.add("again", doc_id=10)
    with pytest.raises(ValueError, match="negative"):
        index.add("bad", doc_id=-1)
    with pytest.raises(TypeError, match="must be str, not bytes"):
        index.add(b"raw bytes")
    assert len(index) == 4


def test_add_many_accepts_texts_and_pairs():
    index = InvertedIndex()
    ids = index.add_many(["plain text", ("Title", "titled text")])
    assert ids == [1, 2]
    assert index.document(1).title == ""
    assert index.document(2).title == "Title"
    assert index.postings("text") == {1: [1], 2: [1]}


def test_build_index_from_list_with_options():
    index = build_index(["Running dogs", "Runs"], stemming=False)
    assert index.vocabulary() == ["dogs", "running", "runs"]
    assert index.analyzer.stemming is False


def test_average_length_and_statistics():
    index = InvertedIndex()
    assert index.average_length == 0.0
    index.add("one two three four")
    index.add("five six")
    assert index.average_length == 3.0
    index.remove(1)
    assert index.average_length == 2.0


def test_remove_cleans_postings_and_vocabulary():
    index = corpus_index()
    assert "engin" not in index.vocabulary()
    assert "engine" in index.vocabulary()
    removed = index.remove(3)
    assert removed.title == "Search"
    assert "engine" not in index.vocabulary()
    assert index.postings("search") == {}
    assert index.doc_ids() == {1, 2, 4}
    # Terms shared with other documents keep their other postings.
    index.remove(1)
    assert set(index.postings("fox")) == {2}
    with pytest.raises(DocumentNotFound):
        index.remove(1)
    with pytest.raises(DocumentNotFound):
        index.document(99)


def test_update_replaces_text_and_optionally_title():
    index = corpus_index()
    index.update(2, "Cats purr")
    assert index.document(2).title == "Dogs"
    assert set(index.postings("fox")) == {1}
    assert index.postings("cat") == {2: [0]}
    index.update(2, "Cats nap", title="Cats")
    assert index.document(2).title == "Cats"
    assert index.postings("purr") == {}
    assert index.doc_length(2) == 2


def test_expand_prefix_uses_fresh_vocabulary():
    index = InvertedIndex()
    index.add("search searcher seal season")
    assert index.expand_prefix("sea") == ["seal", "search", "searcher", "season"]
    assert index.expand_prefix("sea", limit=2) == ["seal", "search"]
    assert index.expand_prefix("sea", limit=0) == []
    assert index.expand_prefix("zebra") == []
    index.add("seat")
    assert index.expand_prefix("seat") == ["seat"]


def test_most_common_terms_breaks_ties_alphabetically():
    index = InvertedIndex()
    index.add("pear apple pear fig")
    index.add("fig apple kiwi")
    assert index.most_common_terms(3) == [("apple", 2), ("fig", 2), ("pear", 2)]
    assert index.most_common_terms()[-1] == ("kiwi", 1)


def test_search_ranks_and_builds_snippets():
    index = corpus_index()
    results = index.search("fox")
    assert [r.doc_id for r in results] == [1, 2]
    top = results[0]
    assert isinstance(top, SearchResult)
    assert top.title == "Foxes"
    assert top.score > results[1].score > 0
    assert top.snippet == "The quick brown [fox] jumps over the lazy dog. [Foxes] are quick."


def test_search_folds_accents_in_queries():
    index = corpus_index()
    [result] = index.search("CREME brulee")
    assert result.title == "Café"
    assert result.snippet == "A café in Zürich serves [crème brûlée] and coffee."
    assert [r.title for r in index.search("zurich OR cafe")] == ["Café"]


def test_search_phrases_negation_and_limits():
    index = corpus_index()
    assert [r.doc_id for r in index.search('"lazy dog"')] == [2, 1]
    assert [r.doc_id for r in index.search('"lazy fox"')] == []
    assert [r.doc_id for r in index.search("lazy -jumps")] == [2]
    assert [r.doc_id for r in index.search("NOT fox")] == [3, 4]
    assert len(index.search("fox OR search OR cafe", limit=2)) == 2
    assert len(index.search("fox OR search OR cafe", limit=None)) == 4
    assert index.search("the of") == []
    assert index.search("unicorn") == []


def test_search_window_and_method():
    index = corpus_index()
    [result] = index.search("dreams", window=3, method="tfidf")
    assert result.snippet == "… day, and the dog [dreams] …"
    with pytest.raises(RankingError):
        index.search("fox", method="magic")
    with pytest.raises(QuerySyntaxError):
        index.search("(fox")


def test_dict_round_trip_preserves_everything():
    index = corpus_index()
    index.remove(2)
    data = index.to_dict()
    assert data["version"] == FORMAT_VERSION
    assert data["next_id"] == 5
    assert [d["id"] for d in data["documents"]] == [1, 3, 4]
    # Positions are stored as gaps between occurrences.
    assert data["postings"]["quick"] == {"1": [1, 10]}
    clone = InvertedIndex.from_dict(json.loads(json.dumps(data)))
    assert clone.postings("quick") == {1: [1, 11]}
    assert clone.to_dict() == data
    assert clone.average_length == index.average_length
    assert clone.add("new") == 5
    assert [r.doc_id for r in clone.search("fox OR search")] == [3, 1]


def test_save_and_load(tmp_path):
    index = build_index(["Ünïcode text → arrows", "more text"], stop_words=["more"])
    path = tmp_path / "index.json"
    index.save(path)
    raw = path.read_text(encoding="utf-8")
    assert "Ünïcode" in raw
    loaded = InvertedIndex.load(path)
    assert loaded.analyzer.config() == index.analyzer.config()
    assert loaded.postings("text") == {1: [1], 2: [1]}
    assert [r.doc_id for r in loaded.search("unicode")] == [1]


def test_load_version_one_absolute_positions():
    data = {
        "version": 1,
        "analyzer": {},
        "documents": [{"id": 7, "text": "cat cat cat", "length": 3}],
        "postings": {"cat": {"7": [0, 1, 2]}},
    }
    index = InvertedIndex.from_dict(data)
    assert index.postings("cat") == {7: [0, 1, 2]}
    assert index.document(7).title == ""
    assert index.add("dog") == 8


def test_load_invalid_json(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(IndexFormatError, match="invalid JSON"):
        InvertedIndex.load(path)


def valid_data():
    return build_index(["alpha beta", "beta gamma"]).to_dict()


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d.update(version=99), "unsupported index format version: 99"),
        (lambda d: d.pop("version"), "version: None"),
        (lambda d: d.pop("postings"), "missing field 'postings'"),
        (lambda d: d.pop("analyzer"), "missing field 'analyzer'"),
        (lambda d: d.update(analyzer={"colour": "red"}), "bad analyzer config"),
        (lambda d: d["documents"].append(dict(d["documents"][0])), "duplicate document id 1"),
        (lambda d: d["postings"]["beta"].update({"5": [0]}), "unknown document 5"),
        (lambda d: d["postings"]["beta"].update({"2": [3, -1]}), "must not be negative"),
    ],
)
def test_from_dict_rejects_malformed_data(mutate, message):
    data = valid_data()
    mutate(data)
    with pytest.raises(IndexFormatError, match=message):
        InvertedIndex.from_dict(data)


def test_from_dict_requires_object():
    with pytest.raises(IndexFormatError, match="JSON object"):
        InvertedIndex.from_dict([1, 2, 3])


def test_custom_analyzer_is_used_for_indexing_and_queries():
    index = InvertedIndex(Analyzer(stop_words=(), stemming=False))
    index.add("the running man")
    assert [r.doc_id for r in index.search("the")] == [1]
    assert index.search("run") == []
    assert [r.doc_id for r in index.search("running")] == [1]
