"""Sandbox cgroups: the limits the kernel does not apply to root.

``prlimit``'s process cap does not hold for root, so when simpilot runs as root each sandbox gets
cgroups of its own (where the ``pids`` and ``memory`` controllers can be used): a fork bomb stops
at the process cap and all processes together at the memory cap. The same cgroups count the
sandbox's CPU time and its out-of-memory kills for the rule of ``run_end.py``. The sandbox
(``bubblewrap.py``) creates them per process and registers them here by the process's pid.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from replay.execution.inside import proctree

# ``sh -c SCRIPT N PROCS... COMMAND...``: write this shell's pid into each of the N cgroup.procs
# files, then become COMMAND (prlimit, then bwrap) inside the groups.
JOIN_AND_EXEC = 'n=$0; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n-1)); done; exec "$@"'
_LOCK = threading.Lock()
_GROUPS: dict[int, Cgroups] = {}  # by the pid of the sandbox's first process
_COUNTER = itertools.count()
_CGROUP_ROOT = Path("/sys/fs/cgroup")


@dataclass(frozen=True, slots=True)
class Cgroups:
    """The cgroups of one sandbox (one per cgroup-v1 controller, or one cgroup-v2 folder)."""

    folders: tuple[Path, ...]

    @property
    def procs(self) -> tuple[Path, ...]:
        return tuple(f / "cgroup.procs" for f in self.folders)

    @classmethod
    def create(cls, processes: int, memory_bytes: int) -> Cgroups | None:
        """New cgroups capping ``processes`` and ``memory_bytes``, or None when the process cap
        already holds (not root) or no usable controller exists."""
        if os.geteuid() != 0:
            return None
        name = f"simpilot-{os.getpid()}-{next(_COUNTER)}"
        settings = {
            "pids": {"pids.max": str(processes)},
            "memory": {"memory.limit_in_bytes": str(memory_bytes), "memory.max": str(memory_bytes)},
            "cpuacct": {},  # counts the CPU time of the whole sandbox (cgroup v1; v2 counts it in every group)
        }
        folders: list[Path] = []
        try:
            for parent, controller in parents():
                folder = parent / name
                folder.mkdir()
                folders.append(folder)
                for controller_name in controller:
                    for key, value in settings[controller_name].items():
                        if (folder / key).exists():
                            (folder / key).write_text(value)
        except OSError:
            cls(tuple(folders)).remove()
            return None
        return cls(tuple(folders)) if folders else None

    def cpu_seconds(self) -> float | None:
        """The CPU time of everything that ran in these cgroups: on cgroup v1 the larger of
        ``cpuacct.usage`` and ``usage_user + usage_sys`` (nanoseconds; the second follows the
        sampled clock that ``RLIMIT_CPU`` counts, which runs ahead of the first), on cgroup v2
        ``usage_usec`` of ``cpu.stat``; None without either."""
        for folder in self.folders:
            try:
                counts = [int((folder / f"cpuacct.{name}").read_text()) for name in ("usage", "usage_user", "usage_sys")]
                return max(counts[0], counts[1] + counts[2]) / 1e9
            except (OSError, ValueError):
                pass
            try:
                stat = dict(line.split(" ", 1) for line in (folder / "cpu.stat").read_text().splitlines() if " " in line)
                return int(stat["usage_usec"]) / 1e6
            except (OSError, ValueError, KeyError):
                pass
        return None

    def oom_kills(self) -> int:
        """The processes the out-of-memory killer ended in these cgroups: ``oom_kill`` of
        ``memory.events`` (cgroup v2) or of ``memory.oom_control`` (cgroup v1, Linux 4.13)."""
        kills = 0
        for folder in self.folders:
            for name in ("memory.events", "memory.oom_control"):
                try:
                    lines = (folder / name).read_text().splitlines()
                except OSError:
                    continue
                kills += sum(
                    int(value) for key, _, value in (line.partition(" ") for line in lines) if key == "oom_kill" and value.isdigit()
                )
        return kills

    def remove(self) -> None:
        """Kill whatever is still in these cgroups, then delete them."""
        for folder in self.folders:
            for _ in range(100):
                try:
                    pids = [int(p) for p in (folder / "cgroup.procs").read_text().split()]
                except (OSError, ValueError):
                    break
                if not pids:
                    break
                proctree.kill(pids)
                time.sleep(0.01)
            try:
                folder.rmdir()
            except OSError:
                pass


_PARENTS: list[tuple[Path, tuple[str, ...]]] | None = None


def parents() -> list[tuple[Path, tuple[str, ...]]]:
    """Where this process may create sandbox cgroups, below its own, and which of the
    ``pids``/``memory`` controllers each place has (looked up once). Empty folders left by an
    earlier simpilot process that was killed are removed on the way."""
    global _PARENTS
    with _LOCK:
        if _PARENTS is None:
            _PARENTS = _findparents()
            for parent, _ in _PARENTS:
                _remove_stale(parent)
        return _PARENTS


def _findparents() -> list[tuple[Path, tuple[str, ...]]]:
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return []
    found: list[tuple[Path, tuple[str, ...]]] = []
    for line in lines:
        _, controllers, path = line.split(":", 2)
        wanted = tuple(c for c in ("pids", "memory", "cpuacct") if c in controllers.split(","))
        if wanted:  # cgroup v1: one hierarchy per controller
            folder = _CGROUP_ROOT / controllers / path.lstrip("/")
            if os.access(folder, os.W_OK):
                found.append((folder, wanted))
    if found:
        return found
    for line in lines:  # cgroup v2: only where the controllers are already delegated below us
        if line.startswith("0::"):
            folder = _CGROUP_ROOT / line[3:].lstrip("/")
            try:
                enabled = (folder / "cgroup.subtree_control").read_text().split()
            except OSError:
                return []
            wanted = tuple(c for c in ("pids", "memory") if c in enabled)
            return [(folder, wanted)] if wanted and os.access(folder, os.W_OK) else []
    return []


def _remove_stale(parent: Path) -> None:
    """Remove the sandbox cgroups of simpilot processes that no longer exist (killed before they
    could clean up), killing anything still in them."""
    for folder in parent.glob("simpilot-*-*"):
        pid = folder.name.split("-")[1]
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            Cgroups((folder,)).remove()


def register(pid: int, groups: Cgroups) -> None:
    """Remember ``groups`` as the cgroups of the sandbox whose first process is ``pid``."""
    with _LOCK:
        _GROUPS[pid] = groups


def of(pid: int) -> Cgroups | None:
    """The cgroups of ``pid``'s sandbox (None: it has none of its own)."""
    with _LOCK:
        return _GROUPS.get(pid)


def release(pid: int) -> Cgroups | None:
    """The cgroups of ``pid``'s sandbox, forgotten here (the caller removes them)."""
    with _LOCK:
        return _GROUPS.pop(pid, None)
