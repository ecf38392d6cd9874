"""Why a run did not pass: the class of a failed test run or compared program run.

Most specific class first. What ended the run comes from the one rule (``run_end.py``): a run a
limit stopped is a timeout or out of memory (:func:`stopped`, shared by every classifier, the
program runs' included), before anything the run's own output says. Then the answer's own text: an
empty answer, names it reads that nothing binds (:func:`undefined_in_answer`); then what the tests
or the program reported.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from replay.core.records import Status, Task
from replay.execution.inside.server_protocol import PYTEST_CRASHED
from replay.execution.output import crash_line
from replay.execution.proof.check import Shortfall
from replay.execution.python_checks import may_read_names, undefined_names
from replay.execution.run_end import RunEnd, ended, is_memory_error
from replay.execution.runners import junit as java_runner
from replay.execution.runners.warm import DIED_MID_RUN
from replay.execution.sandbox.bubblewrap import ProcessResult

_PYTEST_FAILED = re.compile(r"^(?:FAILED|ERROR) \S+(?: - (\w+(?:\.\w+)*)\b:?(.*))?$", re.M)
_E_LINE = re.compile(r"^E\s+(\w+(?:Error|Exception|Exit))\b(.*)$", re.M)
# How pytest's short summary names a failed assertion: a rewritten ``assert`` shows its expression
# ("- assert 5.0 == 2.5"), ``pytest.fail`` and an unmet ``pytest.raises`` say "Failed: ...".
# Both are the tests' own checks failing, not errors of the code.
_ASSERTION_WORDS = frozenset({"assert", "Failed"})


def stopped(end: RunEnd, subject: str, memory_detail: Callable[[], str] | None = None) -> tuple[Status, str] | None:
    """The class of a run a limit stopped (``end``, by the rule): time, wall clock or CPU, then
    memory (``memory_detail``: what the classifier adds about where it ran out); else None."""
    if end.timed_out:
        return Status.TIMEOUT, end.describe(subject)
    if end.out_of_memory:
        return Status.OUT_OF_MEMORY, memory_detail() if memory_detail is not None else end.describe(subject)
    return None


def undefined_in_answer(task: Task, text: str, patched: str) -> tuple[Status, str] | None:
    """``UNDEFINED_NAME`` when the answer ``text`` (in Python) reads names nothing binds in the
    ``patched`` file; else None."""
    if task.language == "python" and may_read_names(text):
        names = undefined_names(patched, task.span.start.line + 1, task.span.start.line + text.count("\n") + 1)
        if names:
            return Status.UNDEFINED_NAME, "undefined: " + ", ".join(names)
    return None


def _memory_detail(end: RunEnd, tail: str, first: str) -> str:
    """A test run out of memory: which test ran out, where the output names it."""
    named = (line for line in tail.splitlines() if line.startswith(("FAILED", "ERROR")) and is_memory_error(line.partition(" - ")[2]))
    where = next(named, first)
    return end.describe("the tests") + (f": {where}" if where and not end.oom_kills else "")


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
    limit = stopped(end, "the tests", lambda: _memory_detail(end, tail, first))
    if limit is not None:
        return limit
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
    undefined = undefined_in_answer(task, text, patched)
    if undefined is not None:
        return undefined
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
    limit = stopped(end, "the program")
    if limit is not None:
        return limit
    if not text.strip():
        return Status.EMPTY, gap.detail
    undefined = undefined_in_answer(task, text, patched)
    if undefined is not None:
        return undefined
    if result.returncode != 0:
        if result.returncode > 0 and re.match(r"\w*NameError\b", crash_line(result.output_tail)):
            return Status.UNDEFINED_NAME, gap.detail
        return Status.RUNTIME_ERROR, gap.detail
    return Status.FAIL, gap.detail
