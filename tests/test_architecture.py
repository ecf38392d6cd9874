"""The rooms of the project, enforced: imports follow the data, and each room holds one job.

The stages, lowest first: ``postprocess`` (pure functions on text), ``replay.core`` (records,
scenario and recording files, positions, errors), ``replay.scoring`` (similarity, DevBench's
metrics, pass@k, statistics), ``replay.config`` (typed schemas and loaders of every configuration
file), ``replay.environments`` (test interpreters), ``replay.marking``, ``replay.importers``, the
bridge (``lsp_bridge``), ``replay.execution``, ``replay.validation``, ``replay.store``,
``replay.reports``, ``replay.run`` (the replay engine), ``replay.jobs`` (one function per command)
and the command line (``replay.cli``) on top, which imports only ``replay.jobs``. What runs inside
the sandbox (``replay.execution.inside``) imports only the standard library and the test framework
it plugs into. Imports inside functions count (they are dependencies all the same); imports under
``TYPE_CHECKING`` do not (they never run).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from replay.config.manifest import project_root

ROOT = project_root()
PACKAGES = ("replay", "lsp_bridge", "postprocess")
# a module may import its own stage and the ones before it
STAGES = ("postprocess", "replay.core", "replay.scoring", "replay.config", "replay.environments", "replay.marking",
          "replay.importers", "lsp_bridge", "replay.execution", "replay.validation", "replay.store", "replay.reports",
          "replay.run", "replay.jobs", "replay.cli")
OUTSIDE_THE_STAGES = ("replay", "replay.__main__")  # the package's version, and `python -m replay`


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def _type_checking(node: ast.If) -> bool:
    return "TYPE_CHECKING" in ast.unparse(node.test)


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules ``name`` imports (a ``from package import name`` counts the submodule
    when there is one, else the package)."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = name.split(".")
            if node.level:
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            subs = [f"{module}.{alias.name}" for alias in node.names if f"{module}.{alias.name}" in known]
            found.update(subs or [module])
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {m for m in found if m in known and m != name}


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def stage(module: str) -> int | None:
    for i, prefix in enumerate(STAGES):
        if module == prefix or module.startswith(prefix + "."):
            return i
    return None


def test_there_is_no_import_cycle() -> None:
    edges = graph()
    cycles, state = [], {}

    def walk(node: str, path: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(edges[node]):
            if state.get(nxt) == "open":
                cycles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                walk(nxt, path + [nxt])
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            walk(node, [node])
    assert cycles == []


def test_no_stage_imports_a_later_one() -> None:
    upward = []
    for module, targets in graph().items():
        if module in OUTSIDE_THE_STAGES:
            continue
        mine = stage(module)
        assert mine is not None, f"{module} belongs to no stage: add its package to STAGES"
        for target in targets:
            theirs = stage(target)
            if theirs is not None and theirs > mine:
                upward.append(f"{module} -> {target}")
    assert sorted(upward) == []


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_command_line_holds_no_run_logic() -> None:
    """It parses options and calls jobs: nothing but the entry point imports it, and it imports
    nothing of the project but ``replay.jobs``."""
    edges = graph()
    importers = [m for m, targets in edges.items() if any(_in(t, "replay.cli") for t in targets) and not _in(m, "replay.cli")]
    assert importers == ["replay.__main__"]
    reaching = [f"{m} -> {t}" for m, targets in edges.items() if _in(m, "replay.cli") for t in targets if not (_in(t, "replay.jobs") or _in(t, "replay.cli"))]
    assert reaching == []


INSIDE = "replay.execution.inside"
# what code in the sandbox may import besides the standard library: the test framework it plugs into
TEST_FRAMEWORKS = {"pytest", "_pytest", "pluggy"}


def test_what_runs_inside_the_sandbox_imports_only_the_standard_library() -> None:
    """``replay.execution.inside`` runs in the repository's interpreter, maybe not simpilot's: it
    may import the standard library, pytest (for the plugins) and its sibling modules by their
    bare names (the folder is on the server's path), never a simpilot package."""
    known = modules()
    siblings = {name.rsplit(".", 1)[1] for name in known if name.startswith(INSIDE + ".")}
    wrong = []
    for name, path in known.items():
        if not _in(name, INSIDE):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                tops = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                tops = [] if node.level and node.module is None else [(node.module or "").split(".")[0]]
            else:
                continue
            wrong += [f"{name}: {top}" for top in tops if top not in sys.stdlib_module_names and top not in TEST_FRAMEWORKS | siblings | {"__future__"}]
    assert wrong == []
    outside = [f"{m} -> {t}" for m, targets in graph().items() if _in(m, INSIDE) for t in targets if not _in(t, INSIDE)]
    assert outside == []


# modules allowed past the size limit: data tables only, with why
LONG_DATA_TABLES: dict[str, str] = {}
MAX_LINES = 500


def test_no_module_is_over_five_hundred_lines() -> None:
    """A module past 500 lines holds more than one job: split it by concern."""
    long = {name: n for name, path in modules().items() if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert {name: n for name, n in long.items() if name not in LONG_DATA_TABLES} == {}


def test_the_bridge_reaches_its_model_server_only_over_http() -> None:
    """``lsp_bridge.serving`` (torch behind an HTTP endpoint) imports no other project module, and
    none imports it: the bridge asks it like any other endpoint."""

    def serving(module: str) -> bool:
        return module == "lsp_bridge.serving" or module.startswith("lsp_bridge.serving.")

    crossing = [f"{m} -> {t}" for m, targets in graph().items() for t in targets if serving(m) != serving(t)]
    assert crossing == []
