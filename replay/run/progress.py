"""Progress on standard error: one bar per run, or rows on a bar a caller already shows."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn, TimeRemainingColumn

err = Console(stderr=True, soft_wrap=True)


def progress_bar() -> Progress:
    """A bar with counts, the time taken and an estimate of the time left."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("[dim]left[/]"),
        TimeRemainingColumn(),
        console=err,
        transient=False,
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
