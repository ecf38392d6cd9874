"""Static checks on a patched Python file, used to classify failures.

``compile_error`` runs before any test: a file that does not compile cannot be imported by the
tests (the validation gate proved they import it), so running them would only cost time.
``undefined_names`` finds "variable hallucination" (names read in the hole that nothing binds),
with libcst's scope analysis rather than regular expressions.
"""

from __future__ import annotations

import builtins
import keyword
import re

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider, ScopeProvider

from replay.core.records import Status

_BUILTINS = frozenset(dir(builtins)) | {
    "__file__",
    "__name__",
    "__doc__",
    "__spec__",
    "__builtins__",
    "__loader__",
    "__package__",
    "__path__",
    "__annotations__",
    "__dict__",
    "__class__",
}

_IDENTIFIER = re.compile(r"[^\W\d]\w*")


def compile_status(source: str, filename: str) -> tuple[Status, str] | None:
    """``(status, message)`` when ``source`` does not compile, else None."""
    try:
        compile(source, filename, "exec", dont_inherit=True)
    except (IndentationError, TabError) as exc:
        return Status.INDENTATION_ERROR, f"{type(exc).__name__}: {exc.msg} (line {exc.lineno})"
    except SyntaxError as exc:
        return Status.SYNTAX_ERROR, f"SyntaxError: {exc.msg} (line {exc.lineno})"
    except (ValueError, OverflowError, RecursionError, MemoryError) as exc:
        return Status.SYNTAX_ERROR, f"{type(exc).__name__}: {exc}"
    return None


def may_read_names(text: str) -> bool:
    """False when ``text`` cannot read a name (no identifier but keywords and builtins, like the
    gate's ``pass`` and ``True``): then the costly scope analysis can be skipped."""
    return any(not keyword.iskeyword(word) and word not in _BUILTINS for word in _IDENTIFIER.findall(text))


def undefined_names(source: str, first_line: int, last_line: int) -> list[str]:
    """Names read between 1-based lines ``first_line`` and ``last_line`` that are bound nowhere
    in scope and are not builtins, in order of their first appearance (line, column, then name).
    The order is part of the stored detail, so it must not follow the scopes' set iteration order,
    which changes between runs."""
    try:
        wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
        scopes = wrapper.resolve(ScopeProvider)
        positions = wrapper.resolve(PositionProvider)
    except Exception:  # libcst rejects some code CPython accepts; classification then falls back
        return []
    missing: dict[str, tuple[int, int]] = {}
    for scope in set(scopes.values()):
        if scope is None:
            continue
        for access in scope.accesses:
            node = access.node
            if not isinstance(node, cst.Name) or access.referents or node.value in _BUILTINS:
                continue
            if any(a for a in scope.assignments if getattr(a, "name", None) == node.value):
                continue  # bound later in the same scope (e.g. globals used inside functions)
            pos = positions.get(node)
            if pos is not None and first_line <= pos.start.line <= last_line:
                at = (pos.start.line, pos.start.column)
                missing[node.value] = min(at, missing.get(node.value, at))
    return sorted(missing, key=lambda name: (missing[name], name))
