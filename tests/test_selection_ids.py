"""Selected test ids are matched exactly, in both languages: the tests a hole selects
(``selection.py``), the tests a run then runs (``pytest_select.py``; the JUnit runner selects
classes and methods by name), and the results that prove them (``proof.shortfall``). A selected
``FooTest`` is not proven by ``FooTestHelper``, nor ``test_a`` by ``test_ab``."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from replay.core.records import Kind, Position, Span, Task
from replay.execution.inside import pytest_select
from replay.execution.proof.check import Proof, shortfall
from replay.validation.selection import Selection, java_selection


def java_proof(outcomes: dict[str, str]) -> Proof:
    """A finished JUnit run: ids ``Class#method(Types)``, each test's class from its id."""
    return Proof(outcomes, {test: test.split("#", 1)[0] for test in outcomes}, started=True, finished=True)


def test_a_java_class_is_not_proven_by_a_class_its_name_starts() -> None:
    proof = java_proof({"pkg.FooTestHelper#adds()": "passed", "pkg.BarTest#adds()": "passed"})
    gap = shortfall(proof, ["pkg.FooTest"])
    assert gap is not None and gap.kind == "not_run" and gap.detail.endswith(": pkg.FooTest")
    assert shortfall(proof, ["pkg.FooTestHelper", "pkg.BarTest"]) is None


def test_a_java_class_stands_for_its_nested_classes_only() -> None:
    """JUnit ``@Nested`` classes (``Outer$Inner``) are their outer class's tests; ``OuterX`` is not."""
    proof = java_proof({"pkg.Outer$Inner#adds()": "passed", "pkg.Outer$Inner$Deeper#adds()": "passed"})
    assert shortfall(proof, ["pkg.Outer"]) is None
    gap = shortfall(java_proof({"pkg.OuterX$Inner#adds()": "passed"}), ["pkg.Outer"])
    assert gap is not None and gap.kind == "not_run" and gap.detail.endswith(": pkg.Outer")


@pytest.mark.parametrize(
    ("selected", "reported"),
    [
        ("t.py::test_a", "t.py::test_ab"),  # a function whose name starts with the selected one's
        ("t.py::test_p[1]", "t.py::test_p[10]"),  # a parametrized case whose id starts with the selected one's
        ("t.py::TestC::test_m", "t.py::TestC::test_m2"),  # a method of the same class
        ("t.py::TestC", "t.py::TestC::test_m"),  # a class is not a pytest selection: ids name tests
    ],
)
def test_a_pytest_id_is_proven_only_by_its_own_result(selected: str, reported: str) -> None:
    proof = Proof({reported: "passed"}, started=True, finished=True)
    gap = shortfall(proof, [selected])
    assert gap is not None and gap.kind == "not_run" and gap.detail.endswith(": " + selected)
    assert shortfall(proof, [reported]) is None


COLLECTED = [
    "t.py::test_a",
    "t.py::test_ab",
    "t.py::test_p[1]",
    "t.py::test_p[10]",
    "t.py::test_p[2]",
    "t.py::TestC::test_m",
    "t.py::TestC::test_m2",
    "u.py::test_a",
]


class _Hook:
    def __init__(self) -> None:
        self.deselected: list[str] = []

    def pytest_deselected(self, items: list[SimpleNamespace]) -> None:
        self.deselected += [item.nodeid for item in items]


@pytest.mark.parametrize(
    "wanted",
    [
        ["t.py::test_a"],
        ["t.py::test_p[1]"],
        ["t.py::TestC::test_m"],
        ["t.py::test_a", "t.py::test_p[1]", "t.py::TestC::test_m"],
    ],
)
def test_the_pytest_plugin_runs_exactly_the_selected_node_ids(wanted: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pytest_select.ENV, "\n".join(wanted))
    items = [SimpleNamespace(nodeid=nodeid) for nodeid in COLLECTED]
    config = SimpleNamespace(hook=_Hook())
    pytest_select.pytest_collection_modifyitems(config, items)
    assert [item.nodeid for item in items] == [nodeid for nodeid in COLLECTED if nodeid in wanted]
    assert config.hook.deselected == [nodeid for nodeid in COLLECTED if nodeid not in wanted]


def _task(first: int, last: int) -> Task:
    """A hole over 1-based lines ``first`` to ``last`` of ``a.py``."""
    span = Span(0, 1, Position(first - 1, 0), Position(last - 1, 3))
    return Task("t", "repo", "python", "a.py", Kind.INFILL, "statements", True, span, "", "x", "", 1)


def test_a_python_hole_selects_the_tests_that_executed_any_of_its_lines() -> None:
    selection = Selection(
        "python",
        lines={"a.py": {2: frozenset({"t.py::test_a"}), 3: frozenset({"t.py::test_b"}), 4: frozenset({"t.py::test_c"})}},
    )
    assert selection.tests_for(_task(3, 3)) == ("t.py::test_b",)  # a one-line hole: its line
    assert selection.tests_for(_task(2, 3)) == ("t.py::test_a", "t.py::test_b")  # its last line too
    assert selection.tests_for(_task(5, 6)) == ()  # lines no test executed


def test_java_candidates_are_the_test_classes_that_reach_the_hole_through_other_classes(tmp_path: Path) -> None:
    """A test of ``BTreeMap`` is a candidate for a hole in ``Node`` when ``BTreeMap`` uses ``Node``
    (through ``Tree``: the walk is transitive); a test of an unrelated class is not."""
    sources = {
        "src/main/java/pkg/Node.java": "package pkg;\nclass Node { int size() { return 1; } }\n",
        "src/main/java/pkg/Tree.java": "package pkg;\nclass Tree { Node root; }\n",
        "src/main/java/pkg/BTreeMap.java": "package pkg;\npublic class BTreeMap { Tree tree; }\n",
        "src/main/java/pkg/Other.java": "package pkg;\npublic class Other { }\n",
        "src/test/java/pkg/BTreeMapTest.java": "package pkg;\nclass BTreeMapTest { @Test void puts() { new BTreeMap(); } }\n",
        "src/test/java/pkg/OtherTest.java": "package pkg;\nclass OtherTest { @Test void makes() { new Other(); } }\n",
    }
    for path, text in sources.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    manifest = SimpleNamespace(root=tmp_path, sources=("src/main/java",), tests=("src/test/java",))
    node, other = "src/main/java/pkg/Node.java", "src/main/java/pkg/Other.java"
    selection = java_selection(manifest, [node, other])  # type: ignore[arg-type]
    assert selection.by_file == {node: ("pkg.BTreeMapTest",), other: ("pkg.OtherTest",)}


def test_a_java_method_is_proven_by_its_runs_not_by_a_method_its_name_starts() -> None:
    """``pkg.FooTest#adds`` stands for ``adds()`` and a parameterized test's invocations
    ``adds(int)[n]``, not for ``addsAll()``."""
    assert shortfall(java_proof({"pkg.FooTest#adds(int)[1]": "passed", "pkg.FooTest#adds(int)[2]": "passed"}), ["pkg.FooTest#adds"]) is None
    gap = shortfall(java_proof({"pkg.FooTest#addsAll()": "passed"}), ["pkg.FooTest#adds"])
    assert gap is not None and gap.kind == "not_run" and gap.detail.endswith(": pkg.FooTest#adds")
