"""Progress on standard error: one bar per run, or rows on a bar a caller already shows.

On a terminal, rich draws live bars. When standard error is a file or a pipe (a command run under
``nohup``, ``… 2> mark.log``, CI), rich draws nothing until the bar stops, so a 19-minute ``mark``
printed its first line and then nothing until its summary. There, :class:`ShownProgress` prints a
plain line instead, at most every :data:`INTERVAL` seconds, for every row still going: its phase
(the row's description), done/total, the rate so far and the time left at that rate; and one line
when a row ends. The clock is injectable (``clock``) so that the lines are tested without sleeping.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.markup import render
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

err = Console(stderr=True, soft_wrap=True)
INTERVAL = 5.0  # seconds between two plain lines, at least: often enough to see life, rarely enough to read a log
_CHECK_EVERY = 1.0  # how often the ticking thread asks whether a line is due


def duration(seconds: float) -> str:
    """``seconds`` as a person reads a duration in a log: ``42 s``, ``3 min 05 s``, ``1 h 02 min``."""
    whole = max(0, round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s"
    return f"{secs} s"


def plain_line(task: Task, elapsed: float) -> str:
    """One row's state as plain text: phase, done/total, the average rate since the row began and
    the time left at that rate (the average, not rich's last-30-seconds speed: a gate whose runs
    come in bursts would otherwise show no rate at all between two bursts)."""
    phase = render(task.description).plain
    done = int(task.completed)
    rate = done / elapsed if elapsed > 0 else 0.0
    if task.total is None:
        return f"{phase}: {done} done, total not known yet ({duration(elapsed)} so far)"
    total = int(task.total)
    if task.finished:
        return f"{phase}: {done}/{total} done in {duration(elapsed)}"
    pace = f"{rate:.2f} a second" if rate >= 0.1 else (f"{60 * rate:.1f} a minute" if rate > 0 else "none finished yet")
    left = f", about {duration((total - done) / rate)} left" if rate > 0 else ""
    return f"{phase}: {done}/{total} done, {pace}{left} ({duration(elapsed)} so far)"


class ShownProgress(Progress):
    """A rich progress display that, on a console that is not a terminal, prints
    :func:`plain_line` for each row every ``interval`` seconds (and not more often) instead of
    drawing bars nobody sees; ``clock`` replaces the time (tests), ``ticking=False`` leaves the
    lines to explicit :meth:`tick` calls (tests)."""

    def __init__(
        self,
        *columns: str | ProgressColumn,
        console: Console,
        interval: float = INTERVAL,
        clock: Callable[[], float] | None = None,
        ticking: bool = True,
    ) -> None:
        self.plain = not console.is_terminal
        super().__init__(*columns, console=console, transient=False, get_time=clock, disable=self.plain)
        self.interval = interval
        self._ticking = ticking and self.plain
        self._last: float | None = None  # when the last lines were printed (None: not started)
        self._ended: set[TaskID] = set()  # rows whose last line is printed
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        super().start()
        if self.plain:
            self._last = self.get_time()
            if self._ticking:
                self._thread = threading.Thread(target=self._tick_loop, name="simpilot-progress-lines", daemon=True)
                self._thread.start()

    def stop(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None
        if self.plain and self._last is not None:
            self._print(self._lines(every=True))
            self._last = None
        super().stop()

    def _tick_loop(self) -> None:
        while not self._stop.wait(min(_CHECK_EVERY, self.interval)):
            self.tick()

    def tick(self) -> bool:
        """Print the rows' lines if :data:`INTERVAL` has passed since the last ones (True: printed)."""
        if not self.plain or self._last is None or self.get_time() - self._last < self.interval:
            return False
        self._last = self.get_time()
        self._print(self._lines(every=False))
        return True

    def _lines(self, every: bool) -> list[str]:
        """The line of each row going, and the last line of each row ended since the last lines;
        with ``every`` (when the display stops), of every row not ended yet."""
        lines = []
        with self._lock:
            tasks = list(self._tasks.values())
        for task in tasks:
            if task.id in self._ended:
                continue
            if task.finished or every:
                self._ended.add(task.id)
            ended = task.finished_time if task.finished and task.finished_time is not None else None
            lines.append(plain_line(task, ended if ended is not None else task.elapsed or 0.0))
        return lines

    def _print(self, lines: list[str]) -> None:
        for line in lines:
            self.console.print(line, markup=False, highlight=False)


def progress_bar(console: Console | None = None) -> Progress:
    """A bar with counts, the time taken and an estimate of the time left (plain lines when
    standard error is not a terminal)."""
    return ShownProgress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("[dim]left[/]"),
        TimeRemainingColumn(),
        console=console or err,
    )


@contextmanager
def progress(description: str, bar: Progress | None = None) -> Iterator[tuple[Progress, TaskID]]:
    """A progress row for ``description``: on ``bar`` when a caller already shows one (rich shows
    one live display at a time), else on a bar of its own."""
    if bar is not None:
        yield bar, bar.add_task(description, total=None)
        return
    with progress_bar() as own:
        yield own, own.add_task(description, total=None)
