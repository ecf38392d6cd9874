"""Why the gate drops a candidate, as a kind and as a message.

The message is for people (``mark`` and ``import lines`` print it, counted); the kind is for the
program: what ``mark`` advises for a repository that kept nothing is chosen by it. Choosing by the
message's words would change the advice whenever a message is reworded, or give two reasons whose
messages share words the same advice.

A program task (an imported DevBench instance, ``program_gate.py``) is dropped for one of
:data:`PROGRAM_REASONS`, in the order the import's table shows them. ``toolchain_missing`` covers a
language the machine cannot run and a package left out of ``--provision`` on purpose (torch,
tensorflow, jax); ``needs_network`` a program whose golden completion fails because it reaches for
a host the sandbox, which has no network, cannot resolve or route to (``program_failures.py``):
neither says anything about the golden completion, so neither is filed as ``golden_fails``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from replay.core.records import Task


@dataclass(frozen=True, slots=True)
class Drop:
    """Why one candidate is not kept: ``reason`` to act on, ``message`` to show."""

    reason: DropReason
    message: str


class DropReason(Enum):
    """What kind of evidence was missing for a candidate to be kept."""

    HOLE_MISMATCH = "hole_mismatch"  # the hole's ground truth does not give back the file as it is
    TESTS_FAIL = "tests_fail"  # the selected tests fail on the untouched code
    NO_TESTS = "no_tests"  # no selected test executes the hole
    FILLER_PASSES = "filler_passes"  # the tests pass with a neutral filler in the hole
    UNSTABLE = "unstable"  # the filler passed some runs and failed others
    UNPROVEN = "unproven"  # a failure that no test's own result shows
    NO_PROBE_COMPILES = "no_probe_compiles"  # neither the filler nor a throwing probe compiles
    NO_FAILING_ADDITION = "no_failing_addition"  # a decision place no plausible (longer) answer breaks
    # program tasks (program_gate.py)
    TOOLCHAIN_MISSING = "toolchain_missing"  # the machine lacks the language's toolchain, or a package left out on purpose
    NEEDS_NETWORK = "needs_network"  # the golden completion fails for want of the network the sandbox never gives
    GOLDEN_FAILS = "golden_fails"  # the golden completion fails every run, for a reason of its own
    PASSES_EMPTY = "passes_empty"  # the program passes with the hole left empty
    FLAKY = "flaky"  # the golden completion or the empty answer gave different verdicts on different runs


# why a program task is dropped, in the order of the import's table (devbench-gate.json's keys)
PROGRAM_REASONS = (
    DropReason.TOOLCHAIN_MISSING,
    DropReason.NEEDS_NETWORK,
    DropReason.GOLDEN_FAILS,
    DropReason.PASSES_EMPTY,
    DropReason.FLAKY,
)


@dataclass(frozen=True, slots=True)
class DroppedTask:
    """A candidate the gate did not keep (with its validation so far, when it ran) and why."""

    task: Task
    why: Drop
