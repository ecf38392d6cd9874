"""Two repairs of what reaches the answer from the prompt's side: FIM tags a model writes as
code (``<fim_end_end>``) are removed by ``strip_noncode``; a first-line space that is a tokenizer's
artefact is not read by ``reindent`` as the answer's indentation. (The third, the local server's
``suffix``, is tested with the server: ``test_local_model.py``.)"""

from __future__ import annotations

import pytest

from postprocess import HoleContext
from postprocess.steps import reindent, strip_noncode

PY = HoleContext("python", "def total(xs):\n    s = 0\n    for x in xs:\n        ", "\n    return s\n")
JAVA = HoleContext("java", "class A {\n    int f(int x) {\n        ", "\n    }\n}\n")
JS = HoleContext("javascript", "function f(x) {\n  ", "\n}\n")


@pytest.mark.parametrize(
    "ctx, raw, expected",
    [
        pytest.param(PY, "s += x<fim_end_end>", "s += x", id="invented-end-tag"),
        pytest.param(PY, "<fim_middle>s += x", "s += x", id="leading-tag"),
        pytest.param(PY, "<|fim_middle|>\ns += x", "s += x", id="leading-tag-alone-on-its-line"),
        pytest.param(PY, "s += x\n<|fim_suffix|>\n    return s", "s += x\n", id="a-suffix-written-after-the-middle"),
        pytest.param(PY, "<｜fim▁end｜>s += x", "s += x", id="deepseek-full-width"),
        pytest.param(PY, "s += x  <FIM_END>", "s += x", id="upper-case"),
        pytest.param(JAVA, "return x + 1;<fim_end_end>", "return x + 1;", id="java"),
        pytest.param(JAVA, "<fim_middle>return x + 1;", "return x + 1;", id="java-leading"),
        pytest.param(JS, "return x + 1;<fim_pad>junk()", "return x + 1;", id="no-grammar-scanned"),
    ],
)
def test_fim_tags_a_model_writes_are_removed(ctx: HoleContext, raw: str, expected: str) -> None:
    assert strip_noncode(raw, ctx) == expected


@pytest.mark.parametrize(
    "ctx, code",
    [
        pytest.param(PY, "s += len('<fim_middle>')", id="python-string"),
        pytest.param(PY, "s += x  # <fim_end>", id="python-comment"),
        pytest.param(PY, 's += x\n        """<fim_suffix>\n        """', id="python-docstring"),
        pytest.param(JAVA, 'return "<fim_end>".length();', id="java-string"),
        pytest.param(JAVA, "return x; // <fim_end>", id="java-comment"),
        pytest.param(JS, "return `<fim_end>${x}`;", id="template-literal"),
        pytest.param(JS, "/* <fim_end> */ return x;", id="block-comment"),
    ],
)
def test_a_tag_inside_the_codes_own_strings_and_comments_stays(ctx: HoleContext, code: str) -> None:
    assert strip_noncode(code, ctx) == code


def test_python_code_that_parses_with_the_tag_keeps_it() -> None:
    """``a <fim_x> b`` is a chained comparison: with a grammar, a tag goes only when the file
    parses strictly better without it, so code that merely looks like a tag is kept."""
    code = "ok = lo <fim_x> hi"
    assert strip_noncode(code, PY) == code


# ----------------------------------------------------------------------------- reindent

NESTED = HoleContext("python", "def f(xs):\n    for x in xs:\n        ", "\n    return 0\n")


def test_a_tokenizers_leading_space_does_not_shift_the_later_lines() -> None:
    """The cursor already has its indentation (8 columns); the model's first token carried a
    space (`` if``). The later lines were written for the columns they stand at: only the space
    goes. Read as the answer's own indentation, the space would push them 7 columns right."""
    raw = " if x:\n            return x\n        print(x)"
    assert reindent(raw, NESTED) == "if x:\n            return x\n        print(x)"


def test_a_first_line_indented_a_whole_unit_is_still_the_models_frame() -> None:
    """A first line indented by a full unit (4 columns) is indentation the model typed: the
    answer is moved as a whole, as before."""
    raw = "    if x:\n        return x\n    print(x)"
    assert reindent(raw, NESTED) == "if x:\n            return x\n        print(x)"
