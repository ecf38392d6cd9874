"""A scenario line is checked when read: its span must be a span (not reversed, nothing negative),
its language one simpilot runs, its kind a kind and its test ids ids of that language's tests; a task that passes these and whose span still lies past its
file's end is refused before the run (``pipeline.check_sources``)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from replay.core.errors import SimpilotError
from replay.core.records import RecordError, Span, Task
from replay.core.scenarios import read_tasks, write_tasks

from .conftest import tiny_scenario


def _span(**changes: object) -> dict:
    d = {"start_byte": 10, "end_byte": 20, "start": {"line": 1, "character": 2}, "end": {"line": 2, "character": 0}}
    for key, value in changes.items():
        if "." in key:
            outer, inner = key.split(".")
            d[outer] = {**d[outer], inner: value}
        else:
            d[key] = value
    return d


def test_a_span_is_checked_to_be_one() -> None:
    assert Span.from_dict(_span(), "span.").end_byte == 20
    assert Span.from_dict(_span(end_byte=10, **{"end.line": 1, "end.character": 2}), "span.").start_byte == 10  # empty: fine
    with pytest.raises(RecordError, match="'span' is reversed .*bytes 30-20"):
        Span.from_dict(_span(start_byte=30), "span.")
    with pytest.raises(RecordError, match="'span' is reversed .*lines 3-2"):
        Span.from_dict(_span(**{"start.line": 3}), "span.")
    with pytest.raises(RecordError, match="negative"):
        Span.from_dict(_span(start_byte=-1), "span.")


def _one_task(tiny_repo: Path, tmp_path: Path) -> Task:
    tasks, _ = tiny_scenario(tiny_repo, tmp_path / "marked", per_kind=1)
    return tasks[0]


def test_a_scenario_line_with_a_reversed_span_or_an_unknown_language_names_its_line(tiny_repo: Path, tmp_path: Path) -> None:
    task = _one_task(tiny_repo, tmp_path)
    for change, expected in [
        ({"span": {**task.span.to_dict(), "start_byte": task.span.end_byte + 1}}, "'span' is reversed"),
        ({"language": "cobol"}, "field 'language' is 'cobol', expected one of python, java"),
        ({"kind": "rewrite"}, "field 'kind' is 'rewrite'"),
        ({"tests": []}, "field 'tests' is an empty list: name the selected tests, or give null"),
        ({"tests": ["tests/test_stats.py"]}, "expected a pytest node id"),
        ({"tests": ["tests/test_stats.py::test_mean\ntests/test_stats.py::test_spread"]}, "a test id is one non-empty line"),
        ({"tests": ["/etc/test_x.py::test_y"]}, "field 'tests' is '/etc/test_x.py'"),
        ({"tests": ["com.ex.CalcTest#sums"]}, "expected a pytest node id"),  # a Java id for a Python task
    ]:
        scenario = tmp_path / "bad.jsonl"
        write_tasks(scenario, [task])
        lines = scenario.read_text().splitlines()
        lines.append(json.dumps({**task.to_dict(), **change}))
        scenario.write_text("\n".join(lines) + "\n")
        with pytest.raises(SimpilotError, match=f"{scenario}:2: not a task record: .*{expected}"):
            read_tasks(scenario)


def test_a_span_past_the_files_end_is_refused_before_the_run(tiny_repo: Path, tmp_path: Path) -> None:
    from replay.config.manifest import RepoCatalog, open_repository
    from replay.run.resume import check_sources

    task = _one_task(tiny_repo, tmp_path)
    size = (tiny_repo / task.path).stat().st_size
    past = dataclasses.replace(task, span=dataclasses.replace(task.span, start_byte=size, end_byte=size + 5))
    catalog = RepoCatalog([open_repository(str(tiny_repo))])
    check_sources([task], catalog)
    with pytest.raises(SimpilotError, match=f"task {task.id}: its span ends at byte {size + 5}, past the end of {task.path} \\({size} bytes\\)"):
        check_sources([past], catalog)


def test_java_test_ids_are_classes_with_an_optional_method() -> None:
    from replay.core.records import _test_ids

    assert _test_ids(("com.ex.CalcTest", "com.ex.CalcTest#sums", "Calc$Inner#m[1]"), "java") is not None
    for bad in ("-p evil", "com.ex.", "1Calc", ""):
        with pytest.raises(RecordError, match="field 'tests' holds"):
            _test_ids((bad,), "java")
    assert _test_ids(None, "java") is None  # the whole suite
