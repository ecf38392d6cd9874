"""Single programs as tasks (DevBench's instances): how their parts are joined, and their files.

A program is its parts — prefix, answer, suffix, then the checks — joined as DevBench's harness
joins them: with a newline, except where the left part already ends with one or the right part
starts with one (the harness's blank line there changes nothing, and leaving it out keeps the
document the model sees the instance's own prefix and suffix).
"""

from __future__ import annotations

LANGUAGES = ("python", "java", "javascript", "typescript", "cpp", "csharp")
EXTENSIONS = {"python": ".py", "java": ".java", "javascript": ".js", "typescript": ".ts", "cpp": ".cpp", "csharp": ".cs"}


def join(left: str, right: str) -> str:
    """``left`` and ``right`` with a newline between them unless one side has it (or is empty)."""
    if not left or not right or left.endswith("\n") or right.startswith("\n"):
        return left + right
    return left + "\n" + right


def fill(prefix: str, answer: str, suffix: str) -> str:
    """The program with ``answer`` in its hole, joined as DevBench's harness joins an answer: an
    answer that does not start on a new line after a prefix that does not end with one gets its
    own line, and so does the suffix after it. DevBench asks for lines to put between prefix and
    suffix, so an answer given that way must not be glued onto the cursor's line."""
    return join(join(prefix, answer), suffix)
