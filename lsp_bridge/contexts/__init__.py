"""Context strategies: named, pluggable builders of what repository context enters a prompt.

Which context reaches the model is, after the model itself, the biggest lever an assistant has,
and every product fills it differently; so a strategy is a name, like a post-processing preset,
and runs can be compared by it. A strategy is a builder (one of :data:`BUILDERS`), a token
budget, an optional tokenizer (``tokenizer.json``: the budget then counts the model's tokens,
else an estimate, labelled so) and the builder's options. The built-in strategies are
:data:`STRATEGIES`; your own go in ``contexts.toml`` (read by ``replay/config/contexts_file.py``,
each table checked here by :func:`strategy`)::

    [contexts.bm25-short]
    builder = "bm25"
    budget = 2048
    chunk_lines = 20
    tokenizer = "smollm2/tokenizer.json"   # relative to contexts.toml

``NAME:BUDGET`` (``bm25:1024``) is strategy NAME with another budget. A strategy travels to the
bridge as plain JSON (:meth:`Strategy.to_json`) in the LSP ``initializationOptions`` and is part
of a run's stored configuration.

:func:`build` is pure but for the clock: an index and the editor's view in, a
:class:`BuiltContext` out, its parts counted, never over the budget (unless the cursor's line alone
is).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from postprocess.registry import Registry

from .budget import Fill
from .index import ContextIndex
from .lexical import build_bm25, build_neighbours
from .plan import Plan
from .records import BuiltContext, Part, Snippet, Source
from .structural import NeedsTruth, build_definitions, build_oracle_definitions
from .tokens import counter
from .whole import build_file, build_simcopilot, build_window

Builder = Callable[[ContextIndex, Source, Fill, dict[str, Any]], Plan]

DEFAULT_BUDGET = 4096
_SHARE = {"document_share": 0.5}
# builder -> (function, its options with their defaults); plugins add theirs through the
# entry-point group ``simpilot.contexts``
BUILDERS: Registry[tuple[Builder, dict[str, Any]]] = Registry("builder", "simpilot.contexts")
BUILDERS.register("file", (build_file, {}), __name__)
BUILDERS.register("window", (build_window, {}), __name__)
BUILDERS.register("simcopilot", (build_simcopilot, {}), __name__)
BUILDERS.register("neighbours", (build_neighbours, {**_SHARE, "window_lines": 60, "stride": 5, "query_lines": 60, "top": 4}), __name__)
BUILDERS.register("bm25", (build_bm25, {**_SHARE, "chunk_lines": 10, "stride": 5, "query_lines": 10}), __name__)
BUILDERS.register("definitions", (build_definitions, {**_SHARE, "query_lines": 30, "after_lines": 5}), __name__)
BUILDERS.register("oracle_definitions", (build_oracle_definitions, dict(_SHARE)), __name__)
NEEDS_TRUTH = frozenset({"oracle_definitions"})


class ContextError(ValueError):
    """A strategy that cannot be used: unknown name or builder, a bad option, a tokenizer that cannot be read.

    ``key`` is the setting at fault (``builder``, ``tokenizer``, an option's name) and ``problem``
    the message without the strategy's name, so that a configuration file's reader can name the
    key where it is written."""

    def __init__(self, message: str, key: str = "", problem: str = "") -> None:
        super().__init__(message)
        self.key, self.problem = key, problem or message


def _refused(name: str, key: str, problem: str) -> ContextError:
    return ContextError(f"context {name!r}: {problem}", key, problem)


@dataclass(frozen=True)
class Strategy:
    name: str
    builder: str
    budget: int = DEFAULT_BUDGET
    tokenizer: str | None = None
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def needs_truth(self) -> bool:
        return self.builder in NEEDS_TRUTH

    def settings(self) -> dict[str, Any]:
        """Every option with its default filled in."""
        return {**BUILDERS[self.builder][1], **self.options}

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "builder": self.builder, "budget": self.budget, "tokenizer": self.tokenizer, "options": self.settings()}

    @classmethod
    def from_json(cls, data: Any) -> Strategy:
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            raise ContextError(f"a context strategy is an object with a name, not {data!r}")
        return strategy(
            data["name"],
            str(data.get("builder", data["name"])),
            data.get("budget", DEFAULT_BUDGET),
            data.get("tokenizer"),
            data.get("options") or {},
        )


def strategy(
    name: str, builder: str, budget: Any = DEFAULT_BUDGET, tokenizer: Any = None, options: dict[str, Any] | None = None
) -> Strategy:
    """A checked strategy: a known builder, a whole budget > 0, known options of the right kind."""
    if builder not in BUILDERS:
        raise _refused(name, "builder", BUILDERS.unknown(builder))
    if not isinstance(budget, int) or isinstance(budget, bool) or budget <= 0:
        raise _refused(name, "budget", f"budget must be a whole number of tokens > 0, not {budget!r}")
    if tokenizer is not None and not isinstance(tokenizer, str):
        raise _refused(name, "tokenizer", f"tokenizer must be the path of a tokenizer.json, not {tokenizer!r}")
    if tokenizer is not None:
        try:
            counter(tokenizer)
        except ValueError as exc:
            raise _refused(name, "tokenizer", str(exc)) from None
    defaults = BUILDERS[builder][1]
    options = dict(options or {})
    unknown = sorted(set(options) - set(defaults))
    if unknown:
        problem = f"unknown option(s) {', '.join(unknown)} for {builder} (known: {', '.join(defaults) or 'none'})"
        raise _refused(name, unknown[0], problem)
    for key, value in options.items():
        default = defaults[key]
        if isinstance(default, float):
            if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= 1:
                raise _refused(name, key, f"{key} must be a number from 0 to 1, not {value!r}")
        elif not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise _refused(name, key, f"{key} must be a whole number > 0, not {value!r}")
    return Strategy(name, builder, budget, tokenizer, options)


STRATEGIES: dict[str, Strategy] = {name: Strategy(name, name) for name in BUILDERS}


def resolve(choice: str, known: dict[str, Strategy] | None = None) -> Strategy:
    """The strategy ``NAME`` or ``NAME:BUDGET`` among ``known`` (default: the built-in ones)."""
    table = {**STRATEGIES, **(known or {})}
    name, _, budget = choice.partition(":")
    if name not in table:
        raise ContextError(f"unknown context strategy {name!r} (choose from {', '.join(table)})")
    found = table[name]
    if budget:
        if not budget.isdigit() or int(budget) <= 0:
            raise ContextError(f"{choice!r}: the budget after ':' must be a whole number of tokens > 0")
        found = strategy(f"{name}:{budget}", found.builder, int(budget), found.tokenizer, found.options)
    return found


def build(index: ContextIndex, source: Source, chosen: Strategy) -> BuiltContext:
    """The context ``chosen`` builds for ``source`` from ``index``, timed and counted."""
    start = time.perf_counter()
    function = BUILDERS[chosen.builder][0]
    tokens = counter(chosen.tokenizer)
    fill = Fill(tokens, chosen.budget)
    plan = function(index, source, fill, chosen.settings())
    parts = tuple(Part(name, spent) for name, spent in fill.spent.items())
    window = plan.window
    return BuiltContext(
        strategy=chosen.name,
        language=source.language,
        path=source.path,
        prefix=window.prefix,
        suffix=window.suffix,
        window=(window.first, window.last),
        snippets=tuple(plan.snippets),
        budget=chosen.budget,
        tokenizer=tokens.label,
        parts=parts,
        build_ms=(time.perf_counter() - start) * 1000,
        arranged=plan.arranged,
        whole_files=plan.whole_files,
    )


__all__ = [
    "BUILDERS",
    "STRATEGIES",
    "BuiltContext",
    "ContextError",
    "ContextIndex",
    "NeedsTruth",
    "Snippet",
    "Source",
    "Strategy",
    "build",
    "resolve",
    "strategy",
]
