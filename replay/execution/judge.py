"""Putting text into a hole, running the repository's tests on the copy, and classifying the result.

:class:`Evaluator` keeps warm work copies (one per repository and parallel job) and is safe to
call from several threads: each call borrows a copy, patches one file, runs the tests in the
sandbox, restores the file and returns the copy.

A repository with ``compare_output`` has no tests: its program runs whole and its output is
compared with the untouched program's (``output.py``), recorded once per evaluator.
"""

from __future__ import annotations

import dataclasses
import os
import queue
import re
import shutil
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from postprocess.editor_text import as_saved
from replay.config.manifest import Manifest, RepoCatalog, has_pytest_word, with_pytest_options
from replay.core.errors import SimpilotError
from replay.core.programs import fill
from replay.core.records import Status, Task
from replay.core.repo_paths import task_file
from replay.execution import programs
from replay.execution.inside.server_protocol import PYTEST_CRASHED
from replay.execution.nothing_verdict import suggested_needlessly, suggestion_detail
from replay.execution.output import OUTPUT_LIMIT, OUTPUT_TEST, Lines, compile_filter, crash_line, judge, normalised, reference_lines
from replay.execution.programs.runs import ProgramRuns, classify_program, program_shortfall
from replay.execution.proof.check import (
    PYTEST_PLUGIN,
    Answer,
    Channel,
    Proof,
    Shortfall,
    parse_junit_xml,
    shortfall,
    tampering,
    with_tampering,
)
from replay.execution.python_checks import compile_status, may_read_names, undefined_names
from replay.execution.run_end import ended, is_memory_error, stopped_by_limit
from replay.execution.runners import junit as java_runner
from replay.execution.runners.warm import DIED_MID_RUN, pytest_args
from replay.execution.sandbox.bubblewrap import ProcessResult, Sandbox
from replay.execution.workcopies.copies import COPY_PREFIX, WorkCopy

REPORTS_ENV = "SIMPILOT_REPORTS"  # where a junit_xml test command writes its reports
_PYTEST_FAILED = re.compile(r"^(?:FAILED|ERROR) \S+(?: - (\w+(?:\.\w+)*)\b:?(.*))?$", re.M)
_E_LINE = re.compile(r"^E\s+(\w+(?:Error|Exception|Exit))\b(.*)$", re.M)
# How pytest's short summary names a failed assertion: a rewritten ``assert`` shows its expression
# ("- assert 5.0 == 2.5"), ``pytest.fail`` and an unmet ``pytest.raises`` say "Failed: ...".
# Both are the tests' own checks failing, not errors of the code.
_ASSERTION_WORDS = frozenset({"assert", "Failed"})


@dataclass(frozen=True, slots=True)
class Verdict:
    status: Status
    detail: str
    duration_s: float
    output_tail: str
    # whether the status rests on evidence the answer cannot fake: the tests' own results, our
    # compiler checks, our timeout. The gate counts only proven failures of its fillers.
    proven: bool = True
    proof: Proof | None = None  # the run's per-test results (the gate learns Java selections from them)


def _with_proof(argv: list[str]) -> list[str]:
    """A pytest command line with the proof reporter loaded, and pytest's cache (``.pytest_cache``
    in the copy, which would carry one run's state into the next) off; any other command as it is."""
    if not has_pytest_word(argv):
        return argv
    cache = [] if "no:cacheprovider" in argv else ["-p", "no:cacheprovider"]
    return with_pytest_options(argv, ["-p", PYTEST_PLUGIN, *cache])


def apply(task: Task, original: bytes, text: str) -> bytes:
    """The file with the hole replaced by ``text`` (as an editor saves it: :func:`as_saved`)."""
    return original[: task.span.start_byte] + as_saved(text).encode("utf-8") + original[task.span.end_byte :]


