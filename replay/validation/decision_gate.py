"""The gate of decision tasks: a place is kept only when the tests show the decision matters.

What "validated" means here, for each kind (``Decision`` in ``records.py``):

``no_suggestion`` (the ground truth is empty):

1. the untouched code passes the selected tests (the file's reference run; an empty answer
   leaves exactly that code);
2. for Java, a throwing probe inserted at the cursor narrows the candidate test classes to the
   methods that reach the spot (as for ordinary holes); a probe that passes means no test reaches
   the spot, and the place is dropped;
3. of the plausible additions (:func:`~replay.marking.decision_places.plausible_additions`: the
   statement again, the file's next line, an early ``return``), tried in that order, one must
   compile and make the selected tests fail, proven by the tests' own results, twice. So
   suggesting something there is demonstrably harmful, and the tests demonstrably cover the
   spot. Additions that do not compile prove nothing about the tests and do not count; additions
   that pass are harmless and do not count either (one failing addition is enough).

``one_line`` (the ground truth is one whole-line statement):

1. the ordinary gate (``gate.py``): the line reproduces the file, its tests pass on the untouched
   code and fail with a neutral filler on every run (twice, then as often as ``repetition.py``
   allows; a throwing probe when the filler does not compile), so the line is needed;
2. the line followed by one of the same plausible additions must compile and fail the tests,
   proven, twice: one line is right and a plausible longer answer is wrong. The longer answer and
   its verdict are stored in ``Validation.longer`` / ``longer_status``.

Every kept task's ground truth (the empty one too) then goes through every built-in preset, which
must return it unchanged (``GateReport.altered``), as for ordinary tasks.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import partial

from replay.core.records import Decision, Status, Task, Validation
from replay.execution.judge import Evaluator, Verdict, apply
from replay.execution.scheduling.references import ReferenceRuns
from replay.marking.decision_places import plausible_additions
from replay.validation.drops import Drop, DroppedTask, DropReason
from replay.validation.gate import (
    GATE_MIN_TIMEOUT,
    GATE_SLOWDOWN,
    JAVA_GUARD,
    NO_TESTS,
    PROBE_MIN_TIMEOUT,
    PROBE_SLOWDOWN,
    TESTS_FAIL,
    UNCOMPILED,
    GateReport,
    gate,
    learns_methods,
    validate,
)
from replay.validation.selection import reaching_methods


def _harmful(task: Task, verdict: Verdict) -> bool:
    """A compiling text whose failure the tests' own results show."""
    return verdict.status is not Status.PASS and verdict.status not in UNCOMPILED[task.language] and verdict.proven


def first_failing(evaluator: Evaluator, task: Task, texts: list[str], limit: float) -> tuple[str, Verdict] | list[str]:
    """The first of ``texts`` that compiles and fails ``task``'s tests twice, with its verdict; or,
    when none does, what each text did (the reason a place is dropped)."""
    seen = []
    for text in texts:
        verdict = evaluator.run_answer(task, text, limit)
        seen.append(verdict.status.value)
        if _harmful(task, verdict):
            again = evaluator.run_answer(task, text, limit)
            if _harmful(task, again):
                return text, verdict
            seen[-1] += f" then {again.status.value}"
    return seen


def narrow_java(evaluator: Evaluator, task: Task, limit: float) -> tuple[Task, Drop | None]:
    """A Java ``no_suggestion`` task's tests narrowed to the methods a throwing statement at the
    cursor makes fail; or why the spot cannot be validated (the probe passes or does not compile)."""
    verdict = evaluator.run_answer(task, f"\n{task.indent}{JAVA_GUARD}", limit)
    if verdict.status in UNCOMPILED["java"]:
        return task, Drop(
            DropReason.NO_PROBE_COMPILES, "a throwing statement at the cursor does not compile: nothing can be shown to reach it"
        )
    if verdict.status is Status.PASS:
        return task, Drop(DropReason.NO_TESTS, NO_TESTS + " (a throwing statement at the cursor passed)")
    return replace(task, tests=reaching_methods(verdict.proof) or task.tests), None


