"""Processes as ``/proc`` shows them: their status, a process's descendants or ancestors, the
living ones; and killing a process group or a set of processes.

Standard library only, and nothing of simpilot: ``sandbox.py`` and ``warm.py`` import this as
``replay.execution.proctree``, while ``pytest_server.py``, a script run by the tests' interpreter
(possibly another Python than simpilot's), imports it as the sibling module ``proctree`` (the
script's folder is its ``sys.path[0]``).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterable

DEAD = ("Z", "X")  # the states of a process that has exited but not yet been waited for
_TICK = os.sysconf("SC_CLK_TCK")


def stat(pid: int | str) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name (``[0]``: the state, ``[1]``: the
    parent, ``[11]``/``[12]``: user/system CPU ticks), or None when the process is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _living() -> list[tuple[int, list[str]]]:
    """Every process ``/proc`` lists (the whole machine, or the PID namespace's own) with its
    ``stat`` fields, zombies left out."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = stat(entry)
            if fields is not None and fields[0] not in DEAD:
                found.append((int(entry), fields))
    return found


def living(exclude: set[int] | frozenset[int] = frozenset()) -> list[int]:
    """The processes ``/proc`` lists but ``exclude``, zombies left out."""
    return [pid for pid, _ in _living() if pid not in exclude]


def descendants(pid: int) -> list[int]:
    """Every living process below ``pid``, from the parent links in ``/proc`` (zombies left out)."""
    children: dict[int, list[int]] = {}
    for child, fields in _living():
        children.setdefault(int(fields[1]), []).append(child)
    found, todo = [], list(children.get(pid, []))
    while todo:
        child = todo.pop()
        found.append(child)
        todo += children.get(child, [])
    return found


def ancestors(pid: int) -> set[int]:
    """``pid`` and the processes above it, up to the first one ``/proc`` does not show (inside a
    PID namespace: its init, whose parent is 0 there)."""
    found: set[int] = set()
    while pid > 0 and pid not in found:
        found.add(pid)
        fields = stat(pid)
        try:
            pid = int(fields[1]) if fields is not None else 0
        except (ValueError, IndexError):
            break
    return found


def process_cpu(pids: list[int]) -> float:
    """CPU seconds used so far by the processes ``pids`` (all their threads); gone ones count 0."""
    total = 0
    for pid in pids:
        fields = stat(pid)
        if fields is not None:
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / _TICK


def kill_group(pgid: int, sig: int = signal.SIGKILL) -> None:
    """Signal the process group ``pgid``; a group that is gone, or not ours to signal, is left be."""
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def kill(pids: Iterable[int], sig: int = signal.SIGKILL) -> None:
    """Signal each of ``pids``; one that is gone, or not ours to signal, is left be."""
    for pid in pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
