"""Putting text into a hole, running the repository's tests on the copy, and judging the result.

:class:`Evaluator` is the entry point and is safe to call from several threads: each call borrows
a warm work copy (``workcopies/pool.py``), patches one file, runs the tests in the sandbox
(``copy_runs.py``, with the command of ``commands.py``), restores the file and gives the copy
back; what the run lacks to be a pass is ``proof/expected.py``'s rule, against the untouched
code's passes (``untouched.py``), and why it failed is ``classify.py``'s.

A repository with ``compare_output`` has no tests: its program runs whole and its output is
compared with the untouched program's (``output.py``), recorded once per evaluator.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from postprocess.editor_text import as_saved
from replay.config.manifest import Manifest, RepoCatalog
from replay.core.programs import fill
from replay.core.records import Status, Task
from replay.core.repo_paths import task_file
from replay.execution import programs
from replay.execution.classify import classify_failure, classify_output
from replay.execution.commands import command_for
from replay.execution.copy_runs import CopyRunner
from replay.execution.nothing_verdict import suggested_needlessly, suggestion_detail
from replay.execution.once import Once
from replay.execution.output import Lines, compile_filter, judge
from replay.execution.programs.runs import ProgramRuns, classify_program, program_shortfall
from replay.execution.proof.check import Answer, Proof, Shortfall, with_tampering
from replay.execution.proof.expected import run_shortfall
from replay.execution.python_checks import compile_status
from replay.execution.run_end import ended, stopped_by_limit
from replay.execution.sandbox.bubblewrap import ProcessResult, Sandbox
from replay.execution.untouched import Untouched
from replay.execution.workcopies.pool import CopyPool


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


def apply(task: Task, original: bytes, text: str) -> bytes:
    """The file with the hole replaced by ``text`` (as an editor saves it: :func:`as_saved`)."""
    return original[: task.span.start_byte] + as_saved(text).encode("utf-8") + original[task.span.end_byte :]


def verdict(result: ProcessResult, gap: Shortfall | None, classify: Callable[[Shortfall], tuple[Status, str]]) -> Verdict:
    """The verdict on a run: a pass when its proof lacks nothing (``gap`` None), else the class
    ``classify`` gives it, proven when a limit stopped it or its tests reported the failure."""
    if gap is None:
        return Verdict(Status.PASS, "", result.duration_s, result.output_tail, proof=result.proof)
    status, detail = classify(gap)
    proven = stopped_by_limit(result) or gap.kind == "failed"
    return Verdict(status, detail, result.duration_s, result.output_tail, proven, result.proof)


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
        self.pool = CopyPool(sandbox, self.jobs, workdir, full_suite)
        self._copies = self.pool.copies  # every copy made (the tests look at a copy's servers)
        self.runner = CopyRunner(sandbox, workdir, warm)
        self.untouched = Untouched(self._untouched_program, self._untouched_suite)
        self._originals: Once[tuple[str, str], bytes] = Once()
        self.programs = ProgramRuns(sandbox, self.jobs, workdir, warm)  # [programs] repositories: one program per task

    def threads(self, tasks: Iterable[Task]) -> int:
        """How many threads should call :meth:`evaluate` for ``tasks``: ``jobs``, or as many as
        program runs may go at once when some are single programs (a program waiting on itself
        lets another run; see ``admission.py``)."""
        programs_among = any(self.catalog.get(repo).programs is not None for repo in {t.repo for t in tasks})
        return self.programs.concurrency if programs_among else self.jobs

    def original(self, task: Task) -> bytes:
        """The untouched file ``task`` was cut from (cached), once it is known to be a regular
        file inside its repository: the answer is written where this file is, in a work copy."""
        return self._originals.get((task.repo, task.path), lambda: task_file(self.catalog.get(task.repo).root, task).read_bytes())

    # -- running -----------------------------------------------------------------------------

    def command(
        self, manifest: Manifest, path: str | None, tests: tuple[str, ...] | None, full_suite: bool | None = None
    ) -> tuple[list[str], dict[str, str]]:
        """The command (and extra environment) testing a copy whose ``path`` was edited
        (``commands.py``): the full suite or only ``tests`` (None: all)."""
        return command_for(manifest, path, tests, self.full_suite if full_suite is None else full_suite)

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
        with self.pool.lent(manifest) as copy:
            if edited is None or content is None:
                with copy.checked():
                    result = self.runner.run(copy, edited, tests, full, timeout, cpu, answer)
            else:
                with copy.patched(edited, content):
                    result = self.runner.run(copy, edited, tests, full, timeout, cpu, answer)
                if copy.planted:  # what the run left in the copy for the host or the next run
                    result = dataclasses.replace(result, proof=with_tampering(result.proof, copy.planted))
        if reference is None:
            return result
        keep = compile_filter(manifest.compare_lines)
        return dataclasses.replace(
            result, proof=judge(reference, result.output, result.output_size, result.returncode, result.timed_out, keep, ended(result))
        )

    def reference_output(self, manifest: Manifest) -> Lines:
        """The untouched program's compared output lines (``compare_output``; ``untouched.py``)."""
        return self.untouched.output(manifest)

    def _untouched_program(self, manifest: Manifest) -> ProcessResult:
        with self.pool.lent(manifest) as copy:
            return self.runner.program(copy, manifest.timeout)

    def _untouched_suite(self, manifest: Manifest, full: bool) -> ProcessResult:
        return self.run_tests(manifest, tests=None, full_suite=full)

    def shortfall(
        self, manifest: Manifest, result: ProcessResult, tests: tuple[str, ...] | None, full_suite: bool | None = None
    ) -> Shortfall | None:
        """What ``result`` lacks to be a proven pass of ``tests`` (None: nothing; ``proof/expected.py``).
        A run of the whole suite must pass every test that passes on the untouched code."""
        full = self.full_suite if full_suite is None else full_suite
        return run_shortfall(manifest, result, tests, full, self.untouched.baseline)

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
        classify = classify_output if manifest.compare_output else classify_failure
        return verdict(
            result, self.shortfall(manifest, result, task.tests), lambda gap: classify(result, text, task, patched.decode("utf-8"), gap)
        )

    def _evaluate_program(
        self, manifest: Manifest, task: Task, text: str, patched: str, timeout: float | None, cpu: float | None
    ) -> Verdict:
        """A single-program task: the whole program, its checks appended, run by its language's runner."""
        why = programs.missing(task.language)
        if why is not None:
            return Verdict(Status.TOOLCHAIN_MISSING, why, 0.0, "", proven=False)
        result = self.programs.run(manifest, task, patched, timeout, cpu)
        return verdict(result, program_shortfall(result), lambda gap: classify_program(result, text, gap))

    def close(self) -> None:
        self.programs.close()
        self.pool.close()

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
