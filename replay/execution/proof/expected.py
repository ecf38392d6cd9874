"""What a run must prove to be a pass: the tests it must show passed, by the kind of run.

A run that tampered proves nothing, whatever else it shows; a run stopped at its time limit did
not finish; a ``compare_output`` run has one test, its output; a run of the whole suite (or of
every test) must pass every test that passes on the untouched code (its baseline); a selection
must pass each selected test.
"""

from __future__ import annotations

from collections.abc import Callable

from replay.config.manifest import Manifest
from replay.execution.output import OUTPUT_TEST
from replay.execution.proof.check import Shortfall, shortfall, tampering
from replay.execution.sandbox.bubblewrap import ProcessResult

Baseline = Callable[[Manifest, bool], "tuple[str, ...] | None"]  # the untouched code's passes, full suite or not


def run_shortfall(
    manifest: Manifest, result: ProcessResult, tests: tuple[str, ...] | None, full: bool, baseline: Baseline
) -> Shortfall | None:
    """What ``result`` lacks to be a proven pass of ``tests`` (None: nothing)."""
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
        expected = baseline(manifest, full and not manifest.runner_suite())
    return shortfall(result.proof, expected)
