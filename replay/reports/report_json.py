"""A report as JSON: every number of every section and comparison, the outcomes, the scoreboard
and the tampering rows, as the ``report --json`` file holds them."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from replay.reports.comparison import Comparison
from replay.reports.decision_figures import decisions_json
from replay.reports.report_build import Report, Section
from replay.reports.scoreboard import to_json as scoreboard_json
from replay.reports.strata import SMALL_STRATUM
from replay.reports.tampering import row_json
from replay.scoring.similarity import METRIC_LABELS
from replay.store import RunInfo


def section_json(s: Section) -> dict[str, Any]:
    return {
        "run_id": s.run_id,
        "model": s.model,
        "preset": s.preset,
        "scenario_hash": s.scenario_hash,
        # "stratum" repeats "dimension" under the name earlier versions of this JSON used
        "rows": [{**asdict(r), "stratum": r.dimension} for r in s.rows],
        "statuses": s.statuses,
        "taxonomy": asdict(s.taxonomy),
        "metrics": s.metrics,
        "metrics_n": s.metrics_n,
        "samples": None if s.samples is None else asdict(s.samples),
        "indel_similarity_by_stratum": [asdict(m) for m in s.similarity],
        "notable": [asdict(n) for n in s.notable],
        "decisions": None if s.decisions is None else decisions_json(s.decisions),
    }


def comparison_json(c: Comparison) -> dict[str, Any]:
    data = asdict(c)
    for row, stratum in zip(data["strata"], c.strata, strict=True):
        row["difference"] = stratum.difference
    return data


def run_verdict(run: RunInfo) -> str:
    """How ``run``'s verdicts were reached, as its configuration says (``run_config.verdict_way``:
    each test's result through the proof channel, an output comparison, a program's checks run to
    their end, JUnit XML reports) with the rule's version."""
    verdict = (run.config or {}).get("verdict")
    return verdict if isinstance(verdict, str) else "not recorded (a run stored before its configuration was)"


def to_json(report: Report) -> dict[str, Any]:
    return {
        "runs": [{"run_id": r.run_id, "model": r.model, "verdict": run_verdict(r)} for r in report.runs],
        "interval": report.interval,
        "small_stratum": SMALL_STRATUM,
        "cutoffs": {
            "comment_median": report.cutoffs.comment_median,
            "reference_terciles": report.cutoffs.reference_terciles,
            "described": report.cutoffs.describe(),
        },
        "metric_labels": METRIC_LABELS,
        "sections": [section_json(s) for s in report.sections],
        "comparisons": [comparison_json(c) for c in report.comparisons],
        "outcomes": [asdict(o) for o in report.outcomes],
        "scoreboard": scoreboard_json(report.board) if report.board is not None else None,
        "tampering": [row_json(r) for r in report.tampering],  # always present: empty when no answer tampered
    }
