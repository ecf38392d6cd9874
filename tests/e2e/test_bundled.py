"""The committed scenarios still hold: every ground truth passes through the whole pipeline, and
the bundled repositories are byte-identical afterwards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay.manifest import project_root

from .conftest import simpilot, tree_digest

pytestmark = pytest.mark.e2e


def test_oracle_passes_every_bundled_task(tmp_path: Path) -> None:
    scenarios = sorted(str(p) for p in (project_root() / "scenarios").glob("*.jsonl"))
    repos = project_root() / "repos"
    before = tree_digest(repos)
    db = tmp_path / "bundled.db"
    r = simpilot("--db", str(db), "replay", *scenarios, "--model", "oracle", "-p", "simcopilot", "--run", "bundled")
    assert r.returncode == 0, r.stderr
    data = json.loads(simpilot("--db", str(db), "report", "bundled", "--json").stdout)
    (section,) = data["sections"]
    assert section["rows"][0]["n"] >= 150
    assert section["statuses"] == {"pass": section["rows"][0]["n"]}, section["notable"]
    assert tree_digest(repos) == before
