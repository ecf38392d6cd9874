"""Post-processing steps. Each is a pure function ``(text, HoleContext) -> text``."""

from .brackets import balance_brackets
from .ide import cut_repetition, drop_suffix_closer, limit_scope, stop_at_suffix_line
from .noncode import strip_noncode
from .regenerated import drop_regenerated
from .reindent import reindent
from .truncate import truncate_syntax

__all__ = [
    "balance_brackets",
    "cut_repetition",
    "drop_regenerated",
    "drop_suffix_closer",
    "limit_scope",
    "reindent",
    "stop_at_suffix_line",
    "strip_noncode",
    "truncate_syntax",
]
