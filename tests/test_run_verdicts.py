"""A run's description says how its verdicts were actually reached: each test's result through
the proof channel, an output comparison, a DevBench program's checks run to their end, or JUnit
XML reports; every repository named under its way. Runs stored before descriptions named the way
resume unchanged (the description stands for the same rule)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from replay.config.manifest import open_repository
from replay.config.model_spec import parse_model_spec
from replay.config.run import (
    JUNIT_REPORTS,
    OUTPUT_COMPARISON,
    PER_TEST,
    PROGRAMS,
    RULE,
    VERDICT,
    config_hash,
    describe_verdicts,
    differences,
    verdict_way,
)
from replay.execution.sandbox.bubblewrap import Limits
from replay.importers.devbench import Instance
from replay.jobs.import_devbench import write_repository
from replay.reports.html_report import render_html
from replay.reports.report_json import run_verdict, to_json
from replay.run.configuration import run_config
from replay.store import RunInfo

from .conftest import DATA

SPEC = {"kind": "oracle"}


def config(verdicts: dict[str, str] | None = None) -> dict:
    return run_config(parse_model_spec(SPEC), {"none": ()}, sandboxed=True, limits=Limits(), full_suite=False, verdicts=verdicts)


def test_each_kind_of_repository_has_its_way(tmp_path: Path) -> None:
    tiny = open_repository(DATA / "tinyrepo")
    assert verdict_way(tiny, full_suite=False) == verdict_way(tiny, full_suite=True) == PER_TEST
    assert verdict_way(dataclasses.replace(tiny, compare_output=True), False) == OUTPUT_COMPARISON
    gradle = dataclasses.replace(tiny, language="java", test_command=("./gradlew", "test"), junit_xml=True)
    assert verdict_way(gradle, full_suite=True) == JUNIT_REPORTS
    assert verdict_way(gradle, full_suite=False) == PER_TEST  # selected tests run through simpilot's own JUnit runner
    instance = Instance("python", "low_context", "1", "x = ", "\nassert x == 3\n", "3", "", "hand-made")
    devbench = write_repository(tmp_path / "devbench-python", "python", [instance])
    assert verdict_way(devbench, full_suite=False) == PROGRAMS


def test_an_output_comparison_run_is_not_described_as_per_test_results() -> None:
    described = config({"tinyprog": OUTPUT_COMPARISON})["verdict"]
    assert described == f"{OUTPUT_COMPARISON} (tinyprog); {RULE}"
    assert "each selected test's own result" not in described
    mixed = config({"tinyrepo": PER_TEST, "devbench-python": PROGRAMS, "devbench-cpp": PROGRAMS, "prog": OUTPUT_COMPARISON})
    assert mixed["verdict"] == f"{PER_TEST} (tinyrepo); {OUTPUT_COMPARISON} (prog); {PROGRAMS} (devbench-cpp, devbench-python); {RULE}"
    assert config({"tinyrepo": PER_TEST})["verdict"] == config()["verdict"] == VERDICT  # as every run said before
    assert describe_verdicts({}) == VERDICT


def test_a_run_stored_with_the_old_description_resumes() -> None:
    """An output-comparison run stored before descriptions named the way said VERDICT: the same rule."""
    old, new = config(), config({"tinyprog": OUTPUT_COMPARISON})
    assert config_hash(old) == config_hash(new) and differences(old, new) == []
    other_rule = {**new, "verdict": "the test command's exit status"}
    assert config_hash(other_rule) != config_hash(new)
    assert differences(other_rule, new) == [f"how a pass is decided differs: the test command's exit status → {VERDICT}"]


def test_the_report_shows_how_each_runs_verdicts_were_reached() -> None:
    described = config({"tinyprog": OUTPUT_COMPARISON})
    run = RunInfo(
        "r1", "2026-01-01", "0", "oracle", SPEC, ("none",), ("s.jsonl",), "abc", "bubblewrap", None, described, config_hash(described)
    )
    old = dataclasses.replace(run, run_id="r0", config=None, config_hash=None)
    assert run_verdict(run) == f"{OUTPUT_COMPARISON} (tinyprog); {RULE}"
    assert run_verdict(old).startswith("not recorded")
    from replay.reports.report_build import Report
    from replay.reports.strata import Cutoffs

    report = Report([run, old], "wilson-95", Cutoffs(None, None), [], [], [], {}, {})
    assert to_json(report)["runs"][0] == {"run_id": "r1", "model": "oracle", "verdict": run_verdict(run)}
    page = render_html(report)
    assert "how verdicts were reached" in page and "compared line by line with the untouched program" in page
