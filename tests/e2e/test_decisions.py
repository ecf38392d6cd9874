"""Decision tasks against real test suites: the gate keeps a place only when a plausible addition
breaks the tests, an empty answer there is a proven pass and a suggestion is ``suggested``; and
the bundled decision scenarios replay through the bridge with the oracle (every task right) and
the empty model (right exactly where nothing was needed), the report's figures equal to those
recomputed from the stored records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay.config.manifest import RepoCatalog, open_repository, project_root
from replay.core.records import Decision, Status
from replay.core.scenarios import read_tasks
from replay.execution.judge import Evaluator
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.marking.decision_places import mark_decisions
from replay.reports.decision_figures import decision_figures, decisions_json
from replay.reports.strata import cutoffs
from replay.store import Store
from replay.validation.decision_gate import validate_decisions

from .conftest import simpilot, tree_digest

pytestmark = pytest.mark.e2e


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_gate_keeps_places_where_more_code_breaks_the_tests(tiny_repo: Path) -> None:
    manifest = open_repository(tiny_repo)
    marked = mark_decisions(manifest, per_file=20)
    with Evaluator(RepoCatalog([manifest]), Sandbox.create(), 2) as evaluator:
        report = validate_decisions(evaluator, manifest, marked.tasks, 2)
        kept = {t.id: t for t in report.kept}
        assert not report.altered  # every preset returns the empty ground truth, and each line, unchanged
        # the end of `total += v`, the last statement of mean's loop: adding it again doubles the sum
        loop_end = kept.get("tinyrepo:tiny/stats.py:no_suggestion:14")
        assert loop_end is not None, report.dropped
        assert loop_end.construct == "block_end" and loop_end.ground_truth == "" and loop_end.tests
        assert loop_end.validation is not None and loop_end.validation.filler == "\n        total += v"
        assert loop_end.validation.filler_status in ("fail", "runtime_error")  # how pytest reports `assert 5.0 == 2.5`
        assert evaluator.evaluate(loop_end, "").status is Status.PASS  # silence, proven by the tests
        assert evaluator.evaluate(loop_end, "\n").status is Status.PASS  # a blank line is nothing too
        needless = evaluator.evaluate(loop_end, "\n        total += v")
        assert needless.status is Status.SUGGESTED and "harmful" in needless.detail
        harmless = evaluator.evaluate(loop_end, "\n        v = v")
        assert harmless.status is Status.SUGGESTED and "useless, not harmful" in harmless.detail
        # a one-line task: the line is needed, and the line plus an early return fails
        squares = kept["tinyrepo:tiny/stats.py:one_line:33"]
        assert squares.ground_truth == "squares = [(v - m) ** 2 for v in values]"
        assert squares.validation is not None and squares.validation.longer.endswith("\n    return None")
        assert evaluator.evaluate(squares, squares.ground_truth).status is Status.PASS
        assert evaluator.evaluate(squares, squares.validation.longer).status is not Status.PASS
        # every kept place was shown to matter: its recorded addition fails the tests again
        for task in report.kept:
            assert task.validation is not None
            if task.nothing_needed:
                assert evaluator.run_answer(task, task.validation.filler).status is not Status.PASS
    dropped = {d.task.id: d.why.message for d in report.dropped}
    # after `result.append(v)` in the else branch an early `return None` ends the function: the
    # tests notice; but a place that no addition breaks is dropped, saying what each one did
    assert all("no plausible" in why or "no test" in why or "pass" in why for why in dropped.values())
    assert {t.decision for t in report.kept} == {Decision.NOTHING, Decision.ONE_LINE}


def _sample(tmp_path: Path, step: int) -> list[str]:
    """Every ``step``-th task of each bundled decision scenario file, copied into ``tmp_path``."""
    sample = []
    for path in sorted((project_root() / "scenarios" / "decisions").glob("*.jsonl")):
        lines = path.read_text().splitlines()[::step]
        target = tmp_path / path.name
        target.write_text("\n".join(lines) + "\n")
        sample.append(str(target))
    return sample


def _replay_oracle_and_empty(tmp_path: Path, scenarios: list[str]) -> None:
    repos = project_root() / "repos"
    before = tree_digest(repos)
    db = tmp_path / "decisions.db"
    tasks = [t for s in scenarios for t in read_tasks(Path(s))]
    nothing = {t.id for t in tasks if t.nothing_needed}
    one_line = {t.id for t in tasks if t.decision is Decision.ONE_LINE}
    assert nothing and one_line
    for model in ("oracle", "empty"):
        r = simpilot(
            "--db", str(db), "replay", *scenarios, "--model", model, "-p", "none", "-p", "simcopilot", "--run", model, timeout=3000
        )
        assert r.returncode == 0, r.stderr
    data = json.loads(simpilot("--db", str(db), "report", "oracle", "empty", "--json").stdout)
    sections = {(s["model"], s["preset"]): s for s in data["sections"]}
    passed: dict[tuple[str, str], set[str]] = {}
    for o in data["outcomes"]:
        if o["passed"]:
            passed.setdefault((o["model"], o["preset"]), set()).add(o["task_id"])
    for preset in ("none", "simcopilot"):
        oracle, empty = sections[("oracle", preset)], sections[("empty", preset)]
        assert oracle["statuses"] == {"pass": len(tasks)}, oracle["notable"]
        assert passed[("empty", preset)] == nothing  # right exactly where nothing was needed
        # an empty line fails every one_line task (as `empty`, or `timeout` when the line advanced a loop)
        assert empty["statuses"]["pass"] == len(nothing) and sum(empty["statuses"].values()) == len(tasks)
        assert set(empty["statuses"]) <= {"pass", "empty", "timeout"}
        d = oracle["decisions"]
        assert d["silence"] == {"k": len(nothing), "n": len(nothing), "rate": 1.0}
        assert d["precision"] == {"k": len(one_line), "n": len(one_line), "rate": 1.0}
        assert d["one_line"] == {"k": len(one_line), "n": len(one_line), "rate": 1.0}
        d = empty["decisions"]
        assert d["silence"]["rate"] == 1.0 and d["precision"] == {"k": 0, "n": 0, "rate": None}
        assert d["one_line"]["n"] == 0 and d["one_line_empty"] == len(one_line)
    # the report's figures, recomputed from the stored records alone
    store = Store(db)
    try:
        for run in ("oracle", "empty"):
            stored = store.tasks(run)
            cut = cutoffs(stored)
            for preset in ("none", "simcopilot"):
                mine = {o.task_id: o for o in store.outcomes(run) if o.postprocess == preset}
                figures = decision_figures(stored, mine, cut, key=f"{run}|{preset}")
                assert figures is not None
                assert json.loads(json.dumps(decisions_json(figures))) == sections[(run, preset)]["decisions"]
    finally:
        store.close()
    html = tmp_path / "report.html"
    assert simpilot("--db", str(db), "report", "oracle", "empty", "--html", str(html)).returncode == 0
    text = html.read_text()
    assert 'id="decisions"' in text and 'data-kind="silence" data-series' in text
    assert tree_digest(repos) == before


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_replay_a_sample_of_the_bundled_decision_scenarios(tmp_path: Path) -> None:
    """The default run's share of the check below: every 10th decision task of each repository."""
    _replay_oracle_and_empty(tmp_path, _sample(tmp_path, 10))


@pytest.mark.slow
@pytest.mark.timeout(3000)
def test_replay_every_bundled_decision_scenario(tmp_path: Path) -> None:
    _replay_oracle_and_empty(tmp_path, sorted(str(p) for p in (project_root() / "scenarios" / "decisions").glob("*.jsonl")))
