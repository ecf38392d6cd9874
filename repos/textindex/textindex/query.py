"""Boolean query language with phrases and prefix terms.

Grammar (``AND`` binds tighter than ``OR``; adjacent operands are implicitly
combined with ``AND``)::

    query    := or_expr EOF
    or_expr  := and_expr ("OR" and_expr)*
    and_expr := unary (["AND"] unary)*
    unary    := ("NOT" | "-") unary | primary
    primary  := "(" or_expr ")" | PHRASE | WORD | PREFIX

Words are run through the index analyzer while parsing.  Words that analyze
to nothing (stop words, punctuation) vanish from the tree; a word that
analyzes to several terms (``e-mail``) becomes a phrase.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from itertools import chain

from .analysis import Analyzer

__all__ = [
    "And", "Not", "Or", "Phrase", "Prefix", "QuerySyntaxError", "QueryToken", "Term",
    "parse", "tokenize_query",
]

KEYWORDS = frozenset({"AND", "OR", "NOT"})
# Token kinds that may start an operand; used to detect implicit AND.
_OPERAND_START = frozenset({"WORD", "PHRASE", "PREFIX", "LPAREN", "NOT"})
MAX_DEPTH = 64


class QuerySyntaxError(ValueError):
    """A malformed query.  ``position`` is the character offset of the error."""

    def __init__(self, message: str, position: int):
        super().__init__(f"{message} at position {position}")
        self.position = position


@dataclass(frozen=True)
class QueryToken:
    kind: str
    value: str
    pos: int


def tokenize_query(text: str) -> list[QueryToken]:
    """Split a query string into tokens, ending with an ``EOF`` token."""
    tokens = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch in "()":
            tokens.append(QueryToken("LPAREN" if ch == "(" else "RPAREN", ch, i))
            i += 1
        elif ch == '"':
            end = text.find('"', i + 1)
            if end == -1:
                raise QuerySyntaxError("unterminated phrase", i)
            tokens.append(QueryToken("PHRASE", text[i + 1 : end], i))
            i = end + 1
        elif ch == "-" and i + 1 < n and not text[i + 1].isspace():
            # A leading minus is shorthand for NOT; inside a word it is not.
            tokens.append(QueryToken("NOT", ch, i))
            i += 1
        else:
            start = i
            while i < n and not text[i].isspace() and text[i] not in '()"':
                i += 1
            word = text[start:i]
            if word in KEYWORDS:
                tokens.append(QueryToken(word, word, start))
            elif word.endswith("*") and len(word) > 1:
                tokens.append(QueryToken("PREFIX", word[:-1], start))
            else:
                tokens.append(QueryToken("WORD", word, start))
    tokens.append(QueryToken("EOF", "", n))
    return tokens


class Node:
    """Base class of query tree nodes."""

    def evaluate(self, index) -> set[int]:
        raise NotImplementedError

    def scoring_terms(self, index) -> list[str]:
        """Terms that contribute to ranking and highlighting."""
        return []


@dataclass(frozen=True)
class Term(Node):
    term: str

    def evaluate(self, index) -> set[int]:
        return set(index.postings(self.term))

    def scoring_terms(self, index) -> list[str]:
        return [self.term]

    def __str__(self) -> str:
        return self.term


@dataclass(frozen=True)
class Prefix(Node):
    prefix: str

    def evaluate(self, index) -> set[int]:
        result = set()
        for term in index.expand_prefix(self.prefix):
            result.update(index.postings(term))
        return result

    def scoring_terms(self, index) -> list[str]:
        return index.expand_prefix(self.prefix)

    def __str__(self) -> str:
        return self.prefix + "*"


@dataclass(frozen=True)
class Phrase(Node):
    terms: tuple[str, ...]
    # Word position of each term relative to the first one.  Gaps appear
    # where stop words were removed ("state of the art" → 0, 3).
    offsets: tuple[int, ...]

    def evaluate(self, index) -> set[int]:
        tables = [index.postings(term) for term in self.terms]
        candidates = set(min(tables, key=len))
        for table in tables:
            candidates &= table.keys()
        return {doc_id for doc_id in candidates if self._occurs_in(doc_id, tables)}

    def _occurs_in(self, doc_id: int, tables) -> bool:
        followers = [
            (set(table[doc_id]), offset)
            for table, offset in zip(tables[1:], self.offsets[1:])
        ]
        for start in tables[0][doc_id]:
            if all(start + offset in positions for positions, offset in followers):
                return True
        return False

    def scoring_terms(self, index) -> list[str]:
        return list(self.terms)

    def __str__(self) -> str:
        return '"' + " ".join(self.terms) + '"'


@dataclass(frozen=True)
class Not(Node):
    child: Node

    def evaluate(self, index) -> set[int]:
        return index.doc_ids() - self.child.evaluate(index)

    def __str__(self) -> str:
        return f"NOT {self.child}"


@dataclass(frozen=True)
class And(Node):
    children: tuple[Node, ...]

    def evaluate(self, index) -> set[int]:
        # Intersect the positive clauses first so that NOT clauses only have
        # to subtract from an already small set.
        positives = [c for c in self.children if not isinstance(c, Not)]
        negatives = [c for c in self.children if isinstance(c, Not)]
        if positives:
            result = positives[0].evaluate(index)
            for child in positives[1:]:
                result &= child.evaluate(index)
        else:
            result = index.doc_ids()
        for child in negatives:
            result -= child.child.evaluate(index)
        return result

    def scoring_terms(self, index) -> list[str]:
        return list(chain.from_iterable(c.scoring_terms(index) for c in self.children))

    def __str__(self) -> str:
        return "(" + " AND ".join(str(c) for c in self.children) + ")"


@dataclass(frozen=True)
class Or(Node):
    children: tuple[Node, ...]

    def evaluate(self, index) -> set[int]:
        return reduce(set.union, (c.evaluate(index) for c in self.children), set())

    def scoring_terms(self, index) -> list[str]:
        return list(chain.from_iterable(c.scoring_terms(index) for c in self.children))

    def __str__(self) -> str:
        return "(" + " OR ".join(str(c) for c in self.children) + ")"


def _combine(cls, children):
    """Build an And/Or node, dropping empty operands and flattening nesting."""
    kept = [c for c in children if c is not None]
    if not kept:
        return None
    if len(kept) == 1:
        return kept[0]
    flat = []
    for child in kept:
        if isinstance(child, cls):
            flat.extend(child.children)
        else:
            flat.append(child)
    return cls(tuple(flat))


class _Parser:
    def __init__(self, tokens: list[QueryToken], analyzer: Analyzer):
        self.tokens = tokens
        self.analyzer = analyzer
        self.pos = 0
        self.depth = 0

    def peek(self) -> QueryToken:
        return self.tokens[self.pos]

    def advance(self) -> QueryToken:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def expect(self, kind: str) -> QueryToken:
        token = self.peek()
        if token.kind != kind:
            raise QuerySyntaxError(f"expected {kind}, found {token.kind}", token.pos)
        return self.advance()

    def parse(self):
        node = self.parse_or()
        token = self.peek()
        if token.kind != "EOF":
            raise QuerySyntaxError(f"unexpected {token.kind}", token.pos)
        return node

    def parse_or(self):
        children = [self.parse_and()]
        while self.peek().kind == "OR":
            self.advance()
            children.append(self.parse_and())
        return _combine(Or, children)

    def parse_and(self):
        children = [self.parse_unary()]
        while True:
            kind = self.peek().kind
            if kind == "AND":
                self.advance()
            elif kind not in _OPERAND_START:
                break
            children.append(self.parse_unary())
        return _combine(And, children)

    def parse_unary(self):
        if self.peek().kind == "NOT":
            self.advance()
            child = self.parse_unary()
            return None if child is None else Not(child)
        return self.parse_primary()

    def parse_primary(self):
        token = self.advance()
        if token.kind == "LPAREN":
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise QuerySyntaxError("query nested too deeply", token.pos)
            node = self.parse_or()
            self.expect("RPAREN")
            self.depth -= 1
            return node
        if token.kind in ("WORD", "PHRASE"):
            return self._text_node(token.value)
        if token.kind == "PREFIX":
            return Prefix(self.analyzer.fold_term(token.value))
        what = "end of query" if token.kind == "EOF" else token.kind
        raise QuerySyntaxError(f"unexpected {what}", token.pos)

    def _text_node(self, text: str):
        tokens = self.analyzer.tokens(text)
        if not tokens:
            return None
        if len(tokens) == 1:
            return Term(tokens[0].term)
        base = tokens[0].position
        return Phrase(tuple(t.term for t in tokens), tuple(t.position - base for t in tokens))


def parse(text: str, analyzer: Analyzer | None = None):
    """Parse ``text`` into a query tree.

    Returns ``None`` when the query contains no searchable terms (it is
    empty or consists only of stop words).
    """
    if analyzer is None:
        analyzer = Analyzer()
    tokens = tokenize_query(text)
    if len(tokens) == 1:
        return None
    return _Parser(tokens, analyzer).parse()
