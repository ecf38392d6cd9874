"""The error taxonomy: why answers failed, as counts and shares, like the paper's error analysis.

The evaluator already puts every verdict in one class (``Status``; replay/execution/judge.py
decides, most specific class first: a Python file that does not compile is a syntax or
indentation error before any test runs; an undefined name is found statically on the patched
file by libcst's scope analysis, or from a ``NameError`` in the test output, or from javac's
"cannot find symbol"). This module names the classes for people, counts them, and tells which
of those three ways an undefined name was found, from the stored detail.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from replay.core.records import Outcome, Status

# Failure classes in the order a reader meets them: the answer never ran, it ran and broke, it
# ran and was wrong, it never came.
CLASSES: dict[Status, str] = {
    Status.SYNTAX_ERROR: "syntax error",
    Status.INDENTATION_ERROR: "indentation error",
    Status.COMPILE_ERROR: "compile error",
    Status.UNDEFINED_NAME: "undefined name",
    Status.RUNTIME_ERROR: "runtime error",
    Status.FAIL: "assertion failure",
    Status.TIMEOUT: "timeout",
    Status.OUT_OF_MEMORY: "out of memory",
    Status.TESTS_NOT_RUN: "tests not run",
    Status.TAMPERED: "test framework tampered with",
    Status.UNVERIFIED: "unverified (no per-test results)",
    Status.EMPTY: "empty output",
    Status.SUGGESTED: "suggested where nothing was needed",
    Status.MODEL_ERROR: "model error",
    Status.TOOLCHAIN_MISSING: "toolchain missing",
}
UNDEFINED_SOURCES = ("static analysis", "NameError", "cannot find symbol", "other")


def undefined_source(outcome: Outcome) -> str:
    """How an ``undefined_name`` verdict was found (see the module docstring)."""
    detail = outcome.detail or ""
    if detail.startswith("undefined: "):
        return "static analysis"
    if "NameError" in detail:
        return "NameError"
    if "cannot find symbol" in detail or "cannot find symbol" in (outcome.output_tail or ""):
        return "cannot find symbol"
    return "other"


@dataclass(frozen=True, slots=True)
class ClassCount:
    status: str
    label: str
    count: int
    share: float  # of all outcomes of the series
    share_of_failures: float


@dataclass(frozen=True, slots=True)
class Taxonomy:
    total: int
    passed: int
    failures: int
    classes: tuple[ClassCount, ...]  # every class, zero counts included
    undefined_sources: dict[str, int]


def taxonomy(outcomes: Iterable[Outcome]) -> Taxonomy:
    outcomes = list(outcomes)
    counts = Counter(o.status for o in outcomes)
    total = len(outcomes)
    passed = counts[Status.PASS]
    failures = total - passed
    classes = tuple(
        ClassCount(
            status.value, label, counts[status], counts[status] / total if total else 0.0, counts[status] / failures if failures else 0.0
        )
        for status, label in CLASSES.items()
    )
    sources = Counter(undefined_source(o) for o in outcomes if o.status is Status.UNDEFINED_NAME)
    return Taxonomy(total, passed, failures, classes, {s: sources[s] for s in UNDEFINED_SOURCES if sources[s]})