def _nothing(evaluator: Evaluator, references: ReferenceRuns, task: Task, timeout: float | None) -> tuple[Task, Drop | None]:
    original = evaluator.original(task)
    if task.ground_truth or apply(task, original, "") != original:
        return task, Drop(DropReason.HOLE_MISMATCH, "a no_suggestion task must have an empty hole")
    why_not = references.why_not(task)
    if why_not is not None:
        return task, Drop(DropReason.TESTS_FAIL, TESTS_FAIL + why_not)
    limit = timeout if timeout is not None else references.timeout(task, GATE_SLOWDOWN, GATE_MIN_TIMEOUT)
    if learns_methods(task):
        probe_limit = timeout if timeout is not None else references.timeout(task, PROBE_SLOWDOWN, PROBE_MIN_TIMEOUT)
        task, why = narrow_java(evaluator, task, probe_limit)
        if why is not None:
            return task, why
    found = first_failing(evaluator, task, plausible_additions(task, original), limit)
    if isinstance(found, list):
        tried = ", ".join(found) or "none to try"
        return task, Drop(DropReason.NO_FAILING_ADDITION, f"no plausible addition compiles and fails the tests twice ({tried})")
    text, verdict = found
    return replace(task, validation=Validation(True, text, True, True, verdict.status.value)), None


def _one_line(evaluator: Evaluator, references: ReferenceRuns, task: Task, timeout: float | None) -> tuple[Task, Drop | None]:
    """The longer-answer check of a ``one_line`` task that passed the ordinary gate."""
    original = evaluator.original(task)
    limit = timeout if timeout is not None else references.timeout(task, GATE_SLOWDOWN, GATE_MIN_TIMEOUT)
    longer = [task.ground_truth + extra for extra in plausible_additions(task, original)]
    found = first_failing(evaluator, task, longer, limit)
    if isinstance(found, list):
        tried = ", ".join(found) or "none to try"
        return task, Drop(DropReason.NO_FAILING_ADDITION, f"no plausible longer answer compiles and fails the tests twice ({tried})")
    text, verdict = found
    assert task.validation is not None  # set by the ordinary gate
    return replace(task, validation=replace(task.validation, longer=text, longer_status=verdict.status.value)), None


def gate_decisions(
    evaluator: Evaluator, tasks: list[Task], jobs: int, progress: Callable[[], None] | None = None, timeout: float | None = None
) -> GateReport:
    """Keep the decision tasks the tests validate (see the module docstring); ``tasks`` have
    their selected tests already."""
    one_line = [t for t in tasks if t.decision is Decision.ONE_LINE]
    nothing = [t for t in tasks if t.nothing_needed]
    first = gate(evaluator, one_line, jobs, progress, timeout)  # the line is needed: its filler fails
    references = ReferenceRuns(evaluator, [*first.kept, *nothing])

    def one(task: Task) -> tuple[Task, Drop | None]:
        done = _nothing(evaluator, references, task, timeout) if task.nothing_needed else _one_line(evaluator, references, task, timeout)
        if progress and task.nothing_needed:
            progress()
        return done

    report = GateReport(dropped=list(first.dropped))
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for task, why in pool.map(one, [*first.kept, *nothing]):
            if why is None:
                report.kept.append(task)
            else:
                report.dropped.append(DroppedTask(task, why))
    report.kept.sort(key=lambda t: (t.path, t.span.start_byte, t.span.end_byte))
    return report


# Candidate decision tasks of a manifest's repository through the whole gate (the same arguments as
# :func:`~replay.validation.gate.validate`): the untouched code's tests, test selection, the
# decision gate and the presets' alterations. One signature, the ordinary gate's, so the two
# entries cannot drift apart.
validate_decisions = partial(validate, judge=gate_decisions)
