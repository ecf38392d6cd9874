"""A report as CSV files, one table a file, for spreadsheets and scripts."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from replay.reports.report_build import Report
from replay.reports.report_files import atomic
from replay.scoring.similarity import METRIC_LABELS


def write_csv(report: Report, folder: Path) -> list[Path]:
    """outcomes.csv, strata.csv (every stratum of every series), taxonomy.csv, comparisons.csv
    (every stratum of every comparison) and flips.csv in ``folder``, created with its missing
    parents if need be (see :func:`check_output_folder`); each file written atomically; the
    paths written."""
    metric_names = list(METRIC_LABELS)
    tables: dict[str, tuple[list[str], list[list[Any]]]] = {
        "outcomes.csv": (
            [
                "run_id",
                "model",
                "preset",
                "task_id",
                "repo",
                "language",
                "kind",
                "construct",
                "status",
                "passed",
                "detail",
                "duration_s",
                *metric_names,
                "processed",
                "raw",
                "model_error",
            ],
            [
                [
                    o.run_id,
                    o.model,
                    o.preset,
                    o.task_id,
                    o.repo,
                    o.language,
                    o.kind,
                    o.construct,
                    o.status,
                    int(o.passed),
                    o.detail,
                    o.duration_s,
                    *((o.metrics or {}).get(m, "") for m in metric_names),
                    o.processed,
                    o.raw,
                    o.model_error,
                ]
                for o in report.outcomes
            ],
        ),
        "strata.csv": (
            [
                "run_id",
                "model",
                "preset",
                "interval",
                "dimension",
                "value",
                "n",
                "passed",
                "rate",
                "low",
                "high",
                "small",
                "mean_indel_similarity",
            ],
            [
                [
                    s.run_id,
                    s.model,
                    s.preset,
                    report.interval,
                    r.dimension,
                    r.value,
                    r.n,
                    r.passed,
                    "" if r.rate is None else r.rate,
                    r.low,
                    r.high,
                    int(r.small),
                    _blank(s.similarity_of(r.dimension, r.value)),
                ]
                for s in report.sections
                for r in s.rows
            ],
        ),
        "taxonomy.csv": (
            ["run_id", "model", "preset", "class", "status", "count", "share", "share_of_failures"],
            [
                [s.run_id, s.model, s.preset, k.label, k.status, k.count, k.share, k.share_of_failures]
                for s in report.sections
                for k in s.taxonomy.classes
            ],
        ),
        "comparisons.csv": (
            [
                "first",
                "second",
                "dimension",
                "value",
                "n",
                "passed_first",
                "passed_second",
                "difference",
                "only_first",
                "only_second",
                "p_value",
                "small",
            ],
            [
                [
                    c.first.label,
                    c.second.label,
                    d.dimension,
                    d.value,
                    d.n,
                    d.passed_first,
                    d.passed_second,
                    d.difference,
                    d.only_first,
                    d.only_second,
                    d.p_value,
                    int(d.small),
                ]
                for c in report.comparisons
                for d in c.strata
            ],
        ),
        "flips.csv": (
            ["first", "second", "task_id", "first_status", "second_status"],
            [[c.first.label, c.second.label, f.task_id, f.first_status, f.second_status] for c in report.comparisons for f in c.flips],
        ),
    }
    written = []
    for name, (header, rows) in tables.items():
        path = folder / name
        with atomic(path, "CSV file") as fh:
            writer = csv.writer(fh)
            writer.writerow(header)
            writer.writerows(rows)
        written.append(path)
    return written


def _blank(x: float | None) -> float | str:
    return "" if x is None else x
