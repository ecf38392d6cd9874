"""Marking: which holes are found, that the choice is deterministic, and what is skipped."""

from __future__ import annotations

from pathlib import Path

from replay.config.manifest import open_repository
from replay.core.records import Kind
from replay.marking import mark_repository
from replay.marking.python import PythonMarker, parser

SOURCE = b'''import math

LIMIT = 10


def scaled(values, factor):
    """Scale values, dropping those over LIMIT."""
    out = []
    for v in values:
        if v * factor > LIMIT and not math.isnan(v):
            continue
        out.append(round(v * factor, 3))
    return out


def accessor(self):
    return self._x


if __name__ == "__main__":
    for i in range(3):
        print(scaled([i, i + 1], 2.5))
'''


def holes(source: bytes) -> set[tuple[str, str, str]]:
    tree = parser().parse(source)
    return {
        (c.kind.value, c.construct, source[c.start_byte : c.end_byte].decode())
        for c in PythonMarker().candidates(tree.root_node)
    }


def test_constructs_found() -> None:
    found = holes(SOURCE)
    assert ("infill", "if_condition", "v * factor > LIMIT and not math.isnan(v)") in found
    assert ("infill", "loop_body", "if v * factor > LIMIT and not math.isnan(v):\n            continue\n        out.append(round(v * factor, 3))") in found
    assert ("completion", "function_rest", "out = []\n    for v in values:\n        if v * factor > LIMIT and not math.isnan(v):\n            continue\n        out.append(round(v * factor, 3))\n    return out") in found
    assert ("completion", "block_rest", "out.append(round(v * factor, 3))") in found
    assert ("infill", "statements", "out.append(round(v * factor, 3))\n    return out") not in found  # crosses blocks: not a run


def test_trivial_and_main_guard_skipped() -> None:
    texts = {text for _, _, text in holes(SOURCE)}
    assert "continue" not in texts  # a lone continue is trivial
    assert "return self._x" not in texts  # a one-line accessor
    assert not any("print(" in t for t in texts)  # code under the main guard is never marked
    assert not any(t.startswith('"""') for t in texts)  # docstrings stay


def test_holes_never_start_or_end_with_a_comment() -> None:
    src = b"def f(x):\n    # explain\n    y = g(x) + h(x)\n    # trailing note\n    return y * 2 + k(y)\n"
    for _, _, text in holes(src):
        assert not text.startswith("#") and not text.rstrip().endswith("note")


def test_same_seed_same_tasks_and_other_seed_differs(tiny_repo: Path) -> None:
    manifest = open_repository(tiny_repo)
    a = mark_repository(manifest, seed=1, per_kind=3)
    b = mark_repository(manifest, seed=1, per_kind=3)
    c = mark_repository(manifest, seed=2, per_kind=3)
    assert [t.to_dict() for t in a.tasks] == [t.to_dict() for t in b.tasks]
    assert {t.id for t in a.tasks} != {t.id for t in c.tasks}
    assert {t.kind for t in a.tasks} == {Kind.INFILL, Kind.COMPLETION}


def test_task_spans_and_positions(tiny_repo: Path) -> None:
    manifest = open_repository(tiny_repo)
    source = (tiny_repo / "tiny" / "stats.py").read_bytes()
    text = source.decode()
    for task in mark_repository(manifest, seed=0, per_kind=20).tasks:
        assert source[task.span.start_byte : task.span.end_byte].decode() == task.ground_truth
        line = text.split("\n")[task.span.start.line]
        assert line[: task.span.start.character].strip() == "" or not task.block
        assert task.indent == line[: len(line) - len(line.lstrip())]
        assert not task.path.startswith("tests/")


def test_unreadable_files_are_reported_not_fatal(tiny_repo: Path) -> None:
    (tiny_repo / "tiny" / "broken.py").write_text("def f(:\n    pass\n")
    (tiny_repo / "tiny" / "latin1.py").write_bytes("x = 'caf\xe9'\n".encode("latin-1"))
    result = mark_repository(open_repository(tiny_repo), seed=0)
    reasons = dict(result.skipped)
    assert "syntax error near line 1" in reasons["tiny/broken.py"]
    assert "not UTF-8" in reasons["tiny/latin1.py"]
    assert result.tasks  # the good file is still marked


def test_test_files_inside_sources_are_never_marked(tiny_repo: Path) -> None:
    (tiny_repo / "tiny" / "test_inline.py").write_text("def test_x():\n    for i in range(3):\n        assert abs(i) + 1 > 0\n")
    result = mark_repository(open_repository(tiny_repo), seed=0, per_kind=50)
    assert not any("test_inline" in t.path for t in result.tasks)


def test_positions_count_utf16_units() -> None:
    from replay.core.textpos import position_at

    text = "x = '🙂'; y = 1\nz"
    assert position_at(text, text.index("y")).character == text.index("y") + 1  # the emoji is 2 units
    assert position_at(text, text.index("z")).line == 1


def test_worker_processes_give_the_same_tasks(tmp_path) -> None:
    """Large repositories are marked on forked workers; the result must not depend on it."""
    from replay.config.manifest import load_manifest, project_root
    from replay.marking import PARALLEL_MIN_LINES, mark_repository

    sources = [p for p in sorted((project_root() / "repos").glob("*/*/*.py")) if "tests" not in p.parts]
    (tmp_path / "src").mkdir()
    lines, copy = 0, 0
    while lines < PARALLEL_MIN_LINES + 1000:
        for i, p in enumerate(sources):
            text = p.read_text()
            (tmp_path / "src" / f"m{copy}_{i}.py").write_text(text)
            lines += text.count("\n")
        copy += 1
    (tmp_path / "simpilot.toml").write_text('[repository]\nname = "big"\nsources = ["src"]\ntest_command = ["true"]\n')
    manifest = load_manifest(tmp_path / "simpilot.toml")
    one = mark_repository(manifest, seed=3, workers=1)
    two = mark_repository(manifest, seed=3, workers=2)
    assert one.lines >= PARALLEL_MIN_LINES and one.tasks and one.tasks == two.tasks and one.skipped == two.skipped


def test_default_number_of_holes_grows_with_the_file(tmp_path: Path) -> None:
    """Without --per-kind a long module gets proportionally more holes than a short one, and an
    explicit --per-kind still decides."""
    from replay.marking import default_per_kind

    assert default_per_kind(10) == 2 and default_per_kind(150) == 6 and default_per_kind(3000) == 120
    (tmp_path / "lib").mkdir()
    functions = [f"def f{i}(values, factor):\n    out = []\n    for v in values:\n        if v * factor > {i}:\n"
                 f"            out.append(v * factor - {i})\n    total = sum(out) + {i}\n    return total\n\n\n" for i in range(400)]
    (tmp_path / "lib" / "big.py").write_text("".join(functions))
    (tmp_path / "lib" / "small.py").write_text("".join(functions[:10]))
    (tmp_path / "simpilot.toml").write_text('[repository]\nname = "sizes"\nsources = ["lib"]\ntest_command = ["true"]\n')
    manifest = open_repository(tmp_path)
    by_file = lambda tasks, path: sum(t.path == path for t in tasks)  # noqa: E731
    scaled = mark_repository(manifest, seed=0).tasks
    big_lines, small_lines = 400 * 9, 10 * 9
    assert by_file(scaled, "lib/big.py") == 2 * default_per_kind(big_lines)
    assert by_file(scaled, "lib/small.py") == 2 * default_per_kind(small_lines)
    fixed = mark_repository(manifest, seed=0, per_kind=3).tasks
    assert by_file(fixed, "lib/big.py") == by_file(fixed, "lib/small.py") == 6
