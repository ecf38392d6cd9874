"""What the untouched code gives, once per repository: the yardsticks a run is judged against.

* a ``compare_output`` program's output lines: two runs in the sandbox, which must agree
  (``output.reference_lines``); a refusal is remembered and raised again;
* the tests that pass on the untouched code with the full suite or the whole selection (the
  baseline): a run of them must pass every one (None when the run proves nothing).

Each is computed by the first thread that asks (``once.py``); the runs go through the evaluator's
own entry points, so they are booked and sandboxed like every other.
"""

from __future__ import annotations

from collections.abc import Callable

from replay.config.manifest import Manifest
from replay.core.errors import SimpilotError
from replay.environments.commands import suite_command
from replay.execution.once import Once
from replay.execution.output import Lines, compile_filter, reference_lines
from replay.execution.proof.check import shortfall
from replay.execution.sandbox.bubblewrap import ProcessResult

RunProgram = Callable[[Manifest], ProcessResult]  # one run of the untouched program on a work copy
RunSuite = Callable[[Manifest, bool], ProcessResult]  # the untouched code's tests, full suite or not


class Untouched:
    """The untouched program's lines and the untouched tests' passes, each made once."""

    def __init__(self, run_program: RunProgram, run_suite: RunSuite):
        self._run_program, self._run_suite = run_program, run_suite
        self._outputs: Once[str, Lines | SimpilotError] = Once()
        self._baselines: Once[tuple[str, bool], tuple[str, ...] | None] = Once()

    def output(self, manifest: Manifest) -> Lines:
        """The untouched program's compared output lines (``compare_output``): two runs in the
        sandbox, once per repository; refused (``SimpilotError``, remembered) when a run fails or
        the two differ."""
        found = self._outputs.get(manifest.name, lambda: self._record_output(manifest))
        if isinstance(found, SimpilotError):
            raise found
        return found

    def _record_output(self, manifest: Manifest) -> Lines | SimpilotError:
        runs = []
        try:
            for _ in range(2):
                result = self._run_program(manifest)
                runs.append((result.output, result.output_size, result.returncode, result.timed_out, " ".join(suite_command(manifest))))
            keep = compile_filter(manifest.compare_lines)
            return reference_lines(manifest.name, runs, keep, str(manifest.root / "simpilot.toml"))
        except SimpilotError as exc:
            return exc

    def baseline(self, manifest: Manifest, full: bool) -> tuple[str, ...] | None:
        """The tests that pass on the untouched code with the command ``full`` chooses, from
        one proven run (None when it proves nothing: then no run of it can be a pass)."""
        return self._baselines.get((manifest.name, full), lambda: self._record_baseline(manifest, full))

    def _record_baseline(self, manifest: Manifest, full: bool) -> tuple[str, ...] | None:
        result = self._run_suite(manifest, full)
        clean = not result.timed_out and shortfall(result.proof, None) is None
        return tuple(sorted(result.proof.passed)) if clean and result.proof else None