def classify_failure(result: ProcessResult, text: str, task: Task, patched: str, gap: Shortfall | None = None) -> tuple[Status, str]:
    """Why a test run did not pass, most specific class first. ``gap`` is what its proof lacks
    (see ``proof.shortfall``); None stands for a run whose tests reported failures."""
    tail = result.output_tail
    if gap is not None and gap.kind == "tampered":  # first: the run's other signs are the answer's to choose
        return Status.TAMPERED, gap.detail
    failed = _PYTEST_FAILED.findall(tail)
    errors = [name for name, _ in failed if name and name not in _ASSERTION_WORDS] + [name for name, _ in _E_LINE.findall(tail)]
    first = next((line for line in tail.splitlines() if line.startswith(("FAILED", "ERROR", "E "))), "")
    end = ended(result, [*errors, *(result.proof.errors if result.proof else ())])  # the one rule: run_end.py
    if end.timed_out:
        return Status.TIMEOUT, end.describe("the tests")
    if end.out_of_memory:  # which test ran out, where the output names it
        named = (line for line in tail.splitlines() if line.startswith(("FAILED", "ERROR")) and is_memory_error(line.partition(" - ")[2]))
        where = next(named, first)
        return Status.OUT_OF_MEMORY, end.describe("the tests") + (f": {where}" if where and not end.oom_kills else "")
    if not text.strip():
        return Status.EMPTY, first or (gap.detail if gap else f"exit {result.returncode}")
    if gap is not None and gap.kind == "not_run":  # no test failed: what the output says is not evidence
        if result.returncode < 0:
            return Status.RUNTIME_ERROR, f"the test process was killed by signal {-result.returncode}"
        if result.returncode == PYTEST_CRASHED:
            return Status.RUNTIME_ERROR, "pytest itself crashed during the run (e.g. its output went over the file-size limit)"
        return Status.TESTS_NOT_RUN, f"{gap.detail} (exit status {result.returncode})"
    if gap is not None and gap.kind == "no_report" and result.returncode == 0:
        return Status.UNVERIFIED, "the test command exited 0 but gives no per-test results: see junit_xml in the README"
    if task.language == "java":
        found = java_runner.classify(tail)
        if found is not None:
            return found
    if task.language == "python" and may_read_names(text):
        names = undefined_names(patched, task.span.start.line + 1, task.span.start.line + text.count("\n") + 1)
        if names:
            return Status.UNDEFINED_NAME, "undefined: " + ", ".join(names)
    if any(e.endswith("NameError") for e in errors):
        return Status.UNDEFINED_NAME, first
    if errors and not any(e.endswith("AssertionError") for e in errors):
        return Status.RUNTIME_ERROR, first
    if result.returncode < 0 and not errors:
        return Status.RUNTIME_ERROR, f"the test process was killed by signal {-result.returncode}"
    if result.returncode == PYTEST_CRASHED and not failed:
        return Status.RUNTIME_ERROR, "pytest itself crashed during the run (e.g. its output went over the file-size limit)"
    if DIED_MID_RUN in tail and not failed:  # a crash of the runner itself
        return Status.RUNTIME_ERROR, tail.strip().splitlines()[-1]
    return Status.FAIL, first or (gap.detail if gap else f"exit {result.returncode}")


def classify_output(result: ProcessResult, text: str, task: Task, patched: str, gap: Shortfall) -> tuple[Status, str]:
    """Why a run of a program whose output is compared did not pass (``gap.detail`` names the
    first differing line, or the exit status and the line the program ended on)."""
    end = ended(result, [crash_line(result.output_tail)])  # the one rule: run_end.py
    if end.timed_out:
        return Status.TIMEOUT, end.describe("the program")
    if end.out_of_memory:
        return Status.OUT_OF_MEMORY, end.describe("the program")
    if not text.strip():
        return Status.EMPTY, gap.detail
    if task.language == "python" and may_read_names(text):
        names = undefined_names(patched, task.span.start.line + 1, task.span.start.line + text.count("\n") + 1)
        if names:
            return Status.UNDEFINED_NAME, "undefined: " + ", ".join(names)
    if result.returncode != 0:
        if result.returncode > 0 and re.match(r"\w*NameError\b", crash_line(result.output_tail)):
            return Status.UNDEFINED_NAME, gap.detail
        return Status.RUNTIME_ERROR, gap.detail
    return Status.FAIL, gap.detail


