"""The demo's runs (``simpilot demo``): the bundled scenarios replayed by the oracle and the empty
model, and by every recorded model under the four presets; the bundled DevBench sample
(``scenarios/devbench/``: single programs in several languages) by the oracle, the empty model
and the recorded answers of a few of the models DevBench evaluated (five samples each, with and
without post-processing); all sharing one evaluator.
"""

from __future__ import annotations

from pathlib import Path

from replay.config.locations import catalog_for
from replay.config.manifest import project_root
from replay.core.errors import SimpilotError
from replay.core.recordings import read_recordings
from replay.core.scenarios import read_tasks
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.execution.scheduling.shared_verdicts import SharingEvaluator
from replay.jobs.models import demo_models
from replay.jobs.output import err, out, report_command
from replay.jobs.replay import run_replay
from replay.reports.html_report import render_html
from replay.reports.report_build import build_report
from replay.reports.report_text import render, render_summary
from replay.run.progress import progress_bar
from replay.store import Store


def run_demo(db: Path, *, jobs: int, full_suite: bool = False, unsafe_no_sandbox: bool = False) -> list[str]:
    """Replay the demo's runs into the store ``db`` (each run replaced) and return their ids."""
    scenario_dir = project_root() / "scenarios"
    scenarios = tuple(sorted(scenario_dir.glob("*.jsonl")))
    if not scenarios:
        raise SimpilotError(f"no bundled scenarios in {scenario_dir}: run simpilot from a checkout of the project")
    devbench = tuple(sorted((scenario_dir / "devbench").glob("*.jsonl")))
    count = sum(1 for s in scenarios for _ in read_tasks(s))
    programs = sum(1 for s in devbench for _ in read_tasks(s))
    runs: list[tuple[str, str, tuple[str, ...], set[str] | None, tuple[Path, ...]]] = [
        ("demo-oracle", "oracle", ("simcopilot",), None, scenarios),
        ("demo-empty", "empty", ("simcopilot",), None, scenarios),
    ]
    for folder in sorted(p for p in (scenario_dir / "recordings").glob("*") if p.is_dir()):
        # a real model's recorded answers: raw and post-processed, on the tasks it was asked
        recorded = {a.task_id for a in read_recordings(folder)}
        if recorded:
            runs.append((f"demo-{folder.name}", f"recorded:{folder}", ("none", "simcopilot", "syntax", "ide"), recorded, scenarios))
    if devbench:
        runs += [
            ("demo-devbench-oracle", "oracle", ("simcopilot",), None, devbench),
            ("demo-devbench-empty", "empty", ("simcopilot",), None, devbench),
        ]
        for folder in sorted(p for p in (scenario_dir / "devbench" / "recordings").glob("*") if p.is_dir()):
            # models people use, five samples each as DevBench recorded them (on the tasks they answered): models that pass
            answered = {a.task_id for a in read_recordings(folder)}
            runs.append((f"demo-devbench-{folder.name}", f"recorded:{folder}", ("none", "simcopilot"), answered, devbench))
    sizes = {scenarios: count, devbench: programs}
    total = sum((sizes[files] if only is None else len(only)) * len(presets) for _, _, presets, only, files in runs)
    recorded_models = sum(1 for run in runs if run[1].startswith("recorded:"))
    err.print(
        f"{count} tasks from {len(scenarios)} repositories and {programs} DevBench programs: the oracle, the empty model and the "
        f"recorded answers of {recorded_models} model(s), {total} verdicts in all (a few minutes on 2 cores; the first bar "
        "estimates the time left)"
    )
    catalog = catalog_for(scenarios + devbench)
    store = Store(db)
    ids: list[str] = []
    try:
        # one evaluator for the three runs: warm test servers are started once, and a text that
        # lands in the same hole in two runs (an empty answer, say) is tested once
        with SharingEvaluator(catalog, Sandbox.create(unsafe_no_sandbox), jobs, full_suite=full_suite) as evaluator, progress_bar() as bar:
            overall = bar.add_task("[bold]demo[/]", total=total)
            for run_id, model, presets, only, files in runs:
                store.delete_run(run_id)
                ids.append(
                    run_replay(
                        db,
                        files,
                        model,
                        presets,
                        run_id=run_id,
                        resume=False,
                        jobs=jobs,
                        unsafe_no_sandbox=unsafe_no_sandbox,
                        store=store,
                        full_suite=full_suite,
                        only=only,
                        catalog=catalog,
                        evaluator=evaluator,
                        bar=bar,
                        on_advance=lambda: bar.advance(overall),
                    )
                )
    finally:
        store.close()
    return ids


def demo(db: Path, *, jobs: int, full_suite: bool = False, unsafe_no_sandbox: bool = False, verbose: bool = False) -> None:
    """``simpilot demo``: the demo's runs, then their pass rates (every stratum with ``verbose``),
    the HTML report and DevBench's recorded models side by side, beside ``db``."""
    ids = run_demo(db, jobs=jobs, full_suite=full_suite, unsafe_no_sandbox=unsafe_no_sandbox)
    store = Store(db)
    try:
        built = build_report(store, ids)
        # DevBench's recorded models get one table side by side, not a table each
        recorded = [i for i in ids if i.startswith("demo-devbench-") and i not in ("demo-devbench-oracle", "demo-devbench-empty")]
        if verbose:
            render(built, out)
        else:
            render_summary(build_report(store, [i for i in ids if i not in recorded]), out, report_command(db, *ids))
        page = db.parent / "demo-report.html"
        page.write_text(render_html(built), encoding="utf-8")
        if recorded:
            demo_models(store, recorded, db.parent / "demo-models.html")
    finally:
        store.close()
    err.print(f"results stored in {db}; the HTML report (charts, every task) is {page}")
    err.print(
        f"'simpilot report {' '.join(ids)} --json' prints them as JSON; "
        f"'simpilot compare {ids[-1]}' shows what each post-processing step does"
    )
