"""Replaying tasks: the LSP client, the replay pipeline, typing sessions, editor traces, a run's
configuration, model names, and comparing presets on stored answers."""
