"""The ``undefined: …`` detail is stored with each outcome and compared across runs: its names
come in the order they first appear in the source, never in the scopes' set iteration order."""

from __future__ import annotations

import subprocess
import sys

from replay.execution.python_checks import undefined_names

# Every lambda is a scope of its own, all on one line: set iteration over nine scopes puts the
# names in source order only by chance.
SOURCE = "def f(xs):\n    return (lambda: n1, lambda: n2, lambda: n3, lambda: n4, lambda: n5, lambda: n6, lambda: n7, lambda: n8, n9)\n"


def test_names_come_in_source_order_on_one_line() -> None:
    assert undefined_names(SOURCE, 2, 2) == [f"n{i}" for i in range(1, 10)]


def test_a_name_is_placed_where_it_first_appears() -> None:
    """``later`` is read on line 2 inside a lambda and again on line 4 at function level; ``mid``
    on line 3. Wherever the scopes are visited from, ``later`` belongs first."""
    source = "def f():\n    g = lambda: later\n    h = mid\n    return later, g, h\n"
    assert undefined_names(source, 1, 4) == ["later", "mid"]


def test_the_same_in_every_process() -> None:
    """Scope objects hash by address, which changes from process to process."""
    script = f"from replay.execution.python_checks import undefined_names; print(undefined_names({SOURCE!r}, 2, 2))"
    seen = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout for _ in range(3)}
    assert seen == {str([f"n{i}" for i in range(1, 10)]) + "\n"}
