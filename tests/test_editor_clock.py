"""The simulated editor clock (replay/reports/editor_clock.py) on hand-computed cases, and the
budget curve against the direct simulation it shortcuts."""

from __future__ import annotations

import dataclasses
import timeit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.reports.editor_clock import (
    DEFAULT_BUDGETS_MS,
    ClockSettings,
    TaskInput,
    budget_curve,
    common_prefix_length,
    first_line,
    in_time,
    simulate,
    simulate_task,
    summarise,
)

DEFAULT = ClockSettings()  # debounce 75 ms, pause 500 ms, 5 characters a second


def task(
    task_id: str = "t",
    answer: str | None = "abcd",
    truth: str = "abcd",
    passed: bool = True,
    latency_ms: float = 100.0,
    first_token_ms: float | None = None,
) -> TaskInput:
    return TaskInput(task_id, answer, truth, passed, latency_ms, first_token_ms)


# -- the timing rule ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "latency, shown",
    [
        pytest.param(400.0, True, id="75+400=475<=500"),
        pytest.param(425.0, True, id="75+425=500-equal-is-shown"),
        pytest.param(425.5, False, id="75+425.5=500.5>500"),
        pytest.param(450.0, False, id="75+450=525>500"),
        pytest.param(0.0, True, id="75+0=75"),
    ],
)
def test_pause_rule(latency: float, shown: bool) -> None:
    result = simulate_task(task(latency_ms=latency), DEFAULT)
    assert (result.shown, result.cancelled) == (shown, not shown)
    assert in_time(latency, DEFAULT) is shown


def test_pause_rule_with_other_debounce_and_pause() -> None:
    quick = ClockSettings(debounce_ms=200, pause_ms=300)
    assert in_time(100, quick)  # 200 + 100 = 300 <= 300
    assert not in_time(101, quick)  # 200 + 101 = 301 > 300


@pytest.mark.parametrize(
    "latency, shown",
    [
        pytest.param(299.0, True, id="299<=300"),
        pytest.param(300.0, True, id="300<=300-equal-is-shown"),
        pytest.param(301.0, False, id="301>300"),
        # the debounce plays no part under a budget: 75 + 450 = 525 would fail the 500 ms pause
        pytest.param(450.0, False, id="450>300"),
    ],
)
def test_budget_rule_replaces_the_pause_rule(latency: float, shown: bool) -> None:
    result = simulate_task(task(latency_ms=latency), ClockSettings(budget_ms=300))
    assert (result.shown, result.cancelled) == (shown, not shown)


def test_a_generous_budget_shows_what_the_pause_rule_cancels() -> None:
    slow = task(latency_ms=450.0)  # 75 + 450 = 525 > 500: cancelled under the pause rule
    assert simulate_task(slow, DEFAULT).cancelled
    assert simulate_task(slow, ClockSettings(budget_ms=450)).shown  # 450 <= 450


def test_first_token_latency_is_used_when_asked() -> None:
    streamed = task(latency_ms=900.0, first_token_ms=300.0)
    assert simulate_task(streamed, DEFAULT).cancelled  # total: 75 + 900 = 975 > 500
    result = simulate_task(streamed, ClockSettings(latency="first_token"))  # first token: 75 + 300 = 375 <= 500
    assert result.shown and result.latency_ms == 300.0 and not result.first_token_missing


def test_a_missing_first_token_falls_back_to_the_total_and_is_counted() -> None:
    first_token = ClockSettings(latency="first_token")
    tasks = [task("a", latency_ms=400.0), task("b", latency_ms=100.0, first_token_ms=50.0), task("c", latency_ms=600.0)]
    results = simulate(tasks, first_token)
    assert [r.latency_ms for r in results] == [400.0, 50.0, 600.0]
    assert [r.first_token_missing for r in results] == [True, False, True]
    assert [r.shown for r in results] == [True, True, False]  # 475 <= 500, 125 <= 500, 675 > 500
    assert summarise(results, first_token).first_token_missing == 2
    assert summarise(simulate(tasks, DEFAULT), DEFAULT).first_token_missing == 0  # only counted when asked for


