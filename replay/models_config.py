"""Model names → model specs for the bridge.

Built in: ``oracle`` (the ground truth) and ``empty``. Others come from a ``models.toml``::

    [models.qwen-coder]
    kind = "openai-chat"
    base_url = "http://127.0.0.1:8000/v1"
    model = "Qwen/Qwen2.5-Coder-7B-Instruct"
    api_key_env = "OPENAI_API_KEY"   # the *name* of the variable; keys are never stored
    timeout = 60
    retries = 3

or inline as ``openai-chat:MODEL@BASE_URL``.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from .errors import SimpilotError

BUILTIN = {"oracle": {"kind": "oracle"}, "empty": {"kind": "empty"}}


def resolve_model(name: str, config: Path | None, scenarios: list[Path]) -> dict[str, Any]:
    if name in BUILTIN:
        spec = dict(BUILTIN[name])
    elif name.startswith("openai-chat:") and "@" in name:
        model, _, url = name.removeprefix("openai-chat:").rpartition("@")
        spec = {"kind": "openai-chat", "model": model, "base_url": url}
    else:
        path = config or Path("models.toml")
        if not path.exists():
            raise SimpilotError(f"unknown model {name!r}: use oracle, empty, openai-chat:MODEL@URL, or define it in {path}")
        try:
            table = tomllib.loads(path.read_text(encoding="utf-8")).get("models", {})
        except tomllib.TOMLDecodeError as exc:
            raise SimpilotError(f"{path}: not valid TOML ({exc})") from None
        if name not in table or not isinstance(table[name], dict):
            known = ", ".join(sorted(table)) or "none"
            raise SimpilotError(f"model {name!r} is not defined in {path} (defined: {known})")
        spec = dict(table[name])
    if spec.get("kind") == "oracle":
        spec["scenarios"] = [str(p.resolve()) for p in scenarios]
    return spec
