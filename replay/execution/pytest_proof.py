"""A pytest plugin that reports each test's own result to simpilot through the proof channel.

Loaded with ``-p replay.execution.pytest_proof`` by every pytest run simpilot judges (the warm
server's children, fresh processes, the repository's own command under ``--full-suite``). On
import, before pytest loads any ``conftest.py`` and so before any of the repository's code, it
takes the run's token from the pipe named in ``$SIMPILOT_PROOF`` (and removes the variable), and
takes a snapshot of the test framework's functions and classes. Then it writes one record per
test phase and one at the end of the session, each prefixed by the token, to the report
descriptor (see ``proof.py`` for the format). The end record lists the framework objects that
were replaced during the run: code under test that patches pytest's reporting is caught there.

It runs in the tests' interpreter inside the sandbox, so it imports nothing of simpilot.
"""

from __future__ import annotations

import json
import os
import sys
import types

import pytest

ENV = "SIMPILOT_PROOF"
# What pytest itself rebinds during a run: the assertion-comparison hooks it installs around each
# test, and the method its legacypath plugin swaps in at configuration. Not tampering.
_REBOUND = {
    "_pytest.assertion.util._reprcompare",
    "_pytest.assertion.util._assertion_pass",
    "_pytest.assertion.util._config",
    "_pytest.config.Config._getini_unknown_type",
}
_CODE = (types.FunctionType, types.BuiltinFunctionType, type)  # module-level objects that hold behaviour
_MEMBERS = (types.FunctionType, classmethod, staticmethod, property, type)  # and class attributes
_FRAMEWORK = ("pytest", "_pytest", "pluggy")


def _open_channel() -> tuple[str, int | None]:
    spec = os.environ.pop(ENV, "")
    try:
        token_fd, report_fd = (int(part) for part in spec.split(":"))
    except ValueError:
        return "", None
    chunks = []
    while chunk := os.read(token_fd, 4096):
        chunks.append(chunk)
    os.close(token_fd)
    return b"".join(chunks).decode(), report_fd


def _snapshot() -> dict[str, object]:
    """The framework's module-level functions and classes, and the methods and properties of
    its classes, by qualified name (the objects themselves are kept, so an id cannot be reused)."""
    found: dict[str, object] = {}
    for name, module in list(sys.modules.items()):
        if module is None or not (name in _FRAMEWORK or name.startswith(("_pytest.", "pluggy.")) or name == __name__):
            continue
        for attr, value in list(vars(module).items()):
            if not isinstance(value, _CODE):
                continue
            found[f"{name}.{attr}"] = value
            if isinstance(value, type) and value.__module__ == name:
                for key, member in list(vars(value).items()):
                    if isinstance(member, _MEMBERS):
                        found[f"{name}.{attr}.{key}"] = member
    return found


def _replaced(snapshot: dict[str, object]) -> list[str]:
    changed = []
    for qualified, value in snapshot.items():
        if qualified in _REBOUND:
            continue
        owner, path = _owner(qualified)
        current = owner
        try:
            for part in path:
                current = vars(current)[part]
        except (KeyError, TypeError):
            changed.append(qualified)
            continue
        if current is not value:
            changed.append(qualified)
    return sorted(changed)


def _owner(qualified: str) -> tuple[object, list[str]]:
    parts = qualified.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module = sys.modules.get(".".join(parts[:cut]))
        if module is not None:
            return module, parts[cut:]
    return None, parts


_TOKEN, _FD = _open_channel()
_SNAPSHOT = _snapshot()


def _write(event: str, **fields: object) -> None:
    if _FD is None:
        return
    data = (_TOKEN + "\t" + json.dumps({"event": event, **fields}) + "\n").encode()
    while data:
        data = data[os.write(_FD, data) :]


_write("start")


def pytest_collectreport(report) -> None:
    if report.failed:
        _write("error", message=f"{report.nodeid or 'collection'}: {_short(report)}")


def pytest_runtest_logreport(report) -> None:
    _write("test", id=report.nodeid, when=report.when, outcome=report.outcome)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus) -> None:
    _write("end", status=int(exitstatus), tampered=_replaced(_SNAPSHOT))


def _short(report) -> str:
    text = str(getattr(report, "longrepr", "") or "")
    lines = [line for line in text.splitlines() if line.startswith("E ")]
    return (lines[-1] if lines else text.strip().splitlines()[-1] if text.strip() else "error")[:300]
