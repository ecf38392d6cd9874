"""Model names → model specs for the bridge.

Built in: ``oracle`` (the ground truth), ``noisy-oracle[:SEED]`` (the ground truth corrupted as models
corrupt it, ``postprocess/noise.py``) and ``empty``. Others come from a ``models.toml``, one
table per model; ``kind`` picks the endpoint's wire format, the other keys are the settings of
``endpoint_settings.EndpointSettings`` (unknown keys are an error). A ``kind`` an installed plugin
registers (entry-point group ``simpilot.models``) takes the plugin's own keys, which its factory
checks when the bridge builds the model::

    [models.qwen-chat]                  # chat model, SimCopilot hole-marker prompt
    kind = "openai-chat"
    base_url = "http://127.0.0.1:8000/v1"
    model = "Qwen/Qwen2.5-Coder-7B-Instruct"
    api_key_env = "OPENAI_API_KEY"      # the *name* of the variable; keys are never stored
    timeout = 60
    retries = 3
    price_input_per_mtok = 0.15         # optional price, per million prompt tokens …
    price_output_per_mtok = 0.60        # … and per million answer tokens
    price_currency = "USD"              # the default

    [models.starcoder2]                 # FIM base model behind /v1/completions
    kind = "openai-completions"
    base_url = "http://127.0.0.1:8000/v1"
    model = "bigcode/starcoder2-3b"
    fim_family = "starcoder"            # raw FIM prompt; or prompt_mode = "suffix"
    cache_db = "cache/starcoder2.sqlite"  # raw-output store, relative to this file

    [models.llamacpp]
    kind = "llamacpp-infill"            # llama.cpp server /infill
    base_url = "http://127.0.0.1:8080"
    price_per_hour = 1.20               # a self-hosted GPU: its price for each busy hour

    [models.qwen-ollama]
    kind = "ollama"                     # /api/generate with suffix (fim_family: raw FIM)
    base_url = "http://127.0.0.1:11434"
    model = "qwen2.5-coder:1.5b-base"

or inline as ``KIND:MODEL@BASE_URL`` for the HTTP kinds (``openai-chat:m@http://…/v1``,
``ollama:qwen2.5-coder:1.5b@http://127.0.0.1:11434``, ``llamacpp-infill:@http://127.0.0.1:8080``),
with every other setting at its default.

The ``price_*`` keys are not bridge settings: :func:`resolve_model` checks them and leaves them out
of the spec, and :func:`price_for` reads them (token prices or an hourly price, never both; see
``replay/reports/cost.py``). A model without them has no known price.

Files are read through their schema (``models_file.py``), before any server starts, so a typo is
an error naming the file and the key; what only the bridge knows (a prompt mode the kind cannot
send, a FIM family) is checked where the bridge resolves the spec (``lsp_bridge/models/resolve.py``).
"""

from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from replay.config.endpoint_settings import EXPECTED
from replay.config.errors import ConfigError
from replay.config.model_spec import ModelSpec, parse_model_spec
from replay.config.models_file import ENDPOINT_KINDS, TABLES
from replay.config.price import PRICE_FIELDS, Price, price_from_mapping
from replay.config.strict import read_toml, validate
from replay.core.errors import SimpilotError

BUILTIN: dict[str, ModelSpec] = {name: parse_model_spec({"kind": name}) for name in ("oracle", "empty")}
PRICE_PREFIX = "price_"
PLUGIN_GROUP = "simpilot.models"  # the entry-point group of model kinds (lsp_bridge.models.FACTORIES)
PRICE_KEYS = tuple(PRICE_PREFIX + field for field in PRICE_FIELDS)


