"""Progress when standard error is a file or a pipe: plain lines every few seconds, never more
often, with done/total, rate, time left and phase (``replay/run/progress.py``). A fake clock
stands for time: no test sleeps."""

from __future__ import annotations

import io

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
