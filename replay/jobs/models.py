"""``simpilot models``: the models of several runs (one run per model, on the same tasks)
compared from their stored outcomes, with intervals and paired tests."""

from __future__ import annotations

from pathlib import Path

from replay.core.errors import SimpilotError
from replay.jobs.output import err, out, print_json
from replay.reports import model_html, model_text
from replay.reports.model_comparison import compare_models
from replay.reports.model_runs import load_model_runs
from replay.store import Store


def models(
    db: Path,
    run_ids: tuple[str, ...],
    preset: str,
    *,
    markdown_path: Path | None = None,
    html_path: Path | None = None,
    as_json: bool = False,
    resamples: int = 10_000,
    seed: int = 0,
) -> None:
    """Print the comparison (or JSON), and write it as markdown and HTML when asked."""
    store = Store(db)
    try:
        runs, strata = load_model_runs(store, run_ids, preset)
    finally:
        store.close()
    try:
        result = compare_models(runs, strata, resamples=resamples, seed=seed)
    except ValueError as exc:
        raise SimpilotError(str(exc)) from None
    if markdown_path is not None:
        markdown_path.write_text(model_text.markdown(result), encoding="utf-8")
    if html_path is not None:
        html_path.write_text(
            f"<!doctype html><meta charset=utf-8><title>simpilot: models</title>{model_html.html(result)}", encoding="utf-8"
        )
    if as_json:
        print_json(model_text.to_json(result))
    else:
        model_text.render(result, out)


def demo_models(store: Store, run_ids: list[str], page: Path) -> None:
    """The demo's DevBench models side by side: the headline table here, everything in ``page``."""
    runs, strata = load_model_runs(store, run_ids, "none")
    result = compare_models(runs, strata, resamples=2_000)
    out.print("DevBench sample, models DevBench recorded (raw answers, every sample):")
    model_text.render(result, out, brief=True)
    page.write_text(model_html.page(result), encoding="utf-8")
    err.print(f"the models compared (per language and category, paired tests): {page}")
