"""Task labels and distances (replay/marking/labels.py) on small inline repositories.

A hole is written between ``⟦`` and ``⟧`` in the source of the file under test; the other files
of the little repository give it something to import.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tree_sitter_java
import tree_sitter_python
from tree_sitter import Language, Parser

from replay.config.manifest import open_repository, project_root
from replay.marking.labels import LABELS, Annotation, RepoIndex, annotate
from replay.marking.python_bindings import module_name

PARSERS = {"python": Parser(Language(tree_sitter_python.language())), "java": Parser(Language(tree_sitter_java.language()))}

PY_REPO = {
    "geo/__init__.py": "from .const import TOLERANCE\n",
    "geo/const.py": (
        "TOLERANCE = 1e-9\n"
        "\n"
        "def clamp(x, lo, hi):\n"
        "    return max(lo, min(x, hi))\n"
        "\n"
        "class Box:\n"
        "    def area(self):\n"
        "        return 0\n"
    ),
}
PY_PATH = "geo/case.py"

JAVA_REPO = {
    "src/main/java/org/geo/Node.java": (
        "package org.geo;\n"
        "\n"
        "public class Node {\n"
        "    public static final int MAX = 4;\n"
        "    int count;\n"
        "    Node next;\n"
        "    public int size() { return count; }\n"
        "    @Override public String toString() { return \"n\"; }\n"
        "}\n"
    ),
    "src/main/java/org/geo/Color.java": "package org.geo;\n\npublic enum Color { RED, GREEN }\n",
}
JAVA_PATH = "src/main/java/org/geo/Case.java"


def run(language: str, files: dict[str, str], path: str) -> Annotation:
    """Annotate the hole marked in ``files[path]`` with an index over all of ``files``."""
    marked = files[path]
    i, j = marked.index("⟦"), marked.index("⟧")
    start = len(marked[:i].encode())
    end = len(marked[:j].replace("⟦", "").encode())
    sources = {p: (t.replace("⟦", "").replace("⟧", "") if p == path else t).encode() for p, t in files.items()}
    parsed = {p: (s, PARSERS[language].parse(s).root_node) for p, s in sources.items()}
    index = RepoIndex.build(language, parsed)
    source, root = parsed[path]
    return annotate(index, path, source, root, start, end)


def py(source: str) -> Annotation:
    return run("python", {**PY_REPO, PY_PATH: source}, PY_PATH)


def java(body: str, *, imports: str = "", members: str = "", extends: str = "") -> Annotation:
    """``body`` goes into method ``run(int[] data, Node node, String s)`` of class Case."""
    source = (
        f"package org.geo;\n\n{imports}\n"
        f"public class Case {extends}{{\n"
        "    private int total;\n"
        "    private int[] values;\n"
        "    private StringBuilder sb = new StringBuilder();\n"
        f"{members}"
        "    int helper(int x) { return x; }\n"
        "\n"
        "    void run(int[] data, Node node, String s) {\n"
        f"{body}"
        "    }\n"
        "}\n"
    )
    return run("java", {**JAVA_REPO, JAVA_PATH: source}, JAVA_PATH)


def fn(body: str, params: str = "xs, n") -> str:
    """A Python module with one function ``f(params)`` whose body is ``body`` (4-space indented)."""
    return f"import math\nfrom collections import deque\nfrom .const import TOLERANCE, clamp, Box\n\nLIMIT = 10\n\n\ndef f({params}):\n{body}"


# -- Python labels ----------------------------------------------------------------------------

PY_CASES = [
    # if_condition
    ("cond-if", fn("    if ⟦n > 0⟧:\n        return 1\n"), "if_condition", True),
    ("cond-elif", fn("    if n:\n        return 1\n    elif ⟦n < LIMIT⟧:\n        return 2\n"), "if_condition", True),
    ("cond-whole-if", fn("    ⟦if n > 0:\n        return 1⟧\n"), "if_condition", True),
    ("cond-ternary-no", fn("    return 1 if ⟦n > 0⟧ else 2\n"), "if_condition", False),
    ("cond-while-no", fn("    while ⟦n > 0⟧:\n        n -= 1\n"), "if_condition", False),
    # if_body
    ("ifbody-then", fn("    if n:\n        ⟦n += 1\n        n *= 2⟧\n"), "if_body", True),
    ("ifbody-else", fn("    if n:\n        pass\n    else:\n        ⟦n = 3⟧\n"), "if_body", True),
    ("ifbody-elif", fn("    if n:\n        pass\n    elif xs:\n        ⟦n = 3⟧\n"), "if_body", True),
    ("ifbody-whole-if", fn("    ⟦if n:\n        n = 1⟧\n"), "if_body", True),
    ("ifbody-condition-no", fn("    if ⟦n > 0⟧:\n        n = 1\n"), "if_body", False),
    ("ifbody-with-inside-if-no", fn("    if n:\n        with open(n) as fh:\n            ⟦n = fh⟧\n"), "if_body", False),
    ("ifbody-function-body-no", fn("    ⟦n = 1⟧\n    return n\n"), "if_body", False),
    # loop_body
    ("loop-for", fn("    for x in xs:\n        ⟦n += x⟧\n"), "loop_body", True),
    ("loop-while", fn("    while n:\n        ⟦n -= 1⟧\n"), "loop_body", True),
    ("loop-whole-loop", fn("    ⟦for x in xs:\n        n += x⟧\n    return n\n"), "loop_body", True),
    ("loop-for-else-no", fn("    for x in xs:\n        pass\n    else:\n        ⟦n = 0⟧\n"), "loop_body", False),
    ("loop-after-no", fn("    for x in xs:\n        n += x\n    ⟦return n⟧\n"), "loop_body", False),
    # local_variable
    ("local-param", fn("    ⟦return n + 1⟧\n"), "local_variable", True),
    ("local-assigned", fn("    total = 0\n    ⟦return total⟧\n"), "local_variable", True),
    ("local-loop-var", fn("    for x in xs:\n        ⟦print(x)⟧\n"), "local_variable", True),
    ("local-with-as", fn("    with open('p') as fh:\n        ⟦print(fh)⟧\n", params=""), "local_variable", True),
    ("local-except-as", fn("    try:\n        pass\n    except ValueError as err:\n        ⟦print(err)⟧\n", params=""), "local_variable", True),
    ("local-walrus", fn("    if (m := 3):\n        ⟦print(m)⟧\n", params=""), "local_variable", True),
    ("local-written", fn("    total = 0\n    ⟦total = 5⟧\n    return total\n", params=""), "local_variable", True),
    ("local-closure", fn("    k = 2\n    def g():\n        ⟦return k⟧\n    return g\n", params=""), "local_variable", True),
    ("local-comprehension", fn("    return [⟦y * 2⟧ for y in range(3)]\n", params=""), "local_variable", True),
    ("local-self-no", "class C:\n    def m(self):\n        ⟦return self.x⟧\n", "local_variable", False),
    ("local-cls-no", "class C:\n    @classmethod\n    def m(cls):\n        ⟦return cls.x⟧\n", "local_variable", False),
    ("local-hole-bound-no", fn("    ⟦total = 3\n    print(total)⟧\n", params=""), "local_variable", False),
    ("local-hole-comprehension-no", fn("    ⟦print([y for y in range(3)])⟧\n", params=""), "local_variable", False),
    ("local-global-no", fn("    ⟦return LIMIT⟧\n", params=""), "local_variable", False),
    ("local-builtin-no", fn("    ⟦return len([])⟧\n", params=""), "local_variable", False),
    # global_variable
    ("global-module", fn("    ⟦return LIMIT⟧\n", params=""), "global_variable", True),
    ("global-imported", fn("    ⟦return TOLERANCE⟧\n", params=""), "global_variable", True),
    ("global-module-attribute", "from . import const\n\ndef f():\n    ⟦return const.TOLERANCE⟧\n", "global_variable", True),
    ("global-declared", fn("    global LIMIT\n    ⟦LIMIT = 3⟧\n", params=""), "global_variable", True),
    ("global-self-attr-no", "class C:\n    def m(self):\n        ⟦return self.limit⟧\n", "global_variable", False),
    ("global-shadowed-no", fn("    LIMIT = 3\n    ⟦return LIMIT⟧\n", params=""), "global_variable", False),
    ("global-def-no", "def g():\n    pass\n\ndef f():\n    ⟦return g⟧\n", "global_variable", False),
    ("global-import-no", fn("    ⟦return math⟧\n", params=""), "global_variable", False),
    # function
    ("function-same-module", "def g():\n    pass\n\ndef f():\n    ⟦g()⟧\n", "function", True),
    ("function-imported", fn("    ⟦return clamp(n, 0, 1)⟧\n"), "function", True),
    ("function-self-method", "class C:\n    def g(self):\n        pass\n    def m(self):\n        ⟦self.g()⟧\n", "function", True),
    ("function-obj-method", fn("    ⟦return xs.area()⟧\n"), "function", True),
    ("function-repo-len", "def len(x):\n    return 0\n\ndef f(xs):\n    ⟦return len(xs)⟧\n", "function", True),
    ("function-repo-base-super", "from .const import Box\n\nclass B(Box):\n    def area(self):\n        ⟦return super().area()⟧\n", "function", True),
    ("function-builtin-no", fn("    ⟦return len(xs)⟧\n"), "function", False),
    ("function-library-no", fn("    ⟦return math.sqrt(n)⟧\n"), "function", False),
    ("function-class-no", fn("    ⟦return Box()⟧\n"), "function", False),
    ("function-not-called-no", "def g():\n    pass\n\ndef f():\n    ⟦return g⟧\n", "function", False),
    ("function-builtin-base-super-no", "class E(Exception):\n    def __init__(self, m):\n        ⟦super().__init__(m)⟧\n", "function", False),
    ("function-inherited-builtin-super-no", "class E(Exception):\n    pass\n\nclass F(E):\n    def __init__(self, m):\n        ⟦super().__init__(m)⟧\n", "function", False),
    ("function-grandparent-super", "from .const import Box\n\nclass B(Box):\n    pass\n\nclass C(B):\n    def area(self):\n        ⟦return super().area()⟧\n", "function", True),
    # class
    ("class-instantiation", fn("    ⟦return Box()⟧\n"), "class", True),
    ("class-isinstance", fn("    ⟦return isinstance(n, Box)⟧\n"), "class", True),
    ("class-attribute", fn("    ⟦return Box.area⟧\n"), "class", True),
    ("class-own-name", "class C:\n    def m(self):\n        ⟦return C()⟧\n", "class", True),
    ("class-same-module", "class P:\n    pass\n\ndef f():\n    ⟦return P()⟧\n", "class", True),
    ("class-self-no", "class C:\n    def m(self):\n        ⟦return self⟧\n", "class", False),
    ("class-builtin-no", fn("    ⟦return dict()⟧\n"), "class", False),
    # library
    ("library-module", fn("    ⟦return math.sqrt(n)⟧\n"), "library", True),
    ("library-from-import", fn("    ⟦return deque(xs)⟧\n"), "library", True),
    ("library-local-import", "def f(xs):\n    import heapq\n    ⟦heapq.heapify(xs)⟧\n", "library", True),
    ("library-builtin-no", fn("    ⟦return len(xs)⟧\n"), "library", False),
    ("library-builtin-exception-no", fn("    ⟦raise ValueError(n)⟧\n"), "library", False),
    ("library-repo-import-no", fn("    ⟦return clamp(n, 0, 1)⟧\n"), "library", False),
]


@pytest.mark.parametrize(("source", "label", "expected"), [c[1:] for c in PY_CASES], ids=[c[0] for c in PY_CASES])
def test_python_label(source: str, label: str, expected: bool) -> None:
    assert (label in py(source).labels) is expected


def test_python_labels_sorted_and_complete() -> None:
    a = py(fn("    for x in xs:\n        ⟦if x > LIMIT and clamp(x, 0, n) is not None:\n            xs.append(Box(math.pi))⟧\n"))
    assert a.labels == ("class", "function", "global_variable", "if_body", "if_condition", "library", "local_variable", "loop_body")
    assert a.labels == LABELS


# -- Python distances -------------------------------------------------------------------------


def test_python_comment_distance() -> None:
    source = "# top\n\ndef f(n):\n    # the check\n\n    ⟦return n⟧\n"
    assert py(source).comment_distance == 2


def test_python_comment_inside_hole_ignored() -> None:
    source = "# top\ndef f(n):\n    ⟦# inside\n    return n⟧\n"
    assert py(source).comment_distance == 2  # from "# top", not from the comment in the hole


def test_python_docstring_is_not_a_comment() -> None:
    assert py('"""Module."""\n\ndef f(n):\n    """Doc."""\n    ⟦return n⟧\n').comment_distance is None


def test_python_reference_distance_local_nearest_binding_above() -> None:
    source = "def f(n):\n    n = n + 1\n\n\n    ⟦return n⟧\n"
    assert py(source).reference_distance == 3


def test_python_reference_distance_takes_the_farthest() -> None:
    source = "LIMIT = 1\n\n\ndef g():\n    pass\n\n\ndef f(n):\n    ⟦g()\n    return n + LIMIT⟧\n"
    assert py(source).reference_distance == 9  # LIMIT on line 1, used on line 10


def test_python_reference_distance_method_and_class() -> None:
    source = "class C:\n    def g(self):\n        pass\n\n    def m(self):\n        ⟦self.g()⟧\n"
    assert py(source).reference_distance == 4


def test_python_reference_distance_none_for_other_files_and_builtins() -> None:
    a = py(fn("    ⟦return clamp(len([]), 0, TOLERANCE)⟧\n", params=""))
    assert a.reference_distance is None
    assert "function" in a.labels and "global_variable" in a.labels


def test_python_self_is_no_reference() -> None:
    assert py("class C:\n    def m(self):\n\n\n        ⟦return self.x⟧\n").reference_distance is None


def test_python_reference_distance_ignores_bindings_in_the_hole() -> None:
    assert py("def f():\n    ⟦x = 1\n    return x⟧\n").reference_distance is None


# -- Java labels ------------------------------------------------------------------------------

JAVA_CASES = [
    # if_condition
    ("cond-inner", dict(body="        if (⟦s.isEmpty()⟧) { return; }\n"), "if_condition", True),
    ("cond-else-if", dict(body="        if (total > 0) { total--; } else if (⟦total < 0⟧) { total++; }\n"), "if_condition", True),
    ("cond-whole-if", dict(body="        ⟦if (total > 0) { total--; }⟧\n"), "if_condition", True),
    ("cond-while-no", dict(body="        while (⟦total > 0⟧) { total--; }\n"), "if_condition", False),
    ("cond-ternary-no", dict(body="        total = ⟦total > 0⟧ ? 1 : 2;\n"), "if_condition", False),
    # if_body
    ("ifbody-block", dict(body="        if (total > 0) {\n            ⟦total--;⟧\n        }\n"), "if_body", True),
    ("ifbody-unbraced", dict(body="        if (total > 0)\n            ⟦total--;⟧\n"), "if_body", True),
    ("ifbody-else", dict(body="        if (total > 0) {\n            total--;\n        } else {\n            ⟦total++;⟧\n        }\n"), "if_body", True),
    ("ifbody-condition-no", dict(body="        if (⟦total > 0⟧) { total--; }\n"), "if_body", False),
    ("ifbody-case-no", dict(body="        switch (total) {\n            case 1:\n                ⟦total++;⟧\n                break;\n        }\n"), "if_body", False),
    # loop_body
    ("loop-for", dict(body="        for (int i = 0; i < 3; i++) {\n            ⟦total += i;⟧\n        }\n"), "loop_body", True),
    ("loop-foreach", dict(body="        for (int v : data) {\n            ⟦total += v;⟧\n        }\n"), "loop_body", True),
    ("loop-while", dict(body="        while (total > 0) {\n            ⟦total--;⟧\n        }\n"), "loop_body", True),
    ("loop-do", dict(body="        do {\n            ⟦total--;⟧\n        } while (total > 0);\n"), "loop_body", True),
    ("loop-whole-loop", dict(body="        ⟦for (int v : data) total += v;⟧\n"), "loop_body", True),
    ("loop-case-no", dict(body="        switch (total) {\n            case 1:\n                ⟦total++;⟧\n                break;\n        }\n"), "loop_body", False),
    # local_variable
    ("local-param", dict(body="        ⟦total = data.length;⟧\n"), "local_variable", True),
    ("local-declared", dict(body="        int k = 2;\n        ⟦total = k;⟧\n"), "local_variable", True),
    ("local-loop-var", dict(body="        for (int i = 0; i < 3; i++) {\n            ⟦total += i;⟧\n        }\n"), "local_variable", True),
    ("local-catch", dict(body="        try { total = 1; } catch (RuntimeException e) {\n            ⟦e.printStackTrace();⟧\n        }\n"), "local_variable", True),
    ("local-lambda-param", dict(body="        Runnable r = () -> {};\n        java.util.function.IntUnaryOperator op = v -> ⟦v + 1⟧;\n"), "local_variable", True),
    ("local-pattern", dict(body="        Object o = node;\n        if (o instanceof Node m) {\n            ⟦total = m.count;⟧\n        }\n"), "local_variable", True),
    ("local-hole-bound-no", dict(body="        ⟦int k = 2;\n        total = k;⟧\n"), "local_variable", False),
    ("local-field-no", dict(body="        ⟦total = 1;⟧\n"), "local_variable", False),
    ("local-sibling-scope-no", dict(body="        for (int i = 0; i < 2; i++) { total += i; }\n        ⟦for (int i = 0; i < 2; i++) { total -= i; }⟧\n"), "local_variable", False),
    # global_variable
    ("global-this-field", dict(body="        ⟦this.total = 1;⟧\n"), "global_variable", True),
    ("global-bare-field", dict(body="        ⟦total = 1;⟧\n"), "global_variable", True),
    ("global-static-other-class", dict(body="        ⟦total = Node.MAX;⟧\n"), "global_variable", True),
    ("global-object-field", dict(body="        int k = 0;\n        ⟦k = node.count;⟧\n"), "global_variable", True),
    ("global-enum-constant", dict(body="        Color c = null;\n        ⟦c = Color.RED;⟧\n"), "global_variable", True),
    ("global-enum-case", dict(body="        Color c = null;\n        switch (c) {\n            case ⟦RED⟧:\n                break;\n        }\n"), "global_variable", True),
    ("global-shadowed-by-local-no", dict(body="        int total = 0;\n        ⟦total = 2;⟧\n"), "global_variable", False),
    ("global-array-length-no", dict(body="        int k = 0;\n        ⟦k = data.length;⟧\n"), "global_variable", False),
    # function
    ("function-bare", dict(body="        ⟦helper(1);⟧\n"), "function", True),
    ("function-on-repo-object", dict(body="        ⟦node.size();⟧\n"), "function", True),
    ("function-on-this", dict(body="        ⟦this.helper(2);⟧\n"), "function", True),
    ("function-new-no", dict(body="        ⟦node = new Node();⟧\n"), "function", False),
    ("function-library-receiver-no", dict(body="        ⟦s = sb.toString();⟧\n"), "function", False),
    ("function-string-method-no", dict(body="        ⟦total = s.length();⟧\n"), "function", False),
    ("function-super-repo-method", dict(body="        ⟦total = super.size();⟧\n", extends="extends Node "), "function", True),
    ("function-super-object-method-no", dict(body="        ⟦s = super.toString();⟧\n"), "function", False),
    ("function-super-constructor-no", dict(body="", members="    Case() {\n        ⟦super();⟧\n    }\n"), "function", False),
    # class
    ("class-new", dict(body="        ⟦node = new Node();⟧\n"), "class", True),
    ("class-declared-type", dict(body="        ⟦Node other = null;⟧\n"), "class", True),
    ("class-cast", dict(body="        Object o = null;\n        ⟦node = (Node) o;⟧\n"), "class", True),
    ("class-instanceof", dict(body="        Object o = null;\n        ⟦total = o instanceof Node ? 1 : 0;⟧\n"), "class", True),
    ("class-generic-argument", dict(body="        ⟦List<Node> xs = null;⟧\n", imports="import java.util.List;\n"), "class", True),
    ("class-static-access", dict(body="        ⟦total = Node.MAX;⟧\n"), "class", True),
    ("class-own-name", dict(body="        ⟦Case c = this;⟧\n"), "class", True),
    ("class-this-no", dict(body="        ⟦Object o = this;⟧\n"), "class", False),
    # library
    ("library-imported-type", dict(body="        ⟦List<Node> xs = null;⟧\n", imports="import java.util.List;\n"), "library", True),
    ("library-wildcard-import", dict(body="        ⟦Map<String, Node> m = null;⟧\n", imports="import java.util.*;\n"), "library", True),
    ("library-new-imported", dict(body="        ⟦Object o = new ArrayList<Node>();⟧\n", imports="import java.util.ArrayList;\n"), "library", True),
    ("library-math-static", dict(body="        ⟦total = Math.max(total, 1);⟧\n"), "library", True),
    ("library-static-field", dict(body="        ⟦total = Integer.MAX_VALUE;⟧\n"), "library", True),
    ("library-new-java-lang", dict(body="        ⟦Object o = new StringBuilder();⟧\n"), "library", True),
    ("library-string-format", dict(body="        ⟦s = String.format(\"%d\", total);⟧\n"), "library", True),
    ("library-exception", dict(body="        ⟦throw new IllegalArgumentException(s);⟧\n"), "library", True),
    ("library-fully-qualified", dict(body="        ⟦total = java.util.Objects.hash(s);⟧\n"), "library", True),
    ("library-static-import", dict(body="        ⟦total = max(total, 1);⟧\n", imports="import static java.lang.Math.max;\n"), "library", True),
    ("library-string-declared-no", dict(body="        ⟦String t = s;⟧\n"), "library", False),
    ("library-method-on-value-no", dict(body="        ⟦total = s.length();⟧\n"), "library", False),
    ("library-repo-import-no", dict(body="        ⟦node = new Node();⟧\n", imports="import org.geo.Node;\n"), "library", False),
]


@pytest.mark.parametrize(("kwargs", "label", "expected"), [c[1:] for c in JAVA_CASES], ids=[c[0] for c in JAVA_CASES])
def test_java_label(kwargs: dict[str, str], label: str, expected: bool) -> None:
    assert (label in java(**kwargs).labels) is expected


def test_java_shadowing_local_is_local_not_field() -> None:
    a = java("        int total = 0;\n        ⟦total = 2;⟧\n")
    assert a.labels == ("local_variable",)
    assert a.reference_distance == 1


def test_java_this_field_beside_shadowing_parameter() -> None:
    a = java("", members="    Case(int total) {\n        ⟦this.total = total;⟧\n    }\n")
    assert {"global_variable", "local_variable"} <= set(a.labels)


# -- Java distances ---------------------------------------------------------------------------


def test_java_block_comment_on_the_first_line_gives_zero() -> None:
    assert java("        /* before */ ⟦total = 1;⟧\n").comment_distance == 0


def test_java_javadoc_counts_as_comment() -> None:
    a = java("", members="    /** Doc. */\n    void g() {\n        ⟦total = 1;⟧\n    }\n")
    assert a.comment_distance == 2


def test_java_no_comment_above() -> None:
    assert java("        ⟦total = 1;⟧\n").comment_distance is None


def test_java_reference_distance_field_and_method() -> None:
    # field `total` on line 5, helper() on line 8, hole on line 11
    a = java("        ⟦helper(total);⟧\n")
    assert a.reference_distance == 6


def test_java_reference_distance_picks_the_overload_by_arity() -> None:
    # helper(int, int) on line 8, helper(int) on line 9, hole on line 12
    a = java("        ⟦total = helper(1, 2);⟧\n", members="    int helper(int x, int y) { return x; }\n")
    assert a.reference_distance == 7  # `total` on line 5 is still the farthest
    b = java("        int k = 0;\n        ⟦k = helper(1, 2);⟧\n", members="    int helper(int x, int y) { return x; }\n")
    assert b.reference_distance == 5  # line 13 - line 8


def test_java_reference_distance_none_for_other_files() -> None:
    a = java("        ⟦Object o = new StringBuilder(Node.MAX);⟧\n")
    assert a.reference_distance is None


# -- index ------------------------------------------------------------------------------------


def test_python_module_names() -> None:
    assert module_name("lpsolve/simplex.py") == ("lpsolve.simplex", "lpsolve")
    assert module_name("lpsolve/__init__.py") == ("lpsolve", "lpsolve")
    assert module_name("src/pkg/x.py") == ("pkg.x", "pkg")


def test_python_index_contents() -> None:
    parsed = {p: (t.encode(), PARSERS["python"].parse(t.encode()).root_node) for p, t in PY_REPO.items()}
    index = RepoIndex.build("python", parsed)
    assert {"clamp", "area"} <= index.functions
    assert index.classes == {"Box"}
    assert index.variables["geo.const"] == {"TOLERANCE"}
    assert {"geo", "geo.const"} <= index.modules


def test_java_index_contents() -> None:
    parsed = {p: (t.encode(), PARSERS["java"].parse(t.encode()).root_node) for p, t in JAVA_REPO.items()}
    index = RepoIndex.build("java", parsed)
    assert {"size", "toString"} <= index.functions
    assert index.classes == {"Node", "Color"}
    assert {"MAX", "count", "next"} <= index.fields
    assert index.enum_constants == {"RED", "GREEN"}
    assert index.modules == {"org.geo"}


def test_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="cobol"):
        RepoIndex.build("cobol", {})


def test_hole_outside_the_file_is_refused() -> None:
    source = b"x = 1\n"
    root = PARSERS["python"].parse(source).root_node
    with pytest.raises(ValueError, match="not inside"):
        annotate(RepoIndex.build("python", {}), "m.py", source, root, 3, 99)


def test_changed_file_is_rescanned() -> None:
    index = RepoIndex.build("python", {})
    for text in ("X = 1\n\ndef f():\n    return X\n", "Y = 1\n\ndef f():\n    return X\n"):
        source = text.encode()
        root = PARSERS["python"].parse(source).root_node
        a = annotate(index, "m.py", source, root, source.index(b"return"), len(source) - 1)
    assert "global_variable" not in a.labels


# -- the bundled scenarios --------------------------------------------------------------------


def _bundled_python_tasks() -> list[dict]:
    rows = []
    for path in sorted((project_root() / "scenarios").glob("*.jsonl")):
        rows += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if r["language"] == "python"]


def test_every_bundled_python_task_is_annotated() -> None:
    tasks = _bundled_python_tasks()
    assert tasks
    indexes: dict[str, tuple[RepoIndex, dict[str, tuple[bytes, object]]]] = {}
    for name in sorted({t["repo"] for t in tasks}):
        manifest = open_repository(project_root() / "repos" / name)
        files = {}
        for path in manifest.source_files():
            source = (Path(manifest.root) / path).read_bytes()
            files[path] = (source, PARSERS["python"].parse(source).root_node)
        indexes[name] = (RepoIndex.build("python", files), files)
    for task in tasks:
        index, files = indexes[task["repo"]]
        source, root = files[task["path"]]
        a = annotate(index, task["path"], source, root, task["span"]["start_byte"], task["span"]["end_byte"])
        assert set(a.labels) <= set(LABELS) and list(a.labels) == sorted(a.labels), task["id"]
        assert a.comment_distance is None or a.comment_distance >= 0, task["id"]
        assert a.reference_distance is None or a.reference_distance >= 0, task["id"]
        construct = task["construct"]
        if construct == "if_condition":
            assert "if_condition" in a.labels and "if_body" not in a.labels, task["id"]
        if construct in ("if_body", "else_body"):
            assert "if_body" in a.labels, task["id"]
        if construct == "loop_body":
            assert "loop_body" in a.labels, task["id"]
