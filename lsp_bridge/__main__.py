"""``python -m lsp_bridge``: run the bridge on stdio (``simpilot serve`` does the same)."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from postprocess import register_presets

from .options import BridgeOptions
from .server import build_server
from .trace import TraceWriter


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m lsp_bridge", description="simpilot's LSP bridge on stdio")
    parser.add_argument("--model-json", default='{"kind": "empty"}', help="default model spec (JSON object)")
    parser.add_argument("--postprocess", default=None, help="post-processing preset applied to answers")
    parser.add_argument(
        "--preset-steps", default=None, help="the steps of --postprocess, comma-separated (for a preset defined in a presets file)"
    )
    parser.add_argument("--log-file", default=None, help="write the server's log here (stdout is the protocol)")
    parser.add_argument("--record", default=None, help="append what the editor sends and the server answers to this trace file (JSONL)")
    parser.add_argument("--context-json", default=None, help="a context strategy building every prompt (JSON object)")
    args = parser.parse_args(argv)
    if args.log_file:
        logging.basicConfig(filename=args.log_file, level=logging.INFO)
    else:
        logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    if args.postprocess and args.preset_steps:
        register_presets({args.postprocess: args.preset_steps.split(",")})
    trace = TraceWriter(Path(args.record)) if args.record else None
    context = json.loads(args.context_json) if args.context_json else None
    server = build_server(BridgeOptions(model=json.loads(args.model_json), postprocess=args.postprocess, context=context), trace)
    try:
        server.start_io()
    finally:
        if trace is not None:
            trace.close()


if __name__ == "__main__":
    main()
