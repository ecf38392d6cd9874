"""``python -m lsp_bridge``: run the bridge on stdio (``simpilot serve`` does the same)."""

from __future__ import annotations

import argparse
import json
import logging
import sys

from .options import BridgeOptions
from .server import build_server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m lsp_bridge", description="simpilot's LSP bridge on stdio")
    parser.add_argument("--model-json", default='{"kind": "empty"}', help="default model spec (JSON object)")
    parser.add_argument("--postprocess", default=None, help="post-processing preset applied to answers")
    parser.add_argument("--log-file", default=None, help="write the server's log here (stdout is the protocol)")
    args = parser.parse_args(argv)
    if args.log_file:
        logging.basicConfig(filename=args.log_file, level=logging.INFO)
    else:
        logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    server = build_server(BridgeOptions(model=json.loads(args.model_json), postprocess=args.postprocess))
    server.start_io()


if __name__ == "__main__":
    main()
