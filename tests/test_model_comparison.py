"""Several models on the same tasks: pairing, pass@k, ranking, the paired tests and every rendering.

The runs are made by hand so that every figure checked here can be worked out on paper: a task's
samples pass or fail in a fixed pattern, the line-0 match follows the verdict, and the cosine is
0.9 for a pass and 0.3 for a failure.
"""

from __future__ import annotations

import json

import pytest
from rich.console import Console

from replay.reports.model_comparison import ModelRun, SampleScore, compare_models
from replay.reports.model_html import html
from replay.reports.model_text import markdown, render, to_json
from replay.scoring.stats import mcnemar_exact

N = 5
TASKS = [f"t{i:02d}" for i in range(20)]
# passing samples per task: alpha's are its first ones (sample 0 passes when any does), beta's its
# last ones (sample 0 passes only when all do), gamma passes its first two on every task
ALPHA = [5, 5, 5, 5, 4, 4, 4, 3, 3, 3, 2, 2, 2, 1, 1, 1, 0, 0, 0, 0]  # 50 of 100: pass@1 .50, pass@5 16/20
BETA = [5] * 6 + [3] * 6 + [0] * 8  # 48 of 100: pass@1 .48, pass@5 12/20
GAMMA = [2] * 20  # 40 of 100: pass@1 .40, pass@5 20/20
STRATA = {
    t: {"language": "python" if i % 2 == 0 else "java", "category": "api_usage" if i < 10 else "code_purpose"} for i, t in enumerate(TASKS)
}
RESAMPLES = 500


def sample(passed: bool) -> SampleScore:
    return SampleScore(passed, int(passed), 0.9 if passed else 0.3)


def samples(passing: int, n: int = N, last: bool = False) -> list[SampleScore]:
    verdicts = [i < passing for i in range(n)]
    return [sample(v) for v in (verdicts[::-1] if last else verdicts)]


def run(model: str, counts: list[int], last: bool = False, run_id: str | None = None, **extra: list[SampleScore]) -> ModelRun:
    tasks = {t: samples(c, last=last) for t, c in zip(TASKS, counts, strict=True)}
    return ModelRun(model, run_id or f"run-{model}", {**tasks, **extra})


def three() -> list[ModelRun]:
    """alpha has a task nobody else has; every run has "short", beta with one sample fewer; every
    run has "empty" with no sample."""
    return [
        run("gamma", GAMMA, short=samples(1), empty=[]),
        run("alpha", ALPHA, short=samples(1), empty=[], only_alpha=samples(3)),
        run("beta", BETA, last=True, short=samples(1, n=N - 1), empty=[]),
    ]


def test_pass_at_1_and_pass_at_n_match_the_hand_computation() -> None:
    c = compare_models(three(), STRATA, resamples=RESAMPLES)
    by_name = {m.model: m for m in c.models}
    assert c.tasks == tuple(TASKS) and c.n == N
    for name, counts, p1 in (("alpha", ALPHA, 0.50), ("beta", BETA, 0.48), ("gamma", GAMMA, 0.40)):
        m = by_name[name]
        assert m.tasks == 20 and m.n == N
        assert m.pass_at_1 == pytest.approx(p1) == pytest.approx(sum(counts) / (N * 20))
        assert m.pass_at_n == pytest.approx(sum(1 for x in counts if x) / 20)  # pass@5 of 5 samples: any pass
        assert m.low <= m.pass_at_1 <= m.high
        assert m.line0 == pytest.approx(p1)
        assert m.cosine == pytest.approx(0.3 + 0.6 * p1)
        assert m.best_at_1 == pytest.approx(m.cosine)  # best@1 is the mean
        assert m.best_at_n == pytest.approx(0.3 + 0.6 * m.pass_at_n)  # best@5 is the best sample


def test_pass_at_n_with_fewer_samples_than_passes_needed() -> None:
    """Two samples a task: task a has one pass (pass@1 1/2, pass@2 1), task b none."""
    runs = [ModelRun("m", "r", {"a": samples(1, n=2), "b": samples(0, n=2)})]
    m = compare_models(runs, {}, by=(), resamples=RESAMPLES).models[0]
    assert m.n == 2 and m.pass_at_1 == pytest.approx(0.25) and m.pass_at_n == pytest.approx(0.5)


