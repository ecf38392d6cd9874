"""Holes cut by someone else: arbitrary cuts of real files, and DevBench's golden completions.

simpilot's own holes are always balanced blocks at one indentation with the cursor after the
indentation; a post-processor must return the ground truth unchanged on *any* hole an editor can
produce. ``cut`` draws one (Hypothesis chooses): a range of whole lines with the cursor at
column 0 or after the first line's indentation, ending at a line's end or just after its newline,
or a range of characters anywhere; as infill (the code after the hole is shown) or completion (it
is not; a Java completion ends within the innermost block, as a completion task does).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from hypothesis import HealthCheck, assume
from hypothesis import strategies as st

from postprocess import PRESETS, run_preset, run_steps
from postprocess.context import HoleContext
from postprocess.javascan import match
from replay.config.manifest import open_repository, project_root

DEVBENCH = Path(__file__).parent / "data" / "devbench"
MAX_CHARS = 600  # a character cut spans at most this much (a long answer)
MAX_LINES = 8


# Hypothesis settings of the arbitrary-hole properties: a draw parses real files, so no deadline
PROPERTY_SETTINGS = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}


@dataclass(frozen=True)
class Hole:
    where: str  # file or instance, for the failure message
    language: str
    prefix: str
    truth: str
    suffix: str

    @property
    def context(self) -> HoleContext:
        return HoleContext(self.language, self.prefix, self.suffix)


@cache
def bundled_sources() -> tuple[tuple[str, str, str], ...]:
    """(repository-relative path, language, text) of every source file of the bundled repositories."""
    found = []
    for root in sorted((project_root() / "repos").iterdir()):
        if (root / "simpilot.toml").is_file():
            manifest = open_repository(root)
            for rel in manifest.source_files():
                found.append((f"{root.name}/{rel}", manifest.language, (root / rel).read_text(encoding="utf-8")))
    return tuple(found)


def one_per_repository(sources: tuple[tuple[str, str, str], ...]) -> tuple[tuple[str, str, str], ...]:
    """The default run's share of ``sources``: one file per bundled repository."""
    return tuple({where.split("/", 1)[0]: (where, language, text) for where, language, text in sources}.values())


def devbench_holes(language: str) -> Iterator[Hole]:
    """DevBench's instances as holes: the cursor at the end of the prefix."""
    for path in sorted((DEVBENCH / language).glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            d = json.loads(line)
            yield Hole(f"devbench {language}/{path.stem}/{d['id']}", language, d["prefix"], d["golden_completion"], d["suffix"])


@st.composite
def cut(draw: st.DrawFn, where: str, language: str, text: str) -> Hole:
    """One hole an editor could produce in ``text`` (see the module docstring)."""
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    mode = draw(st.sampled_from(["column 0", "after the indentation", "characters"]))
    if mode == "characters":
        a = editor_cursor(text, draw(st.integers(0, max(0, len(text) - 1))))
        b = draw(st.integers(a + 1, min(len(text), a + MAX_CHARS)))
    else:
        first = draw(st.integers(0, len(lines) - 1))
        last = draw(st.integers(first, min(len(lines) - 1, first + MAX_LINES)))
        a = starts[first]
        if mode == "after the indentation":
            a += len(lines[first]) - len(lines[first].lstrip(" \t"))
        b = starts[last] + len(lines[last])
        if b < len(text) and draw(st.booleans()):  # the hole takes the line's newline too
            b += 1
    truth = text[a:b]
    # A completion task ends within the innermost block around the cursor (the model is not
    # shown the ``}`` that closes it); a cut that goes past it is a hole only with its suffix.
    closes = closes_a_block(language, text[:a], truth)
    # ... and when nothing but white space follows, the editor shows what a completion shows
    assume(not (closes and not text[b:].strip()))
    infill = draw(st.booleans()) or closes
    return Hole(f"{where} [{a}:{b}] {mode}, {'infill' if infill else 'completion'}", language, text[:a], truth, text[b:] if infill else "")


def editor_cursor(text: str, at: int) -> int:
    """``at``, or where an editor puts a cursor that would sit inside a line's indentation: after
    it (an editor indents a new line for the user; the user types from there or from column 0)."""
    start = text.rfind("\n", 0, at) + 1
    line_end = text.find("\n", at)
    line = text[start : line_end if line_end >= 0 else len(text)]
    indent = len(line) - len(line.lstrip(" \t"))
    return start + indent if start < at < start + indent else at


def closes_a_block(language: str, prefix: str, truth: str) -> bool:
    """Whether ``truth`` closes a Java block that ``prefix`` opened."""
    if language != "java":
        return False
    before = {at for at in match(prefix)[0] if prefix[at] == "{"}
    return bool(before - set(match(prefix + truth)[0]))


def fenced(hole: Hole) -> str:
    return f"Here is the code:\n```{hole.language}\n{hole.truth}\n```"


def alterations(hole: Hole, presets: tuple[str, ...] | None = None) -> list[str]:
    """What each preset did to the hole's truth, bare and fenced with a preamble (empty: nothing)."""
    found = []
    ctx = hole.context
    for preset in presets or tuple(sorted(PRESETS)):
        for raw in (hole.truth, fenced(hole)):
            got = run_preset(preset, raw, ctx)
            if got.text != hole.truth:
                how = "bare" if raw is hole.truth else "fenced"
                found.append(f"{preset} ({how}, changed by {', '.join(got.changed_by)}): {hole.truth!r} -> {got.text!r}")
    return found


def step_alters(step: str, hole: Hole) -> bool:
    """Whether one step alone changes the hole's truth."""
    return run_steps((step,), hole.truth, hole.context).text != hole.truth
