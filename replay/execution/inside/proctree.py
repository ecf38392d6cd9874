"""Processes as ``/proc`` shows them: their status, a process's descendants or ancestors, the
living ones; and killing a process group or a set of processes.

Standard library only, and nothing of simpilot: ``sandbox.py`` and ``warm.py`` import this as
``replay.execution.inside.proctree``, while ``pytest_server.py``, a script run by the tests' interpreter
(possibly another Python than simpilot's), imports it as the sibling module ``proctree`` (the
script's folder is its ``sys.path[0]``).
"""

from __future__ import annotations

import math
import os
import select
import signal
from collections.abc import Iterable

DEAD = ("Z", "X")  # the states of a process that has exited but not yet been waited for
_TICK = os.sysconf("SC_CLK_TCK")
_CHUNK = 65536  # bytes asked of a /proc file at once: a stat line is far shorter
_PAGE = 4096  # the most the kernel gives at once from some (a thread's children)
_LONGEST_POLL_MS = 2**31 - 1  # poll() takes a C int


def _read(path: str) -> bytes | None:
    """A small ``/proc`` file's bytes, or None when it is gone. ``os.read`` rather than ``open``:
    the admission reads hundreds of these ten times a second, and a file object costs twice as much."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        chunks = [os.read(fd, _CHUNK)]
        while len(chunks[-1]) > _PAGE - 64:  # a long list of children: a read ends within a page, at a whole entry
            chunks.append(os.read(fd, _CHUNK))
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def _after_name(pid: int | str) -> bytes | None:
    """``/proc/PID/stat`` after the command name (which may hold spaces and parentheses), from
    the space before the state on; None when the process is gone."""
    data = _read(f"/proc/{pid}/stat")
    end = data.rfind(b")") if data is not None else -1
    return data[end + 1 :] if data is not None and 0 <= end < len(data) - 2 else None


def stat(pid: int | str) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name (``[0]``: the state, ``[1]``: the
    parent, ``[11]``/``[12]``: user/system CPU ticks), or None when the process is gone. ``pid``
    may also be ``PID/task/TID``: a thread's."""
    rest = _after_name(pid)
    return rest.decode("ascii", "replace").split() if rest is not None else None


def state(pid: int | str) -> str | None:
    """The state letter of ``/proc/PID/stat`` (``pid`` as for :func:`stat`), or None when gone."""
    rest = _after_name(pid)
    return chr(rest[1]) if rest is not None else None


def _has_children_files() -> bool:
    """Whether the kernel lists a thread's children (``/proc/PID/task/TID/children``, Linux 3.5
    with ``CONFIG_PROC_CHILDREN``): then a process's descendants are found without reading every
    process on the machine."""
    try:
        tid = os.listdir("/proc/self/task")[0]
        return os.path.exists(f"/proc/self/task/{tid}/children")
    except (OSError, IndexError):
        return False


_CHILDREN_FILES = _has_children_files()


def _children(pid: int) -> list[int]:
    """The children of ``pid``: each of its threads' (a child's parent is the thread that made it),
    zombies included."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    found: list[int] = []
    for tid in tids:
        data = _read(f"/proc/{pid}/task/{tid}/children")
        if data:
            found += [int(child) for child in data.split()]
    return found


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
    """Every living process below ``pid`` (zombies left out): from each process's list of
    children where the kernel keeps one (a warm server asks after every run, and only its own few
    processes are read), else from the parent links of every process in ``/proc``. A list of
    children may miss one while a sibling exits; a process left running is still there, and found,
    at the next look."""
    if _CHILDREN_FILES:
        found, todo = [], _children(pid)
        while todo:
            child = todo.pop()
            if state(child) not in (None, *DEAD):
                found.append(child)
                todo += _children(child)
        return found
    return [child for child, _ in below(pid)]


def below(pid: int) -> list[tuple[int, list[str]]]:
    """Every living process below ``pid`` with its ``stat`` fields (zombies left out), from the
    parent links of every process in ``/proc``: one pass; OSError when ``/proc`` cannot be listed."""
    children: dict[int, list[tuple[int, list[str]]]] = {}
    for child, fields in _living():
        children.setdefault(int(fields[1]), []).append((child, fields))
    found, todo = [], [pid]
    while todo:
        for child, fields in children.get(todo.pop(), []):
            found.append((child, fields))
            todo.append(child)
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


def ended(pid: int, timeout: float) -> bool | None:
    """Wait until the child ``pid`` ends or ``timeout`` seconds pass, without reaping it: True when
    it ended, False at the timeout, None where the kernel has no pidfd (Linux before 5.3) and the
    caller must wait another way. The kernel wakes the wait the moment the process ends, where
    ``Popen.wait(timeout)`` sleeps in steps of up to 50 ms: tens of ms added to every short run."""
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        return bool(poller.poll(min(math.ceil(max(0.0, timeout) * 1000), _LONGEST_POLL_MS)))
    finally:
        os.close(pidfd)


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
