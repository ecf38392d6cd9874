import pytest

from textindex import STOP_WORDS, AnalysisError, Analyzer, Token, fold_accents, stem


def test_fold_accents_strips_diacritics_and_keeps_ascii():
    assert fold_accents("Crème Brûlée à la café") == "Creme Brulee a la cafe"
    assert fold_accents("plain ascii") == "plain ascii"


def test_fold_accents_special_letters_keep_case():
    assert fold_accents("Ærø Łódź straße Þór œuvre") == "Aero Lodz strasse Thor oeuvre"


@pytest.mark.parametrize(
    "word, expected",
    [
        ("cats", "cat"),
        ("classes", "class"),
        ("searches", "search"),
        ("wishes", "wish"),
        ("boxes", "box"),
        ("ponies", "pony"),
        ("ties", "tie"),
        ("bus", "bus"),
        ("analysis", "analysis"),
        ("glass", "glass"),
    ],
)
def test_stem_plurals(word, expected):
    assert stem(word) == expected


@pytest.mark.parametrize(
    "word, expected",
    [
        ("walked", "walk"),
        ("indexing", "index"),
        ("running", "run"),
        ("falling", "fall"),
        ("missed", "miss"),
        ("fizzed", "fizz"),
        ("hoping", "hope"),
        ("hopping", "hop"),
        ("boxed", "box"),
        ("created", "create"),
        ("enabled", "enable"),
        ("realizing", "realize"),
        ("agreed", "agree"),
        ("freed", "freed"),
        ("need", "need"),
        ("sing", "sing"),
        ("shred", "shred"),
        ("flying", "fly"),
        ("yoked", "yoke"),
        ("yelled", "yell"),
    ],
)
def test_stem_inflections(word, expected):
    assert stem(word) == expected


@pytest.mark.parametrize(
    "word, expected",
    [
        ("relational", "relate"),
        ("organizations", "organize"),
        ("usefulness", "useful"),
        ("callousness", "callous"),
        ("effectiveness", "effective"),
        ("conditional", "condition"),
        ("rationalism", "rational"),
        ("sadness", "sad"),
        ("statement", "state"),
        ("probably", "probable"),
        ("quickly", "quick"),
        ("national", "national"),
        ("only", "only"),
    ],
)
def test_stem_derivational_suffixes(word, expected):
    assert stem(word) == expected


def test_stem_leaves_short_and_non_alphabetic_words():
    assert stem("bed") == "bed"
    assert stem("mp3s") == "mp3s"
    assert stem("1990s") == "1990s"


def test_tokens_positions_offsets_and_stop_words():
    text = "The Café's crème brûlée, it’s o’clock; don't"
    tokens = Analyzer().tokens(text)
    assert [t.term for t in tokens] == ["cafe", "creme", "brulee", "oclock", "dont"]
    # "The" (0) and "it’s" (4) are stop words but still occupy positions.
    assert [t.position for t in tokens] == [1, 2, 3, 5, 6]
    first = tokens[0]
    assert first == Token("cafe", 1, 4, 10)
    assert text[first.start : first.end] == "Café's"


def test_underscore_and_punctuation_split_words():
    assert Analyzer().terms("snake_case,words!") == ["snake", "case", "word"]


def test_analyzer_without_folding_or_stemming():
    analyzer = Analyzer(stop_words=["The"], stemming=False, fold=False)
    assert analyzer.terms("The Cafés the Cafés") == ["Cafés", "the", "Cafés"]


def test_custom_stop_words_are_folded():
    analyzer = Analyzer(stop_words=["ÉTÉ"])
    assert analyzer.terms("été hiver") == ["hiver"]
    assert "ete" in analyzer.stop_words


def test_min_length_drops_short_terms():
    analyzer = Analyzer(stop_words=(), min_length=3)
    assert analyzer.terms("an ox is big") == ["big"]
    assert analyzer.normalize("ox") is None
    assert analyzer.normalize("Oxen") == "oxen"


def test_normalize_possessive_and_stop_word():
    analyzer = Analyzer()
    assert analyzer.normalize("Dog's") == "dog"
    assert analyzer.normalize("THE") is None
    plain = Analyzer(stemming=False)
    assert plain.normalize("Dogs") == "dogs"
    assert plain.normalize("Dog's") == "dog"
    assert plain.normalize("Rock’n’roll") == "rocknroll"


def test_analyzer_rejects_bad_configuration():
    with pytest.raises(AnalysisError):
        Analyzer(min_length=0)
    with pytest.raises(AnalysisError, match="not a string"):
        Analyzer(stop_words="the a an")


def test_config_round_trip():
    analyzer = Analyzer(stop_words=["foo", "bar"], stemming=False, fold=True, min_length=2)
    config = analyzer.config()
    assert config == {"stop_words": ["bar", "foo"], "stemming": False, "fold": True, "min_length": 2}
    clone = Analyzer.from_config(config)
    assert clone.config() == config
    assert clone.terms("foo Running x") == ["running"]


def test_from_config_defaults_and_errors():
    default = Analyzer.from_config({})
    assert default.stop_words == STOP_WORDS
    assert default.stemming and default.fold and default.min_length == 1
    with pytest.raises(AnalysisError, match="mapping"):
        Analyzer.from_config(["stemming"])
    with pytest.raises(AnalysisError, match="colour, shape"):
        Analyzer.from_config({"shape": 1, "colour": 2, "fold": True})