def test_a_failed_or_empty_answer_in_time_is_neither_shown_nor_cancelled() -> None:
    for answer in (None, ""):
        result = simulate_task(task(answer=answer, passed=False, latency_ms=10.0), DEFAULT)
        assert (result.shown, result.cancelled, result.accepted) == (False, False, False)
        assert (result.keystrokes_saved, result.chars_accepted) == (0, 0)
    late_failure = simulate_task(task(answer=None, passed=False, latency_ms=1000.0), DEFAULT)
    assert late_failure.cancelled and not late_failure.shown  # the developer typed on before it failed


# -- acceptance and keystrokes ------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer, truth, saved",
    [
        pytest.param("abcd", "abcd", 4, id="exact"),
        pytest.param("abcX", "abcd", 3, id="partial"),
        pytest.param("abcdef", "abcd", 4, id="longer-than-truth"),
        pytest.param("ab", "abcd", 2, id="shorter-than-truth"),
        pytest.param("Xbcd", "abcd", 0, id="wrong-from-the-start"),
        pytest.param("", "abcd", 0, id="empty-answer"),
        pytest.param("abcd", "", 0, id="empty-truth"),
        pytest.param("x = '🐍é'\ny", "x = '🐍é'\nz", 9, id="unicode-counts-code-points"),  # x,space,=,space,',🐍,é,',\n
        pytest.param("s = 'ü'", "s = 'u'", 5, id="unicode-differs"),  # 'ü' is not 'u': s,space,=,space,'
    ],
)
def test_common_prefix_length(answer: str, truth: str, saved: int) -> None:
    assert common_prefix_length(answer, truth) == saved


@pytest.mark.parametrize(
    "answer, truth, saved",
    [
        pytest.param("abcd", "abcd", 4, id="exact"),
        pytest.param("abcX", "abcd", 3, id="partial"),
        pytest.param("", "abcd", 0, id="empty"),
        pytest.param("🐍🐍x", "🐍🐍y", 2, id="unicode"),
    ],
)
def test_keystrokes_saved_of_a_shown_answer(answer: str, truth: str, saved: int) -> None:
    assert simulate_task(task(answer=answer, truth=truth, latency_ms=100.0), DEFAULT).keystrokes_saved == saved


def test_a_cancelled_answer_saves_nothing() -> None:
    result = simulate_task(task(answer="abcd", truth="abcd", latency_ms=450.0), DEFAULT)  # 525 > 500
    assert (result.keystrokes_saved, result.accepted, result.chars_accepted) == (0, False, 0)


def test_a_shown_answer_that_fails_saves_keystrokes_but_is_not_accepted() -> None:
    result = simulate_task(task(answer="abcX", truth="abcd", passed=False), DEFAULT)
    assert (result.shown, result.accepted, result.chars_accepted, result.keystrokes_saved) == (True, False, 0, 3)


@pytest.mark.parametrize(
    "text, line",
    [("abc\ndef", "abc"), ("abc  \t\ndef", "abc"), ("abc\r\ndef", "abc"), ("abc", "abc"), ("\nabc", ""), ("  x = 1  ", "  x = 1")],
)
def test_first_line(text: str, line: str) -> None:
    assert first_line(text) == line


@pytest.mark.parametrize(
    "answer, truth, passed, accepted",
    [
        pytest.param("return x\n    y = 2", "return x\n    y = 3", False, True, id="same-first-line-failing"),
        pytest.param("return x   \nfoo", "return x\nbar", False, True, id="trailing-space-ignored"),
        pytest.param("return x\r\n", "return x\n", False, True, id="crlf"),
        pytest.param("return y\n    y = 3", "return x\n    y = 3", True, False, id="other-first-line-passing"),
        pytest.param("  return x", "return x", True, False, id="leading-space-counts"),
    ],
)
def test_first_line_acceptance(answer: str, truth: str, passed: bool, accepted: bool) -> None:
    glance = ClockSettings(acceptance="first_line")
    result = simulate_task(task(answer=answer, truth=truth, passed=passed), glance)
    assert result.accepted is accepted
    assert result.chars_accepted == (len(answer) if accepted else 0)
    assert simulate_task(task(answer=answer, truth=truth, passed=passed), DEFAULT).accepted is passed  # the default rule


