"""SimCopilot's Java convention: a completion hole runs to the ``}`` that closes the cursor's block
(and, at a class's last method, the class's ``}`` too). Such holes, read from a checkpoint file,
become tasks whose ground truth closes the block; the context says so (``closes_block``), and
every preset returns those ground truths unchanged, with the code after the hole shown and
without it, while a model's answer that runs on past the closers is still cut.

The program is hand-made (``tests/data/simcopilot_java``), laid out as SimCopilot lays out its
Java testers.
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from postprocess import PRESETS, HoleContext, run_preset
from postprocess.bracketview import closes_cursor_block, past_the_blocks, view
from postprocess.syntax import parse
from replay.config.manifest import open_repository
from replay.core.records import Kind, Task
from replay.importers.lines import tasks_from_lines
from replay.importers.simcopilot import parse_checkpoints, read_checkpoints
from tests.conftest import DATA

from .holes import PROPERTY_SETTINGS, bundled_sources, one_per_repository

PROGRAM = DATA / "simcopilot_java"
CHECKPOINTS = PROGRAM / "Java_tasks_checkpoints.json"
SOURCE = PROGRAM / "course" / "A1" / "Test" / "ShelfTester.java"


def imported() -> list[Task]:
    manifest = open_repository(PROGRAM)
    result = tasks_from_lines(manifest, read_checkpoints(CHECKPOINTS, manifest))
    assert result.rejected == []
    return result.tasks


def context(task: Task, suffix_shown: bool) -> HoleContext:
    """The task's context as the editor shows it, with or without the code after the hole, and
    whether its hole closes the cursor's block."""
    original = SOURCE.read_bytes()
    prefix = original[: task.span.start_byte].decode("utf-8")
    suffix = original[task.span.end_byte :].decode("utf-8") if suffix_shown else ""
    return HoleContext("java", prefix, suffix, closes_block=closes_cursor_block("java", prefix, task.ground_truth))


def test_completion_holes_that_close_their_block_become_tasks() -> None:
    tasks = {t.id: t for t in imported()}
    truths = {i: t.ground_truth for i, t in tasks.items()}
    assert truths["ShelfTester:completion:1"] == "return false;\n    }"  # an if's block
    assert truths["ShelfTester:completion:5"] == "count += by;\n  }\n}"  # a braceless body, its method, its class
    assert truths["ShelfTester:completion:3"].endswith("} else {\n        most = Math.max (most, 0);\n      }\n    }")
    assert truths["ShelfTester:completion:7"] == "titles.add (title);\n    pages.add (numPages);"  # within its block
    assert truths["ShelfTester:infill:1"] == "pages.add (numPages);\n    return true;\n  }"
    assert {i: t.construct for i, t in tasks.items() if t.kind is Kind.COMPLETION} == {
        "ShelfTester:completion:1": "block_rest",
        "ShelfTester:completion:2": "block_rest",
        "ShelfTester:completion:3": "block_rest",
        "ShelfTester:completion:4": "block_rest",
        "ShelfTester:completion:5": "block_rest",
        "ShelfTester:completion:6": "method_rest",
        "ShelfTester:completion:7": "method_rest",
    }
    closing = {i for i, t in tasks.items() if context(t, False).closes_block}
    assert closing == set(tasks) - {"ShelfTester:completion:7", "ShelfTester:infill:2"}


def test_the_same_lines_without_simcopilots_convention_are_part_of_a_block() -> None:
    """simpilot's own hole lists keep simpilot's convention: a completion ends within its block."""
    manifest = open_repository(PROGRAM)
    holes = [replace(h, closes_block=False) for h in read_checkpoints(CHECKPOINTS, manifest)]
    result = tasks_from_lines(manifest, holes)
    rejected = {h.id: why for h, why in result.rejected}
    assert rejected["ShelfTester:completion:1"].startswith("lines 13-14 are part of a block, not whole statements of one block")
    assert "ShelfTester:completion:7" not in rejected


def test_a_hole_that_goes_on_after_closing_its_block_is_rejected_with_the_reason() -> None:
    """From a statement to the end of the method, through the end of the loop's block: the code
    after the loop is what a preset takes for an answer running on."""
    manifest = open_repository(PROGRAM)
    text = json.dumps([{"Task_Name": "ShelfTester", "checkpoint_LN_Completion": [[24, 27], [38, 42]]}])
    result = tasks_from_lines(manifest, parse_checkpoints(text, "c.json", PROGRAM, manifest.extensions))
    assert result.tasks == []
    assert [why for _, why in result.rejected] == [
        "line 26 goes on after the block around line 24 is closed: a hole that closes its block ends with the closers",
        "line 41 goes on after the block around line 38 is closed: a hole that closes its block ends with the closers",
    ]


@pytest.mark.parametrize("suffix_shown", [True, False], ids=["with suffix", "without suffix"])
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_returns_the_ground_truths_unchanged(preset: str, suffix_shown: bool) -> None:
    altered = {}
    for task in imported():
        ctx = context(task, suffix_shown)
        for raw in (task.ground_truth, f"Here is the code:\n```java\n{task.ground_truth}\n```"):
            got = run_preset(preset, raw, ctx).text
            if got != task.ground_truth:
                altered[task.id] = got
    assert altered == {}


