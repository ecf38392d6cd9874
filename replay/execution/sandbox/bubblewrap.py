"""Running untrusted code: the one place that starts a process on model-written code.

Threat model. The answer is adversarial code running with the tests: models trained against test
suites learn to game them. It can read anything its process can reach, write anything writable
inside the sandbox, leave processes and threads behind, and plant links and caches. What holds
against it, and where:

* nothing outside the work copy is writable (below); the host never follows what the sandbox
  could change (``beneath.py``: descriptor-relative opens, no link followed);
* every run starts from a verified state: after each run the whole work copy is compared with
  its clean state and rebuilt on any difference (``workcopy.py``); a warm server empties the
  sandbox's scratch places after each run and is replaced when it cannot (``forkserve.py``), keeps
  its caches in its own memory, and a resident JVM is replaced when a run leaves a thread
  (``warm.py``);
* no reachable secret makes a record count: records are signed with a key the test process
  receives through a drained pipe and never sees written (``proof.py``);
* what in-process code can still try is made visible: the pytest reporter's audit hook and
  call-chain checks (``pytest_proof.py``) and the host's look at what a run planted
  (``workcopy.planted``) make such a run ``tampered``, never a pass.

Policy (this *is* a security boundary, unlike evalplus's guard):

* bubblewrap gives the process a read-only view of the system's own folders (``SYSTEM_FOLDERS``:
  programs, libraries, ``/etc``) and of what the command needs (``needed_paths``), a private
  ``/tmp`` of bounded size, a writable work folder and nothing else writable; no network
  (``--unshare-net``). Everything else is absent, not merely read-only: the user's repository
  (whose file holds the hole's ground truth), simpilot's scenarios and results database, other
  checkouts, ``/srv``, ``/opt`` and ``/work``-style folders cannot be read, so an answer cannot
  find the expected code on disk and copy it;
  its own PID namespace, so when the sandbox's first process dies every process it started dies
  with it; no capabilities (``--cap-drop ALL``: bubblewrap started by root would otherwise hand
  them all on, and with ``CAP_SYS_ADMIN`` a process remounts the read-only root writable);
* the home folders (``$HOME``, ``/root``, ``/home``) are not shown either, so keys and tokens
  kept there (``~/.ssh``, ``~/.netrc``) cannot be read; what the command itself needs from them
  or from any other folder (the interpreter, simpilot's in-sandbox package, the Java runner's
  cache, a repository's test venv: ``environment.allow_reading``) is bound read-only, folder by
  folder;
* ``prlimit`` caps CPU seconds, address space, file size and process count. The kernel does not
  apply the process cap to root, so when simpilot runs as root each sandbox also gets cgroups of
  its own (where the ``pids`` and ``memory`` controllers can be used): a fork bomb stops at
  ``Limits.processes`` tasks, and all processes together at ``Limits.memory_bytes``;
* a wall-clock timeout kills the whole process group, and then everything left in the sandbox's
  cgroups;
* what ended a run (wall time, CPU time, memory, a signal) is decided by one rule,
  ``run_end.how_it_ended``, from what is known here: the exit status, the timeout, the CPU
  budget (``SIGXCPU`` at it, ``SIGKILL`` a second later) and the CPU time the sandbox's cgroup
  counted, and the out-of-memory kills its memory cgroup counted;
* the environment is rebuilt from scratch, so secrets in the caller's environment never reach it;
* output goes to a file (not a pipe held in memory) and only its tail is kept (and, for an
  output comparison, its first ``keep_output`` bytes).

Without bubblewrap, model output is not run unless the caller explicitly chose
``unsafe_no_sandbox`` (``--unsafe-no-sandbox`` on the command line).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import site
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from replay.core.errors import SimpilotError
from replay.environments.environment import readable_folders
from replay.execution.inside import proctree
from replay.execution.proof.check import Channel, Proof
from replay.execution.run_end import RunEnd, how_it_ended
from replay.execution.sandbox import cgroups

TAIL_BYTES = 4000


@dataclass(frozen=True, slots=True)
class Limits:
    cpu_seconds: int = 300
    memory_bytes: int = 4 << 30
    file_bytes: int = 256 << 20
    processes: int = 512
    tmp_bytes: int = 1 << 30  # the private /tmp is memory: bounded like the rest


@dataclass(frozen=True, slots=True)
class ProcessResult:
    returncode: int
    timed_out: bool
    duration_s: float
    output_tail: str
    proof: Proof | None = None  # what the tests reported through the proof channel, if anything
    cpu_s: float | None = None  # CPU time the run used, where it was measured
    busy: bool = False  # stopped for using up its CPU-time budget (a busy loop), counted as timed out
    output: str | None = None  # the output's first ``keep_output`` bytes, when they were asked for
    output_size: int | None = None  # the whole output's size in bytes, when ``output`` was kept
    end: RunEnd | None = None  # what ended the run and the facts it was decided from (``run_end.py``)


@dataclass(frozen=True, slots=True)
class Sandbox:
    """How to run a command in a work folder. ``enabled=False`` runs it bare (unsafe)."""

    enabled: bool = True
    limits: Limits = Limits()
    prlimit: bool = True  # looked up once here, not on every test run

    @classmethod
    def create(cls, unsafe_no_sandbox: bool = False, limits: Limits | None = None) -> Sandbox:
        has_prlimit = shutil.which("prlimit") is not None
        if unsafe_no_sandbox:
            return cls(enabled=False, limits=limits or Limits(), prlimit=has_prlimit)
        if shutil.which("bwrap") is None:
            raise SimpilotError(
                "bubblewrap (bwrap) is not installed, and simpilot runs model-written code only inside it: "
                "install it (Debian/Ubuntu: apt-get install bubblewrap) or pass --unsafe-no-sandbox to run unprotected"
            )
        return cls(enabled=True, limits=limits or Limits(), prlimit=has_prlimit)

    def argv(self, command: list[str], workdir: Path, cpu_limit: bool = True, writable: tuple[Path, ...] = ()) -> list[str]:
        """The command line running ``command`` confined to ``workdir`` (and the ``writable``
        folders). ``cpu_limit=False`` is for resident servers, which outlive many runs: they limit
        each run's CPU themselves."""
        limits = self.limits
        prefix = (
            [
                "prlimit",
                # SIGXCPU at the limit, which says the run used up its CPU time; SIGKILL a second later
                f"--cpu={f'{limits.cpu_seconds}:{limits.cpu_seconds + 1}' if cpu_limit else 'unlimited'}",
                f"--as={limits.memory_bytes}",
                f"--fsize={limits.file_bytes}",
                f"--nproc={limits.processes}",
                "--",
            ]
            if self.prlimit
            else []
        )
        if not self.enabled:
            return prefix + command
        wd = str(workdir)
        args = ["bwrap", *system_binds(), "--dev", "/dev", "--proc", "/proc", "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp"]
        # What the command needs from outside the system's folders is bound read-only, path by
        # path: interpreters and venvs (wherever they live), simpilot's in-sandbox package, the
        # folders given to allow_reading and the files the command line names. What lies in the
        # work folder is bound with it, writable, below.
        inside = (wd, *(str(extra) for extra in writable))
        for keep in needed_paths(command):
            if not _within(keep, SYSTEM_FOLDERS) and not _within(keep, inside):
                args += ["--ro-bind", keep, keep]
        args += ["--bind", wd, wd]
        for extra in writable:
            args += ["--bind", str(extra), str(extra)]
        # the sandbox's root is bubblewrap's own memory file system, holding only the mount points
        # above: read-only, so that a write anywhere else fails instead of filling memory
        args += ["--remount-ro", "/"]
        args += [
            "--unshare-net",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--cap-drop",
            "ALL",
            "--die-with-parent",
            "--new-session",
            "--chdir",
            wd,
        ]
        return prefix + args + ["--"] + command

    def environment(self, workdir: Path, env: dict[str, str] | None = None) -> dict[str, str]:
        """The whole environment of a sandboxed command: nothing is inherited but ``PATH``."""
        return {
            "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
            "HOME": str(workdir),
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "TMPDIR": "/tmp" if self.enabled else str(workdir),
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONHASHSEED": "0",
            "PYTHONUNBUFFERED": "1",
            **(env or {}),
        }

    def run(
        self,
        command: list[str],
        workdir: Path,
        timeout: float,
        env: dict[str, str] | None = None,
        channel: Channel | None = None,
        writable: tuple[Path, ...] = (),
        keep_output: int = 0,
    ) -> ProcessResult:
        """Run ``command`` in ``workdir``; never raises for what the command does. With a proof
        ``channel`` the command gets its descriptors, and the result carries what it reported.
        ``writable``: more folders the command may write (a reports folder outside the copy).
        ``keep_output``: bytes of the output's beginning the result keeps whole (an output
        comparison), besides the tail."""
        start = time.monotonic()
        with tempfile.TemporaryFile() as out:
            proc = self._popen(
                self.argv(command, workdir, writable=writable),
                cwd=workdir,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=self.environment(workdir, {**(env or {}), **(channel.env if channel else {})}),
                pass_fds=channel.fds if channel else (),
            )
            if channel is not None:
                channel.handed_over()
            try:
                timed_out = not _ended(proc, timeout)
            finally:
                finished = _finish(proc)
            duration = time.monotonic() - start
            out.seek(0, os.SEEK_END)
            size = out.tell()
            out.seek(max(0, size - TAIL_BYTES))
            tail = out.read().decode("utf-8", "replace")
            whole = None
            if keep_output > 0:
                out.seek(0)
                whole = out.read(keep_output).decode("utf-8", "replace")
        code = -signal.SIGKILL if timed_out else exit_status(proc.returncode, self.enabled)
        proof = channel.proof() if channel else None
        budget = self.limits.cpu_seconds if self.prlimit else None
        # the CPU time of the sandbox's cgroup, else of the process itself where it is the command (no
        # sandbox): bubblewrap does not wait for the command, so its own usage does not count it
        cpu_used = finished.cgroup_cpu if finished.cgroup_cpu is not None else None if self.enabled else finished.own_cpu
        end = how_it_ended(code, wall_timed_out=timed_out, cpu_budget=budget, cpu_used=cpu_used, oom_kills=finished.oom_kills)
        size_kept = size if whole is not None else None
        return ProcessResult(code, end.timed_out, duration, tail, proof, busy=end.busy, output=whole, output_size=size_kept, end=end)

    def spawn(self, command: list[str], workdir: Path, env: dict[str, str] | None = None) -> subprocess.Popen:
        """Start a resident ``command`` in ``workdir`` (a warm test server) with pipes on its
        standard input and output; the caller ends it with :func:`kill_group`."""
        return self._popen(
            self.argv(command, workdir, cpu_limit=False),
            cwd=workdir,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=self.environment(workdir, env),
        )

    def _popen(self, argv: list[str], **kwargs) -> subprocess.Popen:
        """Start ``argv`` in a session of its own and, where root needs them, in cgroups of its
        own (joined by a shell that then becomes the command, so nothing runs outside them)."""
        groups = cgroups.Cgroups.create(self.limits.processes, self.limits.memory_bytes) if self.enabled else None
        if groups is not None:
            argv = ["/bin/sh", "-c", cgroups.JOIN_AND_EXEC, str(len(groups.procs)), *map(str, groups.procs), *argv]
        try:
            proc = subprocess.Popen(argv, start_new_session=True, **kwargs)
        except BaseException:
            if groups is not None:
                groups.remove()
            raise
        if groups is not None:
            cgroups.register(proc.pid, groups)
        return proc


