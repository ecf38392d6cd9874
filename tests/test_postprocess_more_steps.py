"""Literal cases for the Java bracket balancer, syntax-aware truncation, the IDE filters, step
records and user-defined presets."""

from __future__ import annotations

from pathlib import Path

import pytest

from postprocess import PRESETS, HoleContext, PresetError, register_presets, run_preset, run_steps
from postprocess.javascan import code_brackets
from postprocess.steps import (
    balance_brackets,
    cut_repetition,
    drop_suffix_closer,
    limit_scope,
    stop_at_suffix_line,
    truncate_syntax,
)
from replay.config.errors import ConfigError
from replay.config.presets_file import load_presets

JAVA_PREFIX = "class A {\n    int sum(int[] xs) {\n        int t = 0;\n        "
JAVA_INFILL = HoleContext("java", JAVA_PREFIX, "\n        return t;\n    }\n}\n")
JAVA_COMPLETION = HoleContext("java", JAVA_PREFIX, "")
JAVA_COND = HoleContext("java", "class A {\n    int f(int x) {\n        if (", ") {\n            return 1;\n        }\n        return 0;\n    }\n}\n")
PY_LOOP = HoleContext("python", "def total(xs):\n    s = 0\n    for x in xs:\n        ", "\n    return s\n")
PY_COMPLETION = HoleContext("python", "def total(xs):\n    s = 0\n    for x in xs:\n        ", "")
PY_COND = HoleContext("python", "def f(x):\n    if ", ":\n        return 1\n    return 0\n")


def test_code_brackets_skip_literals_and_comments() -> None:
    text = 'f("(", \'{\', """\n]""") // )\n/* } */ g[0]'
    assert [text[i] for i in code_brackets(text)] == ["(", ")", "[", "]"]


@pytest.mark.parametrize(
    "raw, ctx, expected",
    [
        pytest.param("for (int x : xs) {\n            t += x;\n        }\n    }\n\n    int other() {", JAVA_COMPLETION,
                     "for (int x : xs) {\n            t += x;\n        }", id="cut-at-the-method's-closer"),
        pytest.param("for (int x : xs) {\n            t += x;", JAVA_INFILL, "for (int x : xs) {\n            t += x;\n        }", id="close-brace-like-its-opener"),
        pytest.param("t += g(xs[0];", JAVA_INFILL, "t += g(xs[0]);", id="close-paren-before-semicolon"),
        pytest.param("x > 0) {", JAVA_COND, "x > 0", id="condition-cut-at-unmatched-paren"),
        pytest.param('log("}");\n        t += 1;', JAVA_INFILL, 'log("}");\n        t += 1;', id="brace-in-string-ignored"),
        pytest.param("t += 1; // }\n        t += 2;", JAVA_INFILL, "t += 1; // }\n        t += 2;", id="brace-in-comment-ignored"),
        pytest.param("char c = '}';", JAVA_INFILL, "char c = '}';", id="brace-in-char-ignored"),
    ],
)
def test_balance_brackets(raw: str, ctx: HoleContext, expected: str) -> None:
    assert balance_brackets(raw, ctx) == expected


def test_balance_brackets_leaves_python_alone() -> None:
    assert balance_brackets("s += f(x", PY_LOOP) == "s += f(x"


@pytest.mark.parametrize(
    "raw, ctx, expected",
    [
        # a file that parses with the whole answer is kept whole: a correct hole can end that way
        # (truncation never removes a line the file needs; balance_brackets and limit_scope cut
        # a Java completion at the block it was not shown)
        pytest.param("s += x\n    return s\n\ndef other():\n    pass", PY_LOOP, "s += x\n    return s\n\ndef other():\n    pass",
                     id="python-infill-that-parses-kept"),
        pytest.param("s += x\n        s *= 2\n    return s", PY_COMPLETION, "s += x\n        s *= 2\n    return s", id="python-completion-dedent-kept"),
        pytest.param("s += x\n        s *= 2\nclass", PY_COMPLETION, "s += x\n        s *= 2\nclass", id="python-completion-may-stop-mid-statement"),
        pytest.param("s += x\n        s *= 2\n    )\n    return s", PY_LOOP, "s += x\n        s *= 2", id="python-infill-cut-at-error"),
        pytest.param("x > 0\n        return 1", PY_COND, "x > 0", id="python-condition-first-logical-line"),
        pytest.param("(x > 0 and\n        x < 9)", PY_COND, "(x > 0 and\n        x < 9)", id="python-condition-spanning-lines"),
        pytest.param("for (int x : xs) {\n            t += x;\n        }\n        return t;\n    }\n    int g() { return 1; }",
                     JAVA_COMPLETION, "for (int x : xs) {\n            t += x;\n        }\n        return t;\n    }\n    int g() { return 1; }",
                     id="java-completion-that-parses-kept"),
        pytest.param("x > 0) {\n            return 1;", JAVA_COND, "x > 0", id="java-condition-cut-before-paren"),
        pytest.param("t += (", JAVA_INFILL, "t += (", id="no-fit-left-unchanged"),
    ],
)
def test_truncate_syntax(raw: str, ctx: HoleContext, expected: str) -> None:
    assert truncate_syntax(raw, ctx) == expected


