"""Holes given as line ranges (``simpilot import lines``): the tasks are the ones marking makes of
the same lines (span, ground truth, construct, labels, distances, id), and a range that cannot be
a hole is rejected with its reason."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from replay.config.manifest import open_repository, project_root
from replay.core.errors import SimpilotError
from replay.core.records import Kind, Task
from replay.core.scenarios import read_tasks
from replay.importers.lines import GENERIC, LineHole, parse_holes, tasks_from_lines
from replay.marking import parse_repository
from replay.marking.languages import LANGUAGES

REPOS = project_root() / "repos"
SCENARIOS = project_root() / "scenarios"


def as_hole(task: Task, **extra) -> LineHole:
    return LineHole(task.path, task.kind, task.span.start.line + 1, task.span.end.line + 1, **extra)


def unvalidated(task: Task) -> Task:
    return replace(task, tests=None, validation=None)


@pytest.mark.parametrize("name", ["minisql", "btreemap"])
def test_marked_tasks_come_back_from_their_lines(name: str) -> None:
    """Every validated task of a bundled repository, given by its lines and kind, is the same
    candidate task: span, ground truth, construct, block, labels, distances and id."""
    manifest = open_repository(REPOS / name)
    marked = read_tasks(SCENARIOS / f"{name}.jsonl")
    result = tasks_from_lines(manifest, [as_hole(t) for t in marked])
    assert result.rejected == []
    assert result.tasks == [unvalidated(t) for t in marked]
    assert {t.construct for t in result.tasks} >= {"if_condition", "if_body", "statements", "block_rest"}


@pytest.mark.parametrize("name", ["minisql", "btreemap"])
def test_every_candidate_comes_back_from_its_lines(name: str) -> None:
    """Not only the chosen holes: every candidate the marker finds (trivial ones are not
    candidates) has the same span, construct and block flag when given by its lines."""
    manifest = open_repository(REPOS / name)
    parsed = parse_repository(manifest)
    marker = LANGUAGES[manifest.language].marker()
    checked = 0
    for path, root in parsed.trees.items():
        source = parsed.files[path][0]
        candidates = marker.candidates(root)
        holes = [
            LineHole(path, c.kind, source.count(b"\n", 0, c.start_byte) + 1, source.count(b"\n", 0, c.end_byte) + 1, id=f"{path}#{k}")
            for k, c in enumerate(candidates)
        ]
        result = tasks_from_lines(manifest, holes, parsed)
        assert result.rejected == []
        for cand, task in zip(candidates, result.tasks, strict=True):
            assert (task.span.start_byte, task.span.end_byte, task.construct, task.block) == (
                cand.start_byte,
                cand.end_byte,
                cand.construct,
                cand.block,
            )
            checked += 1
    assert checked > 1000


def test_java_span_is_whole_lines(tmp_path: Path) -> None:
    """Java: from the first line's first non-blank character to the end of the last line's code;
    the braces of the block stay outside."""
    manifest = open_repository(REPOS / "btreemap")
    marked = [t for t in read_tasks(SCENARIOS / "btreemap.jsonl") if t.block]
    task = tasks_from_lines(manifest, [as_hole(marked[0])]).tasks[0]
    lines = (manifest.root / task.path).read_text().splitlines()
    first, last = lines[task.span.start.line], lines[task.span.end.line]
    assert task.span.start.character == len(first) - len(first.lstrip())
    assert task.span.end.character == len(last.rstrip())
    assert task.ground_truth == "\n".join(lines[task.span.start.line : task.span.end.line + 1]).strip()


def test_given_id_replaces_the_generated_one() -> None:
    manifest = open_repository(REPOS / "minisql")
    marked = read_tasks(SCENARIOS / "minisql.jsonl")[0]
    result = tasks_from_lines(manifest, [as_hole(marked, id="mine-1")])
    assert result.tasks == [replace(unvalidated(marked), id="mine-1")]


SOURCE = '''"""A module for the tests of import lines."""


def f(values):
    text = """first
