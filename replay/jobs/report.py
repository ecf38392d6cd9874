"""``simpilot report``: the stored runs' pass rates by stratum, error taxonomy, similarity and
comparisons, as text on stdout or as JSON, HTML and CSV files.

Every output path is checked before anything is built (a path that cannot be written is refused
in one line, exit status 2), and each file is written atomically.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from replay.core.errors import SimpilotError
from replay.jobs.output import err, out, print_json
from replay.jobs.startup import OptionError
from replay.reports.html_report import render_html
from replay.reports.report_build import build_report
from replay.reports.report_csv import write_csv
from replay.reports.report_files import check_output_file, check_output_folder, write_text_atomically
from replay.reports.report_json import to_json
from replay.reports.report_text import render
from replay.reports.strata import IntervalMethod
from replay.store import Store

PRINT = "-"  # ``--json`` without a file: print the JSON
Series = tuple[str, str]  # (run, preset)


@dataclass(frozen=True, slots=True)
class ReportRequest:
    """What to report (no runs: the latest) and where: ``json_out`` a file or :data:`PRINT`."""

    runs: tuple[str, ...] = ()
    json_out: str | None = None
    html_out: Path | None = None
    csv_dir: Path | None = None
    bootstrap: int = 0
    seed: int = 0
    pairs: tuple[tuple[str, str], ...] = ()  # RUN:PRESET RUN:PRESET, as given


def series_pairs(pairs: tuple[tuple[str, str], ...]) -> list[tuple[Series, Series]]:
    """``--compare RUN:PRESET RUN:PRESET`` values as pairs of series."""
    found: list[tuple[Series, Series]] = []
    for pair in pairs:
        parsed = [side.rsplit(":", 1) for side in pair]
        if any(len(side) != 2 for side in parsed):
            raise OptionError(f"give each side as RUN:PRESET, not {' '.join(pair)!r}", "--compare")
        (run1, preset1), (run2, preset2) = parsed
        found.append(((run1, preset1), (run2, preset2)))
    return found


def report(db: Path, request: ReportRequest) -> None:
    """Build the report of ``request.runs`` from the store ``db`` and write or print it."""
    if not db.exists():
        raise SimpilotError(f"no results database at {db}: run 'simpilot replay' or 'simpilot demo' first")
    json_out, html_out, csv_dir = request.json_out, request.html_out, request.csv_dir
    if json_out and json_out != PRINT:
        check_output_file(Path(json_out), "JSON report")
    if html_out:
        check_output_file(html_out, "HTML report")
    if csv_dir:
        check_output_folder(csv_dir)
    pairs = series_pairs(request.pairs)
    store = Store(db)
    known = store.runs()
    if not known:
        raise SimpilotError(f"{db} holds no runs yet")
    ids = list(request.runs) or [known[-1].run_id]
    ids += [run for pair in pairs for run, _ in pair if run not in ids]
    missing = [r for r in ids if store.run(r) is None]
    if missing:
        raise SimpilotError(f"no run {missing[0]!r} in {db} (runs: {', '.join(r.run_id for r in known[-8:])})")
    try:
        built = build_report(store, ids, IntervalMethod(request.bootstrap, request.seed), pairs or None)
    finally:
        store.close()
    if pairs and len(built.comparisons) < len(pairs):
        raise SimpilotError("a --compare side names a preset the run has no outcomes for: check RUN:PRESET")
    if json_out == PRINT:
        print_json(to_json(built))
    elif json_out:
        write_text_atomically(Path(json_out), json.dumps(to_json(built), indent=2), "JSON report")
        err.print(f"JSON report → {json_out}")
    if html_out:
        write_text_atomically(html_out, render_html(built), "HTML report")
        err.print(f"HTML report → {html_out}")
    if csv_dir:
        err.print(f"CSV files → {', '.join(str(p) for p in write_csv(built, csv_dir))}")
    if not (json_out or html_out or csv_dir):
        render(built, out)
