"""Model names → model specs for the bridge.

Built in: ``oracle`` (the ground truth), ``noisy-oracle[:SEED]`` (the ground truth corrupted as models
corrupt it, ``postprocess/noise.py``) and ``empty``. Others come from a ``models.toml``, one
table per model; ``kind`` picks the endpoint's wire format, the other keys are the settings of
``lsp_bridge.models.settings.EndpointSettings`` (unknown keys are an error)::

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

Specs are checked here, before any server starts, so a typo is a usage error naming the key.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from replay.core.errors import SimpilotError
from replay.core.recordings import read_recordings
from replay.reports.cost import PRICE_FIELDS, Price, price_from_mapping

BUILTIN = {"oracle": {"kind": "oracle"}, "empty": {"kind": "empty"}}
PRICE_PREFIX = "price_"
PRICE_KEYS = tuple(PRICE_PREFIX + field for field in PRICE_FIELDS)


def resolve_model(name: str, config: Path | None, scenarios: list[Path]) -> dict[str, Any]:
    from lsp_bridge.models import HTTP_KINDS  # the bridge's kinds; imported late, as the bridge imports replay

    kind, sep, rest = name.partition(":")
    spec: dict[str, Any]
    if name in BUILTIN:
        spec = dict(BUILTIN[name])
    elif sep and kind in HTTP_KINDS and "@" in rest:
        model, _, url = rest.rpartition("@")
        spec = {"kind": kind, "model": model, "base_url": url}
    elif kind == "noisy-oracle" and (not sep or rest.isdigit()):
        spec = {"kind": "noisy-oracle", "seed": int(rest or 0)}
    elif sep and kind == "recorded" and rest:
        spec = {"kind": "recorded", "folder": str(Path(rest).resolve())}
    else:
        path = config or Path("models.toml")
        if not path.exists():
            inline = ", ".join(f"{k}:MODEL@URL" for k in HTTP_KINDS)
            raise SimpilotError(
                f"unknown model {name!r}: use oracle, empty, noisy-oracle[:SEED], {inline}, recorded:FOLDER, or define it in {path}"
            )
        try:
            table = tomllib.loads(path.read_text(encoding="utf-8")).get("models", {})
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise SimpilotError(f"{path}: not valid TOML ({exc})") from None
        if not isinstance(table, dict):
            raise SimpilotError(f"{path}: 'models' must be tables, one per model: [models.{name}] with kind = \"…\" and its settings")
        if name in table and not isinstance(table[name], dict):
            raise SimpilotError(
                f"{path}: model {name!r} must be a table of settings, e.g. [models.{name}] then kind = {table[name]!r} on the next line"
            )
        if name not in table:
            known = ", ".join(sorted(k for k, v in table.items() if isinstance(v, dict))) or "none"
            raise SimpilotError(f"model {name!r} is not defined in {path} (defined: {known})")
        spec = dict(table[name])
        _table_price(path, name, spec)  # checked here too, so that a bad price fails the run at its start
        for key in PRICE_KEYS:  # prices are the report's, not the bridge's (which refuses unknown keys)
            spec.pop(key, None)
        if isinstance(spec.get("cache_db"), str):  # the bridge may run elsewhere: make it absolute
            spec["cache_db"] = str((path.parent / spec["cache_db"]).resolve())
    check_spec(name, spec)
    if spec.get("kind") == "recorded" and isinstance(spec.get("folder"), str):
        # every answer is read here, so that a bad line (a path leading out of its repository
        # above all) stops the run now, with its own exit status, not as model errors later
        read_recordings(Path(spec["folder"]))
    if spec.get("kind") in ("oracle", "noisy-oracle"):
        spec["scenarios"] = [str(p.resolve()) for p in scenarios]
    return spec


def check_spec(name: str, spec: dict[str, Any]) -> None:
    """Raise SimpilotError when the bridge would refuse ``spec`` (an unknown kind or setting, a
    bad value), so that a run fails at the start and not at its first request."""
    from lsp_bridge.models import ModelError
    from lsp_bridge.models import check_spec as check_model_spec

    try:
        check_model_spec(spec)
    except ModelError as exc:
        raise SimpilotError(f"model {name!r}: {exc}") from None


def price_for(name: str, config: Path | None) -> Price | None:
    """The price in model ``name``'s table of ``config`` (default ``models.toml``), None when it
    gives none: a table without ``price_*`` keys, a model not defined there, no file at all, or a
    built-in model (the file cannot redefine those, so a price there would not be the model's)."""
    path = config or Path("models.toml")
    if name in BUILTIN or not path.exists():
        return None
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8")).get("models", {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SimpilotError(f"{path}: not valid TOML ({exc})") from None
    entry = table.get(name) if isinstance(table, dict) else None
    if not isinstance(entry, dict):
        return None
    return _table_price(path, name, entry)


def _table_price(path: Path, name: str, entry: dict[str, Any]) -> Price | None:
    """The ``price_*`` keys of one model's table as a Price, with errors naming the file, the model
    and the key as written."""
    try:
        return price_from_mapping(entry, prefix=PRICE_PREFIX)
    except ValueError as exc:
        raise SimpilotError(f"{path}: model {name!r}: {exc}") from None
