"""Repository context for chat prompts (lsp_bridge/repo_context.py): the SimCopilot
pre-processing, on small repositories written to a temp folder."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import httpx
import pytest

from lsp_bridge.models import ModelError, create_model, spec_from_json
from lsp_bridge.models.base import CompletionRequest
from lsp_bridge.models.openai_chat import ChatSettings, OpenAIChatModel
from lsp_bridge.prompts import HOLE
from lsp_bridge.repo_context import (
    arrange_document,
    assemble,
    directory_distance,
    fit_document,
    prompt_code,
)

SECRET = "EXPECTED_VALUE_FROM_TESTS"  # appears in test files only

CORE_PY = '''"""Core."""
import math

LIMIT = 10


@cached
def area(r):
    # the circle
    if r > LIMIT:
        raise ValueError(r)
    return math.pi * r * r


class Shape:
    """A shape."""

    def __init__(self, name):
        self.name = name

    def describe(self):
        return f"shape {self.name}"


def perimeter(r):
    return 2 * math.pi * r
'''

CALC_JAVA = """package com.ex;

import java.util.List;

/** A calculator. */
public class Calc {
    private int base;

    /** Sums. */
    public int sum(List<Integer> xs) {
        int total = base;
        for (int x : xs) {
            total += x;
        }
        return total;
    }

    public Calc(int base) {
        this.base = base;
    }

