"""Output comparison: the test of a repository without a test suite is its program's output.

With ``compare_output = true`` in ``simpilot.toml`` the repository's ``test_command`` runs the
whole program (there is no test selection: ``Task.tests`` is None), and a run passes when what it
printed equals what the untouched program printed, as SimCopilot tests its programs.

What is compared: standard output and standard error together, in the order the program wrote
them, exactly as the sandbox captures them (both go to one file; ``PYTHONUNBUFFERED=1`` keeps a
Python program's order fixed). The work copy's path is replaced by ``{root}`` on both sides, so
output naming the copy (a warning's file name, ``os.getcwd()``) compares equal across copies.
Lines are split on ``\\n`` (a trailing ``\\r`` is kept); with ``compare_lines`` only the lines
matching that regular expression (``re.search``) are compared, e.g. to leave timings out.

The reference: the untouched program, run twice in the sandbox, once per repository and
evaluator (:meth:`Evaluator.reference_output`). It must exit 0 both times and print the same
compared lines both times; otherwise :class:`~replay.core.errors.SimpilotError` stops the run —
nothing can be measured against a program that fails or whose output is not reproducible.

Bounds: the first :data:`OUTPUT_LIMIT` bytes of a run's output are kept whole (the sandbox keeps
only a tail of other runs). An untouched program printing more is refused; a run printing more
fails ("printed more than ..."), even when the lines ``compare_lines`` keeps would match: what
lies beyond the bound was never seen. Beyond the sandbox's file-size limit the program is killed.

The judgement is a :class:`~replay.execution.proof.check.Proof` with one test, :data:`OUTPUT_TEST`,
passed or failed, so the gate, replays and reports treat it like any other run. It is made in
simpilot's process, outside the sandbox, from a file the program's output went to: the code
under test cannot reach the reference, so it can pass only by printing what the untouched program
printed — which is the test. A failed run's proof carries why (``Proof.errors``): the first
differing line, expected against got, or the exit status and the output's last line. A run that
timed out or was killed never passes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from replay.core.errors import SimpilotError
from replay.execution.proof.check import Proof
from replay.execution.run_end import RunEnd

OUTPUT_TEST = "output"  # the one test id of an output comparison
OUTPUT_LIMIT = 4 << 20  # bytes of a run's output kept for the comparison
ROOT_MARK = "{root}"  # what the work copy's path becomes in the compared output
_SHOWN = 200  # characters of a differing line shown in a detail


@dataclass(frozen=True, slots=True)
class Lines:
    """The compared lines of one output: (line number in the whole output, text)."""

    lines: tuple[tuple[int, str], ...]
    total: int  # lines in the whole output

    def texts(self) -> list[str]:
        return [text for _, text in self.lines]


def compile_filter(pattern: str | None) -> re.Pattern[str] | None:
    """``compare_lines`` as a regular expression (None: every line is compared)."""
    if pattern is None:
        return None
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise SimpilotError(f"compare_lines {pattern!r} is not a valid regular expression ({exc})") from None


def normalised(output: str, roots: tuple[str, ...] = ()) -> str:
    """``output`` with each of ``roots`` (a work copy's path, spelled in every way it can be
    reached) replaced by ``{root}``, longest first."""
    for root in sorted({r for r in roots if len(r) > 1}, key=len, reverse=True):
        output = output.replace(root, ROOT_MARK)
    return output


def compared_lines(output: str, keep: re.Pattern[str] | None = None) -> Lines:
    """The lines of ``output`` that are compared (all, or those ``keep`` matches)."""
    lines = output.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    numbered = tuple((n, line) for n, line in enumerate(lines, 1) if keep is None or keep.search(line))
    return Lines(numbered, len(lines))


def first_difference(expected: Lines, got: Lines, names: tuple[str, str] = ("expected", "got")) -> str | None:
    """None when both compare equal; else the first differing line, expected against got
    (``names`` says what the two sides are called)."""
    exp_name, got_name = names
    for (n_exp, exp), (n_got, line) in zip(expected.lines, got.lines, strict=False):
        if exp != line:
            where = f"line {n_got}" if n_got == n_exp else f"line {n_got} (line {n_exp} of the {exp_name} output)"
            return f"output differs at {where}: {exp_name} {_shown(exp)}, {got_name} {_shown(line)}"
    if len(got.lines) < len(expected.lines):
        n, exp = expected.lines[len(got.lines)]
        return f"output ends early after {got.total} line(s): {exp_name} line {n} {_shown(exp)}, {got_name} the end of the output"
    if len(got.lines) > len(expected.lines):
        n, line = got.lines[len(expected.lines)]
        return f"output goes on at line {n}: {exp_name} the end of the output, {got_name} {_shown(line)}"
    return None


def _shown(line: str) -> str:
    return repr(line if len(line) <= _SHOWN else line[:_SHOWN] + "…")


def crash_line(output: str) -> str:
    """The line a crashed program ended on: the last one not indented (a Python traceback's
    exception, not a Java stack frame)."""
    lines = [line for line in output.strip().splitlines() if line.strip()]
    return next((line for line in reversed(lines) if not line[:1].isspace()), lines[-1] if lines else "(no output)")


def too_long(size: int | None) -> bool:
    return size is not None and size > OUTPUT_LIMIT


def judge(
    reference: Lines,
    output: str | None,
    size: int | None,
    returncode: int,
    timed_out: bool,
    keep: re.Pattern[str] | None,
    end: RunEnd | None = None,
) -> Proof:
    """The proof of one run against the untouched program's ``reference`` lines: ``output`` is
    the run's normalised output (its first :data:`OUTPUT_LIMIT` bytes), ``size`` its whole size;
    ``end``: what ended the run (``run_end.py``), when it is known."""

    def failed(why: str) -> Proof:
        return Proof({OUTPUT_TEST: "failed"}, errors=(why,), started=True, finished=True)

    if end is not None and (end.timed_out or end.out_of_memory):
        return failed(end.describe("the program"))
    if timed_out:
        return failed("the program did not finish in time")
    if output is None:
        return failed("the run's output was not kept")
    if returncode < 0:
        return failed(f"the program was killed by signal {-returncode}")
    if returncode != 0:
        return failed(f"the program exited with status {returncode}: {crash_line(output)}")
    if too_long(size):
        return failed(f"the program printed {size} bytes, more than the {OUTPUT_LIMIT} the comparison keeps")
    difference = first_difference(reference, compared_lines(output, keep))
    if difference is not None:
        return failed(difference)
    return Proof({OUTPUT_TEST: "passed"}, started=True, finished=True)


def reference_lines(name: str, runs: list[tuple[str | None, int | None, int, bool, str]], keep: re.Pattern[str] | None, hint: str) -> Lines:
    """The untouched program's compared lines from its runs (output, size, exit status, timed out,
    command line), refused when a run failed or two runs differ. ``hint`` names the manifest."""
    found: Lines | None = None
    for attempt, (output, size, returncode, timed_out, command) in enumerate(runs, 1):
        again = "" if attempt == 1 else " on its second run"
        if timed_out:
            raise SimpilotError(f"{name}: the untouched program did not finish in time{again}: fix it, or raise 'timeout' in {hint}")
        text = output or ""
        if returncode != 0:
            raise SimpilotError(
                f"{name}: the untouched program fails{again} (exit status {returncode}: {crash_line(text)}); "
                f"compare_output needs a program that exits 0: fix it or test_command in {hint}\n    command: {command}"
            )
        if too_long(size):
            raise SimpilotError(
                f"{name}: the untouched program prints {size} bytes, more than the {OUTPUT_LIMIT} bytes compare_output keeps: "
                f"make it print less (test_command in {hint})"
            )
        lines = compared_lines(text, keep)
        if found is None:
            found = lines
            continue
        difference = first_difference(found, lines, ("first run", "second run"))
        if difference is not None:
            raise SimpilotError(
                f"{name}: the untouched program's output is not reproducible, two runs differ ({difference}): "
                f"make it deterministic, or compare only the stable lines with compare_lines in {hint}"
            )
    if found is None:
        raise SimpilotError(f"{name}: the untouched program did not run")
    return found
