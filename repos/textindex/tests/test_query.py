import pytest

from textindex import InvertedIndex, QuerySyntaxError, parse
from textindex.query import And, Not, Or, Phrase, Prefix, Term, tokenize_query

DOCS = [
    "The quick brown fox jumps over the lazy dog",  # 1
    "A lazy afternoon: the dog sleeps while the fox watches",  # 2
    "Brown bears fish for salmon in cold rivers",  # 3
    "The state of the art in search engines",  # 4
    "Art and the state: a history of public museums",  # 5
    "Searching, indexing and ranking with inverted indexes",  # 6
]


def make_index():
    index = InvertedIndex()
    index.add_many(DOCS)
    return index


def kinds(text):
    return [(t.kind, t.value) for t in tokenize_query(text)]


def test_tokenize_all_token_kinds():
    assert kinds('(fox OR dog) AND NOT "lazy dog" -cat sea* x-ray') == [
        ("LPAREN", "("),
        ("WORD", "fox"),
        ("OR", "OR"),
        ("WORD", "dog"),
        ("RPAREN", ")"),
        ("AND", "AND"),
        ("NOT", "NOT"),
        ("PHRASE", "lazy dog"),
        ("NOT", "-"),
        ("WORD", "cat"),
        ("PREFIX", "sea"),
        ("WORD", "x-ray"),
        ("EOF", ""),
    ]


def test_tokenize_positions_and_lone_symbols():
    tokens = tokenize_query("a - * or")
    assert [(t.kind, t.value, t.pos) for t in tokens] == [
        ("WORD", "a", 0),
        ("WORD", "-", 2),
        ("WORD", "*", 4),
        ("WORD", "or", 6),
        ("EOF", "", 8),
    ]


def test_tokenize_unterminated_phrase_reports_position():
    with pytest.raises(QuerySyntaxError) as info:
        tokenize_query('fox "lazy dog')
    assert info.value.position == 4
    assert "unterminated phrase" in str(info.value)


def test_parse_precedence_and_implicit_and():
    node = parse("fox dog OR cat AND NOT bird")
    assert node == Or((And((Term("fox"), Term("dog"))), And((Term("cat"), Not(Term("bird"))))))
    assert str(node) == "((fox AND dog) OR (cat AND NOT bird))"


def test_parse_flattens_nested_operators_and_parentheses():
    assert str(parse("a1 OR (b1 OR c1) OR d1")) == "(a1 OR b1 OR c1 OR d1)"
    assert str(parse("(x1 y1) z1")) == "(x1 AND y1 AND z1)"
    assert str(parse("x1 (y1 OR z1)")) == "(x1 AND (y1 OR z1))"


def test_parse_analyzes_words_phrases_and_prefixes():
    assert parse("Running") == Term("run")
    assert parse('"state of the art"') == Phrase(("state", "art"), (0, 3))
    assert parse("e-mail") == Phrase(("e", "mail"), (0, 1))
    assert parse("Índex*") == Prefix("index")
    assert str(parse('"lazy dogs" Sea*')) == '("lazy dog" AND sea*)'


def test_parse_drops_stop_words_and_empty_operands():
    assert parse("the fox") == Term("fox")
    assert parse("NOT the") is None
    assert parse("the OR an") is None
    assert parse("") is None
    assert parse("   ") is None
    assert parse('"the" OR fox') == Term("fox")
    assert parse("-dog") == Not(Term("dog"))


@pytest.mark.parametrize(
    "query, position, fragment",
    [
        ("fox OR", 6, "end of query"),
        ("(fox dog", 8, "expected RPAREN"),
        ("fox)", 3, "unexpected RPAREN"),
        ("AND fox", 0, "unexpected AND"),
        ("fox OR OR dog", 7, "unexpected OR"),
        ("()", 1, "unexpected RPAREN"),
    ],
)
def test_parse_errors(query, position, fragment):
    with pytest.raises(QuerySyntaxError) as info:
        parse(query)
    assert info.value.position == position
    assert fragment in str(info.value)


def test_parse_rejects_excessive_nesting():
    deep = "(" * 70 + "fox" + ")" * 70
    with pytest.raises(QuerySyntaxError, match="nested too deeply"):
        parse(deep)
    fine = "(" * 60 + "fox" + ")" * 60
    assert parse(fine) == Term("fox")


def test_evaluate_terms_and_boolean_operators():
    index = make_index()
    assert parse("fox").evaluate(index) == {1, 2}
    assert parse("fox OR bears").evaluate(index) == {1, 2, 3}
    assert parse("fox AND sleeping").evaluate(index) == {2}
    assert parse("lazy -quick").evaluate(index) == {2}
    assert parse("NOT fox").evaluate(index) == {3, 4, 5, 6}
    assert parse("NOT fox NOT state").evaluate(index) == {3, 6}
    assert parse("(fox OR salmon) AND brown NOT jumps").evaluate(index) == {3}
    assert parse("unicorn").evaluate(index) == set()
    assert parse("unicorn fox").evaluate(index) == set()


def test_evaluate_phrases_respect_order_and_gaps():
    index = make_index()
    assert parse('"lazy dog"').evaluate(index) == {1}
    assert parse('"brown fox"').evaluate(index) == {1}
    assert parse('"fox brown"').evaluate(index) == set()
    # Same words in both documents, but only #4 has them in this arrangement.
    assert parse('"state of the art"').evaluate(index) == {4}
    assert parse('"art and the state"').evaluate(index) == {5}
    assert parse('"state art"').evaluate(index) == set()
    assert parse('"quick unicorn"').evaluate(index) == set()


def test_evaluate_prefix_queries():
    index = make_index()
    assert index.expand_prefix("sea") == ["search"]
    assert parse("ind*").evaluate(index) == {6}
    assert parse("s*").evaluate(index) == {2, 3, 4, 5, 6}
    assert parse("zz*").evaluate(index) == set()
    assert parse("in*").scoring_terms(index) == ["index", "invert"]


def test_scoring_terms_exclude_negated_clauses():
    index = make_index()
    node = parse('(fox OR "lazy dog") -bears sal*')
    assert node.scoring_terms(index) == ["fox", "lazy", "dog", "salmon"]
    assert parse("NOT fox").scoring_terms(index) == []


def test_base_node_is_abstract():
    from textindex.query import Node

    node = Node()
    assert node.scoring_terms(make_index()) == []
    with pytest.raises(NotImplementedError):
        node.evaluate(make_index())
