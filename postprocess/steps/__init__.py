"""Post-processing steps. Each is a pure function ``(text, HoleContext) -> text``."""

from .noncode import strip_noncode
from .regenerated import drop_regenerated
from .reindent import reindent

__all__ = ["strip_noncode", "drop_regenerated", "reindent"]
