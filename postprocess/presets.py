"""Named presets: ordered lists of steps, and the function that runs one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .context import HoleContext
from .steps import drop_regenerated, reindent, strip_noncode

Step = Callable[[str, HoleContext], str]

STEPS: dict[str, Step] = {
    "strip_noncode": strip_noncode,
    "drop_regenerated": drop_regenerated,
    "reindent": reindent,
}

PRESETS: dict[str, tuple[str, ...]] = {
    # the paper's "without post-processing": prose and fences are still removed
    "none": ("strip_noncode",),
    # the paper's three steps, string-aware and never touching code away from the hole
    "simcopilot": ("strip_noncode", "drop_regenerated", "reindent"),
}


@dataclass(frozen=True, slots=True)
class Processed:
    text: str
    changed_by: tuple[str, ...]  # names of the steps that changed the text, in order


def run_preset(name: str, raw: str, ctx: HoleContext) -> Processed:
    """Apply preset ``name`` to ``raw``. Unknown names raise KeyError (validate at the boundary)."""
    text, changed = raw, []
    for step_name in PRESETS[name]:
        new = STEPS[step_name](text, ctx)
        if new != text:
            changed.append(step_name)
            text = new
    return Processed(text, tuple(changed))
