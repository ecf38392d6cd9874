"""Named presets: ordered lists of steps, the function that runs one, and user-defined presets
(read from ``presets.toml`` by ``replay/config/presets_file.py``, registered here).

Every step has one signature, ``(text, HoleContext) -> text``; ``run_steps`` records what each
step changed (lines and characters removed and added), so a preset's effect can be read step by
step and ablated (``simpilot compare``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from .context import HoleContext
from .editor_text import as_saved
from .registry import Registry
from .steps import (
    balance_brackets,
    cut_repetition,
    drop_regenerated,
    drop_suffix_closer,
    limit_scope,
    reindent,
    stop_at_suffix_line,
    strip_noncode,
    truncate_syntax,
)

Step = Callable[[str, HoleContext], str]

# step name -> step; plugins add theirs through the entry-point group ``simpilot.steps``
STEPS: Registry[Step] = Registry("step", "simpilot.steps")
for _step in (
    strip_noncode,
    drop_regenerated,
    reindent,
    balance_brackets,
    truncate_syntax,
    stop_at_suffix_line,
    cut_repetition,
    limit_scope,
    drop_suffix_closer,
):
    STEPS.register(_step.__name__, _step)

BUILTIN_PRESETS: dict[str, tuple[str, ...]] = {
    # the paper's "without post-processing": prose and fences are still removed
    "none": ("strip_noncode",),
    # the paper's three steps (Python re-indents, Java balances brackets), string- and
    # comment-aware, never touching code away from the hole
    "simcopilot": ("strip_noncode", "drop_regenerated", "reindent", "balance_brackets"),
    # the same, then SAFIM's syntax-aware truncation with tree-sitter
    "syntax": ("strip_noncode", "drop_regenerated", "reindent", "balance_brackets", "truncate_syntax"),
    # what IDE assistants do as a completion streams in (Continue, Tabby); answers are first put
    # at the hole's indentation so the scope filter sees real block structure
    "ide": ("strip_noncode", "drop_regenerated", "reindent", "stop_at_suffix_line", "cut_repetition", "limit_scope", "drop_suffix_closer"),
}

# The presets known to this process: the built-in ones plus any loaded with ``register_presets``.
PRESETS: dict[str, tuple[str, ...]] = dict(BUILTIN_PRESETS)


class PresetError(ValueError):
    """A preset definition that cannot be used (unknown step, bad shape)."""


@dataclass(frozen=True, slots=True)
class Change:
    """What one step did to the text: how many lines and characters it removed and added."""

    step: str
    lines_removed: int
    lines_added: int
    chars_before: int
    chars_after: int


@dataclass(frozen=True, slots=True)
class Processed:
    text: str
    changes: tuple[Change, ...]  # one per step that changed the text, in order

    @property
    def changed_by(self) -> tuple[str, ...]:
        return tuple(c.step for c in self.changes)


def _change(step: str, before: str, after: str) -> Change:
    old, new = Counter(before.split("\n")), Counter(after.split("\n"))
    return Change(step, (old - new).total(), (new - old).total(), len(before), len(after))


def run_steps(steps: Sequence[str], raw: str, ctx: HoleContext) -> Processed:
    """Apply ``steps`` in order to ``raw``, as an editor holds it (:func:`as_saved`)."""
    text, changes = as_saved(raw), []
    for step_name in steps:
        new = STEPS[step_name](text, ctx)
        if new != text:
            changes.append(_change(step_name, text, new))
            text = new
    return Processed(text, tuple(changes))


def run_preset(name: str, raw: str, ctx: HoleContext) -> Processed:
    """Apply preset ``name`` to ``raw``. Unknown names raise KeyError (validate at the boundary)."""
    return run_steps(PRESETS[name], raw, ctx)


ABLATION_MARK = "-without-"


def ablation_name(preset: str, step: str) -> str:
    """The name under which ``preset`` without ``step`` is stored (``simpilot compare``)."""
    return f"{preset}{ABLATION_MARK}{step}"


def is_ablation(name: str) -> bool:
    """Whether a stored post-processing name is an ablation variant rather than a preset."""
    preset, mark, step = name.rpartition(ABLATION_MARK)
    return bool(mark and preset and step in STEPS)


def check_steps(steps: Sequence[str]) -> tuple[str, ...]:
    """``steps`` as a preset's steps, or a PresetError naming those the registry does not know
    (that a preset has steps at all is its file's schema's rule, ``replay/config/presets_file.py``)."""
    unknown = [s for s in steps if s not in STEPS]
    if unknown:
        raise PresetError(f"unknown step(s) {', '.join(map(repr, unknown))} (steps: {', '.join(STEPS)})")
    return tuple(steps)


def check_name(name: str, steps: Sequence[str]) -> None:
    """A PresetError when ``name`` is a built-in preset given other steps: a built-in name always
    means the same steps, so results stored under it stay comparable."""
    if name in BUILTIN_PRESETS and tuple(steps) != BUILTIN_PRESETS[name]:
        raise PresetError(f"{name!r} is a built-in preset; give yours another name")


def register_presets(defined: Mapping[str, Sequence[str]]) -> None:
    """Make user-defined presets known by name to this process (``run_preset``, the CLI)."""
    for name, steps in defined.items():
        check_name(name, steps)
        PRESETS[name] = check_steps(steps)
