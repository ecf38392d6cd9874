"""What both label walkers (Python and Java) derive from the repository index the same way: the
methods each class declares, and the summary made once, on the first hole that needs it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from replay.marking.labels import RepoIndex


class Owned(Protocol):
    """A definition site: the class (or type) whose body holds it, if any."""

    @property
    def owner(self) -> str | None: ...


def methods_by_owner(tables: Iterable[Mapping[str, Sequence[Owned]]]) -> dict[str, set[str]]:
    """Class -> the names of the methods its body defines, from every file's table of method
    name -> definition sites (a site with no owner is a plain function)."""
    methods: dict[str, set[str]] = {}
    for table in tables:
        for name, sites in table.items():
            for site in sites:
                if site.owner is not None:
                    methods.setdefault(site.owner, set()).add(name)
    return methods


def repository(index: RepoIndex, summarize: Callable[[RepoIndex], None]) -> Any:
    """The language's summary of the repository (``index.extra``), made by ``summarize`` the first
    time it is needed: a run whose holes need no cross-file lookup never pays for it."""
    if index.extra is None:
        summarize(index)
    return index.extra
