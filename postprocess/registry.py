"""Named plugins: the one mechanism by which models, context builders, post-processing steps,
marking languages and program harnesses are found by name.

Each kind of plugin is a :class:`Registry`: a mapping from a name (what a configuration file or
the command line says) to an entry (what the code calls). Its entries come from three places:

* built-ins registered where the registry is defined (:meth:`Registry.register`, or
  :meth:`Registry.register_lazy` with ``"module:attribute"`` so that the module is imported only
  when the name is first used);
* built-ins found by scanning a package (:meth:`Registry.scan`): every module of the package that
  has the registry's attribute, a dict of name -> entry, adds those entries; adding a built-in is
  then adding a file;
* plugins of other distributions, through an entry-point group: a package declares, e.g. in its
  ``pyproject.toml``::

      [project.entry-points."simpilot.models"]
      my-server = "my_package.adapter:create"

  and, once installed, ``my-server`` is a model kind like the built-in ones.

The groups and what their entries are:

======================  ====================================  ==========================================
group                   registry                              entry
======================  ====================================  ==========================================
``simpilot.models``     ``lsp_bridge.models.FACTORIES``       ``factory(spec: ModelSpec) -> Model``
``simpilot.contexts``   ``lsp_bridge.contexts.BUILDERS``      ``(builder, {option: default})``
``simpilot.steps``      ``postprocess.presets.STEPS``         ``step(text, HoleContext) -> text``
``simpilot.languages``  ``replay.marking.languages.LANGUAGES``  ``MarkingLanguage`` (marker, parser, labeller)
``simpilot.programs``   ``replay.execution.programs.HARNESSES``  a harness module (``missing``, ``needs``, ``runner`` ...)
======================  ====================================  ==========================================

Everything is lazy: scanning and reading the installed distributions' entry points happen on the
first lookup, an entry is imported on its first use. A name registered twice (a plugin reusing a
built-in name, two plugins of one name) is an error, never a silent override: which code ran
must be knowable from the name. An unknown name is a :class:`UnknownName` (a ``KeyError``) whose
one-line message lists the known names.

Standard library only: ``postprocess`` is the lowest stage, so every package can import this.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator, MutableMapping
from importlib.metadata import EntryPoint, entry_points
from typing import Generic, TypeVar

T = TypeVar("T")


class RegistryError(ValueError):
    """A registry that cannot be built: a name registered twice."""


class UnknownName(KeyError):
    """A name no entry of the registry has; its message lists the known names."""

    def __str__(self) -> str:  # a KeyError's own str() is the repr of its argument
        return str(self.args[0]) if self.args else ""


class Registry(MutableMapping[str, T], Generic[T]):
    """Name -> entry for one kind of plugin (``what``, e.g. ``model kind``), open to the
    entry-point ``group``. Reads like a dict; registering an existing name raises."""

    def __init__(self, what: str, group: str) -> None:
        self.what, self.group = what, group
        self._entries: dict[str, T | EntryPoint] = {}
        self._origins: dict[str, str] = {}  # name -> where it was registered (for the duplicate error)
        self._scans: list[tuple[str, str]] = []  # (package, attribute), scanned on first lookup
        self._discovered = False

    # -- registering -----------------------------------------------------------------------------

    def register(self, name: str, entry: T, origin: str = "") -> T:
        """Add ``entry`` under ``name``; returns it (so that it can decorate a definition)."""
        self._add(name, entry, origin or _origin(entry))
        return entry

    def register_lazy(self, name: str, target: str) -> None:
        """Add ``target`` (``"module"`` or ``"module:attribute"``), imported on first use."""
        self._add(name, EntryPoint(name, target, self.group), target)

    def scan(self, package: str, attribute: str) -> None:
        """On first lookup, add the entries of every module of ``package`` that defines
        ``attribute`` (a dict of name -> entry)."""
        self._scans.append((package, attribute))

    def _add(self, name: str, entry: T | EntryPoint, origin: str) -> None:
        if name in self._entries:
            raise RegistryError(f"{self.what} {name!r} is registered twice: by {self._origins[name]} and by {origin}")
        self._entries[name] = entry
        self._origins[name] = origin

    def _discover(self) -> None:
        if self._discovered:
            return
        self._discovered = True
        for package, attribute in self._scans:
            for info in pkgutil.iter_modules(importlib.import_module(package).__path__):
                module = importlib.import_module(f"{package}.{info.name}")
                for name, entry in getattr(module, attribute, {}).items():
                    self._add(name, entry, f"{module.__name__}.{attribute}")
        for point in entry_points(group=self.group):
            dist = point.dist.name if point.dist is not None else "?"
            self._add(point.name, point, f"{point.value} (entry point of {dist})")

    # -- looking up ------------------------------------------------------------------------------

    def unknown(self, name: object) -> str:
        """The one-line message for a name that is not registered."""
        return f"unknown {self.what} {name!r} (choose from {', '.join(self)})"

    def __getitem__(self, name: str) -> T:
        self._discover()
        try:
            entry = self._entries[name]
        except (KeyError, TypeError):
            raise UnknownName(self.unknown(name)) from None
        if isinstance(entry, EntryPoint):
            loaded: T = entry.load()
            self._entries[name] = entry = loaded
        return entry

    def __setitem__(self, name: str, entry: T) -> None:
        self._discover()
        self.register(name, entry)

    def __delitem__(self, name: str) -> None:
        self._discover()
        del self._entries[name]
        del self._origins[name]

    def __contains__(self, name: object) -> bool:
        self._discover()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        self._discover()
        return iter(list(self._entries))

    def __len__(self) -> int:
        self._discover()
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.what!r}, {self.group!r}, names={list(self)})"


def _origin(entry: object) -> str:
    module, name = getattr(entry, "__module__", None), getattr(entry, "__qualname__", None)
    return f"{module}.{name}" if module and name else repr(entry)


__all__ = ["Registry", "RegistryError", "UnknownName"]
