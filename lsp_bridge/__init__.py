"""simpilot's LSP bridge: a real language server that answers inline completions from a model."""

from .server import build_server

__all__ = ["build_server"]
