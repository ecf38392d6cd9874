"""Processes as /proc shows them: a process's descendants found from the kernel's lists of children
and from every process's parent link agree, zombies left out; a thread's state is read."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from replay.execution.inside import proctree

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")

# A tree: a shell with two sleeping children, one of them a subshell with a child of its own.
TREE = "sleep 30 & (sleep 30 & wait) & wait"


def both_ways(pid: int, monkeypatch: pytest.MonkeyPatch) -> tuple[list[int], list[int]]:
    by_children = sorted(proctree.descendants(pid)) if proctree._CHILDREN_FILES else None
    monkeypatch.setattr(proctree, "_CHILDREN_FILES", False)
    by_parents = sorted(proctree.descendants(pid))
    monkeypatch.undo()
    return by_children if by_children is not None else by_parents, by_parents


def settled(pid: int, count: int) -> list[int]:
    """``pid``'s descendants, once there are ``count`` of them (the shell starts them)."""
    deadline = time.monotonic() + 10
    while len(found := proctree.descendants(pid)) < count and time.monotonic() < deadline:
        time.sleep(0.02)
    return found


def test_descendants_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    shell = subprocess.Popen(["bash", "-c", TREE], start_new_session=True)
    try:
        assert len(settled(shell.pid, 3)) == 3  # sleep, subshell, its sleep (and nothing above)
        by_children, by_parents = both_ways(shell.pid, monkeypatch)
        assert by_children == by_parents
        assert shell.pid not in by_children and os.getpid() not in by_children
        assert proctree.descendants(by_parents[-1] + 10**7) == []  # no such process
    finally:
        proctree.kill_group(shell.pid)
        shell.wait()


def test_zombies_are_not_descendants(monkeypatch: pytest.MonkeyPatch) -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        deadline = time.monotonic() + 10
        while proctree.state(child.pid) not in proctree.DEAD and time.monotonic() < deadline:
            time.sleep(0.02)
        assert proctree.state(child.pid) in proctree.DEAD  # exited, not yet waited for
        by_children, by_parents = both_ways(os.getpid(), monkeypatch)
        assert child.pid not in by_children and child.pid not in by_parents
    finally:
        child.wait()


def test_a_child_made_by_another_thread_is_found() -> None:
    """A child's parent is the thread that made it: every thread's list is read."""
    made: list[subprocess.Popen] = []
    thread = threading.Thread(target=lambda: made.append(subprocess.Popen(["sleep", "30"])))
    thread.start()
    thread.join()
    try:
        assert made[0].pid in proctree.descendants(os.getpid())
    finally:
        made[0].kill()
        made[0].wait()


def test_states_of_a_process_and_of_a_thread() -> None:
    assert proctree.state(os.getpid()) == "R"  # this one, reading
    tid = threading.get_native_id()
    assert proctree.state(f"{os.getpid()}/task/{tid}") == "R"
    assert proctree.stat(os.getpid())[1] == str(os.getppid())
    assert proctree.state(2**22 + 12345) is None and proctree.stat(2**22 + 12345) is None


def test_a_list_of_children_longer_than_a_page_is_read_whole() -> None:
    """The kernel gives a thread's children a page at a time: 800 of them take more than one read."""
    children = [subprocess.Popen(["sleep", "30"]) for _ in range(800)]
    try:
        found = set(proctree.descendants(os.getpid()))
        assert {child.pid for child in children} <= found
    finally:
        for child in children:
            child.kill()
            child.wait()


def test_ended_waits_for_the_end_without_reaping() -> None:
    """``ended`` says False while the child runs and True once it has ended, and leaves the child
    to be reaped by its caller (its exit status is still there to read)."""
    child = subprocess.Popen(["sh", "-c", "read line; exit 3"], stdin=subprocess.PIPE)
    try:
        if proctree.ended(child.pid, 0.05) is None:
            pytest.skip("no pidfd on this kernel")
        assert proctree.ended(child.pid, 0.05) is False
        child.stdin.close()
        assert proctree.ended(child.pid, 30) is True
        assert proctree.state(child.pid) in proctree.DEAD
        assert child.wait(timeout=5) == 3
    finally:
        child.kill()
        child.wait()
