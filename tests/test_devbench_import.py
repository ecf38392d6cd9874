"""DevBench's instances as tasks: reading, the program files, the hole, the labels, and every
preset returning every golden completion unchanged (all six languages of the bundled sample)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from postprocess import BUILTIN_PRESETS, run_preset
from replay.core.errors import SimpilotError
from replay.core.manifest import open_repository
from replay.core.programs import join
from replay.core.records import Kind
from replay.core.scenarios import hole_context
from replay.marking.devbench import CATEGORIES, FOLDERS, read_instances, task_for
from replay.validation.devbench import write_repository

SAMPLE = Path(__file__).parent / "data" / "devbench"


def test_the_bundled_sample_has_every_language_and_category() -> None:
    instances = read_instances(SAMPLE)
    languages = {i.language for i in instances}
    assert languages == set(FOLDERS)
    for language in FOLDERS:
        assert {i.category for i in instances if i.language == language} == set(CATEGORIES)
    assert sum(i.language == "python" for i in instances) == 300


def test_filters_and_limit() -> None:
    chosen = read_instances(SAMPLE, ["javascript", "cpp"], ["low_context"], limit=3)
    assert [(i.language, i.category, i.id) for i in chosen] == [
        ("javascript", "low_context", "1"),
        ("javascript", "low_context", "2"),
        ("javascript", "low_context", "3"),
        ("cpp", "low_context", "1"),
        ("cpp", "low_context", "2"),
        ("cpp", "low_context", "3"),
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((["cobol"],), "unknown language 'cobol'"),
        ((["python"], ["nonsense"]), "unknown DevBench categories: nonsense"),
    ],
)
def test_bad_choices_are_named(args: tuple, message: str) -> None:
    with pytest.raises(SimpilotError, match=message):
        read_instances(SAMPLE, *args)


def test_a_folder_without_instances_says_what_it_expected(tmp_path: Path) -> None:
    with pytest.raises(SimpilotError, match="no DevBench instances found"):
        read_instances(tmp_path)


def test_a_malformed_instance_names_its_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "python").mkdir()
    (tmp_path / "python" / "api_usage.jsonl").write_text('{"id": "1", "prefix": "x", "suffix": ""}\n')
    with pytest.raises(SimpilotError, match=r"api_usage.jsonl:1: field\(s\) golden_completion"):
        read_instances(tmp_path)


def test_the_hole_is_the_golden_completion_and_the_document_prefix_and_suffix() -> None:
    for instance in read_instances(SAMPLE):
        text, task = task_for(instance)
        data = text.encode("utf-8")
        assert data[task.span.start_byte : task.span.end_byte].decode("utf-8") == instance.golden
        document, _ = hole_context(task, data)
        # the document is the prefix and the suffix, with the newline the harness puts between
        # them where the golden completion starts a line of its own
        assert document.replace("\n", "") == (instance.prefix + instance.suffix).replace("\n", "")
        assert document.startswith(instance.prefix) and document.endswith(instance.suffix)
        assert task.labels == (instance.category,) and task.construct == instance.category
        assert task.kind == (Kind.INFILL if instance.suffix.strip() else Kind.COMPLETION)
        assert task.language == instance.language and task.tests is None


def test_the_program_joins_the_parts_as_devbench_does() -> None:
    assert join("try:", "    x = 1") == "try:\n    x = 1"
    assert join("a\n", "b") == "a\nb"
    assert join("a", "\nb") == "a\nb"
    assert join("", "b") == "b" and join("a", "") == "a"


@pytest.mark.parametrize("language", sorted(FOLDERS))
def test_every_preset_returns_every_imported_golden_completion_unchanged(language: str) -> None:
    for instance in read_instances(SAMPLE, [language]):
        text, task = task_for(instance)
        _, ctx = hole_context(task, text.encode("utf-8"))
        for preset in BUILTIN_PRESETS:
            assert run_preset(preset, task.ground_truth, ctx).text == task.ground_truth, (task.id, preset)


def test_the_repository_keeps_checks_out_of_the_sources(tmp_path: Path) -> None:
    instances = read_instances(SAMPLE, ["python"], ["api_usage"], limit=2)
    manifest = write_repository(tmp_path / "devbench-python", "python", instances)
    assert manifest.programs is not None and manifest.name == "devbench-python"
    assert manifest.source_files() == ["programs/api_usage/1.py", "programs/api_usage/2.py"]
    assert (tmp_path / "devbench-python" / "checks" / "api_usage" / "1.py").read_text() == instances[0].assertions
    assert manifest.is_test_path("checks/api_usage/1.py")
    reopened = open_repository(tmp_path / "devbench-python")
    assert reopened.programs is not None and reopened.programs.check_path("programs/api_usage/1.py") == "checks/api_usage/1.py"


def test_the_bridge_gives_a_program_no_other_file_as_context(tmp_path: Path) -> None:
    from lsp_bridge.repo_context import repository_files

    instances = read_instances(SAMPLE, ["python"], ["api_usage"], limit=3)
    root = tmp_path / "devbench-python"
    write_repository(root, "python", instances)
    rel, others = repository_files(root / "programs" / "api_usage" / "1.py", "python")
    assert rel == "programs/api_usage/1.py" and others == {}


def test_instances_are_read_from_a_devbench_checkout_layout(tmp_path: Path) -> None:
    folder = tmp_path / "benchmark" / "python" / "api_usage"
    folder.mkdir(parents=True)
    line = (SAMPLE / "python" / "api_usage.jsonl").read_text().splitlines()[0]
    (folder / "api_usage.jsonl").write_text(line + "\n")
    (found,) = read_instances(tmp_path)
    assert found.id == json.loads(line)["id"] and found.category == "api_usage"
