"""Values computed once per key, safe to ask for from several threads.

The evaluator's caches (untouched files, the untouched program's output, the tests that pass on the
untouched code) each cost a read or a sandboxed run: every key is computed by the first thread that
asks, under a lock of its own, while the others wait for it rather than repeat the work; keys do
not wait on each other.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Once(Generic[K, V]):
    """A cache whose every value is computed once, by the first caller of its key."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._locks: dict[K, threading.Lock] = {}
        self._values: dict[K, V] = {}

    def get(self, key: K, compute: Callable[[], V]) -> V:
        """The value of ``key``, computed by ``compute`` when no caller did before."""
        with self._lock:
            if key in self._values:
                return self._values[key]
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self._values:
                value = compute()
                with self._lock:
                    self._values[key] = value
            return self._values[key]
