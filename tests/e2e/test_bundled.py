"""The committed scenarios still hold: every ground truth passes through the whole pipeline, and
the bundled repositories are byte-identical afterwards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay.config.manifest import project_root

from .conftest import simpilot, tree_digest

pytestmark = pytest.mark.e2e


def _oracle_passes(tmp_path: Path, scenarios: list[str], at_least: int) -> None:
    repos = project_root() / "repos"
    before = tree_digest(repos)
    db = tmp_path / "bundled.db"
    r = simpilot("--db", str(db), "replay", *scenarios, "--model", "oracle", "-p", "simcopilot", "--run", "bundled", timeout=3000)
    assert r.returncode == 0, r.stderr
    data = json.loads(simpilot("--db", str(db), "report", "bundled", "--json").stdout)
    (section,) = data["sections"]
    assert section["rows"][0]["n"] >= at_least
    assert section["statuses"] == {"pass": section["rows"][0]["n"]}, section["notable"]
    assert tree_digest(repos) == before


@pytest.mark.slow
@pytest.mark.timeout(3000)
def test_oracle_passes_every_bundled_task(tmp_path: Path) -> None:
    _oracle_passes(tmp_path, sorted(str(p) for p in (project_root() / "scenarios").glob("*.jsonl")), 560)


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_oracle_passes_a_sample_of_every_bundled_repository(tmp_path: Path) -> None:
    """The default run's share of the check above: every 8th task of each repository."""
    sample = []
    for path in sorted((project_root() / "scenarios").glob("*.jsonl")):
        lines = path.read_text().splitlines()[::8]
        target = tmp_path / path.name
        target.write_text("\n".join(lines) + "\n")
        sample.append(str(target))
    _oracle_passes(tmp_path, sample, 60)


def test_bundled_set_covers_both_languages_kinds_and_categories() -> None:
    from collections import Counter

    from replay.marking.labels import LABELS
    from tests.conftest import bundled_tasks

    tasks = bundled_tasks()
    by_language = Counter(t.language for t in tasks)
    assert len(tasks) >= 400 and by_language["java"] >= 120
    assert {(t.language, t.kind.value) for t in tasks} == {(lang, kind) for lang in ("python", "java") for kind in ("infill", "completion")}
    categories = Counter((t.language, label) for t in tasks for label in t.labels)
    thin = {key: n for key in ((lang, label) for lang in ("python", "java") for label in LABELS) if (n := categories[key]) < 15}
    assert not thin, thin
    for t in tasks:  # every task was gated on the tests selected for it
        assert t.validation is not None and t.validation.ok and t.tests


def test_tasks_command_counts_the_bundled_set() -> None:
    scenarios = sorted(str(p) for p in (project_root() / "scenarios").glob("*.jsonl"))
    r = simpilot("tasks", *scenarios)
    assert r.returncode == 0, r.stderr
    assert "category: if_condition" in r.stdout and "java" in r.stdout and "python" in r.stdout