def with_budget(result: ProcessResult, cpu_budget: float | None) -> ProcessResult:
    """``result`` decided again by the rule (``run_end.py``) with the run's own CPU budget: for a
    runner that set a tighter CPU limit inside the sandbox's (``prlimit``, ``setrlimit``)."""
    end = result.end
    if end is None:
        return result
    end = how_it_ended(
        end.returncode, wall_timed_out=end.wall_timed_out, cpu_budget=cpu_budget, cpu_used=end.cpu_used, oom_kills=end.oom_kills
    )
    return dataclasses.replace(result, timed_out=end.timed_out, busy=end.busy, end=end)


def _ended(proc: subprocess.Popen, timeout: float) -> bool:
    """Whether ``proc`` ended within ``timeout`` seconds (it is reaped by :func:`kill_group`)."""
    done = proctree.ended(proc.pid, timeout)
    if done is not None:
        return done
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return False
    return True


def kill_group(proc: subprocess.Popen) -> None:
    """Kill everything ``proc`` started, even processes that outlived it or left its group."""
    _finish(proc)


class _Finished(NamedTuple):
    """What the end of a sandboxed process leaves to know (for the rule of ``run_end.py``)."""

    own_cpu: float | None  # CPU seconds of the process and the descendants it waited for
    cgroup_cpu: float | None  # CPU seconds of everything in its cgroups (None: no CPU accounting)
    oom_kills: int  # its processes the out-of-memory killer ended


