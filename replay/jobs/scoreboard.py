"""``simpilot scoreboard``: is it right, is it fast enough to be shown, what does it cost; the
runs side by side per preset, under a simulated editor's clock."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from replay.config.models import price_for
from replay.jobs.output import err, print_json
from replay.reports import scoreboard as board
from replay.reports.editor_clock import DEFAULT_BUDGETS_MS, ClockSettings
from replay.store import Store


@dataclass(frozen=True, slots=True)
class ScoreboardRequest:
    run_ids: tuple[str, ...]
    presets: tuple[str, ...] = ()  # none given: "none"
    models_file: Path | None = None
    # the simulated editor (``reports/editor_clock.py``)
    speed: float = 5.0  # characters per second
    debounce: float = 75.0  # ms
    pause: float = 500.0  # ms
    budget: float | None = None  # ms
    accept: str = "pass"
    measure: str = "total"
    html_path: Path | None = None
    markdown_path: Path | None = None
    as_json: bool = False


def scoreboard(db: Path, request: ScoreboardRequest) -> None:
    """Build the scoreboard from the store ``db``, print it (or JSON), write the pages asked for."""
    clock = ClockSettings(request.speed, request.debounce, request.pause, request.budget, request.accept, request.measure)  # type: ignore[arg-type]
    store = Store(db)
    try:
        result = board.build(
            store,
            request.run_ids,
            request.presets or ("none",),
            clock,
            lambda model: price_for(model, request.models_file),
            DEFAULT_BUDGETS_MS,
        )
    finally:
        store.close()
    if request.markdown_path is not None:
        request.markdown_path.write_text(board.markdown(result) + "\n", encoding="utf-8")
    if request.html_path is not None:
        request.html_path.write_text(board.page(result), encoding="utf-8")
        err.print(f"the scoreboard with its charts: {request.html_path}")
    if request.as_json:
        print_json(board.to_json(result))
    else:
        print(board.render(result), flush=True)
