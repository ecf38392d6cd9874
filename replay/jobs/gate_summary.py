"""What ``mark`` and ``import lines`` say about the gate's work on stderr: how many tasks were
kept by kind, why candidates were dropped, the presets' alterations, and for a repository that
kept nothing, one line of advice chosen by the most common reason's kind (``DropReason``), never
by its message's words: a reworded message keeps its advice."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from replay.config.manifest import Manifest
from replay.jobs.output import err
from replay.marking import MarkResult
from replay.validation.drops import DroppedTask, DropReason
from replay.validation.gate import GateReport

# what to do about the gate's reasons, by kind; NO_TESTS names the repository's tests and sources
ADVICE: dict[DropReason, str] = {
    DropReason.FILLER_PASSES: "the tests run the code but do not check what it computes: add assertions on its results",
    DropReason.TESTS_FAIL: "make the tests pass on the untouched code",
}
NO_ADVICE = "see the reasons above"


def print_gate(report: GateReport) -> None:
    """Why the gate dropped candidates (most common first), and the presets' alterations."""
    for why, count in Counter(d.why.message for d in report.dropped).most_common():
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


def advice(manifest: Manifest, reason: DropReason | None) -> str:
    """What to do when most candidates were dropped for ``reason`` (None: none were)."""
    if reason is DropReason.NO_TESTS:
        return (
            f"check that the tests in {', '.join(manifest.tests) or 'the repository'} import and call the code in "
            f"{', '.join(manifest.sources)} (a hole needs a test that runs it)"
        )
    return ADVICE.get(reason, NO_ADVICE) if reason is not None else NO_ADVICE


def nothing_kept(manifest: Manifest, marked: MarkResult, dropped: list[DroppedTask], target: Path) -> str:
    """Why ``manifest``'s repository kept no task, and what to do about it (one line): the most
    common reason for dropping its candidates decides the advice."""
    if not marked.tasks:
        return (
            f"{manifest.name}: no task kept: its {marked.files} file(s) hold no hole worth asking (trivial code is skipped), "
            f"nothing written to {target}: mark a repository with more code in {', '.join(manifest.sources)}"
        )
    # a message always comes with the same kind: counting the pairs counts the messages
    reasons = Counter(d.why for d in dropped).most_common()
    why = ", ".join(f"{count} {reason.message}" for reason, count in reasons[:3])
    return (
        f"{manifest.name}: no task kept, all {len(marked.tasks)} candidates dropped ({why}); nothing written to {target}: "
        f"{advice(manifest, reasons[0][0].reason if reasons else None)}, or try more candidates with --per-kind N"
    )