    int twice(int x) { return 2 * x; }
}
"""


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


@pytest.fixture
def py_repo(tmp_path: Path) -> Path:
    root = tmp_path / "shapes"
    write(
        root,
        {
            "simpilot.toml": '[repository]\nname = "shapes"\nlanguage = "python"\nsources = ["shapes"]\n'
            'tests = ["tests"]\ntest_command = ["{python}", "-m", "pytest"]\n',
            "shapes/__init__.py": "from .core import area\n",
            "shapes/core.py": CORE_PY,
            "shapes/util.py": "def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n",
            "shapes/deep/geo.py": "ORIGIN = (0, 0)\n",
            "shapes/test_inline.py": f"assert {SECRET}\n",  # a test by its name, inside the sources
            "shapes/conftest.py": f"{SECRET} = 1\n",
            "tests/test_core.py": f"def test_area():\n    assert area(1) == {SECRET}\n",
            "scripts/tool.py": "TOOL = 'not a source folder'\n",
        },
    )
    return root


@pytest.fixture
def java_repo(tmp_path: Path) -> Path:
    root = tmp_path / "calc"
    write(
        root,
        {
            "simpilot.toml": '[repository]\nname = "calc"\nlanguage = "java"\nsources = ["src/main/java"]\n'
            'tests = ["src/test/java"]\ntest_command = ["bash", "run-tests.sh"]\n',
            "src/main/java/com/ex/Calc.java": CALC_JAVA,
            "src/main/java/com/ex/Helper.java": "package com.ex;\n\nclass Helper {\n    static int one() { return 1; }\n}\n",
            "src/main/java/com/ex/util/Strings.java": "package com.ex.util;\n\npublic class Strings {}\n",
            "src/test/java/com/ex/CalcTest.java": f"class CalcTest {{ int v = {SECRET}; }}\n",
        },
    )
    return root


def hole(text: str, span: str, infill: bool = True) -> tuple[str, str]:
    """(prefix, suffix) with ``span`` (its first occurrence) removed; no suffix for completion."""
    at = text.index(span)
    return text[:at], text[at + len(span) :] if infill else ""


def request(path: Path, language: str, prefix: str, suffix: str) -> CompletionRequest:
    text = prefix + suffix
    return CompletionRequest(
        uri=path.as_uri(),
        path=path.as_posix(),
        language=language,
        text=text,
        offset=len(prefix),
        line=prefix.count("\n"),
        character=len(prefix.rsplit("\n", 1)[-1]),
    )


def code_lines(text: str) -> Counter[str]:
    return Counter(line for line in text.split("\n") if line.strip())


# ------------------------------------------------------------------------------ arranging


def test_python_enclosing_function_moves_to_the_end() -> None:
    prefix, suffix = hole(CORE_PY, "r > LIMIT")
    code = arrange_document("python", prefix, suffix)
    assert code.endswith(
        "@cached\ndef area(r):\n    # the circle\n    if " + HOLE + ":\n        raise ValueError(r)\n    return math.pi * r * r\n"
    )
    assert code.startswith('"""Core."""\nimport math\n\nLIMIT = 10\n')
    assert code.index("class Shape") < code.index("def perimeter") < code.index(HOLE)


PY_HOLES = {
    "condition": ("r > LIMIT", "def area"),
    "block": ("raise ValueError(r)\n    return math.pi * r * r", "def area"),
    "method-in-class": ('return f"shape {self.name}"', "class Shape"),
    "last-function": ("return 2 * math.pi * r", "def perimeter"),
    "module-level": ("10", None),
}
JAVA_HOLES = {
    "loop-body": ("total += x;", "public int sum"),
    "condition-like": ("x : xs", "public int sum"),
    "constructor": ("this.base = base;", "public Calc(int base)"),
    "one-line-method": ("return 2 * x;", "int twice"),
}


@pytest.mark.parametrize(
    ("language", "text", "span", "unit"),
    [
        *(pytest.param("python", CORE_PY, s, u, id=f"python-{k}") for k, (s, u) in PY_HOLES.items()),
        *(pytest.param("java", CALC_JAVA, s, u, id=f"java-{k}") for k, (s, u) in JAVA_HOLES.items()),
    ],
)
def test_every_line_appears_once_and_the_unit_holding_the_hole_is_last(language: str, text: str, span: str, unit: str | None) -> None:
    prefix, suffix = hole(text, span)
    code = arrange_document(language, prefix, suffix)
    assert code.count(HOLE) == 1
    assert code_lines(code.replace(HOLE, "")) == code_lines(prefix + suffix)
    if unit is None:  # module-level code: nothing to move
        assert code == prefix + HOLE + suffix
        return
    # no other unit of the same nesting starts between the moved unit and the hole
    tail = code[code.index(unit) :]
    assert HOLE in tail
    indent = "    " if language == "java" else ""
    others = [
        line
        for line in tail.split("\n")[1:]
        if line.startswith(indent) and not line.startswith(indent + " ") and line.strip() not in ("}", "")
    ]
    assert not others, others


def test_java_method_moves_to_the_end_of_its_class_body() -> None:
    prefix, suffix = hole(CALC_JAVA, "total += x;")
    code = arrange_document("java", prefix, suffix)
    assert code.endswith(
        """    int twice(int x) { return 2 * x; }

    /** Sums. */
    public int sum(List<Integer> xs) {
        int total = base;
        for (int x : xs) {
            """
        + HOLE
        + """
        }
        return total;
    }
}
"""
    )


def test_java_type_moves_after_later_top_level_types() -> None:
    text = CALC_JAVA + "\nclass Later {\n    void f() {}\n}\n"
    prefix, suffix = hole(text, "this.base = base;")
    code = arrange_document("java", prefix, suffix)
    assert code.index("class Later") < code.index("public class Calc") < code.index(HOLE)
    assert code.rstrip().endswith(HOLE + "\n    }\n}")
    assert code_lines(code.replace(HOLE, "")) == code_lines(prefix + suffix)


@pytest.mark.parametrize("language, text, span", [("python", CORE_PY, "r > LIMIT"), ("java", CALC_JAVA, "total += x;")])
def test_completion_keeps_the_code_before_the_cursor_in_order(language: str, text: str, span: str) -> None:
    prefix, suffix = hole(text, span, infill=False)
    assert arrange_document(language, prefix, suffix) == prefix + HOLE


def test_unparsable_or_unknown_language_is_left_in_order() -> None:
    assert arrange_document("rust", "fn a() {", "}\nfn b() {}\n") == "fn a() {" + HOLE + "}\nfn b() {}\n"
    prefix, suffix = "def f(:\n    ", "\n)))\ndef g():\n    pass\n"
    code = arrange_document("python", prefix, suffix)
    assert code_lines(code.replace(HOLE, "")) == code_lines(prefix + suffix)


# ------------------------------------------------------------------------------ budget


def test_directory_distance_counts_folder_hops() -> None:
    assert directory_distance("a/b/x.py", "a/b/y.py") == 0
    assert directory_distance("a/b/c/x.py", "a/b/y.py") == 1
    assert directory_distance("a/x.py", "b/c/y.py") == 3
    assert directory_distance("x.py", "y.py") == 0


OTHERS = {
    "pkg/near.py": "NEAR = 1\n" * 5,
    "pkg/sub/mid.py": "MID = 2\n" * 5,
    "lib/far/away.py": "FAR = 3\n" * 5,
}


def test_budget_drops_the_farthest_file_first_and_is_never_exceeded() -> None:
    prefix, suffix = "def f():\n    return ", "\n"
    full = assemble("pkg/doc.py", "python", prefix, suffix, OTHERS, 100_000)
    assert (
        full.index("# file: lib/far/away.py")
        < full.index("# file: pkg/sub/mid.py")
        < full.index("# file: pkg/near.py")
        < full.index("# file: pkg/doc.py")
        < full.index(HOLE)
    )
    seen = []
    for budget in range(len(HOLE), len(full) + 5):
        code = assemble("pkg/doc.py", "python", prefix, suffix, OTHERS, budget)
        assert len(code) <= budget and HOLE in code
        kept = tuple(p for p in OTHERS if f"# file: {p}\n" in code)
        if not seen or seen[-1] != kept:
            seen.append(kept)
    assert seen == [(), ("pkg/near.py",), ("pkg/near.py", "pkg/sub/mid.py"), tuple(OTHERS)]


def test_ties_are_broken_by_path() -> None:
    others = {"pkg/b.py": "B = 1\n", "pkg/a.py": "A = 1\n"}
    doc = assemble("pkg/doc.py", "python", "x = ", "\n", {}, 1000)
    one = len(doc) + len("# file: pkg/doc.py\n") + len("# file: pkg/a.py\nA = 1\n\n")
    code = assemble("pkg/doc.py", "python", "x = ", "\n", others, one)
    assert "A = 1" in code and "B = 1" not in code


def test_a_document_larger_than_the_budget_keeps_the_lines_nearest_the_hole() -> None:
    before = "".join(f"a{i} = {i}\n" for i in range(200))
    after = "".join(f"b{i} = {i}\n" for i in range(200))
    for budget in (60, 200, 1001):
        code = assemble("m.py", "python", before + "x = ", "\n" + after, {"n.py": "N = 1\n"}, budget)
        assert len(code) <= budget and "N = 1" not in code
        head, tail = code.split(HOLE)
        assert head.endswith("a199 = 199\nx = ") and tail.startswith("\nb0 = 0\n")
        assert all(line in before.split("\n") for line in head.split("\n")[:-1])  # whole lines only
        assert all(line in after.split("\n") for line in tail.split("\n")[1:])
    assert fit_document("abc" + HOLE + "def", 3) == HOLE


def test_zero_budget_is_the_document_alone_uncut() -> None:
    prefix, suffix = hole(CORE_PY, "r > LIMIT")
    assert assemble("shapes/core.py", "python", prefix, suffix, OTHERS, 0) == arrange_document("python", prefix, suffix)


# ------------------------------------------------------------------------------ the repository on disk


def test_python_sources_are_prepended_with_headers_and_tests_never_appear(py_repo: Path) -> None:
    prefix, suffix = hole(CORE_PY, "r > LIMIT")
    code = prompt_code(request(py_repo / "shapes/core.py", "python", prefix, suffix), 48_000)
    assert "# file: shapes/util.py\ndef clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n" in code
    assert "# file: shapes/__init__.py\n" in code and "# file: shapes/deep/geo.py\nORIGIN" in code
    assert SECRET not in code and "test_" not in code and "conftest" not in code
    assert "TOOL" not in code  # not in the manifest's source folders
    assert code.count("# file: shapes/core.py\n") == 1 and code.count(HOLE) == 1
    assert code.index("# file: shapes/deep/geo.py") < code.index("# file: shapes/util.py") < code.index("# file: shapes/core.py")


def test_the_document_comes_from_the_editor_not_the_disk(py_repo: Path) -> None:
    prefix, suffix = hole(CORE_PY, "r > LIMIT")
    code = prompt_code(request(py_repo / "shapes/core.py", "python", prefix, suffix), 48_000)
    assert "r > LIMIT" not in code  # the answer, still in the file on disk


def test_java_sources_are_prepended_and_tests_never_appear(java_repo: Path) -> None:
    prefix, suffix = hole(CALC_JAVA, "total += x;")
    code = prompt_code(request(java_repo / "src/main/java/com/ex/Calc.java", "java", prefix, suffix), 48_000)
    assert "// file: src/main/java/com/ex/Helper.java\npackage com.ex;\n" in code
    assert "// file: src/main/java/com/ex/util/Strings.java\n" in code
    assert SECRET not in code and "CalcTest" not in code
    assert code.rstrip().endswith(HOLE + "\n        }\n        return total;\n    }\n}")


def test_completion_through_the_repository_ends_at_the_hole(java_repo: Path) -> None:
    prefix, suffix = hole(CALC_JAVA, "total += x;", infill=False)
    code = prompt_code(request(java_repo / "src/main/java/com/ex/Calc.java", "java", prefix, suffix), 48_000)
    assert code.endswith(prefix + HOLE) and "class Helper" in code


def test_without_a_manifest_the_same_test_rules_apply(tmp_path: Path) -> None:
    root = tmp_path / "loose"
    write(
        root,
        {
            "pyproject.toml": "[project]\nname = 'loose'\n",
            "app/main.py": "def main():\n    return 1\n",
            "app/helpers.py": "HELPER = 1\n",
            "app/test_helpers.py": f"{SECRET}\n",
            "app/helpers_test.py": f"{SECRET}\n",
            "tests/unit/check.py": f"{SECRET}\n",
            ".hidden/secret.py": f"{SECRET}\n",
            "app/latin1.py": "",
            "app/huge.py": "",
        },
    )
    (root / "app/latin1.py").write_bytes(b"NAME = '\xe9'\n")
    (root / "app/huge.py").write_text("X = 1\n" * 200_000)
    (tmp_path / "outside.py").write_text("OUTSIDE = 1\n")
    code = prompt_code(request(root / "app/main.py", "python", "def main():\n    return ", "\n"), 48_000)
    assert "# file: app/helpers.py\nHELPER = 1\n" in code
    assert SECRET not in code and "OUTSIDE" not in code
    assert "latin1" not in code and "huge" not in code


def test_a_named_pipe_or_a_socket_named_like_a_source_is_skipped_not_waited_on(tmp_path: Path) -> None:
    """Opening a named pipe for reading waits for a writer: a ``.py`` pipe in the folder (left by
    a tool, or by a test of simpilot's own sandbox) once hung every request from that folder."""
    import os
    import socket
    import threading

    root = tmp_path / "loose"
    write(root, {"pyproject.toml": "[project]\nname = 'loose'\n", "app/main.py": "", "app/helpers.py": "HELPER = 1\n"})
    os.mkfifo(root / "app/pipe.py")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(root / "app/sock.py"))
    code: list[str] = []
    worker = threading.Thread(
        target=lambda: code.append(prompt_code(request(root / "app/main.py", "python", "x = ", "\n"), 48_000)), daemon=True
    )
    worker.start()
    worker.join(30)
    if worker.is_alive():  # unblock the reader so the test process can end
        with open(root / "app/pipe.py", "wb"):
            pass
        pytest.fail("building the prompt waited on a named pipe")
    listener.close()
    assert "# file: app/helpers.py\nHELPER = 1\n" in code[0]
    assert "pipe.py" not in code[0] and "sock.py" not in code[0]
    from lsp_bridge.repo_context import read_source

    assert read_source(root, "app/pipe.py") is None  # asked for by name too: never read as an empty source


