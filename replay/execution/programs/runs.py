"""Judging an answer to a single-program task (a ``[programs]`` repository: DevBench's instances).

The program is the task's file with the answer in its hole, followed by its checks, run whole by
its language's runner (``programs/``). It passes when the run's proof says the program ran to its
end (``programs/__init__.py``); the failure class comes from the error the launcher recorded.

``jobs`` runs go at once, and more while fewer than ``jobs`` threads of ours want a core
(``admission.py``: many programs mostly wait on themselves); a program that shows no sign of
waiting (:func:`waits_on_itself`) always finds one of ``jobs`` slots kept for such runs. Runners
are kept per language and kind of program (quick or waiting), as many as runs went at once, each
lent to one call at a time; a runner that says it is ``concurrent`` (C++: nothing resident, only
a cache of binaries) is one per language, shared by every call. Up to :data:`PREPARED_PER_JOB`
runners per job and language are *prepared*: told every program of the repository (``prepare``: a
warm Python server preloads the libraries they share), they serve the quick runs. The others are
*light*, told no program: they serve the runs that wait, and the quick runs beyond the prepared
runners. There are as many of them as runs go at once (dozens, when programs wait): a library
preloaded in each would cost every one of them its import, to spare runs that mostly sleep.
"""

from __future__ import annotations

import queue
import re
import threading
from pathlib import Path

from replay.config.manifest import Manifest
from replay.core.programs import join
from replay.core.records import Status, Task
from replay.execution import programs
from replay.execution.classify import stopped
from replay.execution.proof.check import Shortfall, shortfall
from replay.execution.run_end import ended
from replay.execution.sandbox.bubblewrap import ProcessResult, Sandbox
from replay.execution.scheduling.admission import Admission

PROGRAM_TIMEOUT = 30.0  # DevBench's harness gives each program 30 seconds
# Prepared runners per job (DevBench's Python gate: 1 per job 20.8 s, 4 19.1 s, 8 21.0 s, warm)
PREPARED_PER_JOB = 4
# What a program that waits on itself (or its checks) says: ``time.sleep``, ``setTimeout``, ...
_WAITING = re.compile(r"\b(?:sleep|setTimeout|setInterval|timeout|Timer|wait)\b|\bsleep_for\b|\bThread\.sleep\b")


def waits_on_itself(source: str) -> bool:
    """Whether a program looks as if it waits on itself (a retry's back-off, a cache's expiry, a
    server's timeout): such runs hold a slot but seldom a core (``admission.py``)."""
    return _WAITING.search(source) is not None


_UNDEFINED = re.compile(r"^(NameError|ReferenceError|UnboundLocalError)\b")


