"""Messages about tasks without a usable answer name the tasks (a few, then how many more), say
why (the model's own error) and what gives them an answer, which differs for a recorded model:
asking it again gives the same error, its recording must be recorded again."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from replay.config.manifest import project_root
from replay.core.missing_answers import how_to_answer, model_error_lines, some
from replay.core.records import Completion, Outcome, Status
from replay.jobs.replay import _error_of, recorded_model
from replay.reports.model_comparison import ModelRun, SampleScore, compare_models
from replay.reports.model_runs import load_model_runs
from replay.reports.model_text import exclusion_notes, render
from replay.store import Store

NO_MATCH = "model_error: recorded:smollm2: no task at tiny/stats.py:12:9 for this document"


def test_a_few_ids_then_how_many_more() -> None:
    assert some([]) == ""
    assert some(["a"]) == "a"
    assert some(["a", "b", "c"]) == "a, b, c"
    assert some(["a", "b", "c", "d", "e"]) == "a, b, c and 2 more"


def test_a_recorded_models_errors_are_named_with_the_re_recording_they_need() -> None:
    errors = {"tiny-3": NO_MATCH, "tiny-1": NO_MATCH, "tiny-7": "model_error: recorded:smollm2 gave no answer"}
    lines = model_error_lines("recorded:scenarios/recordings/smollm2", "run-1", errors, "openai-chat:smollm2")
    assert lines[0] == "3 task(s) got no answer from the model (tiny-1, tiny-3, tiny-7); they are stored as model_error:"
    assert lines[1] == f"  tiny-1, tiny-3: {NO_MATCH}"  # the most common error first, with its tasks
    assert lines[2] == "  tiny-7: model_error: recorded:smollm2 gave no answer"
    advice = lines[-1]
    assert "the recording scenarios/recordings/smollm2 gives no answer for them" in advice
    assert "simpilot record SCENARIO… --model openai-chat:smollm2 --out scenarios/recordings/smollm2" in advice
    assert advice.endswith("then: simpilot replay … --run run-1 --resume")
    assert "fix the endpoint" not in " ".join(lines)


def test_an_endpoints_errors_are_named_and_re_asked() -> None:
    errors = {f"t{i}": "model_error: HTTP 503 from http://localhost:8080/v1/completions" for i in range(5)}
    lines = model_error_lines("openai-completions:m@http://localhost:8080/v1", "run-2", errors)
    assert lines[0] == "5 task(s) got no answer from the model (t0, t1, t2 and 2 more); they are stored as model_error:"
    assert lines[1] == "  t0, t1, t2 and 2 more: model_error: HTTP 503 from http://localhost:8080/v1/completions"
    assert lines[-1] == (
        "fix what the error says (the endpoint, its key, the model's settings) and re-ask them with: simpilot replay … --run run-2 --resume"
    )
    many = {f"t{i}": f"model_error: error {i}" for i in range(6)}
    assert "  and 3 more task(s) with 3 other error(s)" in model_error_lines("m", "r", many)


def test_the_error_of_a_request_and_the_model_a_recording_was_made_with(tmp_path: Path) -> None:
    assert _error_of([Completion("t", None, "model_error: boom")]) == "model_error: boom"
    assert _error_of([Completion("t", None)]) == "no answer"
    assert recorded_model("openai-chat:m@http://x/v1") is None
    assert recorded_model(f"recorded:{tmp_path / 'nowhere'}") is None  # unreadable: the message says MODEL
    bundled = project_root() / "scenarios" / "recordings" / "smollm2"
    assert recorded_model(f"recorded:{bundled}") == "smollm2"  # the bundled recording's answers say so


def _samples(n: int, error: str = "") -> list[SampleScore]:
    return [SampleScore(False, 0, 0.0, error)] if error else [SampleScore(i == 0, int(i == 0), 0.5) for i in range(n)]


def test_the_comparison_names_each_task_it_leaves_out_and_why() -> None:
    tasks = {f"t{i}": _samples(3) for i in range(4)}
    recorded = ModelRun("smollm2", "run-rec", {**tasks, "t9": _samples(1, NO_MATCH)}, "recorded:scenarios/recordings/smollm2")
    endpoint = ModelRun("qwen", "run-api", {**tasks, "t9": _samples(3), "t5": _samples(3)}, "openai-chat:qwen@http://h/v1")
    c = compare_models([recorded, endpoint], {}, by=(), resamples=200)
    notes = exclusion_notes(c)
    t9 = next(n for n in notes if n.startswith("smollm2:"))
    assert t9.startswith("smollm2: 1 task(s) left out — 1 with another run's number of samples (t9).")
    assert f"t9: smollm2 has 1 sample(s), a model error ({NO_MATCH})" in t9
    assert "the recording scenarios/recordings/smollm2 gives no answer for them" in t9 and "simpilot record" in t9
    assert "qwen has 3 sample(s)" in t9
    t5 = next(n for n in notes if n.startswith("qwen:"))
    assert "1 missing in another run (t5, t9)" not in t5 and "missing in another run (t5)" in t5
    assert "t5: not in smollm2" in t5
    console = Console(file=io.StringIO(), width=400)
    render(c, console, brief=True)
    shown = console.file.getvalue()  # type: ignore[attr-defined]
    assert "t9: smollm2 has 1 sample(s)" in shown and "t5: not in smollm2" in shown


def test_nothing_in_common_names_the_tasks_left_out() -> None:
    a = ModelRun("a", "ra", {"x": _samples(1, "model_error: boom")}, "recorded:rec")
    b = ModelRun("b", "rb", {"x": _samples(3)}, "b")
    try:
        compare_models([a, b], {}, by=(), resamples=200)
    except ValueError as exc:
        assert "a: 1 left out (x)" in str(exc)
    else:
        raise AssertionError("no task in common must be refused")


def test_a_stored_model_error_reaches_the_comparison_with_its_text(tmp_path: Path) -> None:
    store = Store(tmp_path / "r.db")
    try:
        for run_id, model in (("rec", "recorded:scenarios/recordings/smollm2"), ("api", "oracle")):
            store.db.execute(
                "INSERT INTO runs (run_id, created, tool_version, model, model_spec, presets, scenarios, scenario_hash, sandbox)"
                " VALUES (?, '2026-01-01', '0', ?, '{}', '[]', '[]', '', 'bubblewrap')",
                (run_id, model),
            )
        store.add_outcome("rec", Outcome("t1", "none", None, Status.MODEL_ERROR, NO_MATCH))
        for sample in range(2):
            store.add_outcome("api", Outcome("t1", "none", "x", Status.PASS, sample=sample))
        runs, _ = load_model_runs(store, ["rec", "api"], "none")
    finally:
        store.close()
    assert runs[0].model_spec == "recorded:scenarios/recordings/smollm2" and runs[0].samples["t1"][0].error == NO_MATCH
    assert runs[1].samples["t1"][0].error == ""


def test_every_request_failing_says_what_to_do_for_the_model() -> None:
    assert how_to_answer("recorded:rec", "r").startswith("the recording rec gives no answer for them")
    assert how_to_answer("oracle", "r").startswith("fix what the error says")