def test_strata_scores_by_hand() -> None:
    c = compare_models(three(), STRATA, resamples=RESAMPLES)
    alpha = next(m for m in c.models if m.model == "alpha")
    python, java = alpha.stratum("language", "python"), alpha.stratum("language", "java")
    api, purpose = alpha.stratum("category", "api_usage"), alpha.stratum("category", "code_purpose")
    assert python is not None and java is not None and api is not None and purpose is not None
    assert (python.tasks, python.pass_at_1, python.pass_at_n) == (10, pytest.approx(26 / 50), pytest.approx(8 / 10))
    assert (java.tasks, java.pass_at_1) == (10, pytest.approx(24 / 50))
    assert (api.pass_at_1, purpose.pass_at_1) == (pytest.approx(41 / 50), pytest.approx(9 / 50))
    assert python.low <= python.pass_at_1 <= python.high
    assert c.values("language") == ("java", "python") and c.values("category") == ("api_usage", "code_purpose")


def test_a_task_without_the_stratum_key_is_unknown() -> None:
    strata = {t: v for t, v in STRATA.items() if t != "t00"}
    c = compare_models(three(), strata, by=("language",), resamples=RESAMPLES)
    assert c.values("language") == ("java", "python", "unknown")
    assert c.models[0].stratum("language", "unknown") is not None


def test_left_out_tasks_are_reported_with_their_reason() -> None:
    c = compare_models(three(), STRATA, resamples=RESAMPLES)
    assert "only_alpha" not in c.tasks and "short" not in c.tasks and "empty" not in c.tasks
    excluded = {e.model: e for e in c.excluded}
    assert [e.model for e in c.excluded] == ["gamma", "alpha", "beta"]  # the order the runs were given
    assert excluded["alpha"].missing == ("only_alpha",)
    assert excluded["beta"].missing == () and excluded["gamma"].missing == ()
    assert all(e.mismatched == ("short",) and e.empty == ("empty",) for e in c.excluded)
    assert excluded["alpha"].count == 3 and excluded["beta"].count == 2
    data = to_json(c)
    assert {e["model"]: e["count"] for e in data["excluded"]} == {"gamma": 2, "alpha": 3, "beta": 2}
    lines = markdown(c).splitlines()
    assert any(line.startswith("- alpha: 3 task(s) left out — 1 missing in another run") for line in lines)
    assert any(line.startswith("- gamma, beta: 2 task(s) left out") for line in lines)  # runs that lost the same tasks: one line


def test_models_are_ranked_by_pass_at_1_then_by_name() -> None:
    c = compare_models(three(), STRATA, resamples=RESAMPLES)
    assert [m.model for m in c.models] == ["alpha", "beta", "gamma"]
    tied = compare_models([run("zeta", ALPHA), run("eta", ALPHA), run("beta", BETA, last=True)], STRATA, resamples=RESAMPLES)
    assert [m.model for m in tied.models] == ["eta", "zeta", "beta"]


def test_two_runs_of_one_model_are_told_apart_by_run_id() -> None:
    c = compare_models([run("m", ALPHA, run_id="r1"), run("m", GAMMA, run_id="r2")], STRATA, resamples=RESAMPLES)
    assert [m.model for m in c.models] == ["m (r1)", "m (r2)"]


def test_paired_tests_on_every_pair() -> None:
    c = compare_models(three(), STRATA, resamples=RESAMPLES)
    pairs = {(p.first, p.second): p for p in c.pairs}
    assert list(pairs) == [("alpha", "beta"), ("alpha", "gamma"), ("beta", "gamma")]
    # sample 0 passes: alpha on t00–t15 (any pass), beta on t00–t05 (all pass), gamma everywhere
    assert (pairs["alpha", "beta"].only_first, pairs["alpha", "beta"].only_second) == (10, 0)
    assert (pairs["alpha", "gamma"].only_first, pairs["alpha", "gamma"].only_second) == (0, 4)
    assert (pairs["beta", "gamma"].only_first, pairs["beta", "gamma"].only_second) == (0, 14)
    assert pairs["alpha", "beta"].mcnemar_p == pytest.approx(2 / 2**10) == mcnemar_exact(10, 0)
    assert pairs["alpha", "gamma"].mcnemar_p == mcnemar_exact(0, 4)
    ab = pairs["alpha", "beta"]
    assert ab.difference == pytest.approx(0.02) and ab.low <= ab.difference <= ab.high and 0 <= ab.bootstrap_p <= 1
    assert pairs["alpha", "gamma"].difference == pytest.approx(0.10)
    # flips only for neighbours in the ranking
    assert [(p.first, p.second) for p in c.neighbours] == [("alpha", "beta"), ("beta", "gamma")]
    assert all(p.flips is not None and 0 <= p.flips <= 1 for p in c.neighbours)
    assert pairs["alpha", "gamma"].flips is None


