"""What the Python label walker looks up across the repository: which modules are the
repository's (an import of any other is ``library``), and what a repository module's name is,
re-exports followed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from replay.marking.python_bindings import FileFacts, Import
from replay.marking.repo_summary import methods_by_owner, repository

if TYPE_CHECKING:
    from replay.marking.labels import RepoIndex


@dataclass(slots=True)
class Repo:
    """Lookups over every file: which modules are the repository's, and what each defines."""

    by_module: dict[str, FileFacts]
    top_level: frozenset[str]
    script_modules: frozenset[str]  # modules importable by bare name from their own folder
    methods: dict[str, set[str]]  # class -> names of the methods its body defines
    bases: dict[str, list[str]]  # class -> simple names of its bases
    repo_cache: dict[str, bool] = field(default_factory=dict)


def summarize(index: RepoIndex) -> None:
    files: dict[str, FileFacts] = index.files
    functions: set[str] = set()
    classes: set[str] = set()
    modules: set[str] = set()
    packages = {p.rsplit("/", 1)[0] for p in files if p.endswith("/__init__.py")}
    scripts: set[str] = set()
    for path, facts in files.items():
        functions.update(facts.defs)
        classes.update(facts.classes)
        parts = facts.module.split(".")
        modules.update(".".join(parts[: i + 1]) for i in range(len(parts)))
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        if folder and folder not in packages:
            scripts.add(parts[-1])
        index.variables[facts.module] = facts.variables
    index.functions, index.classes, index.modules = frozenset(functions), frozenset(classes), frozenset(modules)
    methods = methods_by_owner(facts.defs for facts in files.values())
    bases: dict[str, list[str]] = {}
    for facts in files.values():
        for cls, names in facts.bases.items():
            bases.setdefault(cls, []).extend(names)
    top_level = frozenset(m.split(".", 1)[0] for m in modules)
    index.extra = Repo({f.module: f for f in files.values()}, top_level, frozenset(scripts), methods, bases)


def lookups(index: RepoIndex) -> Repo:
    """The repository's lookups, summarized on first use."""
    found: Repo = repository(index, summarize)
    return found


def is_repo_import(index: RepoIndex, target: Import) -> bool:
    if target.relative:
        return True
    repo = lookups(index)
    known = repo.repo_cache.get(target.module)
    if known is None:
        first = target.module.split(".", 1)[0]
        known = repo.repo_cache[target.module] = (
            target.module in index.modules or first in repo.top_level or target.module in repo.script_modules
        )
    return known


def resolve_member(index: RepoIndex, module: str, name: str, depth: int = 0) -> tuple[str, str | None]:
    """What ``name`` of repository module ``module`` is: ("module", dotted) or (kind, None)
    with kind one of class/function/variable/unknown; re-exports are followed."""
    sub = f"{module}.{name}" if module else name
    if sub in index.modules:
        return "module", sub
    facts = lookups(index).by_module.get(module)
    if facts is not None and depth < 8:
        bindings = facts.bindings.get(name)
        if bindings:
            b = bindings[0]
            if b.kind == "import" and b.target is not None:
                if not is_repo_import(index, b.target):
                    return "library", None
                if b.target.name is None:
                    return "module", b.target.module
                return resolve_member(index, b.target.module, b.target.name, depth + 1)
            return b.kind, None
    if name in index.classes:
        return "class", None
    if name in index.functions:
        return "function", None
    return "unknown", None
