"""Corrupting a ground truth the way models do, so that a preset's recovery rate can be measured
exactly (the ``noisy-oracle`` model, and ``benchmarks/noisy_recovery.py``).

Each task gets one corruption *type*, assigned so that every type covers an equal share of the
tasks it applies to (``assign``), and one *variant* of it, drawn from a seeded generator keyed
by the task: the same seed always gives the same answers. Types follow the paper's repair steps:

* ``fence_prose``: a chat preamble, a markdown fence, and sometimes a trailing explanation or a
  ``<think>`` block;
* ``indentation`` (Python block holes): the answer written from column 0, or indented as a whole;
* ``bracket`` (Java): the final closing bracket dropped, or an extra one added;
* ``regenerated``: the lines just above the hole repeated before the answer, or (infill) the lines
  just below repeated after it;
* ``appended`` (block holes): an extra statement after the answer. Models do this, but no
  post-processor can know the statement is not wanted: it is reported, not targeted.

A corruption always changes the text: a draw that would leave the ground truth as it is (nothing
long enough to repeat next to the hole, say) is drawn again from the next generator of the same
seeded sequence, and if none of those changes it either, a fixed variant that does is used. A
"corruption" equal to the ground truth would be counted as recovered by every preset.

Everything here is pure: a task's corruption depends only on (seed, task id, its context).
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from .context import HoleContext
from .javascan import CLOSERS, code_brackets

TYPES = ("fence_prose", "indentation", "bracket", "regenerated", "appended")

_PREAMBLES = (
    "Here is the completed code:",
    "Sure! Here's the missing part:",
    "Certainly. The code that fills the hole is:",
    "Here is the implementation.",
)
_TRAILERS = (
    "This keeps the behaviour of the surrounding code.",
    "Explanation: the code above completes the block.",
    "Note that no other changes are needed.",
)
_APPENDED = {"python": 'print("done")', "java": 'System.out.println("done");'}


@dataclass(frozen=True, slots=True)
class Noisy:
    kind: str  # one of TYPES
    variant: str  # what exactly was done (e.g. "dedented", "drop_closer", "below")
    text: str


def applicable(language: str, block: bool) -> tuple[str, ...]:
    """The corruption types that make sense for a hole (from what a scenario file says of it)."""
    kinds = ["fence_prose"]
    if language == "python" and block:
        kinds.append("indentation")
    if language == "java":
        kinds.append("bracket")
    kinds.append("regenerated")
    if block:
        kinds.append("appended")
    return tuple(kinds)


def _key(seed: int, task_id: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}:{task_id}".encode()).digest()[:8], "big")


def assign(seed: int, tasks: Iterable[tuple[str, tuple[str, ...]]]) -> dict[str, str]:
    """Task id -> corruption type, for (task id, applicable types) pairs: tasks are taken in a
    seeded order and each gets the applicable type used least so far, so every type covers an
    equal share of the tasks it can apply to."""
    used: Counter[str] = Counter()
    chosen = {}
    for task_id, kinds in sorted(tasks, key=lambda item: (_key(seed, item[0]), item[0])):
        kind = min(kinds, key=lambda k: (used[k], TYPES.index(k)))
        used[kind] += 1
        chosen[task_id] = kind
    return chosen


def _regenerated_source(ctx: HoleContext, where: str, lines: int = 1) -> list[str]:
    """The lines a model would repeat: the ``lines`` nearest non-blank lines (one more when they
    say too little to be recognised as a copy, like ``}`` or ``else:``), in file order."""
    if not ctx.block:
        return (
            [ctx.line_prefix.lstrip()]
            if where == "above" and ctx.line_prefix.strip()
            else ([ctx.line_suffix] if where == "below" and ctx.line_suffix.strip() else [])
        )
    pool = ctx.lines_above[::-1] if where == "above" else ctx.lines_below
    code = [line for line in pool if line.strip()][: lines + 1]
    picked = code[:lines]
    if picked and len(" ".join(line.strip() for line in picked)) < 8:
        picked = code[: lines + 1]
    if not picked or len(" ".join(line.strip() for line in picked)) < 8:
        return []
    return picked if where == "below" else picked[::-1]


def _fence_prose(gt: str, ctx: HoleContext, rng: random.Random) -> tuple[str, str]:
    fence = "```" + ctx.language
    body = f"{rng.choice(_PREAMBLES)}\n{fence}\n{gt}\n```"
    variant = rng.choice(("fence", "fence+trailer", "think+fence", "prose_no_fence"))
    if variant == "prose_no_fence":
        body = f"{rng.choice(_PREAMBLES)}\n{gt}\n\n{rng.choice(_TRAILERS)}"
    elif variant == "fence+trailer":
        body += "\n" + rng.choice(_TRAILERS)
    elif variant == "think+fence":
        body = "<think>\nThe hole needs the code that follows from the context.\n</think>\n" + body
    return variant, body


def _indentation(gt: str, ctx: HoleContext, rng: random.Random) -> tuple[str, str]:
    lines = gt.split("\n")
    hole = len(ctx.indent)
    if len(lines) > 1 and all(not line.strip() or line.startswith(ctx.indent) for line in lines[1:]) and rng.random() < 0.5:
        return "from_column_0", "\n".join([lines[0]] + [line[hole:] if line.strip() else line for line in lines[1:]])
    return "indented_whole", "\n".join([ctx.indent + lines[0]] + lines[1:])


def _bracket(gt: str, ctx: HoleContext, rng: random.Random) -> tuple[str, str]:
    """A model that stops one bracket early, or writes one closer too many (at the end of its
    answer, where models get it wrong: the middle of a line is the tokeniser's business)."""
    body = gt.rstrip()
    last = body[body.rfind("\n") + 1 :]
    closers = [i for i in code_brackets(body) if body[i] in CLOSERS]
    if closers and rng.random() < 0.5:
        if last.strip() == "}" and "\n" in body:
            return "drop_closing_line", body[: body.rfind("\n")]
        end = len(body) - 1 if body.endswith(";") else len(body)
        if closers[-1] == end - 1 and body[end - 1] in ")]":
            return "drop_closer", body[: end - 1] + body[end:]
    if ctx.block:
        outer = ctx.indent[:-4] if ctx.indent.endswith("    ") else ""
        return "add_closing_line", gt + "\n" + outer + "}"
    return "add_closer", gt + ")"


def _regenerated(gt: str, ctx: HoleContext, rng: random.Random) -> tuple[str, str]:
    count = rng.choice((1, 1, 2, 3))  # models most often repeat one line, sometimes a few
    above = _regenerated_source(ctx, "above", count)
    below = _regenerated_source(ctx, "below", count) if ctx.infill else []
    if not above and not below:
        return "nothing_to_repeat", gt
    where = "above" if above and (not below or rng.random() < 0.5) else "below"
    return where, _with_repeated(gt, ctx, where, above if where == "above" else below)


def _regenerated_widened(gt: str, ctx: HoleContext) -> tuple[str, str]:
    """Re-generated lines for a hole whose nearest lines say too little to be recognised as a
    copy (a run of ``}``): as many of the nearest non-blank lines above (or, for an infill,
    below) as it takes to make a recognisable copy; failing that, the nearest line as it is.
    Unchanged only when the document holds no other code at all."""
    sides = ("above", "below") if ctx.infill else ("above",)
    nearest = {
        where: [line for line in (ctx.lines_above[::-1] if where == "above" else ctx.lines_below) if line.strip()] for where in sides
    }
    for where in sides:
        for count in range(1, len(nearest[where]) + 1):
            picked = _regenerated_source(ctx, where, count)
            if picked:
                return f"{where}_widened", _with_repeated(gt, ctx, where, picked)
    for where in sides:
        if nearest[where]:
            return f"{where}_widened", _with_repeated(gt, ctx, where, nearest[where][:1])
    return "nothing_to_repeat", gt


def _with_repeated(gt: str, ctx: HoleContext, where: str, lines: list[str]) -> str:
    """``gt`` with ``lines`` (from :func:`_regenerated_source`) repeated on the side ``where``."""
    if not ctx.block:
        return (lines[0] + gt) if where == "above" else gt + lines[0]
    if where == "above":
        first, *rest = lines
        return "\n".join([first.lstrip(), *rest, ctx.indent + gt])
    return gt + "\n" + "\n".join(lines)


def _indented_whole(gt: str, ctx: HoleContext) -> tuple[str, str]:
    """The answer indented as a whole: its first line carries the indentation the editor already
    put before the cursor (four spaces when a hole at column 0 has none)."""
    lines = gt.split("\n")
    return "indented_whole", "\n".join([(ctx.indent or "    ") + lines[0]] + lines[1:])


def _appended(gt: str, ctx: HoleContext, rng: random.Random) -> tuple[str, str]:
    last = gt.rstrip().split("\n")[-1]
    indent = ctx.indent if "\n" not in gt.rstrip() else last[: len(last) - len(last.lstrip())]
    return "extra_statement", gt.rstrip() + "\n" + indent + _APPENDED.get(ctx.language, _APPENDED["python"])


_CORRUPT = {
    "fence_prose": _fence_prose,
    "indentation": _indentation,
    "bracket": _bracket,
    "regenerated": _regenerated,
    "appended": _appended,
}


# Variants that change the text whenever the hole's document allows it, for the types whose
# seeded draws can all leave it unchanged.
_FORCED = {
    "indentation": _indented_whole,
    "regenerated": _regenerated_widened,
}
DRAWS = 8  # seeded draws of a variant before the forced one


def corrupt(kind: str, ground_truth: str, ctx: HoleContext, seed: int, task_id: str) -> Noisy:
    """The ground truth corrupted by ``kind``: a variant drawn from a generator seeded by the seed
    and the task id, drawn again (from the seed, the task id and the draw's number) while it
    leaves the text unchanged, then the type's forced variant. Only a re-generated line in a
    document with no other code can stay unchanged (variant ``nothing_to_repeat``)."""
    for draw in range(DRAWS):
        rng = random.Random(_key(seed, task_id if draw == 0 else f"{task_id}#{draw}"))
        variant, text = _CORRUPT[kind](ground_truth, ctx, rng)
        if text != ground_truth:
            return Noisy(kind, variant, text)
    if kind in _FORCED:
        variant, text = _FORCED[kind](ground_truth, ctx)
    return Noisy(kind, variant, text)