def test_a_changed_file_is_read_again(py_repo: Path) -> None:
    doc = request(py_repo / "shapes/core.py", "python", "LIMIT = ", "\n")
    assert "def clamp" in prompt_code(doc, 48_000)
    (py_repo / "shapes/util.py").write_text("def clamp_to_range(x):\n    return x\n")
    assert "def clamp_to_range" in prompt_code(doc, 48_000)


def test_untitled_document_has_no_repository() -> None:
    doc = CompletionRequest(uri="untitled:1", path="untitled:1", language="python", text="x = 1\n", offset=4, line=0, character=4)
    assert prompt_code(doc, 48_000) == "x = " + HOLE + "1\n"


# ------------------------------------------------------------------------------ the adapter


async def test_openai_chat_sends_other_sources_and_no_tests(py_repo: Path) -> None:
    sent: list[dict] = []

    def answer(http_request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(http_request.content))
        return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": "r > LIMIT"}}]})

    model = OpenAIChatModel(ChatSettings(base_url="http://model.test/v1", model="m"), transport=httpx.MockTransport(answer))
    prefix, suffix = hole(CORE_PY, "r > LIMIT")
    try:
        assert await model.complete(request(py_repo / "shapes/core.py", "python", prefix, suffix)) == "r > LIMIT"
    finally:
        await model.aclose()
    prompt = sent[0]["messages"][-1]["content"]
    assert "# file: shapes/util.py\ndef clamp" in prompt and HOLE in prompt
    assert SECRET not in prompt
    assert "connect to the code after it" in prompt  # the infill instructions