# -- the summary ----------------------------------------------------------------------------------

FIVE = [
    task("a", "abcd", "abcd", True, 100.0),  # 175 <= 500 shown, passes: 4 accepted, saves 4
    task("b", "abcX", "abcd", False, 425.0),  # 500 <= 500 shown, fails: 0 accepted, saves 3
    task("c", "hello", "hello world", True, 200.0),  # 275 shown, passes: 5 accepted, saves 5
    task("d", "abcd", "abcd", True, 450.0),  # 525 > 500 cancelled
    task("e", None, "xyz", False, 50.0),  # 125 in time, but the request failed: unanswered
]


def test_summary_of_hand_computed_tasks() -> None:
    summary = summarise(simulate(FIVE, DEFAULT), DEFAULT)
    assert summary == dataclasses.replace(
        summary,  # every field is spelled out below, so the comparison is complete
        budget_ms=None,
        tasks=5,
        shown=3,  # a, b, c
        cancelled=1,  # d
        unanswered=1,  # e
        accepted=2,  # a, c
        shown_rate=3 / 5,
        acceptance_rate=2 / 5,
        accepted_per_shown=2 / 3,
        chars_accepted=9,  # 4 + 5
        keystrokes_saved=12,  # 4 + 3 + 5
        truth_chars=26,  # 4 + 4 + 11 + 4 + 3
        keystrokes_saved_share=12 / 26,
        seconds_saved=12 / 5.0,  # 2.4 s at 5 characters a second
        first_token_missing=0,
    )
    assert summary.seconds_saved == pytest.approx(2.4)


def test_typing_speed_scales_the_seconds_saved() -> None:
    slow = ClockSettings(chars_per_second=2.0)
    assert summarise(simulate(FIVE, slow), slow).seconds_saved == 6.0  # 12 keystrokes / 2 per second


def test_summary_of_nothing_is_zeros_not_nan() -> None:
    summary = summarise([], DEFAULT)
    assert (summary.tasks, summary.shown_rate, summary.acceptance_rate, summary.accepted_per_shown) == (0, 0.0, 0.0, None)
    assert (summary.keystrokes_saved_share, summary.seconds_saved) == (0.0, 0.0)


def test_accepted_per_shown_is_none_when_nothing_is_shown() -> None:
    late = [task("a", latency_ms=1000.0), task("b", latency_ms=2000.0)]
    summary = summarise(simulate(late, DEFAULT), DEFAULT)
    assert (summary.shown, summary.cancelled, summary.accepted_per_shown, summary.shown_rate) == (0, 2, None, 0.0)


# -- the budget curve -----------------------------------------------------------------------------


def test_budget_curve_by_hand() -> None:
    curve = budget_curve(FIVE, DEFAULT, [40, 50, 100, 425, 449.9, 450])
    # latencies: e 50 (failed), a 100, c 200, b 425, d 450
    assert [p.budget_ms for p in curve] == [40, 50, 100, 425, 449.9, 450]
    assert [p.shown for p in curve] == [0, 0, 1, 3, 3, 4]  # e arrives at 50 but has nothing to show
    assert [p.cancelled for p in curve] == [5, 4, 3, 1, 1, 0]
    assert [p.unanswered for p in curve] == [0, 1, 1, 1, 1, 1]
    assert [p.accepted for p in curve] == [0, 0, 1, 2, 2, 3]  # a at 100, c at 200, d at 450
    assert [p.chars_accepted for p in curve] == [0, 0, 4, 9, 9, 13]
    assert [p.keystrokes_saved for p in curve] == [0, 0, 4, 12, 12, 16]
    assert curve[-1].shown_rate == 4 / 5 and curve[-1].acceptance_rate == 3 / 5
    assert curve[-1].keystrokes_saved_share == 16 / 26


