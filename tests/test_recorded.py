"""Recorded model outputs: the folder format, the ``recorded`` model, and the resuming writer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lsp_bridge.models.base import CompletionRequest, ModelError
from lsp_bridge.models.recorded import RecordedModel
from replay.config.manifest import open_repository
from replay.core.recordings import answer_for, merge, read_recording_file, sample_tasks, write_recording_file
from replay.core.records import Completion, Kind, Task
from replay.core.scenarios import document_text, write_tasks
from replay.jobs.record import record
from replay.marking import mark_repository

from .conftest import bundled_tasks

# What a small chat model really answers: a fence, the line above the hole again, and prose.
MESSY = "```python\n    total = 0\n    for x in xs:\n        total += x\n```\nThis adds the numbers. 🙂"


@pytest.fixture
def tiny_tasks(tiny_repo: Path) -> list[Task]:
    return mark_repository(open_repository(tiny_repo), seed=0, per_kind=3).tasks


def request_for(repo: Path, task: Task, text: str | None = None) -> CompletionRequest:
    original = (repo / task.path).read_bytes()
    document = document_text(task, original) if text is None else text
    offset = len(original[: task.span.start_byte].decode("utf-8"))
    path = (repo / task.path).as_posix()
    return CompletionRequest(f"file://{path}", path, task.language, document, offset, task.cursor.line, task.cursor.character)


def recording(folder: Path, repo: Path, tasks: list[Task]) -> list[str]:
    """A recording of ``tasks`` with a distinct messy answer each; the answers, in task order."""
    answers = []
    raws = []
    for n, task in enumerate(tasks):
        raw = f"{MESSY}\n# answer {n}"
        completion = Completion(task.id, raw, None, 1234.5, {})
        answers.append(answer_for(task, completion, (repo / task.path).read_bytes(), "smol", {"kind": "openai-chat", "max_tokens": 64}))
        raws.append(raw)
    write_recording_file(folder / f"{tasks[0].repo}.jsonl", answers)
    return raws


async def test_recorded_model_answers_each_task_by_document_and_cursor(tiny_repo: Path, tiny_tasks: list[Task], tmp_path: Path) -> None:
    raws = recording(tmp_path / "rec", tiny_repo, tiny_tasks)
    model = RecordedModel(str(tmp_path / "rec"))
    assert len(model) == len(tiny_tasks) and model.name == "recorded:rec"
    for task, raw in zip(tiny_tasks, raws):
        assert await model.complete(request_for(tiny_repo, task)) == raw


async def test_recorded_model_refuses_what_was_not_recorded(tiny_repo: Path, tiny_tasks: list[Task], tmp_path: Path) -> None:
    recording(tmp_path / "rec", tiny_repo, tiny_tasks[1:])
    model = RecordedModel(str(tmp_path / "rec"))
    task = tiny_tasks[1]
    edited = document_text(task, (tiny_repo / task.path).read_bytes()) + "\n# edited"
    with pytest.raises(ModelError, match="recorded:rec: no task at"):
        await model.complete(request_for(tiny_repo, task, edited))  # same place, other text
    with pytest.raises(ModelError, match="no task at"):
        await model.complete(request_for(tiny_repo, tiny_tasks[0]))  # a task nobody recorded
    elsewhere = request_for(tiny_repo, task)
    moved = CompletionRequest(elsewhere.uri, "/tmp/other/stats.py", elsewhere.language, elsewhere.text, elsewhere.offset, elsewhere.line, elsewhere.character)
    with pytest.raises(ModelError, match="no task at"):
        await model.complete(moved)  # same text, another file


def test_recorded_model_needs_a_folder_with_answers(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="no recording folder"):
        RecordedModel(str(tmp_path / "missing"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelError, match="holds no answers"):
        RecordedModel(str(tmp_path / "empty"))


def test_a_recorded_answer_survives_its_file(tiny_repo: Path, tiny_tasks: list[Task], tmp_path: Path) -> None:
    recording(tmp_path, tiny_repo, tiny_tasks)
    rows = [json.loads(line) for line in (tmp_path / "tinyrepo.jsonl").read_text(encoding="utf-8").splitlines()]
    task = tiny_tasks[0]
    assert rows[0]["task_id"] == task.id and rows[0]["file_sha256"] == task.file_sha256
    assert rows[0]["cursor"] == {"line": task.cursor.line, "character": task.cursor.character}
    assert rows[0]["raw"].endswith("# answer 0") and "🙂" in rows[0]["raw"]
    assert rows[0]["latency_ms"] == 1234.5 and rows[0]["settings"] == {"kind": "openai-chat", "max_tokens": 64}
    again = tmp_path / "again.jsonl"
    write_recording_file(again, read_recording_file(tmp_path / "tinyrepo.jsonl"))
    assert again.read_bytes() == (tmp_path / "tinyrepo.jsonl").read_bytes()


def test_sample_spans_every_repository_and_both_kinds() -> None:
    tasks = bundled_tasks()
    sample = sample_tasks(tasks, 26)
    repos = {t.repo for t in tasks}
    assert len(sample) == 26 * len(repos) and sample == sample_tasks(tasks, 26)
    for repo in repos:
        assert sum(1 for t in sample if t.repo == repo and t.kind is Kind.INFILL) == 13
        assert sum(1 for t in sample if t.repo == repo and t.kind is Kind.COMPLETION) == 13
    assert [t for t in tasks if t in sample] == sample  # scenario order kept
    odd = sample_tasks(tasks, 3)
    assert sum(1 for t in odd if t.kind is Kind.INFILL) == 2 * len(repos)


def test_merge_keeps_one_answer_per_task_in_scenario_order(tiny_repo: Path, tiny_tasks: list[Task], tmp_path: Path) -> None:
    recording(tmp_path, tiny_repo, tiny_tasks)
    answers = read_recording_file(tmp_path / "tinyrepo.jsonl")
    merged = merge(answers[2:], answers[:3], tiny_tasks)
    assert [a.task_id for a in merged] == [t.id for t in tiny_tasks]


@pytest.mark.e2e
def test_record_resumes_without_asking_twice(tiny_repo: Path, tiny_tasks: list[Task], tmp_path: Path) -> None:
    """Through the real replay path (the bridge over LSP) with the oracle as the model."""
    scenario = tmp_path / "tiny.jsonl"
    write_tasks(scenario, tiny_tasks)
    out = tmp_path / "recordings" / "oracle"
    # No post-processor runs, so no model output is ever executed: the sandbox is not needed.
    common = dict(db=tmp_path / "runs" / "rec.db", repo_paths=[str(tiny_repo)], unsafe_no_sandbox=True)
    first = record([scenario], "oracle", out, **common)
    assert first.recorded == len(tiny_tasks) and first.skipped == 0 and not first.errors
    target = out / "tinyrepo.jsonl"
    recorded = read_recording_file(target)
    assert [a.task_id for a in recorded] == [t.id for t in tiny_tasks]
    assert [a.raw for a in recorded] == [t.ground_truth for t in tiny_tasks]

    content = target.read_bytes()
    second = record([scenario], "oracle", out, **common)
    assert (second.recorded, second.skipped) == (0, len(tiny_tasks)) and target.read_bytes() == content

    lines = content.decode("utf-8").splitlines(keepends=True)
    target.write_text("".join(lines[:1] + lines[2:]), encoding="utf-8")  # lose one answer
    third = record([scenario], "oracle", out, **common)
    assert (third.recorded, third.skipped) == (1, len(tiny_tasks) - 1)
    assert [a.task_id for a in read_recording_file(target)] == [t.id for t in tiny_tasks]


async def test_a_recording_with_samples_gives_them_all_in_order(tiny_repo: Path, tiny_tasks: list[Task], tmp_path: Path) -> None:
    task = tiny_tasks[0]
    original = (tiny_repo / task.path).read_bytes()
    answers = [
        answer_for(task, Completion(task.id, f"x = {i}", None, 0.0, {}, sample=i), original, "many", {"temperature": 0.2})
        for i in (2, 0, 1)  # stored out of order: the sample number decides
    ]
    write_recording_file(tmp_path / "rec" / f"{task.repo}.jsonl", answers)
    model = RecordedModel(str(tmp_path / "rec"))
    assert await model.complete_all(request_for(tiny_repo, task)) == ["x = 0", "x = 1", "x = 2"]
    assert await model.complete(request_for(tiny_repo, task)) == "x = 0"
    assert [a.sample for a in read_recording_file(tmp_path / "rec" / f"{task.repo}.jsonl")] == [2, 0, 1]
    # merging keeps one answer per (task, sample)
    again = answer_for(task, Completion(task.id, "x = 1 again", None, 0.0, {}, sample=1), original, "many", {})
    merged = merge(answers, [again], tiny_tasks)
    assert [(a.sample, a.raw) for a in merged] == [(0, "x = 0"), (1, "x = 1 again"), (2, "x = 2")]