def model_spec(name: str, config: Path | None) -> ModelSpec:
    """The spec model ``name`` stands for: a built-in one, an inline ``KIND:MODEL@URL``, or a table
    of ``config`` (default ``models.toml``), checked against the file's schema, its prices left out
    and its ``cache_db`` made absolute."""
    kind, sep, rest = name.partition(":")
    if name in BUILTIN:
        return BUILTIN[name]
    if sep and kind in ENDPOINT_KINDS and "@" in rest:
        model, _, url = rest.rpartition("@")
        return _shorthand(name, {"kind": kind, "model": model, "base_url": url})
    if kind == "noisy-oracle" and (not sep or rest.isdigit()):
        return parse_model_spec({"kind": "noisy-oracle", "seed": int(rest or 0)})
    if sep and kind == "recorded" and rest:
        return parse_model_spec({"kind": "recorded", "folder": str(Path(rest).resolve())})
    path = config or Path("models.toml")
    if not path.exists():
        inline = ", ".join(f"{k}:MODEL@URL" for k in ENDPOINT_KINDS)
        raise SimpilotError(
            f"unknown model {name!r}: use oracle, empty, noisy-oracle[:SEED], {inline}, recorded:FOLDER, or define it in {path}"
        )
    table = _models(path)
    if name not in table:
        known = ", ".join(sorted(table)) or "none"
        raise SimpilotError(f"model {name!r} is not defined in {path} (defined: {known})")
    entry = _entry(path, name, table[name])
    _table_price(path, name, entry)  # checked here too, so that a bad price fails the run at its start
    spec = {k: v for k, v in entry.items() if k not in PRICE_KEYS}  # the report's, not the bridge's
    if isinstance(spec.get("cache_db"), str):  # the bridge may run elsewhere: make it absolute
        spec["cache_db"] = str((path.parent / spec["cache_db"]).resolve())
    return parse_model_spec(spec)  # the table passed its schema: the spec's record takes it as it is


def _shorthand(name: str, values: dict[str, str]) -> ModelSpec:
    """The spec of an inline ``KIND:MODEL@URL``; a value the record refuses (a URL that is not
    http) is the bridge's error for that setting."""
    try:
        return parse_model_spec(values)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        key = str(error["loc"][-1]) if error["loc"] else ""
        raise SimpilotError(f"model {name!r}: setting {key} must be {EXPECTED.get(key, 'known')}, not {error.get('input')!r}") from None


def _models(path: Path) -> dict[str, Any]:
    """The ``[models]`` tables of ``path``; any other top-level key is an error."""
    data = read_toml(path)
    for key in data:
        if key != "models":
            raise ConfigError(path, key, "unknown key (known: models); fix the spelling or remove it")
    table = data.get("models", {})
    if not isinstance(table, dict):
        raise ConfigError(path, "models", 'expected tables, one per model: [models.NAME] with kind = "…" and its settings')
    return table


def _entry(path: Path, name: str, entry: object) -> dict[str, Any]:
    """Model ``name``'s table, checked against the schema of its kind."""
    if not isinstance(entry, dict):
        raise ConfigError(
            path, f"models.{name}", f"expected a table of settings, got {entry!r}; write [models.{name}] then kind = … on the next line"
        )
    kind = entry.get("kind")
    if isinstance(kind, str) and kind not in TABLES and kind in plugin_kinds():
        return entry  # a plugin's kind: its keys are the plugin's, checked by its factory in the bridge
    if not isinstance(kind, str) or kind not in TABLES:
        known = ", ".join([*TABLES, *plugin_kinds()])
        raise ConfigError(path, f"models.{name}.kind", f"{kind!r} is not a model kind (choose from {known})")
    validate(TABLES[kind], entry, path, ("models", name))
    return entry


def plugin_kinds() -> tuple[str, ...]:
    """The model kinds installed plugins register (the ``simpilot.models`` entry points), by name
    only: nothing is imported here; the bridge loads the plugin when it builds the model."""
    return tuple(sorted({ep.name for ep in entry_points(group=PLUGIN_GROUP)} - set(TABLES)))


def price_for(name: str, config: Path | None) -> Price | None:
    """The price in model ``name``'s table of ``config`` (default ``models.toml``), None when it
    gives none: a table without ``price_*`` keys, a model not defined there, no file at all, or a
    built-in model (the file cannot redefine those, so a price there would not be the model's)."""
    path = config or Path("models.toml")
    if name in BUILTIN or not path.exists():
        return None
    table = _models(path)
    if name not in table:
        return None
    return _table_price(path, name, _entry(path, name, table[name]))


def _table_price(path: Path, name: str, entry: dict[str, Any]) -> Price | None:
    """The ``price_*`` keys of one model's table as a Price, with errors naming the file, the model
    and the key as written."""
    try:
        return price_from_mapping(entry, prefix=PRICE_PREFIX)
    except ValueError as exc:
        raise ConfigError(path, f"models.{name}", str(exc)) from None