def test_budget_curve_keeps_the_order_given_and_uses_the_defaults() -> None:
    assert [p.shown for p in budget_curve(FIVE, DEFAULT, [450, 40, 100])] == [4, 0, 1]
    default = budget_curve(FIVE, DEFAULT)
    assert [p.budget_ms for p in default] == list(DEFAULT_BUDGETS_MS) == [100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000]
    assert [p.shown for p in default] == [1, 2, 2, 4, 4, 4, 4, 4, 4, 4]  # a ≤100, c ≤200, b and d ≤500


def test_budget_curve_with_first_token_latency() -> None:
    streamed = [task("a", latency_ms=900.0, first_token_ms=150.0), task("b", latency_ms=120.0)]
    curve = budget_curve(streamed, ClockSettings(latency="first_token"), [100, 150, 1000])
    assert [p.shown for p in curve] == [0, 2, 2]  # a by its first token 150, b by its total 120
    assert [p.first_token_missing for p in curve] == [1, 1, 1]
    assert budget_curve([], DEFAULT, [100])[0].tasks == 0


def test_bad_settings_and_inputs_are_refused() -> None:
    with pytest.raises(ValueError, match="typing speed must be positive"):
        ClockSettings(chars_per_second=0)
    with pytest.raises(ValueError, match="budget_ms must be a non-negative"):
        ClockSettings(budget_ms=-1)
    with pytest.raises(ValueError, match="acceptance must be one of pass, first_line"):
        ClockSettings(acceptance="tab")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="latency must be one of total, first_token"):
        ClockSettings(latency="ttft")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="task 'x': latency_ms must be a non-negative"):
        task("x", latency_ms=float("nan"))
    with pytest.raises(ValueError, match="budgets must be non-negative"):
        budget_curve(FIVE, DEFAULT, [100, -5])


latencies = st.floats(min_value=0, max_value=10_000, allow_nan=False)
tasks_strategy = st.lists(
    st.builds(
        TaskInput,
        task_id=st.text(max_size=3),
        answer=st.none() | st.text(alphabet="ab\n🐍 ", max_size=6),
        truth=st.text(alphabet="ab\n🐍 ", max_size=6),
        passed=st.booleans(),
        latency_ms=latencies,
        first_token_ms=st.none() | latencies,
    ),
    max_size=30,
)
clock_settings = st.builds(
    ClockSettings,
    chars_per_second=st.floats(min_value=0.5, max_value=20),
    acceptance=st.sampled_from(["pass", "first_line"]),
    latency=st.sampled_from(["total", "first_token"]),
)


@settings(max_examples=200, deadline=None)
@given(tasks=tasks_strategy, chosen=clock_settings, budgets=st.lists(latencies, max_size=8))
def test_budget_curve_equals_direct_simulation_and_grows_with_the_budget(
    tasks: list[TaskInput], chosen: ClockSettings, budgets: list[float]
) -> None:
    curve = budget_curve(tasks, chosen, budgets)
    for point, budget in zip(curve, budgets, strict=True):
        direct = dataclasses.replace(chosen, budget_ms=budget)
        assert point == summarise(simulate(tasks, direct), direct)
    ordered = sorted(curve, key=lambda p: p.budget_ms or 0.0)
    for smaller, larger in zip(ordered, ordered[1:], strict=False):
        assert smaller.shown <= larger.shown
        assert smaller.accepted <= larger.accepted
        assert smaller.keystrokes_saved <= larger.keystrokes_saved
        assert smaller.cancelled >= larger.cancelled


def test_budget_curve_costs_well_under_a_millisecond_per_request() -> None:
    many = [task(str(i), "x = compute(a, b)\n", "x = compute(a, c)\n", i % 3 == 0, float(i * 7 % 4000)) for i in range(5000)]
    seconds = min(timeit.repeat(lambda: budget_curve(many, DEFAULT), number=1, repeat=3))
    assert seconds / len(many) < 1e-4  # per request, all ten default budgets together; measured about 3 µs