class Evaluator:
    """Runs tests for tasks. ``full_suite`` runs each repository's own test command instead of
    the tests selected for the task (and, for Java, instead of the one-file recompilation); a Java
    repository without one runs every test class through simpilot's runner instead.
    ``warm`` runs the selected tests on each work copy's warm server (``warm.py``) instead of a
    fresh process per run; the full suite always runs as the repository's own command."""

    def __init__(
        self,
        catalog: RepoCatalog,
        sandbox: Sandbox,
        jobs: int = 1,
        workdir: Path | None = None,
        full_suite: bool = False,
        warm: bool = True,
    ):
        self.catalog = catalog
        self.full_suite = full_suite
        self.warm = warm
        self.sandbox = sandbox
        self.jobs = max(1, jobs)
        self.workdir = workdir
        self._lock = threading.Lock()
        self._idle: dict[str, queue.Queue[WorkCopy]] = {}
        self._made: dict[str, int] = {}
        self._building: dict[str, threading.Lock] = {}  # per repository: its first copy compiles, the others wait
        self._classes: dict[str, Path] = {}  # compiled untouched classes by repository
        self._scratch: Path | None = None
        self._copies: list[WorkCopy] = []
        self._originals: dict[tuple[str, str], bytes] = {}
        self._baselines: dict[tuple[str, bool], tuple[str, ...] | None] = {}
        self._references: dict[str, Lines | SimpilotError] = {}  # compare_output: the untouched program's lines
        self.programs = ProgramRuns(sandbox, self.jobs, workdir, warm)  # [programs] repositories: one program per task

    def threads(self, tasks: Iterable[Task]) -> int:
        """How many threads should call :meth:`evaluate` for ``tasks``: ``jobs``, or as many as
        program runs may go at once when some are single programs (a program waiting on itself
        lets another run; see ``admission.py``)."""
        programs_among = any(self.catalog.get(repo).programs is not None for repo in {t.repo for t in tasks})
        return self.programs.concurrency if programs_among else self.jobs

    # -- work copies -------------------------------------------------------------------------

    def _borrow(self, manifest: Manifest) -> WorkCopy:
        """An idle copy of ``manifest``'s repository; a new one while fewer than ``jobs`` exist."""
        name = manifest.name
        with self._lock:
            idle = self._idle.setdefault(name, queue.Queue())
            try:
                return idle.get_nowait()
            except queue.Empty:
                create = self._made.get(name, 0) < self.jobs
                if create:
                    self._made[name] = self._made.get(name, 0) + 1
        if not create:
            return idle.get()
        try:
            copy = self._new_copy(manifest)
        except BaseException:
            with self._lock:
                self._made[name] -= 1
            raise
        with self._lock:
            self._copies.append(copy)
        return copy

    def _new_copy(self, manifest: Manifest) -> WorkCopy:
        """A new work copy. A Java repository's untouched classes are compiled once (several
        seconds) and copied into its other copies (milliseconds)."""
        java = manifest.language == "java" and (not self.full_suite or manifest.runner_suite()) and not manifest.compare_output
        if not java:
            return WorkCopy(manifest, self.sandbox, self.workdir, java_classes=False)
        with self._lock:
            building = self._building.setdefault(manifest.name, threading.Lock())
        with building:
            classes = self._classes.get(manifest.name)
            copy = WorkCopy(manifest, self.sandbox, self.workdir, classes_from=classes)
            if classes is None:
                if self._scratch is None:
                    self._scratch = Path(tempfile.mkdtemp(prefix=f"{COPY_PREFIX}{os.getpid()}-classes-", dir=self.workdir))
                self._classes[manifest.name] = copy.save_classes(self._scratch / manifest.name)
            return copy

    def _return(self, copy: WorkCopy) -> None:
        self._idle[copy.manifest.name].put(copy)

    def original(self, task: Task) -> bytes:
        """The untouched file ``task`` was cut from (cached), once it is known to be a regular
        file inside its repository: the answer is written where this file is, in a work copy."""
        key = (task.repo, task.path)
        if key not in self._originals:
            self._originals[key] = task_file(self.catalog.get(task.repo).root, task).read_bytes()
        return self._originals[key]

    # -- running -----------------------------------------------------------------------------

    def command(
        self, manifest: Manifest, path: str | None, tests: tuple[str, ...] | None, full_suite: bool | None = None
    ) -> tuple[list[str], dict[str, str]]:
        """The command (and extra environment) testing a copy whose ``path`` was edited: the
        repository's own test command for the full suite, else only ``tests`` (None: all). A
        pytest command loads the proof reporter. A program whose output is compared runs as it is."""
        if manifest.compare_output:
            return manifest.command(), {}
        if self.full_suite if full_suite is None else full_suite:
            return _with_proof(manifest.command()), {}
        if manifest.language == "java":
            return java_runner.toolchain().test_command(manifest, path, tests), {}
        selected = manifest.select(tests) if tests is not None else None
        argv, extra = selected or (manifest.command(), {})
        return _with_proof(argv), extra

    def run_tests(
        self,
        manifest: Manifest,
        path: str | None = None,
        content: bytes | None = None,
        tests: tuple[str, ...] | None = None,
        full_suite: bool | None = None,
        timeout: float | None = None,
        cpu: float | None = None,
        answer: Answer | None = None,
    ) -> ProcessResult:
        """Test a work copy of ``manifest``'s repository with ``path`` replaced by ``content``
        (``timeout`` defaults to the manifest's; ``answer``: where the answer's lines are, relative
        to the copy, for the reporter's audit hook). The result carries the run's proof: what the
        tests reported through a channel the code under test cannot write to (None when the
        command gives no per-test results). With ``compare_output`` the proof is the comparison of
        the program's output with the untouched program's (recorded on the first call)."""
        timeout = manifest.timeout if timeout is None else timeout
        reference = self.reference_output(manifest) if manifest.compare_output else None
        full = self.full_suite if full_suite is None else full_suite
        if full and manifest.runner_suite():  # no test command: the whole suite is every test class through our runner
            full, tests = False, None
        edited = path if content is not None else None
        copy = self._borrow(manifest)
        try:
            if edited is None or content is None:
                with copy.checked():
                    result = self._run(copy, edited, tests, full, timeout, cpu, answer)
            else:
                with copy.patched(edited, content):
                    result = self._run(copy, edited, tests, full, timeout, cpu, answer)
                if copy.planted:  # what the run left in the copy for the host or the next run
                    result = dataclasses.replace(result, proof=with_tampering(result.proof, copy.planted))
        finally:
            self._return(copy)
        if reference is None:
            return result
        keep = compile_filter(manifest.compare_lines)
        return dataclasses.replace(
            result, proof=judge(reference, result.output, result.output_size, result.returncode, result.timed_out, keep, ended(result))
        )

    def reference_output(self, manifest: Manifest) -> Lines:
        """The untouched program's compared output lines (``compare_output``): two runs in the
        sandbox, once per repository; refused (``SimpilotError``, remembered) when a run fails or
        the two differ."""
        with self._lock:
            building = self._building.setdefault(f"output:{manifest.name}", threading.Lock())
        with building:
            if manifest.name not in self._references:
                runs = []
                try:
                    for _ in range(2):
                        copy = self._borrow(manifest)
                        try:
                            result = self._run_program(copy, manifest.timeout)
                        finally:
                            self._return(copy)
                        runs.append((result.output, result.output_size, result.returncode, result.timed_out, " ".join(manifest.command())))
                    keep = compile_filter(manifest.compare_lines)
                    self._references[manifest.name] = reference_lines(manifest.name, runs, keep, str(manifest.root / "simpilot.toml"))
                except SimpilotError as exc:
                    self._references[manifest.name] = exc
            found = self._references[manifest.name]
        if isinstance(found, SimpilotError):
            raise found
        return found

    def _run_program(self, copy: WorkCopy, timeout: float) -> ProcessResult:
        """One run of a ``compare_output`` repository's program on ``copy``: its output's first
        ``OUTPUT_LIMIT`` bytes kept whole, with the copy's path written ``{root}``."""
        manifest = copy.manifest
        result = self.sandbox.run(manifest.command(), copy.root, timeout, manifest.test_env(copy.root), keep_output=OUTPUT_LIMIT)
        roots = (str(copy.root), os.path.realpath(copy.root))
        return dataclasses.replace(result, output=normalised(result.output or "", roots))

    def _run(
        self,
        copy: WorkCopy,
        edited: str | None,
        tests: tuple[str, ...] | None,
        full: bool,
        timeout: float,
        cpu: float | None = None,
        answer: Answer | None = None,
    ) -> ProcessResult:
        """One test run on ``copy``: on its warm server when there is one for the command, which
        also stops the run once it has used ``cpu`` seconds of CPU time (a busy loop)."""
        manifest = copy.manifest
        if answer is not None:
            answer = dataclasses.replace(answer, path=str(copy.root / answer.path))
        if manifest.compare_output:
            return self._run_program(copy, timeout)
        if self.warm and not full and manifest.language == "java":
            return copy.junit_server().run(java_runner.run_arguments(edited, tests), timeout, cpu)
        command, extra = self.command(manifest, edited, tests, full)
        args = pytest_args(command, manifest.python()) if self.warm and not full else None
        if args is not None:
            return copy.pytest_server().run(args, extra, timeout, cpu, answer)
        env = {**manifest.test_env(copy.root), **extra}
        if has_pytest_word(command) or (manifest.language == "java" and not full):
            with Channel(answer=answer) as channel:
                return self.sandbox.run(command, copy.root, timeout, env, channel)
        if full and manifest.junit_xml:
            with tempfile.TemporaryDirectory(prefix=f"{COPY_PREFIX}{os.getpid()}-reports-", dir=self.workdir) as reports:
                result = self.sandbox.run(command, copy.root, timeout, {**env, REPORTS_ENV: reports}, writable=(Path(reports),))
                return dataclasses.replace(result, proof=parse_junit_xml(Path(reports), result.returncode))
        return self.sandbox.run(command, copy.root, timeout, env)

    def shortfall(
        self, manifest: Manifest, result: ProcessResult, tests: tuple[str, ...] | None, full_suite: bool | None = None
    ) -> Shortfall | None:
        """What ``result`` lacks to be a proven pass of ``tests`` (None: nothing). A run of the
        whole suite must pass every test that passes on the untouched code."""
        full = self.full_suite if full_suite is None else full_suite
        tampered = tampering(result.proof)
        if tampered is not None:  # before anything else: what such a run's tests say is not evidence
            return tampered
        if result.timed_out:
            return Shortfall("failed", "the tests did not finish in time")
        if manifest.compare_output:  # one test, the output: a failed comparison says where it differs
            proof = result.proof
            if proof is not None and proof.failed:
                return Shortfall("failed", proof.errors[0] if proof.errors else "the output differs")
            return shortfall(proof, (OUTPUT_TEST,))
        expected = tests
        if full or tests is None:
            expected = self._baseline(manifest, full and not manifest.runner_suite())
        return shortfall(result.proof, expected)

    def _baseline(self, manifest: Manifest, full: bool) -> tuple[str, ...] | None:
        """The tests that pass on the untouched code with the command ``full`` chooses, from
        one proven run (None when it proves nothing: then no run of it can be a pass)."""
        key = (manifest.name, full)
        with self._lock:
            building = self._building.setdefault(f"baseline:{manifest.name}:{full}", threading.Lock())
        with building:
            if key not in self._baselines:
                result = self.run_tests(manifest, tests=None, full_suite=full)
                clean = not result.timed_out and shortfall(result.proof, None) is None
                self._baselines[key] = tuple(sorted(result.proof.passed)) if clean and result.proof else None
            return self._baselines[key]

    def evaluate(self, task: Task, text: str, timeout: float | None = None, cpu: float | None = None) -> Verdict:
        """Put ``text`` in ``task``'s hole, run the tests and say what happened. A pass is what
        the proof shows (every selected test run and passed), never an exit status. Where nothing
        was needed (``Decision.NOTHING``) a suggestion is judged as such (``decisions.py``)."""
        verdict = self.run_answer(task, text, timeout, cpu)
        if suggested_needlessly(task, text):  # the status rests on the text itself: proven
            detail = suggestion_detail(text, verdict.status, verdict.detail)
            return dataclasses.replace(verdict, status=Status.SUGGESTED, detail=detail, proven=True)
        return verdict

    def run_answer(self, task: Task, text: str, timeout: float | None = None, cpu: float | None = None) -> Verdict:
        """What the tests say with ``text`` in ``task``'s hole, whatever the task asks (the gate
        of decision tasks needs the tests' own verdict on its insertions)."""
        manifest = self.catalog.get(task.repo)
        original = self.original(task)
        text = as_saved(text)
        if manifest.programs is not None:
            program = fill(original[: task.span.start_byte].decode("utf-8"), text, original[task.span.end_byte :].decode("utf-8"))
            return self._evaluate_program(manifest, task, text, program, timeout, cpu)
        patched = apply(task, original, text)
        if task.language == "python":
            bad = compile_status(patched.decode("utf-8"), task.path)
            if bad is not None:
                status = Status.EMPTY if not text.strip() else bad[0]
                return Verdict(status, bad[1], 0.0, "")
        lines = Answer(task.path, task.span.start.line + 1, task.span.start.line + 1 + text.count("\n"))
        result = self.run_tests(manifest, task.path, patched, task.tests, timeout=timeout, cpu=cpu, answer=lines)
        gap = self.shortfall(manifest, result, task.tests)
        if gap is None:
            return Verdict(Status.PASS, "", result.duration_s, result.output_tail, proof=result.proof)
        classify = classify_output if manifest.compare_output else classify_failure
        status, detail = classify(result, text, task, patched.decode("utf-8"), gap)
        proven = stopped_by_limit(result) or gap.kind == "failed"
        return Verdict(status, detail, result.duration_s, result.output_tail, proven, result.proof)

    def _evaluate_program(
        self, manifest: Manifest, task: Task, text: str, patched: str, timeout: float | None, cpu: float | None
    ) -> Verdict:
        """A single-program task: the whole program, its checks appended, run by its language's runner."""
        why = programs.missing(task.language)
        if why is not None:
            return Verdict(Status.TOOLCHAIN_MISSING, why, 0.0, "", proven=False)
        result = self.programs.run(manifest, task, patched, timeout, cpu)
        gap = program_shortfall(result)
        if gap is None:
            return Verdict(Status.PASS, "", result.duration_s, result.output_tail, proof=result.proof)
        status, detail = classify_program(result, text, gap)
        proven = stopped_by_limit(result) or gap.kind == "failed"
        return Verdict(status, detail, result.duration_s, result.output_tail, proven, result.proof)

    def close(self) -> None:
        self.programs.close()
        with self._lock:
            for copy in self._copies:
                copy.close()
            self._copies.clear()
            self._made.clear()
            self._idle.clear()
            self._classes.clear()
            if self._scratch is not None:
                shutil.rmtree(self._scratch, ignore_errors=True)
                self._scratch = None

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
