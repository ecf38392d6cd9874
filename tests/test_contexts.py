"""Context strategies on hand-made repositories: what each builder must put in, what it must
leave out, the budget never exceeded, test files and the edited file's on-disk text never used;
identifier recall on a case computed by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lsp_bridge.contexts import STRATEGIES, ContextError, ContextIndex, NeedsTruth, Source, build, resolve, strategy
from lsp_bridge.contexts.definitions import definitions, imported_names, names_in
from lsp_bridge.contexts.provider import repository_index
from lsp_bridge.contexts.recall import identifier_recall
from lsp_bridge.contexts.tokens import ESTIMATE, counter
from replay.config.errors import ConfigError
from replay.core.records import PromptRecord
from replay.jobs.contexts import load_contexts

GEOMETRY = '''"""Shapes."""

UNIT = 1.0


class Widget:
    """A widget."""

    def __init__(self, size):
        self.size = size

    def area(self):
        return self.size * self.size


def helper(x):
    return x + 1
'''

UNRELATED = '''def parse_header(line):
    fields = line.split(",")
    return [f.strip() for f in fields]


def banner():
    return "== report =="
'''

# the edited file as the editor has it: the hole is after "total = "
PREFIX = '''from pkg.geometry import Widget, helper

LIMIT = 10


def compute(items):
    widget = Widget(3)
    total = '''
SUFFIX = '''
    return total
'''
TRUTH = "helper(LIMIT) + widget.area() + len(items)"
# the edited file on disk holds the answer: no builder may take it from there
ON_DISK = PREFIX + TRUTH + SUFFIX


def files() -> dict[str, str]:
    return {"pkg/geometry.py": GEOMETRY, "pkg/unrelated.py": UNRELATED, "pkg/main.py": ON_DISK}


def source(truth: str | None = TRUTH) -> Source:
    return Source("python", "pkg/main.py", PREFIX, SUFFIX, truth)


def everything(built) -> str:
    return built.chat_code()


@pytest.fixture
def index() -> ContextIndex:
    return ContextIndex("python", files())


def test_file_holds_the_document_only(index: ContextIndex) -> None:
    built = build(index, source(), resolve("file"))
    assert built.snippets == ()
    assert built.prefix == PREFIX and built.suffix == SUFFIX
    assert [p.name for p in built.parts] == ["document"]


def test_window_keeps_the_lines_nearest_the_cursor_within_the_budget(index: ContextIndex) -> None:
    built = build(index, source(), resolve("file:20"))
    assert built.tokens <= 20
    assert built.prefix.endswith("    total = ")
    assert "from pkg.geometry" not in built.prefix  # the farthest line is the first to go
    first, last = built.window
    assert first <= PREFIX.count("\n") <= last


def test_window_adds_other_files_nearest_first_never_the_edited_one(index: ContextIndex) -> None:
    built = build(index, source(), resolve("window"))
    assert {s.path for s in built.snippets} == {"pkg/geometry.py", "pkg/unrelated.py"}
    assert "helper(LIMIT)" not in everything(built)
    assert build(index, source(), resolve("simcopilot")).arranged


def test_neighbours_picks_the_file_that_looks_like_the_code_before_the_cursor() -> None:
    similar = "def compute_other(items):\n    widget = Widget(4)\n    total = 0\n    return total\n"
    index = ContextIndex("python", {**files(), "pkg/similar.py": similar})
    built = build(index, source(), strategy("n", "neighbours", 4096, options={"top": 1}))
    assert [s.path for s in built.snippets] == ["pkg/similar.py"]
    assert all(s.part == "neighbours" for s in built.snippets)


def test_bm25_ranks_the_chunk_with_the_query_words_first(index: ContextIndex) -> None:
    built = build(index, source(), strategy("b", "bm25", 4096, options={"chunk_lines": 4, "stride": 4}))
    assert built.snippets and built.snippets[0].path == "pkg/geometry.py"
    assert "Widget" in built.snippets[0].text
    assert all(s.path != "pkg/main.py" for s in built.snippets)
    assert "parse_header" not in everything(built)  # no word in common with the query


def test_definitions_follow_the_names_near_the_cursor_and_the_imports(index: ContextIndex) -> None:
    built = build(index, source(), resolve("definitions"))
    text = everything(built)
    assert "class Widget" in text and "def helper(x):" in text
    assert "def parse_header" not in text and "def banner" not in text
    assert all(s.part == "definitions" for s in built.snippets)


def test_oracle_definitions_holds_what_the_answer_uses_and_needs_the_answer(index: ContextIndex) -> None:
    built = build(index, source(), resolve("oracle_definitions"))
    text = everything(built)
    assert "def helper(x):" in text and "def area(self):" in text
    assert "def parse_header" not in text
    with pytest.raises(NeedsTruth):
        build(index, source(truth=None), resolve("oracle_definitions"))


@pytest.mark.parametrize("name", list(STRATEGIES))
@pytest.mark.parametrize("budget", [30, 60, 120, 400, 4000])
def test_the_budget_is_never_exceeded(index: ContextIndex, name: str, budget: int) -> None:
    built = build(index, source(), resolve(f"{name}:{budget}"))
    assert built.tokens <= budget
    counted = counter(None)
    blocks = sum(counted.count(block) for block in _blocks(built))
    assert blocks == sum(p.tokens for p in built.parts if p.name != "document")


def _blocks(built) -> list[str]:
    from lsp_bridge.repo_context import file_block

    return [file_block("python", s.label(built.whole_files), s.text) for s in built.snippets]


def test_test_files_never_enter_an_index(tmp_path: Path) -> None:
    for rel, text in {**files(), "tests/test_geometry.py": "def helper(x):\n    assert helper(1) == 2\n", "test_main.py": "LIMIT = 3\n"}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    (tmp_path / "pyproject.toml").write_text("")
    index = repository_index(tmp_path.resolve(), None, "python")
    assert set(index.files) == {"pkg/geometry.py", "pkg/unrelated.py", "pkg/main.py"}
    for name in STRATEGIES:
        built = build(index, source(), resolve(f"{name}:8000"))
        assert all(not s.path.startswith("test") for s in built.snippets)
        assert "assert helper" not in everything(built)


def test_identifier_recall_on_a_case_computed_by_hand(index: ContextIndex) -> None:
    # the answer uses helper (geometry.py), LIMIT (the document, line 2), area (geometry.py);
    # widget and items are locals, len a builtin: 3 repository names
    file_only = build(index, source(), resolve("file"))
    recall = identifier_recall(index, source(), file_only)
    assert sorted(recall.names) == ["LIMIT", "area", "helper"]
    assert recall.found == ("LIMIT",) and recall.value == pytest.approx(1 / 3)
    oracle = build(index, source(), resolve("oracle_definitions"))
    assert identifier_recall(index, source(), oracle).value == 1.0
    assert identifier_recall(index, source("len(items)"), file_only).value is None


def test_definitions_and_names() -> None:
    found = {(d.name, d.kind) for d in definitions("python", "g.py", GEOMETRY)}
    assert found == {("UNIT", "variable"), ("Widget", "class"), ("__init__", "method"), ("size", "attribute"), ("area", "method"), ("helper", "function")}
    java = "class A { int f; static final int K = 1; int m(int x) { return x; } enum E { X, Y } }"
    assert {(d.name, d.kind) for d in definitions("java", "A.java", java)} == {
        ("A", "class"), ("f", "field"), ("K", "field"), ("m", "method"), ("E", "class"), ("X", "constant"), ("Y", "constant")
    }
    assert names_in('x = foo("bar baz")  # qux', "python") == ["x", "foo"]
    assert imported_names("from a import (b,\n c as d)\nimport e\n", "python") == ["b", "c"]
    assert imported_names("import java.util.List;\nimport static a.B.c;\nimport x.*;\n", "java") == ["List", "c"]


def test_strategies_from_configuration_and_their_errors(tmp_path: Path) -> None:
    toml = tmp_path / "contexts.toml"
    toml.write_text('[contexts.short]\nbuilder = "bm25"\nbudget = 512\nchunk_lines = 20\n')
    known = load_contexts(toml)
    chosen = resolve("short", known)
    assert (chosen.builder, chosen.budget, chosen.settings()["chunk_lines"]) == ("bm25", 512, 20)
    assert resolve("short:2048", known).budget == 2048
    for bad, expected in (
        ('[contexts.x]\nbuilder = "nope"\n', "contexts.x.builder: unknown builder 'nope' (choose from file,"),
        ('[contexts.x]\nbuilder = "bm25"\nfoo = 1\n', "contexts.x.foo: unknown option(s) foo for bm25 (known: document_share,"),
        ('[contexts.x]\nbuilder = "bm25"\nbudget = 0\n', "contexts.x.budget: expected a number > 0, got 0; fix it"),
        ('[contexts.x]\nbuilder = "bm25"\ntop = 2\n', "contexts.x.top: unknown option(s) top for bm25"),
        ('[contexts.x]\nbuilder = "bm25"\nstride = 0\n', "contexts.x.stride: stride must be a whole number > 0, not 0; fix or remove it"),
        ('[contexts.x]\nbuilder = "bm25"\nstride = "5"\n', "contexts.x.stride: expected a whole number"),
        ('[contexts.file]\ntokenizer = "missing.json"\n', "contexts.file.tokenizer: "),
    ):
        toml.write_text(bad)
        with pytest.raises(ConfigError) as caught:
            load_contexts(toml)
        assert str(caught.value).startswith(f"{toml}: {expected}") and "\n" not in str(caught.value)
    with pytest.raises(ContextError):
        resolve("nope")
    with pytest.raises(ContextError):
        strategy("t", "file", 100, tokenizer=str(tmp_path / "missing.json"))
    assert counter(None).label == ESTIMATE


def test_a_tokenizer_json_counts_the_model_tokens(tmp_path: Path, index: ContextIndex) -> None:
    tokenizers = pytest.importorskip("tokenizers")
    words = sorted({w for text in files().values() for w in text.split()} | {"[UNK]"})
    model = tokenizers.models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]")
    made = tokenizers.Tokenizer(model)
    made.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    path = tmp_path / "tokenizer.json"
    made.save(str(path))
    built = build(index, source(), strategy("t", "file", 15, tokenizer=str(path)))
    assert built.tokenizer.startswith("tokenizer tokenizer.json")
    assert built.tokens <= 15 and len(built.prefix.split()) + len(built.suffix.split()) <= 15


def test_the_prompt_record_says_who_built_it_and_survives_json(index: ContextIndex) -> None:
    built = build(index, source(), resolve("definitions:600"))
    record = built.record()
    assert record.strategy == "definitions:600" and record.budget == 600
    assert record.parts == {p.name: p.tokens for p in built.parts} and record.tokens == built.tokens
    assert PromptRecord.from_json(json.loads(json.dumps(record.to_json()))) == record
    assert any(path == "pkg/geometry.py" for path, *_ in record.snippets)


def test_fim_and_chat_prompts_render_the_built_context(index: ContextIndex) -> None:
    from lsp_bridge.models.base import CompletionRequest
    from lsp_bridge.models.openai_completions import OpenAICompletionsModel
    from lsp_bridge.models.settings import EndpointSettings

    built = build(index, source(), resolve("definitions"))
    text = PREFIX + SUFFIX
    request = CompletionRequest("untitled:x", "x.py", "python", text, len(PREFIX), 0, 0, context=built)
    model = OpenAICompletionsModel(EndpointSettings(base_url="http://127.0.0.1:9", model="m", fim_family="starcoder"))
    prompt = model.build(request).prompt
    assert prompt.startswith("<fim_prefix># file: pkg/geometry.py (lines")
    assert "def helper(x):" in prompt and prompt.endswith("<fim_suffix>" + SUFFIX + "<fim_middle>")
