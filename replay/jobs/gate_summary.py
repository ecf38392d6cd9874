"""What ``mark`` and ``import lines`` say about the gate's work on stderr: how many tasks were
kept by kind, why candidates were dropped, the presets' alterations, and for a repository that
kept nothing, one line of advice chosen by the most common reason."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from replay.config.manifest import Manifest
from replay.core.records import Task
from replay.jobs.output import err
from replay.marking import MarkResult
from replay.validation.gate import NO_TESTS, GateReport

# the gate's reasons (the start of its message) and what to do about each, first match wins
ADVICE: tuple[tuple[str, str], ...] = (
    (NO_TESTS, ""),  # filled in per repository: which tests should run which code
    ("tests pass with the hole filled", "the tests run the code but do not check what it computes: add assertions on its results"),
    ("the selected tests fail", "make the tests pass on the untouched code"),
)
NO_ADVICE = "see the reasons above"


def print_gate(report: GateReport) -> None:
    """Why the gate dropped candidates (most common first), and the presets' alterations."""
    for why, count in Counter(why for _, why in report.dropped).most_common():
        err.print(f"  dropped {count}: {why}")
    if report.altered:
        err.print(
            f"[yellow]  post-processing altered {len(report.altered)} ground truth(s); the tasks are kept, but this is a bug of "
            "the preset (it would turn a correct answer into another): please report it[/]"
        )
        for alteration in report.altered[:10]:
            err.print(f"    {alteration.preset} (steps {', '.join(alteration.steps)}) on {alteration.task.id}")


def kept(report: GateReport) -> str:
    """How many tasks were kept, by kind (decision tasks by their decision)."""
    kinds_count = Counter(t.decision.value if t.decision else t.kind.value for t in report.kept)
    return f"{len(report.kept)} kept" + (f" ({', '.join(f'{k} {v}' for k, v in sorted(kinds_count.items()))})" if kinds_count else "")


def advice(manifest: Manifest, reason: str) -> str:
    """What to do when most candidates were dropped for ``reason``."""
    for start, said in ADVICE:
        if reason.startswith(start):
            return said or (
                f"check that the tests in {', '.join(manifest.tests) or 'the repository'} import and call the code in "
                f"{', '.join(manifest.sources)} (a hole needs a test that runs it)"
            )
    return NO_ADVICE


def nothing_kept(manifest: Manifest, marked: MarkResult, dropped: list[tuple[Task, str]], target: Path) -> str:
    """Why ``manifest``'s repository kept no task, and what to do about it (one line): the most
    common reason for dropping its candidates decides the advice."""
    if not marked.tasks:
        return (
            f"{manifest.name}: no task kept: its {marked.files} file(s) hold no hole worth asking (trivial code is skipped), "
            f"nothing written to {target}: mark a repository with more code in {', '.join(manifest.sources)}"
        )
    reasons = Counter(why for _, why in dropped).most_common()
    why = ", ".join(f"{count} {reason}" for reason, count in reasons[:3])
    return (
        f"{manifest.name}: no task kept, all {len(marked.tasks)} candidates dropped ({why}); nothing written to {target}: "
        f"{advice(manifest, reasons[0][0] if reasons else '')}, or try more candidates with --per-kind N"
    )