async def test_openai_chat_with_zero_context_sends_the_file_only(py_repo: Path) -> None:
    sent: list[dict] = []

    def answer(http_request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(http_request.content))
        return httpx.Response(200, json={"choices": [{"message": {"content": ""}}]})

    model = OpenAIChatModel(
        ChatSettings(base_url="http://model.test/v1", model="m", context_chars=0), transport=httpx.MockTransport(answer)
    )
    prefix = "def clamp(x):\n    return "
    try:
        await model.complete(request(py_repo / "shapes/core.py", "python", prefix, ""))
    finally:
        await model.aclose()
    prompt = sent[0]["messages"][-1]["content"]
    assert prompt.endswith("\n\n" + prefix + HOLE) and "# file:" not in prompt
    assert "innermost unfinished" in prompt  # the completion instructions


def test_context_chars_comes_from_the_model_spec() -> None:
    spec = {"kind": "openai-chat", "base_url": "http://model.test/v1", "model": "m"}
    assert create_model(spec_from_json({**spec, "context_chars": 1000})).settings.context_chars == 1000  # type: ignore[attr-defined]
    assert create_model(spec_from_json(spec)).settings.context_chars == 48_000  # type: ignore[attr-defined]
    with pytest.raises(ModelError, match="context_chars"):
        create_model(spec_from_json({**spec, "context_chars": -1}))
