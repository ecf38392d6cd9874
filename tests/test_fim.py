"""FIM templates (lsp_bridge/fim.py) and the FIM context builder (lsp_bridge/context.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_bridge.context import Budget, FimContext, build_context, choose_files, fim_context, rough_tokens, window
from lsp_bridge.fim import FAMILIES, clean_answer, family, fim_prompt
from lsp_bridge.models.base import CompletionRequest

PRE = "def add(a, b):\n    return "
SUF = "\n\nprint(add(1, 2))\n"

# ------------------------------------------------------------------------------ templates


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        pytest.param("starcoder", "<fim_prefix>def add(a, b):\n    return <fim_suffix>\n\nprint(add(1, 2))\n<fim_middle>", id="starcoder"),
        pytest.param("qwen", "<|fim_prefix|>def add(a, b):\n    return <|fim_suffix|>\n\nprint(add(1, 2))\n<|fim_middle|>", id="qwen"),
        pytest.param(
            "deepseek",
            "<\uff5cfim\u2581begin\uff5c>def add(a, b):\n    return <\uff5cfim\u2581hole\uff5c>\n\nprint(add(1, 2))\n<\uff5cfim\u2581end\uff5c>",
            id="deepseek-full-width-bars",
        ),
        pytest.param("codellama", "<PRE> def add(a, b):\n    return  <SUF>\n\nprint(add(1, 2))\n <MID>", id="codellama-spaces"),
        pytest.param("codestral", "[SUFFIX]\n\nprint(add(1, 2))\n[PREFIX]def add(a, b):\n    return ", id="codestral-suffix-first"),
    ],
)
def test_family_template_is_the_exact_string(name: str, expected: str) -> None:
    assert fim_prompt(name, PRE, SUF) == expected


def test_deepseek_uses_full_width_bars_not_ascii() -> None:
    prompt = fim_prompt("deepseek", "a", "b")
    assert "|" not in prompt and prompt.count("\uff5c") == 6 and prompt.count("\u2581") == 3


@pytest.mark.parametrize(
    ("name", "stop"),
    [
        ("starcoder", ("<|endoftext|>", "<file_sep>")),
        ("qwen", ("<|endoftext|>", "<|fim_pad|>", "<|file_sep|>")),
        ("deepseek", ("<\uff5cend\u2581of\u2581sentence\uff5c>",)),
        ("codellama", (" <EOT>",)),
        ("codestral", ("</s>",)),
    ],
)
def test_family_stop_sequences(name: str, stop: tuple[str, ...]) -> None:
    assert FAMILIES[name].stop == stop


def test_code_with_braces_and_template_words_is_left_alone() -> None:
    prefix, suffix = 'f"{pre}" + "{suf}" + {x}', "{}"
    assert fim_prompt("starcoder", prefix, suffix) == '<fim_prefix>f"{pre}" + "{suf}" + {x}<fim_suffix>{}<fim_middle>'
    assert fim_prompt("codestral", prefix, suffix) == '[SUFFIX]{}[PREFIX]f"{pre}" + "{suf}" + {x}'


def test_unknown_family_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="starcoder, qwen, deepseek, codellama, codestral"):
        family("gpt")


@pytest.mark.parametrize(
    ("raw", "stop", "name", "expected"),
    [
        pytest.param("a + b<|endoftext|>\nprint('more')", ("<|endoftext|>",), "starcoder", "a + b", id="cut-at-stop"),
        pytest.param("a + b <EOT>junk", (" <EOT>",), "codellama", "a + b", id="codellama-stop-with-space"),
        pytest.param("a + b<EOT>junk", (" <EOT>",), "codellama", "a + b", id="codellama-stop-without-space"),
        pytest.param("<fim_middle>a + b", (), "starcoder", "a + b", id="leaked-token"),
        pytest.param("<|fim_middle|>a + b<|fim_pad|><|fim_pad|>", (), "qwen", "a + b", id="qwen-pad-is-a-stop"),
        pytest.param("a + b<\uff5cend\u2581of\u2581sentence\uff5c>x", (), "deepseek", "a + b", id="deepseek-eos"),
        pytest.param("x = [PREFIX]", (), None, "x = [PREFIX]", id="unknown-family-keeps-bracket-words"),
        pytest.param("a + b<|endoftext|>tail", (), None, "a + b", id="unknown-family-any-eos"),
        pytest.param("x <MID>= 1", (), None, "x = 1", id="unknown-family-any-token"),
        pytest.param("a\n```\nb", ("```",), "qwen", "a\n", id="configured-stop"),
    ],
)
def test_clean_answer(raw: str, stop: tuple[str, ...], name: str | None, expected: str) -> None:
    assert clean_answer(raw, stop, name) == expected


# ------------------------------------------------------------------------------ the window

DOC_ABOVE = "".join(f"a{i}\n" for i in range(1, 6)) + "x = "  # a1..a5, then the cursor line
DOC_BELOW = "1" + "".join(f"\nb{i}" for i in range(1, 6)) + "\n"


def test_window_alternates_above_and_below() -> None:
    # cursor line "x = 1" (5), then a5\n, \nb1, a4\n, \nb2 (3 each) = 17; a3\n would make 20 > 19
    before, after = window(DOC_ABOVE, DOC_BELOW, Budget(19))
    assert (before, after) == ("a4\na5\nx = ", "1\nb1\nb2")


def test_window_stops_at_the_first_line_that_does_not_fit() -> None:
    budget = Budget(20)
    before, after = window(DOC_ABOVE, DOC_BELOW, budget)
    assert (before, after) == ("a3\na4\na5\nx = ", "1\nb1\nb2")  # \nb3 did not fit: stop there
    assert budget.chars == 0


def test_window_keeps_going_on_one_side_when_the_other_is_exhausted() -> None:
    before, after = window("top\nx = ", "1", Budget(1000))
    assert (before, after) == ("top\nx = ", "1")
    before, after = window("x = ", "1\nb1\nb2\nb3\n", Budget(14))
    assert (before, after) == ("x = ", "1\nb1\nb2\nb3")


def test_window_with_room_for_everything_is_the_whole_document() -> None:
    assert window(DOC_ABOVE, DOC_BELOW, Budget(10_000)) == (DOC_ABOVE, DOC_BELOW)


def test_window_keeps_the_cursor_line_even_over_budget() -> None:
    budget = Budget(3)
    assert window("a\nlong_name = ", "value\nb\n", budget) == ("long_name = ", "value")
    assert budget.chars == 0


def test_token_budget_limits_the_window_too() -> None:
    assert rough_tokens("x = 1") == 5  # x, space, =, space, 1
    before, after = window(DOC_ABOVE, DOC_BELOW, Budget(10_000, tokens=9))
    # cursor line 5 tokens; each "a5\n" / "\nb1" is 2; a5 and b1 fit (9), a4 does not
    assert (before, after) == ("a5\nx = ", "1\nb1")


# ------------------------------------------------------------------------------ other files


def test_files_fill_what_the_window_leaves_nearest_first() -> None:
    others = {"pkg/near.py": "NEAR = 1\n", "other/far.py": "FAR = 2\n", "pkg/sub/deep.py": "DEEP = 3\n"}
    ctx = build_context("python", "pkg/mod.py", PRE, SUF, others, 10_000)
    assert (ctx.prefix, ctx.suffix) == (PRE, SUF)
    assert [p for p, _ in ctx.files] == ["other/far.py", "pkg/sub/deep.py", "pkg/near.py"]  # farthest first
    assert ctx.full_prefix() == (
        "# file: other/far.py\nFAR = 2\n\n# file: pkg/sub/deep.py\nDEEP = 3\n\n# file: pkg/near.py\nNEAR = 1\n\n# file: pkg/mod.py\n" + PRE
    )


def test_files_stop_at_the_first_that_does_not_fit() -> None:
    others = {"pkg/big.py": "B" * 500 + "\n", "pkg/small.py": "S = 1\n", "zzz/tiny.py": "T\n"}
    budget = Budget(80)
    chosen = choose_files("pkg/mod.py", "python", others, budget)
    assert chosen == ()  # pkg/big.py is nearest (ties by path) and too big: nothing farther is taken
    chosen = choose_files("pkg/mod.py", "java", {"pkg/small.py": "S = 1\n"}, Budget(80))
    assert chosen == (("pkg/small.py", "S = 1\n"),)


def test_no_budget_means_the_whole_document_and_no_files() -> None:
    ctx = build_context("python", "pkg/mod.py", DOC_ABOVE, DOC_BELOW, {"pkg/o.py": "O = 1\n"}, 0)
    assert ctx == FimContext("python", "pkg/mod.py", DOC_ABOVE, DOC_BELOW)
    assert ctx.full_prefix() == DOC_ABOVE  # no header for a lone document


SECRET = "EXPECTED_VALUE_FROM_TESTS"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "shapes"
    files = {
        "simpilot.toml": '[repository]\nname = "shapes"\nlanguage = "python"\nsources = ["shapes"]\n'
                         'tests = ["tests"]\ntest_command = ["{python}", "-m", "pytest"]\n',
        "shapes/core.py": PRE + "a + b" + SUF,
        "shapes/util.py": "def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n",
        "shapes/test_inline.py": f"assert {SECRET}\n",
        "shapes/conftest.py": f"{SECRET} = 1\n",
        "tests/test_core.py": f"def test_add():\n    assert add(1, 2) == {SECRET}\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def doc_request(path: Path, prefix: str, suffix: str) -> CompletionRequest:
    return CompletionRequest(uri=path.as_uri(), path=path.as_posix(), language="python", text=prefix + suffix, offset=len(prefix),
                             line=prefix.count("\n"), character=len(prefix.rsplit("\n", 1)[-1]))


def test_repository_files_enter_and_test_files_never_do(repo: Path) -> None:
    ctx = fim_context(doc_request(repo / "shapes/core.py", PRE, SUF), 48_000)
    assert [p for p, _ in ctx.files] == ["shapes/util.py"]
    assert SECRET not in ctx.full_prefix() + ctx.suffix
    assert ctx.full_prefix() == "# file: shapes/util.py\ndef clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n\n# file: shapes/core.py\n" + PRE


def test_other_files_can_be_turned_off(repo: Path) -> None:
    ctx = fim_context(doc_request(repo / "shapes/core.py", PRE, SUF), 48_000, other_files=False)
    assert ctx.files == () and ctx.full_prefix() == PRE and ctx.path == "core.py"


def test_a_document_that_is_no_file_gets_no_files() -> None:
    request = CompletionRequest(uri="untitled:1", path="untitled:1", language="python", text="x = 1\n", offset=4, line=0, character=4)
    ctx = fim_context(request, 48_000)
    assert ctx.files == () and (ctx.prefix, ctx.suffix) == ("x = ", "1\n")
