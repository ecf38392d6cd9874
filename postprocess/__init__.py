"""Post-processing of model output: a pure library (no I/O).

``run_preset(name, raw_text, HoleContext(...))`` returns the processed text and which steps
changed it. Presets are ordered lists of steps (``presets.PRESETS``); every step must return the
ground truth unchanged when given the ground truth (the identity property, tested on every
bundled task).
"""

from .context import HoleContext
from .presets import PRESETS, STEPS, Processed, run_preset

__all__ = ["HoleContext", "PRESETS", "STEPS", "Processed", "run_preset"]
