"""'simpilot report --html/--json/--csv' into paths that cannot be written: one line naming the
path, the exit status of a usage error, no traceback and no file; missing folders are created."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from replay.core.records import Outcome, Status
from replay.reports.comparison import Series
from tests.test_tampering_report import stored

from .conftest import simpilot
from .test_cli_errors import one_line_error

pytestmark = pytest.mark.e2e

AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
OUTPUTS = (("--html", "HTML report"), ("--json", "JSON report"))


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A store with one run and a few outcomes, written through the store's API (nothing replayed)."""
    statuses = (Status.PASS, Status.FAIL, Status.PASS)
    outcomes = [Outcome(f"t{i}", "none", "x", status) for i, status in enumerate(statuses)]
    return stored(tmp_path / "runs.db", {Series("r", "m", "none"): outcomes})


def files_under(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file()}


def refused(db: Path, option: str, target: Path, what: str) -> str:
    before = files_under(db.parent)
    r = simpilot("--db", str(db), "report", "r", option, str(target), timeout=120)
    assert r.returncode == 2, r.stderr
    message = one_line_error(r)
    assert len([line for line in r.stderr.splitlines() if line.strip()]) == 1, r.stderr
    assert f"cannot write the {what} to {target}" in message
    assert files_under(db.parent) == before  # nothing written, not even a partial file
    return message


@pytest.mark.parametrize(("option", "what"), OUTPUTS)
def test_onto_a_folder(db: Path, option: str, what: str) -> None:
    folder = db.parent / "out"
    folder.mkdir()
    assert "is a folder: give a file name" in refused(db, option, folder, what)
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize(("option", "what"), OUTPUTS)
def test_under_a_file(db: Path, option: str, what: str) -> None:
    (db.parent / "plain").write_text("x")
    message = refused(db, option, db.parent / "plain" / "deeper" / "r.out", what)
    assert f"{db.parent / 'plain'} is a file, not a folder" in message


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[Path]:
    if AS_ROOT:
        pytest.skip("root writes into read-only folders: the permission check cannot fail")
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    yield folder
    folder.chmod(0o755)


@pytest.mark.parametrize(("option", "what"), OUTPUTS)
def test_into_a_read_only_folder(db: Path, read_only: Path, option: str, what: str) -> None:
    assert f"the folder {read_only} is not writable" in refused(db, option, read_only / "r.out", what)
    message = refused(db, option, read_only / "missing" / "r.out", what)
    assert f"the folder {read_only / 'missing'} does not exist and cannot be created in {read_only}" in message
    assert list(read_only.iterdir()) == []


def test_csv_into_a_file(db: Path, tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("x")
    r = simpilot("--db", str(db), "report", "r", "--csv", str(tmp_path / "plain"), timeout=120)
    assert r.returncode == 2 and "is a file, not a folder" in one_line_error(r)
    assert (tmp_path / "plain").read_text() == "x"


def test_missing_folders_are_created(db: Path) -> None:
    """The friendlier choice, kept: a report goes into folders that do not exist yet."""
    out = db.parent / "new" / "deeper"
    r = simpilot("--db", str(db), "report", "r", "--html", str(out / "h" / "r.html"), "--json", str(out / "j" / "r.json"),
                 "--csv", str(out / "c"), timeout=120)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert (out / "h" / "r.html").read_text(encoding="utf-8").startswith("<!doctype html>")
    assert json.loads((out / "j" / "r.json").read_text(encoding="utf-8"))["sections"]
    assert (out / "c" / "strata.csv").is_file()
    assert not [p for p in files_under(out) if p.name.endswith(".tmp")]  # no temporary file left behind