def _finish(proc: subprocess.Popen) -> _Finished:
    """:func:`kill_group`, keeping what the run's end needs from its cgroups before they go."""
    proctree.kill_group(proc.pid)
    cpu = _wait(proc)
    groups = cgroups.release(proc.pid)
    if groups is None:
        return _Finished(cpu, None, 0)
    finished = _Finished(cpu, groups.cpu_seconds(), groups.oom_kills())
    groups.remove()
    return finished


def _wait(proc: subprocess.Popen) -> float | None:
    """Wait for ``proc`` and give its CPU seconds, its waited-for descendants' included (bubblewrap
    waits for the command, so a sandboxed run's are there). None when it was waited for already."""
    if proc.returncode is None:
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except ChildProcessError:  # waited for by another: subprocess knows its status
            proc.wait()
            return None
        proc.returncode = os.waitstatus_to_exitcode(status)
        return usage.ru_utime + usage.ru_stime
    proc.wait()
    return None


def memory_kills(proc: subprocess.Popen) -> int:
    """How many processes of ``proc``'s sandbox the out-of-memory killer has ended so far (0
    without cgroups of its own). A resident server's runs each take the difference."""
    groups = cgroups.of(proc.pid)
    return groups.oom_kills() if groups is not None else 0


def exit_status(returncode: int, sandboxed: bool) -> int:
    """A command's exit status as :mod:`subprocess` gives it (``-N``: killed by signal N).
    bubblewrap's init reports a command killed by a signal as ``128 + N``, as a shell does."""
    if sandboxed and 128 < returncode <= 128 + 64:
        return 128 - returncode
    return returncode


SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/sys")
"""The folders every sandbox shows read-only: programs, libraries, their configuration, and
``/sys`` (the JVM and numeric libraries read the machine's shape there). Nothing a repository or
simpilot's data lives in: the rest of the file system is simply not there."""


def system_binds() -> list[str]:
    """bubblewrap arguments showing ``SYSTEM_FOLDERS`` read-only. A top-level link (``/bin ->
    usr/bin`` on merged-/usr systems) is recreated as the same link, so paths resolve as outside."""
    args: list[str] = []
    for folder in SYSTEM_FOLDERS:
        if os.path.islink(folder):
            args += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            args += ["--ro-bind", folder, folder]
    return args


def _within(path: str, folders: tuple[str, ...]) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def needed_paths(command: list[str]) -> list[str]:
    """Existing paths a sandboxed ``command`` reads: the interpreter's prefixes, simpilot's ``replay`` package,
    user site-packages, the folders given to ``environment.allow_reading``, and every absolute path on the
    command line (``-cp a.jar:b.jar`` and ``-XX:File=/x`` included; for the program itself, its
    installation: ``.../bin/java`` keeps ``...``, and a venv's ``.../bin/python`` keeps the venv)."""
    # simpilot's in-sandbox code is imported as ``replay.execution.inside.*``: the ``replay``
    # package's folder is shown, never the checkout around it (scenarios, results, bundled repositories)
    paths = {sys.prefix, sys.base_prefix, os.path.dirname(sys.executable), str(Path(__file__).resolve().parents[2]), *readable_folders()}
    user_site = site.getusersitepackages() if hasattr(site, "getusersitepackages") else None
    if isinstance(user_site, str):
        paths.add(user_site)
    for i, arg in enumerate(command):
        for token in arg.replace("=", ":").split(":"):
            if token.startswith("/"):
                paths.add(token)
                if i == 0:
                    paths.add(os.path.dirname(os.path.dirname(os.path.realpath(token))))
                    venv = os.path.dirname(os.path.dirname(token))
                    if os.path.isfile(os.path.join(venv, "pyvenv.cfg")):
                        paths.add(venv)
    kept: list[str] = []
    for path in sorted(p.rstrip("/") or "/" for p in paths if os.path.exists(p)):
        # a path inside one already kept is visible through it; binding it again would make
        # bubblewrap create a mount point inside a read-only bind, which fails
        if not any(path == k or path.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(path)
    return kept
