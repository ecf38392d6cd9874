"""No post-processing step raises, whatever text a model sends, and none returns more than the
raw output plus the closing brackets and the indentation it added."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from postprocess import PRESETS, STEPS, HoleContext, run_preset

pieces = st.sampled_from(
    list("abc xyz():[]{}'\"#\\\n\t\r`<>=.,:;/*") + ["```", '"""', "    ", "if ", "<think>", "</think>", "Here is",
                                                   "\n    ", "\r\n", "//", "/*", "*/", "}\n", "{\n", "\t", "é", "\u2028", "\x00"]
)
code_like = st.lists(pieces, max_size=150).map("".join)
prefixes = st.one_of(
    st.just("def f(x):\n    "), st.just("def f(x):\n    if "), st.just("class A {\n    void f() {\n        "),
    st.just("class A {\n\tvoid f() {\n\t\tif ("), code_like,
)
suffixes = st.one_of(st.just(""), st.just(":\n        return 1\n"), st.just("\n        return;\n    }\n}\n"), code_like)
contexts = st.builds(HoleContext, language=st.sampled_from(["python", "java"]), prefix=prefixes, suffix=suffixes)
answers = st.one_of(st.text(max_size=300), code_like)
CLOSERS = set(")]}")


def _grew_only_by_closers_and_indentation(raw: str, out: str, ctx: HoleContext) -> None:
    before = Counter(c for c in raw if not c.isspace())
    after = Counter(c for c in out if not c.isspace())
    added = after - before
    assert set(added) <= CLOSERS, f"added {dict(added)}"
    closers = sum(added.values())
    assert closers <= sum(raw.count(c) for c in "([{")
    # reindent may take the indentation of the cursor's line or of the code around it
    near = [line for line in ctx.prefix.splitlines()[-1:] + ctx.suffix.splitlines()[:2] if line.strip()]
    width = max(len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip()) for line in [ctx.indent + "x", *near]) + 2
    assert len(out) <= len(raw) + (raw.count("\n") + 1 + closers) * width + 3 * raw.count("\t")


@settings(max_examples=300, deadline=None)
@given(raw=answers, ctx=contexts)
def test_presets_never_raise_nor_invent(raw: str, ctx: HoleContext) -> None:
    for name in PRESETS:
        out = run_preset(name, raw, ctx).text
        assert isinstance(out, str)
        _grew_only_by_closers_and_indentation(raw, out, ctx)


@settings(max_examples=300, deadline=None)
@given(raw=answers, ctx=contexts)
def test_each_step_alone_never_raises_nor_invents(raw: str, ctx: HoleContext) -> None:
    for name, step in STEPS.items():
        out = step(raw, ctx)
        assert isinstance(out, str), name
        _grew_only_by_closers_and_indentation(raw, out, ctx)


@settings(max_examples=3, deadline=None)
@given(n=st.integers(min_value=10_000, max_value=60_000), language=st.sampled_from(["python", "java"]))
def test_huge_answers_are_handled(n: int, language: str) -> None:
    line = "x = 1" if language == "python" else "x = f(1);"
    raw = f"{line}\n" * n + "{(" * 1000
    ctx = HoleContext(language, "def f():\n    " if language == "python" else "class A {\n  void f() {\n    ", "\n    return x\n")
    for name in PRESETS:
        assert run_preset(name, raw, ctx).text.startswith(line)
