"""Counting a context's tokens: the model's own tokenizer when it is known, else an estimate.

A budget in tokens means what the model will read only when the model's tokenizer counts it, so
a strategy may name a ``tokenizer.json`` (the Hugging Face ``tokenizers`` format, e.g. the one of
SmolLM2). Without one, or without the ``tokenizers`` package, the count is
``context.rough_tokens`` — runs of up to four word characters, punctuation and white space — and
the label says ``estimate``, so a stored count never passes for the model's.

Counts are cached per text: the same lines and snippets are counted again on every request of a
repository, and the cache turns that into a dictionary look-up.
"""

from __future__ import annotations

import functools
import threading
from pathlib import Path
from typing import Protocol

from ..context import rough_tokens

ESTIMATE = "estimate (rough_tokens: word runs of up to 4 characters, punctuation, white space)"
_CACHE_LIMIT = 200_000


class TokenCounter(Protocol):
    label: str

    def count(self, text: str) -> int: ...


class _Cached:
    """A counter with a bounded per-text cache (cleared whole when full: simple and enough)."""

    def __init__(self, label: str) -> None:
        self.label = label
        self._known: dict[str, int] = {}
        self._lock = threading.Lock()

    def measure(self, text: str) -> int:
        raise NotImplementedError

    def count(self, text: str) -> int:
        known = self._known.get(text)
        if known is not None:
            return known
        value = self.measure(text)
        with self._lock:
            if len(self._known) >= _CACHE_LIMIT:
                self._known.clear()
            self._known[text] = value
        return value


class EstimateCounter(_Cached):
    def __init__(self) -> None:
        super().__init__(ESTIMATE)

    def measure(self, text: str) -> int:
        return rough_tokens(text)


class TokenizerCounter(_Cached):
    """The token count of a ``tokenizer.json``, special tokens left out (the prompt's template
    adds those, outside the context's budget)."""

    def __init__(self, path: Path) -> None:
        from tokenizers import Tokenizer  # optional: installed with the local-model extra

        super().__init__(f"tokenizer {path.name} ({path.parent.name})")
        self._tokenizer = Tokenizer.from_file(str(path))

    def measure(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)


@functools.cache
def counter(tokenizer: str | None = None) -> TokenCounter:
    """The counter of ``tokenizer`` (a tokenizer.json path), or the estimate when it is None or
    the ``tokenizers`` package is missing (the label then says so). A file that cannot be read as
    a tokenizer is a ValueError: a typo must not turn into an estimate unnoticed."""
    if not tokenizer:
        return EstimateCounter()
    try:
        return TokenizerCounter(Path(tokenizer))
    except ImportError:
        fallback = EstimateCounter()
        fallback.label = f"{ESTIMATE}; the tokenizers package is not installed for {Path(tokenizer).name}"
        return fallback
    except Exception as exc:  # tokenizers raises its own Exception for a file it cannot read
        raise ValueError(f"cannot read the tokenizer {tokenizer}: {exc}") from None
