"""``simpilot serve``: the LSP bridge on stdio for an editor, with the model, preset and context
strategy resolved here, so that a mistake is one line before the editor is waiting on the bridge."""

from __future__ import annotations

import json
from pathlib import Path

from lsp_bridge.models.resolve import resolve_model
from postprocess import PRESETS
from replay.config.model_spec import spec_json
from replay.core.errors import SimpilotError
from replay.jobs.contexts import strategies_named


def serve(
    model: str,
    postprocess: str,
    scenarios: tuple[Path, ...] = (),
    *,
    models_file: Path | None = None,
    log_file: str | None = None,
    record: str | None = None,
    context: str | None = None,
    contexts_file: Path | None = None,
) -> None:
    """Run the bridge until the editor closes it."""
    from lsp_bridge.__main__ import main as bridge_main  # the server's packages load only to serve

    spec = resolve_model(model, models_file, list(scenarios))
    args = ["--model-json", json.dumps(spec_json(spec)), "--postprocess", postprocess, "--preset-steps", ",".join(PRESETS[postprocess])]
    args += ["--log-file", log_file] if log_file else []
    if context:
        from lsp_bridge.contexts import ContextError
        from lsp_bridge.contexts.provider import ContextProvider

        (strategy,) = strategies_named((context,), contexts_file)
        truths = [str(p) for p in scenarios] if strategy.needs_truth else []
        try:
            ContextProvider(strategy, truths)  # the bridge's own check, before the editor is waiting on it
        except ContextError as exc:
            raise SimpilotError(str(exc)) from None
        args += ["--context-json", json.dumps(strategy.to_json() | ({"scenarios": truths} if truths else {}))]
    bridge_main(args + (["--record", record] if record else []))
