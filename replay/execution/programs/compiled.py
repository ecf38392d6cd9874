"""What the harnesses of compiled programs (C++, C#) share: a build once per program, a run in a
fresh folder with the proof channel, and how a run that proved no pass is told.

A runner keeps each program's build (its binary, or the failed compilation's result) by a key of
its source and flags: the gate runs the same program twice and builds it once. A build that ran
out of time is not kept (the machine may have been busy). Each run gets a fresh, empty folder and
its own proof channel; its CPU budget is the kernel's limit on the process (``prlimit``). A run
whose launcher did not write a pass gets exactly one failed test and one error, which names the
failure's class first (``TimeoutError: ...``, ``AssertionError: ...``), as every harness's error
records do (``programs.error_class`` reads it).
"""

from __future__ import annotations

import re
import shutil
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from replay.execution.programs import PROGRAM_TEST
from replay.execution.proof.check import Channel, Proof
from replay.execution.run_end import oom_kill_message
from replay.execution.runners.warm import cpu_budget
from replay.execution.sandbox.bubblewrap import ProcessResult, Sandbox, with_budget

COMPILE_OUTPUT = 64000  # bytes of the compiler's output kept from its start, where its first error is

Describe = Callable[[ProcessResult, Proof, float, int | None], str]  # why a run failed


@dataclass(frozen=True, slots=True)
class Build:
    """A compiled program: its binary (or assembly), or the failed compilation's result."""

    binary: Path | None
    failure: ProcessResult | None = None


class Builds:
    """The builds a runner made, by key. Safe from several threads at once: the first run of a
    program builds it, the others wait for that build."""

    def __init__(self) -> None:
        self._builds: dict[str, Build] = {}
        self._lock = threading.Lock()
        self._building: dict[str, threading.Lock] = {}  # per program: the first run builds, the others wait

    def get(self, key: str, build: Callable[[], Build]) -> Build:
        """The build kept under ``key``, else ``build()``'s (kept unless it timed out)."""
        with self._lock:
            building = self._building.setdefault(key, threading.Lock())
        with building:
            if key not in self._builds:
                made = build()
                if made.failure is not None and made.failure.timed_out:
                    return made  # the machine may have been busy: not remembered
                self._builds[key] = made
            return self._builds[key]

    def clear(self) -> None:
        self._builds.clear()


def failed_proof(message: str, proof: Proof | None = None) -> Proof:
    """The proof of a failed run: the one program test failed, with one error."""
    proof = proof or Proof()
    return Proof({PROGRAM_TEST: "failed"}, {}, (message,), (), proof.started, False)


def refused(message: str) -> ProcessResult:
    """The result of a program refused before it was built (it switches its checks off)."""
    return ProcessResult(1, False, 0.0, message, failed_proof(message))


def build_failure(result: ProcessResult, message: str) -> Build:
    """A failed build: the compiler's result, with ``message`` as the run's one error."""
    return Build(None, ProcessResult(result.returncode, result.timed_out, result.duration_s, result.output_tail, failed_proof(message)))


def run_once(
    sandbox: Sandbox, root: Path, command: list[str], timeout: float, cpu: float | None, env: dict[str, str], describe: Describe
) -> ProcessResult:
    """Run a built program once, with the proof channel, in a fresh empty folder under ``root``
    (removed afterwards: nothing a run writes is there for the next). ``cpu``: the run's budget
    of CPU seconds. A run that did not prove a pass gets one failed test and one error, named by
    ``describe(result, proof, timeout, budget)`` (``budget``: set when the budget ran out)."""
    scratch = Path(tempfile.mkdtemp(prefix="run-", dir=root))
    budget = cpu_budget(cpu, sandbox.limits.cpu_seconds) if cpu is not None else None
    if budget is not None and sandbox.prlimit:
        # soft limit at the budget (SIGXCPU: the run was busy), the hard limit a second later
        command = ["prlimit", f"--cpu={budget}:{budget + 1}", "--", *command]
    try:
        with Channel() as channel:
            result = sandbox.run(command, scratch, timeout, env=env, channel=channel)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if budget is not None and sandbox.prlimit:
        result = with_budget(result, budget)  # the run's own limit, inside the sandbox's
    proof = result.proof or Proof()
    if not result.timed_out and proof.finished and proof.outcomes == {PROGRAM_TEST: "passed"} and not proof.errors:
        return result
    message = describe(result, proof, timeout, budget if result.busy else None)
    return ProcessResult(
        result.returncode,
        result.timed_out,
        result.duration_s,
        result.output_tail,
        failed_proof(message, proof),
        busy=result.busy,
        end=result.end,
    )


def stopped(result: ProcessResult, proof: Proof, timeout: float, budget: int | None) -> str | None:
    """Why a run failed when something ended it or its launcher said so: its CPU budget, its
    time, the OOM killer, else the launcher's error record; None when none of these did (the
    harness then reads the exit status and the output)."""
    if budget is not None:
        return f"TimeoutError: the program used up its CPU budget of {budget} s"
    if result.timed_out:
        return f"TimeoutError: the program did not finish in {timeout:g} s"
    if (killed := oom_kill_message(result.end)) is not None:
        return killed
    return proof.errors[0] if proof.errors else None


def last_line(output: str, otherwise: str) -> str:
    """The compiler's last line that says something (``otherwise`` when it said nothing)."""
    lines = [line for line in output.splitlines() if line.strip()]
    return lines[-1].strip() if lines else otherwise


def source_name(name: str, suffix: str, reserved: str, otherwise: str) -> str:
    """The file name a program is compiled under (the compiler's messages name it): the
    program's own with ``suffix`` when it is a plain name other than ``reserved``, else ``otherwise``."""
    stem = Path(name).stem
    return f"{stem}{suffix}" if re.fullmatch(r"[\w-]+", stem) and stem != reserved else otherwise
