"""Context strategies measured without a model: for every task, strategy and budget, what the
built context holds (identifier recall), what it costs (tokens) and how long it took.

The tasks' repositories are read once each (one index per repository, as the bridge keeps one);
each task's document is what the editor would have open, and its ground truth is used only to
score the recall and by ``oracle_definitions``. The rows go to ``replay/reports/contexts.py``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

from lsp_bridge.contexts import DEFAULT_BUDGET, STRATEGIES, ContextError, Source, Strategy, build, resolve, strategy
from lsp_bridge.contexts.index import ContextIndex
from lsp_bridge.contexts.provider import repository_index
from lsp_bridge.contexts.recall import identifier_recall
from replay.config.contexts_file import options_of, read_contexts
from replay.config.errors import ConfigError
from replay.config.locations import catalog_for
from replay.config.manifest import MANIFEST_NAME, RepoCatalog
from replay.core.errors import SimpilotError
from replay.core.records import Task
from replay.core.repo_paths import task_file
from replay.core.scenarios import document_text
from replay.jobs.output import err, out, print_json
from replay.jobs.replay import load_tasks
from replay.reports import contexts as context_tables
from replay.reports.contexts import ContextRow

BUDGETS = (1024, 2048, 4096, 8192)


def strategies_named(choices: Sequence[str], contexts_file: Path | None) -> tuple[Strategy, ...]:
    """The context strategies named by --context, user-defined ones from contexts.toml."""
    if not choices:
        return ()
    path = contexts_file or Path("contexts.toml")
    known = load_contexts(path) if contexts_file is not None or path.is_file() else {}
    try:
        return tuple(resolve(choice, known) for choice in choices)
    except ContextError as exc:
        raise SimpilotError(str(exc)) from None


def load_contexts(path: Path) -> dict[str, Strategy]:
    """The strategies ``path`` defines: its tables as the file's schema reads them, each checked by
    the bridge's builders (a known builder, its own options); a refusal names the key in the file."""
    found = {}
    for name, table in read_contexts(path).items():
        try:
            found[name] = strategy(name, table.builder or name, table.budget or DEFAULT_BUDGET, table.tokenizer, options_of(table))
        except ContextError as exc:
            raise ConfigError(
                path, f"contexts.{name}.{exc.key}" if exc.key else f"contexts.{name}", f"{exc.problem}; fix or remove it"
            ) from None
    return found


def contexts(
    scenarios: tuple[Path, ...],
    chosen: Sequence[str] = (),
    budgets: Sequence[int] = (),
    *,
    contexts_file: Path | None = None,
    repo_paths: Sequence[str] = (),
    as_json: bool = False,
    html_path: Path | None = None,
) -> None:
    """``simpilot contexts``: measure ``chosen`` strategies (every built-in one by default) at
    ``budgets`` on the tasks of ``scenarios`` and print the tables (or JSON), ``html_path`` too."""
    strategies = strategies_named(tuple(chosen) or tuple(STRATEGIES), contexts_file)
    tasks = load_tasks(scenarios)
    rows, index_ms = measure(tasks, catalog_for(scenarios, repo_paths), variants(strategies, tuple(budgets) or BUDGETS))
    if html_path is not None:
        html_path.write_text(context_tables.page(rows, index_ms), encoding="utf-8")
        err.print(f"the context measures: {html_path}")
    if as_json:
        print_json(context_tables.to_json(rows, index_ms))
    else:
        context_tables.render(rows, index_ms, out)


def variants(strategies: Sequence[Strategy], budgets: Sequence[int]) -> list[Strategy]:
    """Each strategy at each budget (its own budget when ``budgets`` is empty)."""
    if not budgets:
        return list(strategies)
    return [strategy(f"{s.name}:{b}", s.builder, b, s.tokenizer, s.options) for s in strategies for b in budgets]


def source_of(task: Task, original: bytes) -> Source:
    """The editor's view of ``task`` (the document with the hole removed), with its ground truth."""
    document = document_text(task, original)
    prefix = original[: task.span.start_byte].decode("utf-8")
    return Source(task.language, task.path, prefix, document[len(prefix) :], task.ground_truth)


def measure(
    tasks: Sequence[Task],
    catalog: RepoCatalog,
    strategies: Sequence[Strategy],
    advance: Callable[[], None] = lambda: None,
) -> tuple[list[ContextRow], dict[str, float]]:
    """One row per (task, strategy) and the time each repository's index took to build (ms,
    windows and chunks of every size the strategies use included)."""
    rows: list[ContextRow] = []
    index_ms: dict[str, float] = {}
    indexes: dict[tuple[str, str], ContextIndex] = {}
    originals: dict[tuple[str, str], bytes] = {}
    for task in tasks:
        key = (task.repo, task.language)
        root = catalog.get(task.repo).root.resolve()
        if key not in indexes:
            start = time.perf_counter()
            indexes[key] = index = repository_index(root, root / MANIFEST_NAME, task.language)
            _warm(index, strategies)
            index_ms[task.repo] = (time.perf_counter() - start) * 1000
        if (task.repo, task.path) not in originals:
            originals[task.repo, task.path] = task_file(root, task).read_bytes()
        source = source_of(task, originals[task.repo, task.path])
        index = indexes[key]
        for chosen in strategies:
            built = build(index, source, chosen)
            recall = identifier_recall(index, source, built)
            parts = {p.name: p.tokens for p in built.parts}
            base = chosen.name.partition(":")[0]
            rows.append(
                ContextRow(task, base, chosen.budget, built.tokenizer, recall.names, recall.found, built.tokens, parts, built.build_ms)
            )
        advance()
    return rows, index_ms


def _warm(index: ContextIndex, strategies: Sequence[Strategy]) -> None:
    """Build the windows and chunks the strategies will use now, so a request's time is its own."""
    for s in strategies:
        options = s.settings()
        if s.builder == "neighbours":
            index.windows(options["window_lines"], options["stride"])
        elif s.builder == "bm25":
            index.chunks(options["chunk_lines"], options["stride"])
