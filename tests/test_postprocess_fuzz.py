"""No post-processing step raises, whatever text a model sends."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from postprocess import PRESETS, HoleContext, run_preset

pieces = st.sampled_from(list("abc xyz():[]{}'\"#\\\n\t\r`<>=.,:;") + ["```", '"""', "    ", "if ", "<think>", "</think>", "Here is", "\n    "])
code_like = st.lists(pieces, max_size=120).map("".join)
contexts = st.builds(
    HoleContext,
    language=st.just("python"),
    prefix=st.one_of(st.just("def f(x):\n    "), st.just("def f(x):\n    if "), code_like),
    suffix=st.one_of(st.just(""), st.just(":\n        return 1\n"), code_like),
)


@settings(max_examples=300, deadline=None)
@given(raw=st.one_of(st.text(max_size=300), code_like), ctx=contexts)
def test_presets_never_raise(raw: str, ctx: HoleContext) -> None:
    for name in PRESETS:
        out = run_preset(name, raw, ctx).text
        assert isinstance(out, str)


@settings(max_examples=3, deadline=None)
@given(n=st.integers(min_value=10_000, max_value=60_000))
def test_huge_answers_are_handled(n: int) -> None:
    raw = "x = 1\n" * n
    ctx = HoleContext("python", "def f():\n    ", "\n    return x\n")
    assert run_preset("simcopilot", raw, ctx).text.startswith("x = 1")
