"""Work copies: a task's code can never leave a trace for the next task, even one that forges
the size and modification time of a file it changed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from replay.config.manifest import open_repository
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.execution.workcopies.copies import WorkCopy

TAMPER = """
import os
TARGET = {target!r}
stat = os.stat(TARGET)
with open(TARGET, "r+b") as f:  # same size, other bytes
    data = f.read()
    f.seek(0)
    f.write(data.replace(b"assert", b"pass;  "[: len(b"assert")]))
os.utime(TARGET, ns=(stat.st_atime_ns, stat.st_mtime_ns))
"""


def test_a_forged_edit_elsewhere_in_the_copy_rebuilds_it(tiny_repo: Path) -> None:
    manifest = open_repository(str(tiny_repo))
    copy = WorkCopy(manifest, Sandbox.create())
    try:
        victim = copy.root / "tests" / "test_stats.py"
        before = victim.read_bytes()
        script = copy.root / "tamper.py"
        with copy.patched("tiny/stats.py", (copy.root / "tiny" / "stats.py").read_bytes()):
            script.write_text(TAMPER.format(target=str(victim)), encoding="utf-8")
            result = Sandbox.create().run([sys.executable, str(script)], copy.root, 30, {})
            assert result.returncode == 0, result.output_tail
            script.unlink()
            assert victim.read_bytes() != before and len(victim.read_bytes()) == len(before)
        assert copy.rebuilds == 1
        assert victim.read_bytes() == before
    finally:
        copy.close()


def test_an_untouched_run_keeps_the_copy(tiny_repo: Path) -> None:
    copy = WorkCopy(open_repository(str(tiny_repo)), Sandbox.create())
    try:
        for _ in range(3):
            with copy.patched("tiny/stats.py", b"# replaced\n"):
                pass
        assert copy.rebuilds == 0
        assert (copy.root / "tiny" / "stats.py").read_bytes() == (tiny_repo / "tiny" / "stats.py").read_bytes()
    finally:
        copy.close()


# -- the host never follows what a run could change ------------------------------------------------


def _outside(tmp_path: Path) -> Path:
    victim = tmp_path / "outside" / "victim.pth"
    victim.parent.mkdir()
    victim.write_text("untouched\n")
    return victim


def test_a_link_in_place_of_the_edited_file_is_never_written_through(tiny_repo: Path, tmp_path: Path) -> None:
    victim = _outside(tmp_path)
    copy = WorkCopy(open_repository(str(tiny_repo)), Sandbox.create())
    try:
        with copy.patched("tiny/stats.py", b"# answer\n") as target:
            target.unlink()
            target.symlink_to(victim)
        assert copy.rebuilds == 1 and copy.planted == [f"planted-link tiny/stats.py -> {victim}"]
        # the next patch goes into the rebuilt copy's own file
        with copy.patched("tiny/stats.py", b"# next answer\n") as target:
            assert not target.is_symlink() and target.read_bytes() == b"# next answer\n"
        assert victim.read_text() == "untouched\n"
        assert (copy.root / "tiny" / "stats.py").read_bytes() == (tiny_repo / "tiny" / "stats.py").read_bytes()
    finally:
        copy.close()


def test_a_folder_swapped_for_a_link_is_never_written_through(tiny_repo: Path, tmp_path: Path) -> None:
    victim = _outside(tmp_path)
    (victim.parent / "stats.py").write_text("host\n")
    copy = WorkCopy(open_repository(str(tiny_repo)), Sandbox.create())
    try:
        with copy.patched("tiny/stats.py", b"# answer\n"):
            (copy.root / "tiny").rename(copy.root / "moved")
            (copy.root / "tiny").symlink_to(victim.parent)
        assert copy.planted == [f"planted-link tiny -> {victim.parent}"]
        assert (victim.parent / "stats.py").read_text() == "host\n" and victim.read_text() == "untouched\n"
    finally:
        copy.close()


def test_beneath_refuses_links_special_files_and_hard_links(tmp_path: Path) -> None:
    import os

    from replay.execution.workcopies import beneath
    root = tmp_path / "copy"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "a.py").write_text("a\n")
    outside = _outside(tmp_path)
    beneath.write_file(str(root), "pkg/a.py", b"b\n")
    assert (root / "pkg" / "a.py").read_text() == "b\n"
    (root / "link.py").symlink_to(outside)
    (root / "dir").symlink_to(outside.parent, target_is_directory=True)
    os.mkfifo(root / "fifo.py")
    os.link(root / "pkg" / "a.py", root / "hard.py")
    for path in ("link.py", "dir/victim.pth", "fifo.py", "pkg/a.py", "../outside/victim.pth", "/etc/passwd", "pkg/../pkg/a.py"):
        with pytest.raises(beneath.Escape):
            beneath.write_file(str(root), path, b"pwned\n")
    with pytest.raises(beneath.Escape):  # a file that is no longer the one recorded
        beneath.write_file(str(root), "hard.py", b"x\n", inode=1)
    assert outside.read_text() == "untouched\n"


def test_the_state_covers_caches_links_and_modes(tmp_path: Path) -> None:
    import os

    from replay.execution.workcopies import beneath
    root = tmp_path / "copy"
    (root / "pkg" / "__pycache__").mkdir(parents=True)
    (root / "pkg" / "a.py").write_text("a\n")
    clean = beneath.tree_state(str(root))
    assert "pkg/__pycache__" in clean
    (root / "pkg" / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"x")
    assert beneath.tree_state(str(root)) != clean
    (root / "pkg" / "__pycache__" / "a.cpython-311.pyc").unlink()
    assert beneath.tree_state(str(root)) == clean  # a file made and removed again leaves nothing
    os.chmod(root / "pkg" / "a.py", 0o755)
    assert beneath.tree_state(str(root)) != clean


def test_what_a_run_planted_is_named() -> None:
    import stat

    from replay.execution.workcopies.copies import planted

    file = (stat.S_IFREG | 0o644, 0, 1, 10, 1, 1, 5)
    clean = {"pkg": (stat.S_IFDIR | 0o755, 0, 2), "pkg/a.py": file, "tests/test_a.py": file, "data.txt": file}
    after = {
        **clean,
        "pkg": (stat.S_IFLNK | 0o777, 9, 9, "/etc"),
        "pkg/__pycache__/a.cpython-311.pyc": file,
        "tests/conftest.py": file,
        "site.pth": file,
        "tests/test_a.py": file[:4] + (2, 2, 5),
        "data.txt": file[:4] + (2, 2, 5),  # the tests' own output: not tampering
        "new-link": (stat.S_IFLNK | 0o777, 8, 8, "x"),  # a new link is never followed: not tampering
        ".simpilot/classes/test/p/ATest.class": file,
    }
    assert planted(clean, after, ("tests",)) == [
        "planted-cache .simpilot/classes/test/p/ATest.class",
        "planted-link pkg -> /etc",
        "planted-cache pkg/__pycache__/a.cpython-311.pyc",
        "planted-hook site.pth",
        "planted-hook tests/conftest.py",
        "changed-test-file tests/test_a.py",
    ]
