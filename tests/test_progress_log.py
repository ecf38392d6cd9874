"""What a long command says in a log file: plain progress lines every few seconds, never more
often, with done/total, rate, time left and phase (``replay/run/progress.py``), and before the
gate of ``mark`` its estimate (``replay/validation/estimate.py``). A fake clock stands for time:
no test sleeps."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from replay.run.progress import ShownProgress, duration, plain_line


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def logged(clock: Clock, interval: float = 5.0) -> tuple[ShownProgress, io.StringIO]:
    sink = io.StringIO()
    return ShownProgress(console=Console(file=sink, force_terminal=False, width=200), interval=interval, clock=clock, ticking=False), sink


def test_a_log_file_gets_a_line_every_interval_and_not_more_often():
    clock = Clock()
    bar, sink = logged(clock)
    with bar:
        row = bar.add_task("validating textindex", total=100)
        clock.now += 4.9
        bar.advance(row, 10)
        assert not bar.tick()  # under five seconds since the start: nothing yet
        clock.now += 0.1
        bar.advance(row, 15)
        assert bar.tick()
        assert not bar.tick()  # the same instant: no second line
        clock.now += 3
        assert not bar.tick()
        clock.now += 2
        assert bar.tick()
    lines = sink.getvalue().splitlines()
    assert lines[0] == "validating textindex: 25/100 done, 5.00 a second, about 15 s left (5 s so far)"
    assert lines[1] == "validating textindex: 25/100 done, 2.50 a second, about 30 s left (10 s so far)"
    assert lines[2] == "validating textindex: 25/100 done, 2.50 a second, about 30 s left (10 s so far)"  # the stop's line
    assert len(lines) == 3


def test_a_finished_row_gets_one_last_line_and_no_more():
    clock = Clock()
    bar, sink = logged(clock)
    with bar:
        first = bar.add_task("run-a", total=4)
        second = bar.add_task("run-b", total=None)
        clock.now += 60
        bar.advance(first, 4)
        bar.advance(second, 3)
        bar.tick()
        clock.now += 125
        bar.tick()
    lines = sink.getvalue().splitlines()
    assert lines == [
        "run-a: 4/4 done in 1 min 00 s",
        "run-b: 3 done, total not known yet (1 min 00 s so far)",
        "run-b: 3 done, total not known yet (3 min 05 s so far)",
        "run-b: 3 done, total not known yet (3 min 05 s so far)",
    ]


def test_a_slow_rate_reads_per_minute_and_markup_is_dropped():
    clock = Clock()
    bar, _ = logged(clock)
    row = bar.add_task("[bold]demo[/]", total=500)
    clock.now += 3600
    bar.advance(row, 120)
    task = bar.tasks[0]
    assert plain_line(task, 3600) == "demo: 120/500 done, 2.0 a minute, about 3 h 10 min left (1 h 00 min so far)"
    assert plain_line(bar.tasks[0], 0) == "demo: 120/500 done, none finished yet (0 s so far)"


def test_a_terminal_keeps_rich_bars_and_prints_no_plain_line():
    clock = Clock()
    sink = io.StringIO()
    bar = ShownProgress(console=Console(file=sink, force_terminal=True, width=100), clock=clock, ticking=False)
    with bar:
        bar.add_task("validating", total=10)
        clock.now += 60
        assert not bar.tick()
    assert "so far" not in sink.getvalue()


def test_durations_read_as_people_write_them():
    assert duration(0.4) == "0 s"
    assert duration(42) == "42 s"
    assert duration(185) == "3 min 05 s"
    assert duration(3720) == "1 h 02 min"


# -- the estimate before a long gate ------------------------------------------------------------


def python_task(n: int, path: str = "pkg/mod.py", language: str = "python"):
    from replay.core.records import Kind, Position, Span, Task

    return Task(f"r:{path}:infill:{n}", "r", language, path, Kind.INFILL, "statements", True,
                Span(n, n + 1, Position(n, 0), Position(n, 1)), "", "x", "0" * 64, 1)


def test_the_estimate_counts_each_candidates_runs_at_the_untouched_suites_time():
    from replay.validation.estimate import estimate_gate
    from replay.validation.repetition import MIN_RUNS, TARGET_RUNS

    tasks = [python_task(n, f"pkg/m{n % 3}.py") for n in range(312)]
    slow = estimate_gate(tasks, 1.2, jobs=2)
    assert (slow.candidates, slow.runs_each, slow.reference_runs) == (312, MIN_RUNS, 3)  # 1.2 s a run: the minimum
    assert slow.test_runs == 312 * 2 + 3 and slow.seconds == pytest.approx(627 * 1.2 / 2)
    quick = estimate_gate(tasks, 0.01, jobs=1)
    assert quick.runs_each == TARGET_RUNS  # tests of hundredths of a second get every run
    java = estimate_gate([python_task(1, "A.java", "java")], 1.2, jobs=1)
    assert java.runs_each == MIN_RUNS + 1  # the probe that narrows a Java task's tests
    assert estimate_gate(tasks, 1.2, jobs=2, full_suite=True).reference_runs == 0


def test_a_long_estimate_names_the_options_that_shorten_it():
    from replay.jobs.mark import SHORTEN, estimate_line
    from replay.validation.estimate import GateEstimate

    long = estimate_line("textindex", GateEstimate(312, 3, 40, 1.2, 1), SHORTEN)
    assert long.startswith("textindex: 312 candidates × ~3 test runs × 1.2 s + 40 reference runs, 1 at a time: about 19 min 31 s")
    assert long.endswith("(--per-kind N, --max-per-file N, --kinds) or run more at once (--jobs N)")
    short = estimate_line("tiny", GateEstimate(6, 5, 1, 0.2, 2), SHORTEN)
    assert short.endswith("about 3 s (a run counted at the untouched suite's time)")


def test_the_options_the_estimate_names_are_marks_own():
    import replay.cli  # noqa: F401  (registers the commands)
    from replay.cli.group import cli
    from replay.jobs.mark import SHORTEN

    mark = cli.commands["mark"]
    names = {opt for param in mark.params for opt in getattr(param, "opts", [])}
    for option in ("--per-kind", "--max-per-file", "--kinds", "--jobs"):
        assert option in SHORTEN and option in names


@pytest.mark.e2e
def test_mark_into_a_log_file_says_its_estimate_then_its_progress(tmp_path):
    import shutil

    from tests.conftest import DATA
    from tests.e2e.conftest import simpilot

    shutil.copytree(DATA / "tinyrepo", tmp_path / "tinyrepo", ignore=shutil.ignore_patterns("__pycache__"))
    done = simpilot("mark", "tinyrepo", "--out", "sc", "--per-kind", "3", "--jobs", "2", cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    estimate = next(n for n, line in enumerate(lines) if " candidates × ~" in line)
    summary = next(n for n, line in enumerate(lines) if line.startswith("tinyrepo: 2 files"))
    assert lines[estimate].startswith("tinyrepo: 6 candidates × ~") and "at a time: about " in lines[estimate]
    assert estimate < summary
    assert any(line.startswith("tinyrepo: the gate's runs: 6/6 done in ") for line in lines[estimate:summary])  # the row's last line
    # the gate's row starts again when its total is known: its rate is the gate's own
    assert not any("the gate's runs" in line for line in lines[:estimate])
