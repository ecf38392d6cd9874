"""The scoreboard on hand-made runs: every figure worked out by hand from the stored records."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from replay.cli import cli
from replay.config.price import Price
from replay.core.records import Completion, Kind, Outcome, Position, Span, Status, Task, Timing
from replay.reports.editor_clock import ClockSettings
from replay.reports.scoreboard import Request, build, latency, markdown, page, pareto, render, score_row, to_json
from replay.store import RunInfo, Store

TRUTH = "total += x"


def task(i: int) -> Task:
    span = Span(0, 1, Position(i, 0), Position(i, 1))
    return Task(f"t{i}", "r", "python", "a.py", Kind.INFILL, "loop_body", True, span, "    ", TRUTH, "0" * 64, 1, ("loop_body",), 3, 5)


def fill(store: Store, run_id: str, model: str, answers: list[tuple[str, bool, Timing | None, float]]) -> None:
    """A run of ``model``: task i answered ``answers[i]`` = (text, passed, timing, client latency)."""
    tasks = [task(i) for i in range(len(answers))]
    store.create_run(RunInfo(run_id, "2026-01-01", "0", model, {}, ("none",), (), "h", "bwrap", None), tasks)
    for t, (text, passed, timing, client_ms) in zip(tasks, answers, strict=True):
        store.add_completions(run_id, [Completion(t.id, text, None, client_ms, {}, 0, timing)])
        store.add_outcome(run_id, Outcome(t.id, "none", text, Status.PASS if passed else Status.FAIL))


def streamed(first: float, total: float, prompt: int = 1000, answer: int = 10) -> Timing:
    return Timing(total, first, 0.0, prompt, answer, "usage", 1, True)


def test_latency_percentiles_are_numpys_linear_ones() -> None:
    # p50 of 100, 200, 300, 400 is 250; p90 is 300 + 0.7 * 100 = 370
    assert latency([400.0, 100.0, 300.0, 200.0]) == latency([100.0, 200.0, 300.0, 400.0])
    lat = latency([100.0, 200.0, 300.0, 400.0])
    assert (lat.n, lat.p50, lat.p90) == (4, 250.0, 370.0)
    assert latency([]).p50 is None


def test_a_row_from_requests() -> None:
    requests = [
        Request("a", TRUTH, TRUTH, True, 300.0, 100.0, 1000, 4, "usage", False),  # 75 + 300 <= 500: shown, passes: accepted
        Request("b", "total -= x", TRUTH, False, 350.0, 120.0, 1000, 4, "usage", False),  # shown, fails: saves "total " (6)
        Request("c", TRUTH + "\nprint(total)", TRUTH, True, 900.0, 200.0, 1000, 8, "usage", False),  # 975 > 500: too late
        Request("d", None, TRUTH, False, 50.0, None, None, None, "", False),  # the request failed
    ]
    price = Price(input_per_mtok=1.0, output_per_mtok=10.0)
    row = score_row("m", "run", "none", requests, ClockSettings(), price, [400.0, 1000.0])
    assert row.tasks == 4 and row.pass_at_1 == 0.5
    assert (row.total.n, row.total.p50) == (3, 350.0)  # the failed request has no answer to time
    assert (row.first_token.n, row.first_token.p50) == (3, 120.0)
    assert row.by_lines["1 line"].n == 2 and row.by_lines["2-5 lines"].n == 1 and row.by_lines["6+ lines"].n == 0
    assert (row.clock.shown, row.clock.accepted, row.clock.keystrokes_saved) == (2, 1, len(TRUTH) + 6)
    # cost: a, b and c each 1000 prompt tokens at 1/M and 4, 4, 8 answer tokens at 10/M; d asked nothing countable
    assert row.cost is not None
    assert abs(row.cost.total - (3 * 1000 * 1.0 + (4 + 4 + 8) * 10.0) / 1e6) < 1e-12
    assert row.cost.per_passing is not None and abs(row.cost.per_passing - row.cost.total / 2) < 1e-12
    # the curve: within 400 ms a and b are shown (c at 900 and d at 50 without an answer are not); within 1000 ms c too
    assert [point.shown for point in row.curve] == [2, 3]
    assert row.tokens == "usage"


def test_the_pareto_front_keeps_what_nothing_beats() -> None:
    def row(model: str, passed: int, ms: float):
        requests = [Request(f"t{i}", TRUTH, TRUTH, i < passed, ms, None, None, None, "", False) for i in range(4)]
        return score_row(model, model, "none", requests, ClockSettings(), None, [])

    rows = pareto([row("fast", 1, 100.0), row("good", 3, 800.0), row("worse", 1, 900.0), row("both", 3, 100.0)])
    assert {r.model: r.front for r in rows} == {"fast": False, "good": False, "worse": False, "both": True}
    rows = pareto([row("fast", 1, 100.0), row("good", 3, 800.0)])
    assert all(r.front for r in rows)  # a trade-off: both on the front


def test_the_scoreboard_from_stored_runs_and_its_command(tmp_path: Path) -> None:
    db = tmp_path / "results.sqlite"
    store = Store(db)
    fill(store, "quick", "openai-completions:quick@http://x/v1", [(TRUTH, True, streamed(40, 120), 130.0), ("x", False, streamed(50, 150), 160.0)])
    fill(store, "slow", "openai-completions:slow@http://x/v1", [(TRUTH, True, None, 900.0), (TRUTH, True, None, 1100.0)])
    board = build(store, ["quick", "slow"], ["none"], ClockSettings(), lambda model: None, [200.0, 1000.0, 2000.0])
    store.close()
    quick, slow = board.rows
    assert (quick.pass_at_1, slow.pass_at_1) == (0.5, 1.0)
    assert quick.first_token.p50 == 45.0 and slow.first_token.n == 0  # the untimed run has no first token
    assert slow.total.p50 == 1000.0  # the client's round trips stand in for the total
    assert quick.front and slow.front
    assert [p.shown for p in slow.curve] == [0, 1, 2]
    text = render(board)
    assert "quick" in text and "slow" in text and "—" in text and "Pareto" in text
    assert markdown(board).count("\n") == 3
    assert json.loads(json.dumps(to_json(board)))["rows"][0]["model"] == "openai-completions:quick@http://x/v1"
    html = page(board)
    assert html.count('class="point"') == 2 and "<polyline" in html

    (tmp_path / "models.toml").write_text(
        '[models."openai-completions:quick@http://x/v1"]\nkind = "openai-completions"\nbase_url = "http://x/v1"\nmodel = "quick"\n'
        "price_input_per_mtok = 1.0\nprice_output_per_mtok = 2.0\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(
        cli,
        ["--db", str(db), "scoreboard", "quick", "slow", "--models", str(tmp_path / "models.toml"), "--json", "--html", str(tmp_path / "s.html")],
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output[result.output.index("{") :])["rows"]
    # quick: two requests of 1000 prompt and 10 answer tokens at 1 and 2 per million; one passed
    assert rows[0]["cost"]["total"] == 2 * (1000 * 1.0 + 10 * 2.0) / 1e6 and rows[0]["cost"]["passing"] == 1
    assert rows[1]["cost"] is None and (tmp_path / "s.html").is_file()


def test_the_report_carries_the_scoreboard_of_its_series(tmp_path: Path) -> None:
    from replay.reports.html_report import render_html
    from replay.reports.report_build import build_report
    from replay.reports.report_json import to_json as report_json

    store = Store(tmp_path / "results.sqlite")
    fill(store, "quick", "m", [(TRUTH, True, streamed(40, 120), 130.0), ("x", False, streamed(50, 150), 160.0)])
    report = build_report(store, ["quick"])
    store.close()
    assert report.board is not None and [(r.run_id, r.preset) for r in report.board.rows] == [("quick", "none")]
    assert report.board.rows[0].first_token.p50 == 45.0
    assert report_json(report)["scoreboard"]["rows"][0]["total"]["p50"] == 135.0
    html = render_html(report)
    assert 'id="latency"' in html and html.count('class="point"') == 1
