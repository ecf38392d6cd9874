"""Where ``mark`` found each repository is remembered beside the scenarios it wrote."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from replay.config.manifest import project_root
from replay.core.errors import SimpilotError
from replay.config.locations import LOCATIONS_FILE, catalog_for, recorded, remember


def test_remembered_relative_to_the_scenario_folder(tiny_repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "scenarios"
    remember(out, "tinyrepo", tiny_repo)
    data = json.loads((out / LOCATIONS_FILE).read_text())
    assert data == {"tinyrepo": "../tinyrepo"}
    scenario = out / "tiny.jsonl"
    assert catalog_for([scenario]).get("tinyrepo").root == tiny_repo.resolve()


def test_the_whole_project_can_move(tiny_repo: Path, tmp_path: Path) -> None:
    remember(tmp_path / "scenarios", "tinyrepo", tiny_repo)
    moved = tmp_path.parent / (tmp_path.name + "-moved")
    shutil.move(tmp_path, moved)
    try:
        assert catalog_for([moved / "scenarios" / "tiny.jsonl"]).get("tinyrepo").root == (moved / "tinyrepo").resolve()
    finally:
        shutil.rmtree(moved)


def test_other_entries_are_kept(tiny_repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "scenarios"
    remember(out, "tinyrepo", tiny_repo)
    remember(out, "other", tmp_path / "elsewhere")
    remember(out, "tinyrepo", tiny_repo)
    assert set(json.loads((out / LOCATIONS_FILE).read_text())) == {"tinyrepo", "other"}


def test_a_moved_repository_is_a_clear_error(tiny_repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "scenarios"
    remember(out, "tinyrepo", tiny_repo)
    shutil.move(tiny_repo, tmp_path / "moved")
    catalog = catalog_for([out / "tiny.jsonl"])
    with pytest.raises(SimpilotError, match=r"'tinyrepo' was marked at .*tinyrepo .*no longer holds it: pass --repo NEW_PATH"):
        catalog.get("tinyrepo")
    # --repo still wins over the record
    assert catalog_for([out / "tiny.jsonl"], [str(tmp_path / "moved")]).get("tinyrepo").root == (tmp_path / "moved").resolve()


def test_another_repository_in_its_place_is_refused(tiny_repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "scenarios"
    remember(out, "tinyrepo", tiny_repo)
    manifest = tiny_repo / "simpilot.toml"
    manifest.write_text(manifest.read_text().replace('name = "tinyrepo"', 'name = "other"'))
    with pytest.raises(SimpilotError, match="now holds the repository 'other'"):
        catalog_for([out / "tiny.jsonl"]).get("tinyrepo")


def test_conflicting_records_are_refused(tiny_repo: Path, tmp_path: Path) -> None:
    remember(tmp_path / "a", "tinyrepo", tiny_repo)
    remember(tmp_path / "b", "tinyrepo", tmp_path)
    with pytest.raises(SimpilotError, match="pass --repo to say which"):
        recorded([tmp_path / "a" / "x.jsonl", tmp_path / "b" / "y.jsonl"])


def test_a_corrupt_record_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / LOCATIONS_FILE).write_text("[1, 2]")
    with pytest.raises(SimpilotError, match="must map repository names to paths"):
        recorded([tmp_path / "x.jsonl"])


def test_bundled_repositories_need_no_record() -> None:
    scenario = project_root() / "scenarios" / "minisql.jsonl"
    assert not (scenario.parent / LOCATIONS_FILE).exists()
    assert catalog_for([scenario]).get("minisql").root == (project_root() / "repos" / "minisql").resolve()
