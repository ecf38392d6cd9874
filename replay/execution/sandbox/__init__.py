"""The sandbox: the one place that starts a process on model-written code (bubblewrap)."""
