"""simpilot's evaluation side: marking holes, replaying them through the LSP bridge, running the
repository's tests on the patched copy, storing outcomes and reporting on them."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("simpilot")  # one place: pyproject.toml; stored with every run
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"
