"""The verdict on a task whose right answer is nothing (``Decision.NOTHING``).

At such a place the developer has just finished a statement, block or function, and the ground
truth is the empty string. Staying silent is correct only when proven like any other pass: the
empty answer goes into the hole and the selected tests must pass (they do on the untouched code,
which is what an empty answer leaves; a whitespace-only answer is shown as nothing and is tested
as it is). Any answer with code in it is ``Status.SUGGESTED``, whatever the tests say: the
developer was interrupted where nothing was needed, and the gate showed that plausible
suggestions there break the tests. The tests still run on it, and the verdict's detail says
whether this suggestion was also harmful (the tests fail) or only useless (they pass), so a
report can tell the two apart without a second run.

Tasks that need code, ``one_line`` tasks among them, keep the tests' verdict unchanged: a longer
answer that happens to pass is a pass, proven by the tests.
"""

from __future__ import annotations

from replay.core.records import Status, Task


def suggested_needlessly(task: Task, text: str) -> bool:
    """Whether ``text`` is a suggestion where ``task`` needed nothing: code (not only whitespace)
    at a ``Decision.NOTHING`` place."""
    return task.nothing_needed and bool(text.strip())


def suggestion_detail(text: str, status: Status, detail: str) -> str:
    """The detail of a ``suggested`` verdict: how many lines, and what the tests said with them
    (``status`` and ``detail`` are the tests' own verdict)."""
    lines = len(text.strip("\n").splitlines())
    if status is Status.PASS:
        harm = "the tests still pass with it: useless, not harmful"
    else:
        harm = f"with it the tests give {status.value}: harmful" + (f" ({detail})" if detail else "")
    return f"nothing was needed here, {lines} line{'s' if lines != 1 else ''} suggested; {harm}"