def test_the_same_seed_gives_the_same_json_and_another_seed_other_intervals() -> None:
    first = json.dumps(to_json(compare_models(three(), STRATA, resamples=RESAMPLES, seed=7)), sort_keys=True)
    again = json.dumps(to_json(compare_models(three(), STRATA, resamples=RESAMPLES, seed=7)), sort_keys=True)
    other = json.dumps(to_json(compare_models(three(), STRATA, resamples=RESAMPLES, seed=8)), sort_keys=True)
    assert first == again
    assert first != other


def test_json_holds_everything_and_survives_a_round_trip() -> None:
    data = to_json(compare_models(three(), STRATA, resamples=RESAMPLES))
    assert json.loads(json.dumps(data)) == data
    assert len(data["pairs"]) == 3 and data["neighbours"] == [["alpha", "beta"], ["beta", "gamma"]]
    assert [m["model"] for m in data["models"]] == ["alpha", "beta", "gamma"]
    assert {"pass_at_1", "low", "high", "pass_at_n", "best_at_1", "best_at_n", "line0", "cosine", "strata"} <= set(data["models"][0])
    assert data["tasks"] == 20 and data["samples_per_task"] == N and data["resamples"] == RESAMPLES


def test_markdown_names_every_model_and_stratum() -> None:
    text = markdown(compare_models(three(), STRATA, resamples=RESAMPLES))
    for word in ("alpha", "beta", "gamma", "python", "java", "api_usage", "code_purpose", "line-0 EM", "cosine", "DevBench", "pass@5"):
        assert word in text
    tables = [line for line in text.splitlines() if line.startswith("|---")]
    assert len(tables) == 4  # models, language, category, neighbours


def test_markdown_escapes_a_pipe_in_a_name() -> None:
    text = markdown(compare_models([run("a|b", ALPHA), run("c", GAMMA)], STRATA, resamples=RESAMPLES))
    assert "a\\|b" in text


def test_render_shows_the_tables() -> None:
    console = Console(record=True, width=80, color_system=None)
    render(compare_models(three(), STRATA, resamples=RESAMPLES), console)
    text = console.export_text()
    for word in ("alpha", "gamma", "python", "code_purpose", "line-0 EM", "DevBench", "next model", "McNemar"):
        assert word in text


def test_html_escapes_names_and_fetches_nothing() -> None:
    runs = [run("<b>x</b>", ALPHA), run("gamma", GAMMA)]
    page = html(compare_models(runs, STRATA, resamples=RESAMPLES))
    assert "<b>x</b>" not in page
    assert "&lt;b&gt;x&lt;/b&gt;" in page
    assert "<script" not in page and "src=" not in page and "href" not in page and "@import" not in page
    assert page.count("<svg") == 3  # every model, then one small chart per language
    assert 'data-language="python"' in page and 'data-language="java"' in page
    assert page.count('class="bar"') == 2 * 3


def test_nothing_in_common_is_an_error() -> None:
    a = ModelRun("a", "r1", {"x": samples(1)})
    b = ModelRun("b", "r2", {"y": samples(1)})
    with pytest.raises(ValueError, match="no task in common"):
        compare_models([a, b], {})
    c = ModelRun("c", "r3", {"x": samples(1, n=3)})
    with pytest.raises(ValueError, match="no task in common"):
        compare_models([a, c], {})
    with pytest.raises(ValueError, match="no run"):
        compare_models([], {})
