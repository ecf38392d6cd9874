"""Manifests and repository resolution: clear errors, local folders and pinned git checkouts."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from replay.config.manifest import RepoCatalog, open_repository
from replay.core.errors import SimpilotError


def test_missing_path() -> None:
    with pytest.raises(SimpilotError, match="does not exist"):
        open_repository("/nonexistent/repo")


def test_folder_without_manifest(tmp_path: Path) -> None:
    with pytest.raises(SimpilotError, match="has no simpilot.toml"):
        open_repository(tmp_path)


@pytest.mark.parametrize(
    "content, message",
    [
        ("[repository\nname=", "simpilot.toml: not valid TOML"),
        ("[other]\n", "missing the \\[repository\\] table"),
        ('[repository]\nname = "x y"\ntest_command = ["true"]\n', "repository.name: 'x y' must be"),
        ('[repository]\nname = "x"\nlanguage = "cobol"\ntest_command = ["true"]\n', "not supported"),
        ('[repository]\nname = "x"\n', "repository.test_command: missing"),
        ('[repository]\nname = "x"\ntest_command = ["true"]\n[source]\ngit = "file:///x"\n', "source.commit: git needs commit"),
    ],
)
def test_bad_manifests(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / "simpilot.toml").write_text(content)
    with pytest.raises(SimpilotError, match=message):
        open_repository(tmp_path)


def test_git_source_is_checked_out_at_the_pinned_commit(tiny_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIMPILOT_CACHE", str(tmp_path / "cache"))
    git = ["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q", str(tiny_repo)], check=True)
    subprocess.run([*git, "-C", str(tiny_repo), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(tiny_repo), "commit", "-qm", "one"], check=True)
    commit = subprocess.run(["git", "-C", str(tiny_repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    (tiny_repo / "tiny" / "stats.py").write_text("# changed after the pinned commit\n")
    subprocess.run([*git, "-C", str(tiny_repo), "commit", "-qam", "two"], check=True)
    manifest_file = tmp_path / "tiny.toml"
    body = (tiny_repo / "simpilot.toml").read_text()
    manifest_file.write_text(body + f'\n[source]\ngit = "{tiny_repo.as_uri()}"\ncommit = "{commit}"\n')
    manifest = open_repository(manifest_file)
    assert manifest.root != tiny_repo
    assert "def mean" in (manifest.root / "tiny" / "stats.py").read_text()
    assert open_repository(manifest_file).root == manifest.root  # reused, not cloned again


def test_catalog_finds_bundled_and_explains_missing(tiny_repo: Path) -> None:
    catalog = RepoCatalog(search=[tiny_repo.parent])
    assert catalog.get("tinyrepo").root == tiny_repo.resolve()
    with pytest.raises(SimpilotError, match="pass --repo"):
        catalog.get("nope")


def test_a_named_pipe_named_like_a_source_is_no_source_and_marking_does_not_wait_on_it(tiny_repo: Path) -> None:
    """Opening a named pipe to read it waits for a writer: a ``.py`` pipe in a repository must
    be left out of its sources, so that marking it (which reads every source) cannot hang."""
    import os

    from replay.marking import mark_repository

    manifest = open_repository(tiny_repo)
    before = manifest.source_files()
    os.mkfifo(tiny_repo / Path(before[0]).parent / "pipe.py")
    (tiny_repo / Path(before[0]).parent / "dangling.py").symlink_to(tiny_repo / "nowhere.py")
    assert manifest.source_files() == before
    assert mark_repository(manifest, seed=0, per_kind=1).tasks