def test_without_the_convention_the_closer_is_cut_as_a_run_on() -> None:
    """The context's flag is what keeps the ``}``: without it, a completion ends within its block."""
    task = next(t for t in imported() if t.id == "ShelfTester:completion:1")
    ctx = replace(context(task, False), closes_block=False)
    assert run_preset("simcopilot", task.ground_truth, ctx).text == "return false;"


@pytest.mark.parametrize("preset", ["simcopilot", "syntax", "ide"])
def test_an_answer_that_runs_on_past_the_closers_is_cut_after_them(preset: str) -> None:
    tasks = {t.id: t for t in imported()}
    for task_id, run_on in [
        ("ShelfTester:completion:1", "\n\n    titles.add (title);\n    pages.add (numPages);"),
        ("ShelfTester:completion:5", "\n\nclass Other {\n}"),
        ("ShelfTester:completion:6", "\n\n  public static int more () {\n    return 1;\n  }"),
    ]:
        task = tasks[task_id]
        ctx = context(task, False)
        assert run_preset(preset, task.ground_truth + run_on, ctx).text == task.ground_truth, task_id


def test_past_the_blocks_reads_else_and_catch_as_the_statement_going_on() -> None:
    prefix = "class A {\n  void f(int x) {\n    if (x > 0) {\n      "
    for truth, past in [
        ("g();\n    } else {\n      h();\n    }\n  }", None),
        ("g();\n    }\n    else {\n      h();\n    }\n  }", None),
        ("g();\n    }\n  }\n\n  void next() {\n  }", len("g();\n    }\n  }\n\n")),
        ("g();\n    }\n    h();\n  }", len("g();\n    }\n")),
        ("g();", None),
    ]:
        assert past_the_blocks(truth, view(prefix, truth, None)) == past, truth


# --- SimCopilot-shaped holes in every bundled Java file ------------------------------------------

_BRACED = frozenset({"block", "constructor_body", "class_body", "interface_body", "enum_body", "switch_block"})
_STATEMENT_HOLDERS = frozenset({"block", "constructor_body", "class_body"})


@cache
def closing_holes(text: str) -> list[tuple[int, int]]:
    """Every hole SimCopilot's convention allows in ``text``: from a statement (or member) that
    starts its line to the end of a braced block around it, that holds after its first closer only
    more closers (or an ``else``/``catch``)."""
    data = text.encode("utf-8")
    tree = parse(data, "java")
    found = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        parent = node.parent
        if parent is None or parent.type not in _STATEMENT_HOLDERS or not node.is_named or "comment" in node.type:
            continue
        start = node.start_byte
        if data[data.rfind(b"\n", 0, start) + 1 : start].strip():
            continue  # not at the start of its line
        block = parent
        while block is not None:
            if block.type in _BRACED and block.end_byte > node.end_byte:
                a, b = len(data[:start].decode("utf-8")), len(data[: block.end_byte].decode("utf-8"))
                if past_the_blocks(text[a:b], view(text[:a], text[a:b], None)) is None:
                    found.append((a, b))
            block = block.parent
    return sorted(set(found))


ALL_JAVA = tuple(s for s in bundled_sources() if s[1] == "java")
JAVA_SOURCES = one_per_repository(ALL_JAVA)  # the default run's share: one file per repository


@pytest.mark.parametrize("source", JAVA_SOURCES, ids=[s[0] for s in JAVA_SOURCES])
@settings(max_examples=40, **PROPERTY_SETTINGS)
@given(data=st.data())
def test_every_preset_returns_a_simcopilot_shaped_hole_unchanged(source: tuple[str, str, str], data: st.DataObject) -> None:
    _check(source, data)


@pytest.mark.slow
@pytest.mark.parametrize("source", ALL_JAVA, ids=[s[0] for s in ALL_JAVA])
@settings(max_examples=150, **PROPERTY_SETTINGS)
@given(data=st.data())
def test_every_preset_returns_a_simcopilot_shaped_hole_of_every_bundled_java_file_unchanged(
    source: tuple[str, str, str], data: st.DataObject
) -> None:
    _check(source, data)


def _check(source: tuple[str, str, str], data: st.DataObject) -> None:
    where, language, text = source
    holes = closing_holes(text)
    a, b = data.draw(st.sampled_from(holes))
    prefix, truth = text[:a], text[a:b]
    assert closes_cursor_block(language, prefix, truth)
    for suffix in (text[b:], ""):
        found = []
        for preset in sorted(PRESETS):
            ctx = HoleContext(language, prefix, suffix, closes_block=True)
            for raw in (truth, f"Here is the code:\n```java\n{truth}\n```"):
                got = run_preset(preset, raw, ctx).text
                if got != truth:
                    found.append((preset, got))
        assert found == [], f"{where} [{a}:{b}] {'with' if suffix else 'without'} suffix"