def test_stop_at_suffix_line() -> None:
    ctx = HoleContext("python", "def f(xs):\n    s = 0\n    ", "\n    return sorted(s)\n")
    assert stop_at_suffix_line("s = sum(xs)\n    return sorted(s)\n", ctx) == "s = sum(xs)"
    short = HoleContext("java", "class A {\n    void f() {\n        ", "\n    }\n}\n")
    assert stop_at_suffix_line("if (a) {\n            b();\n        }\n    }", short) == "if (a) {\n            b();\n        }\n    }"


def test_cut_repetition_keeps_the_first_of_three() -> None:
    assert cut_repetition("a = 1\n    x += 1\n    x += 1\n    x += 1\n    x += 1", PY_LOOP) == "a = 1\n    x += 1"
    assert cut_repetition("x += 1\n        x += 1", PY_LOOP) == "x += 1\n        x += 1"


@pytest.mark.parametrize(
    "raw, ctx, expected",
    [
        pytest.param("s += x\n        s *= 2\n    return s", PY_LOOP, "s += x\n        s *= 2", id="python-dedent-ends-scope"),
        pytest.param('s += x\n        doc = """\nflush\n"""', PY_LOOP, 's += x\n        doc = """\nflush\n"""', id="string-lines-ignored"),
        pytest.param("t += 1;\n    }\n    int g() {", JAVA_COMPLETION, "t += 1;", id="completion-closer-dropped"),
        pytest.param("t += 1;\n    }", HoleContext("java", JAVA_PREFIX, "\n}\n"), "t += 1;\n    }", id="closer-kept-when-suffix-lacks-it"),
        pytest.param("t += 1;\n    }", HoleContext("java", JAVA_PREFIX, "\n    }\n}\n"), "t += 1;", id="closer-dropped-when-suffix-has-it"),
    ],
)
def test_limit_scope(raw: str, ctx: HoleContext, expected: str) -> None:
    assert limit_scope(raw, ctx) == expected


def test_drop_suffix_closer() -> None:
    ctx = HoleContext("java", "class A {\n    void f() {\n        if (a) {\n            ", "\n        }\n    }\n}\n")
    assert drop_suffix_closer("b();\n        }", ctx) == "b();"
    assert drop_suffix_closer("b();\n            }", ctx) == "b();\n            }"  # a different indentation: its own block


def test_changes_are_recorded_per_step() -> None:
    processed = run_steps(("strip_noncode", "drop_regenerated", "reindent"),
                          "Here it is:\n```python\nfor x in xs:\ns += x\n```", PY_LOOP)
    assert processed.text == "s += x"
    assert processed.changed_by == ("strip_noncode", "drop_regenerated")
    strip, regen = processed.changes
    assert (strip.lines_removed, strip.lines_added) == (3, 0)
    assert (regen.lines_removed, regen.lines_added, regen.chars_after) == (1, 0, len("s += x"))


def test_user_defined_presets(tmp_path: Path) -> None:
    path = tmp_path / "presets.toml"
    path.write_text('[presets.fences-indent]\nsteps = ["strip_noncode", "reindent"]\n', encoding="utf-8")
    defined = load_presets(path)
    assert defined == {"fences-indent": ("strip_noncode", "reindent")}
    register_presets(defined)
    try:
        assert run_preset("fences-indent", "```\nfor x in xs:\n    s += x\n```", PY_LOOP).text == "for x in xs:\n            s += x"
    finally:
        PRESETS.pop("fences-indent")


@pytest.mark.parametrize(
    "text, message",
    [
        ('[presets.x]\nsteps = ["strip_noncode", "magic"]\n', "presets.x.steps: unknown step(s) 'magic' (steps: strip_noncode,"),
        ("[presets.x]\nsteps = []\n", "presets.x.steps: expected at least 1 item(s), got 0; add one"),
        ('[presets.simcopilot]\nsteps = ["reindent"]\n', "presets.simcopilot: 'simcopilot' is a built-in preset; give yours another name"),
        ('[presets.x]\nstep = ["reindent"]\n', "presets.x.steps: missing; add steps = …"),
        ("presets = 3\n", "presets: expected a table, got a number 3; fix its type"),
        ("[presets]\n", "presets: no [presets.NAME] tables with 'steps' lists; add one"),
        ("[presets.x\n", "not valid TOML ("),
    ],
)
def test_bad_preset_files_are_explained(tmp_path: Path, text: str, message: str) -> None:
    """Each refusal is one line, ``presets.toml: KEY.PATH: problem; what to do``."""
    path = tmp_path / "presets.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_presets(path)
    assert str(caught.value).startswith(f"{path}: {message}")


def test_the_registry_refuses_unknown_steps_and_redefined_built_ins() -> None:
    """The bridge registers a preset from its command line through the same rules as the file."""
    with pytest.raises(PresetError, match="unknown step"):
        register_presets({"x": ["magic"]})
    with pytest.raises(PresetError, match="built-in preset"):
        register_presets({"simcopilot": ["reindent"]})
    register_presets({"simcopilot": list(PRESETS["simcopilot"])})  # the same steps: the bridge is told them
