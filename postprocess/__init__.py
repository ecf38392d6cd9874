"""Post-processing of model output: a pure library (no I/O).

``run_preset(name, raw_text, HoleContext(...))`` returns the processed text and what each step
changed. Presets are ordered lists of steps (``presets.PRESETS``); every step must return the
ground truth unchanged when given the ground truth (the identity property, tested on every
bundled task).
"""

from .bracketview import closes_cursor_block
from .context import HoleContext
from .presets import (
    BUILTIN_PRESETS,
    PRESETS,
    STEPS,
    Change,
    PresetError,
    Processed,
    ablation_name,
    is_ablation,
    register_presets,
    run_preset,
    run_steps,
)

__all__ = [
    "BUILTIN_PRESETS",
    "Change",
    "HoleContext",
    "PRESETS",
    "PresetError",
    "Processed",
    "STEPS",
    "ablation_name",
    "closes_cursor_block",
    "is_ablation",
    "register_presets",
    "run_preset",
    "run_steps",
]
