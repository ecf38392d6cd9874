"""DevBench's instances as tasks: reading, the program files, the hole, the labels, and every
preset returning every golden completion unchanged (all six languages of the bundled sample)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from postprocess import BUILTIN_PRESETS, run_preset
from replay.config.manifest import open_repository
from replay.core.errors import SimpilotError
from replay.core.programs import join
from replay.core.records import Kind
from replay.core.scenarios import hole_context
from replay.importers.devbench import CATEGORIES, FOLDERS, read_instances, task_for
from replay.jobs.import_devbench import write_repository

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
        assert task.kind == Kind.INFILL  # DevBench always shows the suffix, even an empty one
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


def test_the_bundled_devbench_scenarios_match_their_repositories() -> None:
    from replay.config.manifest import project_root
    from replay.config.locations import catalog_for
    from replay.core.scenarios import read_tasks

    files = sorted((project_root() / "scenarios" / "devbench").glob("*.jsonl"))
    assert {f.stem for f in files} == {"devbench-python", "devbench-java", "devbench-javascript", "devbench-typescript", "devbench-cpp"}
    catalog = catalog_for(files)
    for path in files:
        tasks = read_tasks(path)
        assert tasks, path
        manifest = catalog.get(tasks[0].repo)
        assert manifest.programs is not None and manifest.programs.environment is None  # runs without --provision
        for task in tasks:
            data = (manifest.root / task.path).read_bytes()
            assert data[task.span.start_byte : task.span.end_byte].decode("utf-8") == task.ground_truth
            assert task.validation is not None and task.validation.ok


def test_survival_counts_each_instance_once_by_category_and_reason() -> None:
    from replay.config.manifest import Manifest
    from replay.jobs.import_devbench import LanguageImport, survival
    from replay.reports.survival import categories_markdown, survival_markdown
    from replay.validation.program_gate import Dropped, ProgramGateReport

    instances = read_instances(SAMPLE, ["python"], ["api_usage", "low_context"], limit=3)
    tasks = [task_for(i)[1] for i in instances]
    report = ProgramGateReport(
        kept=tasks[:2],
        dropped=[Dropped(tasks[2], "golden_fails", "ModuleNotFoundError", "x")] + [Dropped(t, "passes_empty", "", "") for t in tasks[3:]],
    )
    manifest = Manifest("devbench-python", "python", SAMPLE, ("programs",), ("checks",), ())
    summary = survival(LanguageImport("python", manifest, instances, report, SAMPLE / "x.jsonl", None))
    assert summary["categories"]["api_usage"] == {
        "instances": 3,
        "kept": 2,
        "golden_fails": 1,
        "passes_empty": 0,
        "flaky": 0,
        "toolchain_missing": 0,
        "needs_network": 0,
    }
    assert summary["categories"]["low_context"]["passes_empty"] == 3
    assert summary["total"] == {
        "instances": 6,
        "kept": 2,
        "golden_fails": 1,
        "passes_empty": 3,
        "flaky": 0,
        "toolchain_missing": 0,
        "needs_network": 0,
    }
    table = survival_markdown({"python": summary})
    assert table.splitlines()[0] == "| language | imported | kept | toolchain_missing | needs_network | golden_fails | passes_empty | flaky |"
    assert "| python | 6 | 2 | 0 | 0 | 1 | 3 | 0 |" in table and "| **all** | 6 | 2 | 0 | 0 | 1 | 3 | 0 |" in table
    assert "| python | 2/3 | 0/3 |" in categories_markdown({"python": summary})


def test_an_answer_that_finishes_the_file_past_its_block_is_kept_whole() -> None:
    """At the end of a file the cursor's block is closed by nothing after it: an answer that closes
    it and goes on (DevBench: finish one class, write the next) completes the file, and the IDE
    preset's scope limit must not cut it at the block's end."""
    from postprocess.context import HoleContext

    prefix = "class Shape {\n  area() {\n    return 0;\n  }\n"
    truth = "}\n\nclass Square extends Shape {\n  constructor(side) {\n    super();\n    this.side = side;\n  }\n}\n"
    for language in ("javascript", "typescript"):
        ctx = HoleContext(language, prefix, "")
        for preset in BUILTIN_PRESETS:
            assert run_preset(preset, truth, ctx).text == truth, (language, preset)
    # inside a block that stays open, an answer leaving it is still cut there
    assert (
        run_preset("ide", "    return 1;\n  }\n  other() {}\n", HoleContext("javascript", "class A {\n  f() {\n", "")).text
        == "    return 1;"
    )