second"""
    total = sum(
        values,
    )
    # a comment
    if total > len(text):
        return total  # a trailing comment

    return 0
'''


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of minisql with a file of awkward lines and a file that is not UTF-8."""
    root = tmp_path_factory.mktemp("lines") / "minisql"
    shutil.copytree(REPOS / "minisql", root, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    (root / "minisql" / "awkward.py").write_text(SOURCE)
    (root / "minisql" / "latin.py").write_bytes("NAME = 'café'\n".encode("latin-1"))
    return root


def one(repo: Path, kind: str, first: int, last: int, file: str = "minisql/awkward.py") -> Task | str:
    result = tasks_from_lines(open_repository(repo), [LineHole(file, Kind(kind), first, last)])
    return result.tasks[0] if result.tasks else result.rejected[0][1]


@pytest.mark.parametrize(
    ("kind", "first", "last", "file", "reason"),
    [
        ("infill", 14, 16, "minisql/awkward.py", "the file has 14 lines: line 16 is out of it"),
        ("infill", 20, 21, "minisql/awkward.py", "the file has 14 lines: lines 20-21 are out of it"),
        ("infill", 1, 1, "minisql/latin.py", "minisql/latin.py cannot hold a hole: not UTF-8"),
        ("infill", 1, 3, "tests/test_queries.py", "tests/test_queries.py is a test file"),
        ("infill", 1, 1, "minisql/missing.py", "minisql/missing.py does not exist"),
        ("infill", 1, 1, "README.md", "README.md is not a python source file of minisql"),
        ("infill", 1, 1, "../minisql/engine.py", "is not a path inside the repository"),
        ("infill", 6, 6, "minisql/awkward.py", "line 6 starts inside a string"),
        ("infill", 7, 7, "minisql/awkward.py", "line 7 ends inside a call that goes on to line 9"),
        ("infill", 5, 5, "minisql/awkward.py", "line 5 ends inside"),
        ("infill", 10, 12, "minisql/awkward.py", "line 10 holds only a comment"),
        ("infill", 13, 14, "minisql/awkward.py", "line 13 is blank"),
        ("infill", 12, 13, "minisql/awkward.py", "line 13 is blank"),
        ("completion", 11, 11, "minisql/awkward.py", "are part of the header of an if statement"),
        ("infill", 4, 4, "minisql/awkward.py", "are part of the header of a function definition"),
    ],
)
def test_bad_ranges_are_rejected_with_their_reason(repo: Path, kind: str, first: int, last: int, file: str, reason: str) -> None:
    why = one(repo, kind, first, last, file)
    assert isinstance(why, str) and reason in why, why


def test_condition_line_is_the_condition(repo: Path) -> None:
    task = one(repo, "infill", 11, 11)
    assert isinstance(task, Task)
    assert (task.construct, task.block, task.ground_truth) == ("if_condition", False, "total > len(text)")


def test_trivial_lines_get_the_construct_around_them(repo: Path) -> None:
    """`return total` is too small for the marker, but lines name it: the innermost construct
    around it names the task; a comment after the code stays outside."""
    task = one(repo, "infill", 12, 12)
    assert isinstance(task, Task)
    assert (task.construct, task.block, task.ground_truth) == ("if_body", True, "return total")
    assert "if_body" in task.labels
    rest = one(repo, "completion", 12, 12)
    assert isinstance(rest, Task) and rest.construct == "block_rest"
    branch = one(repo, "infill", 11, 12)  # tree-sitter counts the comment at the end of the if's block in the if
    assert isinstance(branch, Task) and branch.construct == "statements" and branch.ground_truth.endswith("# a trailing comment")
    whole = one(repo, "completion", 5, 14)
    assert isinstance(whole, Task) and whole.construct == "function_rest" and whole.ground_truth.endswith("return 0")


def test_module_level_lines_are_generic(repo: Path) -> None:
    task = one(repo, "infill", 1, 1)
    assert isinstance(task, Task)
    assert (task.construct, task.ground_truth) == (GENERIC, '"""A module for the tests of import lines."""')


def test_duplicates_are_rejected(repo: Path) -> None:
    manifest = open_repository(repo)
    holes = [
        LineHole("minisql/awkward.py", Kind.INFILL, 12, 12, where="h:1"),
        LineHole("minisql/awkward.py", Kind.INFILL, 12, 12, where="h:2"),
        LineHole("minisql/awkward.py", Kind.INFILL, 11, 11, id="x", where="h:3"),
        LineHole("minisql/awkward.py", Kind.COMPLETION, 12, 12, id="x", where="h:4"),
    ]
    result = tasks_from_lines(manifest, holes)
    assert len(result.tasks) == 2
    assert [(h.where, why) for h, why in result.rejected] == [
        ("h:2", "the same hole as h:1"),
        ("h:4", "id 'x' is already the id of h:3"),
    ]


def test_reading_a_json_list_and_jsonl() -> None:
    items = [{"file": "a.py", "kind": "infill", "first_line": 2, "last_line": 3, "id": "t1"}, {"file": "b.py", "kind": "completion", "first_line": 5, "last_line": 5}]
    from_list = parse_holes(json.dumps(items), "holes.json")
    from_lines = parse_holes("\n".join(json.dumps(i) for i in items) + "\n\n", "holes.jsonl")
    assert [(h.file, h.kind, h.first_line, h.last_line, h.id) for h in from_list] == [
        ("a.py", Kind.INFILL, 2, 3, "t1"),
        ("b.py", Kind.COMPLETION, 5, 5, None),
    ]
    assert [replace(h, where="") for h in from_lines] == [replace(h, where="") for h in from_list]
    assert [h.where for h in from_list] == ["holes.json entry 1", "holes.json entry 2"]
    assert [h.where for h in from_lines] == ["holes.jsonl:1", "holes.jsonl:2"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"file": "a.py", "kind": "infill", "first_line": 2}', "holes:1: field 'last_line' is missing"),
        ('{"file": "a.py", "kind": "fill", "first_line": 2, "last_line": 2}', "holes:1: field 'kind' is 'fill'"),
        ('{"file": "a.py", "kind": "infill", "first_line": 3, "last_line": 2}', "lines 3-2 are no range"),
        ('{"file": "a.py", "kind": "infill", "first_line": 0, "last_line": 2}', "lines 0-2 are no range"),
        ('{"file": "a.py", "kind": "infill", "first_line": "2", "last_line": 2}', "field 'first_line' is a string"),
        ('{"file": "a.py", "kind": "infill", "first_line": 2, "last_line": 2, "lines": 1}', "unknown field 'lines'"),
        ('{"file": "a.py", "kind": "infill", "first_line": 2, "last_line": 2, "id": 7}', "field 'id' is an integer"),
        ("not json", "holes:1: not JSON"),
        ('[{"file": "a.py"', "holes: not a JSON list"),
        ("[1]", "holes entry 1: is an integer, expected an object"),
    ],
)
def test_malformed_hole_files_are_errors(text: str, message: str) -> None:
    with pytest.raises(SimpilotError, match=None) as caught:
        parse_holes(text, "holes")
    assert message in str(caught.value)