class ProgramRuns:
    def __init__(self, sandbox: Sandbox, jobs: int = 1, workdir: Path | None = None, warm: bool = True):
        self.sandbox, self.workdir, self.warm = sandbox, workdir, warm
        self.admission = Admission(jobs)
        self._lock = threading.Lock()
        self._idle: dict[tuple[str, bool], queue.Queue[programs.Runner]] = {}  # by language and kind (prepared)
        self._prepared_made: dict[str, int] = {}  # prepared runners made, by language
        self._shared: dict[str, programs.Runner] = {}
        self._creating = threading.Lock()  # a shared runner is made once
        self._all: list[programs.Runner] = []
        self._checks: dict[tuple[str, str], str] = {}
        self._prepared: set[tuple[str, int]] = set()  # (repository, runner) pairs told the programs they may run

    @property
    def concurrency(self) -> int:
        """How many calls of :meth:`run` may usefully be waiting at once."""
        return self.admission.limit

    def _borrow(self, language: str, environment: Path | None, waits: bool) -> tuple[programs.Runner, bool]:
        """A runner of ``language`` and whether it is a prepared one (told every program). A quick
        run takes an idle prepared runner, or a new one while fewer than :data:`PREPARED_PER_JOB`
        per job exist, else a light one (told no program), as a run that waits always does:
        an idle one, or a new one when every one is busy (the admission bounds how many runs, hence
        runners, there are). The one shared runner of a language whose runners are
        :func:`~replay.execution.programs.concurrent`."""
        if programs.concurrent(language):
            with self._creating:
                if language not in self._shared:
                    self._shared[language] = self._made(language, environment)
                return self._shared[language], False
        prepared = False
        with self._lock:
            if not waits:
                idle = self._idle_one(language, True)
                if idle is not None:
                    return idle, True
                prepared = self._prepared_made.get(language, 0) < PREPARED_PER_JOB * self.admission.jobs
                self._prepared_made[language] = self._prepared_made.get(language, 0) + prepared
            if not prepared:
                idle = self._idle_one(language, False)
                if idle is not None:
                    return idle, False
        return self._made(language, environment), prepared

    def _idle_one(self, language: str, prepared: bool) -> programs.Runner | None:
        """An idle runner of ``language`` of that kind (None: every one is busy); under ``_lock``."""
        try:
            return self._idle.setdefault((language, prepared), queue.Queue()).get_nowait()
        except queue.Empty:
            return None

    def _made(self, language: str, environment: Path | None) -> programs.Runner:
        made = programs.runner(language, self.sandbox, environment, self.warm, self.workdir)
        with self._lock:
            self._all.append(made)
        return made

    def _give_back(self, language: str, prepared: bool, runner: programs.Runner) -> None:
        if self._shared.get(language) is not runner:
            self._idle[(language, prepared)].put(runner)

    def _sources(self, manifest: Manifest) -> list[str]:
        """Every program of ``manifest``'s repository, with its checks (what a runner may be asked to run)."""
        return [
            (manifest.root / rel).read_text(encoding="utf-8", errors="replace") + "\n" + self.checks(manifest, rel)
            for rel in manifest.source_files()
        ]

    def checks(self, manifest: Manifest, path: str) -> str:
        """The checks appended to the program at ``path`` ('' when it has none)."""
        assert manifest.programs is not None
        key = (manifest.name, path)
        if key not in self._checks:
            check = manifest.root / manifest.programs.check_path(path)
            self._checks[key] = check.read_text(encoding="utf-8") if check.is_file() else ""
        return self._checks[key]

    def run(self, manifest: Manifest, task: Task, patched: str, timeout: float | None = None, cpu: float | None = None) -> ProcessResult:
        """Run the program ``patched`` (the task's file with an answer in it) with its checks."""
        assert manifest.programs is not None
        checks = self.checks(manifest, task.path)
        source = join(patched, checks) if checks.strip() else patched
        program = programs.Program(task.language, task.path, source)
        waits = waits_on_itself(source)
        with self.admission.slot(waits):
            runner, prepared = self._borrow(task.language, manifest.programs.environment, waits)
            try:
                with self._lock:
                    first = (manifest.name, id(runner)) not in self._prepared
                    self._prepared.add((manifest.name, id(runner)))
                if first and programs.preparable(runner):
                    programs.prepare(runner, self._sources(manifest) if prepared else [])
                return runner.run(program, manifest_timeout(manifest, timeout), cpu)
            finally:
                self._give_back(task.language, prepared, runner)

    def close(self) -> None:
        """Close every runner made; the next run makes new ones."""
        with self._lock:
            made, self._all, self._idle, self._shared = self._all, [], {}, {}
            for runner in made:
                runner.close()


def manifest_timeout(manifest: Manifest, timeout: float | None) -> float:
    return timeout if timeout is not None else manifest.timeout


def program_shortfall(result: ProcessResult) -> Shortfall | None:
    """What ``result`` lacks to be a proven pass: a run that ran to its end."""
    if result.timed_out:
        return Shortfall("failed", "the program did not finish in time")
    return shortfall(result.proof, (programs.PROGRAM_TEST,))


def classify_program(result: ProcessResult, text: str, gap: Shortfall) -> tuple[Status, str]:
    """Why a program run did not pass: what ended it (``run_end.py``), else the launcher's error
    record names the class."""
    message = result.proof.errors[0] if result.proof is not None and result.proof.errors else ""
    end = ended(result, [message] if message and not message.startswith(programs.COMPILE_ERROR) else [])
    limit = stopped(end, "the program", lambda: message if message and not end.oom_kills else end.describe("the program"))
    if limit is not None:
        return limit
    if not text.strip():
        return Status.EMPTY, message or gap.detail
    if not message:  # no error record: the process went away before its end (os._exit, a signal, a crash)
        return Status.TESTS_NOT_RUN, f"{gap.detail} (exit status {result.returncode})"
    if message.startswith(programs.COMPILE_ERROR):
        detail = message[len(programs.COMPILE_ERROR) :]
        if detail.startswith("IndentationError") or detail.startswith("TabError"):
            return Status.INDENTATION_ERROR, detail
        if detail.startswith("SyntaxError"):
            return Status.SYNTAX_ERROR, detail
        if "cannot find symbol" in detail or "was not declared" in detail or "Cannot find name" in detail:
            return Status.UNDEFINED_NAME, detail
        return Status.COMPILE_ERROR, detail
    if _UNDEFINED.match(message):
        return Status.UNDEFINED_NAME, message
    if programs.error_class(message) in ("AssertionError", "AssertionFailure"):
        return Status.FAIL, message
    if programs.error_class(message) in ("SystemExit", "EarlyExit"):  # left before its end: the checks did not all run
        return Status.TESTS_NOT_RUN, message
    return Status.RUNTIME_ERROR, message
