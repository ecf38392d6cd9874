"""Proof of a pass: each selected test's own result, through a channel the answer cannot forge.

An exit status proves nothing: ``os._exit(0)`` or ``System.exit(0)`` in the code under test ends
the test process with status 0 before a single test ran, and text printed by the tests can
imitate any status line. So a run passes only when the test framework itself reported every
selected test as run and passed, and reported the end of the run.

The channel. Before each run simpilot draws a random token. The test process receives it through
a pipe that its reporter (``pytest_proof.py``, or the JUnit runner) drains before any of the
repository's code is imported, and writes its records, each prefixed by the token, to a file
descriptor whose file lies outside the sandbox and has no name there (the warm JUnit server
writes them to the stream it answers on). The code under test never sees the token, so whatever
it prints or writes is ignored; a process that dies early leaves no end record; a reporter that
the code under test disables writes no records. What the reporter checks on top (``tampered``)
is whether the test framework's own functions and classes are the ones it started with.

A record is one line: ``TOKEN<TAB>JSON``. Events: ``start``; ``test`` (``id``, ``outcome``:
passed, failed, skipped, aborted; Python adds ``when``: setup, call, teardown; Java adds ``class``);
``error`` (a collection or compilation error: ``message``); ``end`` (``tampered``: the framework
objects replaced during the run).

Only the parsing and the judgement live here (pure functions); making the channel is
:class:`Channel`, used by the sandbox and the warm servers.
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

ENV = "SIMPILOT_PROOF"  # "TOKEN_FD:REPORT_FD" in the test process's environment (the reporter removes it)
PYTEST_PLUGIN = "replay.execution.pytest_proof"


def new_token() -> str:
    return secrets.token_hex(16)


@dataclass(frozen=True, slots=True)
class Proof:
    """What a run's reporter said, keeping only the records that carry the run's token."""

    outcomes: Mapping[str, str] = field(default_factory=dict)  # test id -> passed | failed | skipped | aborted
    classes: Mapping[str, str] = field(default_factory=dict)  # test id -> class (Java)
    errors: tuple[str, ...] = ()  # collection or compilation errors
    tampered: tuple[str, ...] = ()
    started: bool = False
    finished: bool = False

    @property
    def failed(self) -> list[str]:
        return [test for test, outcome in self.outcomes.items() if outcome == "failed"]

    @property
    def passed(self) -> list[str]:
        return [test for test, outcome in self.outcomes.items() if outcome == "passed"]


def parse(report: bytes | str, token: str) -> Proof:
    """The proof in ``report`` (a reporter's records mixed with anything else): lines without
    ``token`` are ignored, and so is a line that does not parse."""
    text = report.decode("utf-8", "replace") if isinstance(report, bytes) else report
    prefix = token + "\t"
    phases: dict[str, dict[str, str]] = {}
    classes: dict[str, str] = {}
    errors: list[str] = []
    tampered: list[str] = []
    started = finished = False
    for line in text.splitlines():
        if not line.startswith(prefix):
            continue
        try:
            record = json.loads(line[len(prefix) :])
            event = record["event"]
        except (ValueError, KeyError, TypeError):
            continue
        if event == "start":
            started = True
        elif event == "test" and isinstance(record.get("id"), str):
            phases.setdefault(record["id"], {})[str(record.get("when", "call"))] = str(record.get("outcome"))
            if isinstance(record.get("class"), str):
                classes[record["id"]] = record["class"]
        elif event == "error":
            errors.append(str(record.get("message", "")))
        elif event == "end" and started:
            finished = True
            tampered += [str(t) for t in record.get("tampered") or ()]
    outcomes = {test: _combined(p) for test, p in phases.items()}
    return Proof(outcomes, classes, tuple(errors), tuple(tampered), started, finished)


def parse_junit_xml(folder: Path, returncode: int) -> Proof | None:
    """The proof in the JUnit XML reports a test command wrote into ``folder`` (the format of
    Ant, Maven Surefire, Gradle and the JUnit console launcher), written into a folder outside
    the work copy. No report: a command that failed never got to its tests (None: its output
    says why); one that exited 0 without a report ended before the end of its run."""
    outcomes: dict[str, str] = {}
    classes: dict[str, str] = {}
    errors: list[str] = []
    reports = sorted(folder.rglob("*.xml")) if folder.is_dir() else []
    if not reports:
        return Proof(started=True) if returncode == 0 else None
    for report in reports:
        try:
            root = ElementTree.parse(report).getroot()
        except (ElementTree.ParseError, OSError) as exc:
            errors.append(f"{report.name}: unreadable report ({exc})")
            continue
        for case in root.iter("testcase"):
            cls, name = case.get("classname", ""), case.get("name", "")
            test = f"{cls}#{name}"
            if case.find("failure") is not None or case.find("error") is not None:
                outcomes[test] = "failed"
            elif case.find("skipped") is not None:
                outcomes.setdefault(test, "skipped")
            else:
                outcomes.setdefault(test, "passed")
            classes[test] = cls
    return Proof(outcomes, classes, tuple(errors), (), True, True)


def _combined(phases: Mapping[str, str]) -> str:
    """One test's outcome over its phases: any failure fails it; it passed only if its call did.
    An aborted test (Java: a failed assumption) neither passed nor failed."""
    values = set(phases.values())
    if values - {"passed", "skipped", "aborted"}:
        return "failed"
    if "aborted" in values:
        return "aborted"
    return "passed" if phases.get("call") == "passed" and values == {"passed"} else "skipped"


@dataclass(frozen=True, slots=True)
class Shortfall:
    """Why a run is not a proven pass. ``kind``: ``failed`` (a test or the collection failed),
    ``tampered``, ``not_run`` (selected tests without a passing result, or no end record),
    ``no_report`` (the command gives no per-test results)."""

    kind: str
    detail: str


def shortfall(proof: Proof | None, expected: Iterable[str] | None) -> Shortfall | None:
    """None when ``proof`` shows every ``expected`` test run and passed; otherwise why not.

    ``expected`` holds test ids (pytest node ids, ``Class#method()``) or, for Java selections,
    test methods (``pkg.FooTest#adds``: each of its runs, a parameterized test's invocations
    included) or class names, which a class's tests (nested classes included) stand for: each
    named method or class must have a passing test. ``None`` asks for at least one passing test and no failure.
    """
    if proof is None:
        return Shortfall("no_report", "the test command gives no per-test results")
    if proof.errors or proof.failed:
        first = proof.errors[0] if proof.errors else proof.failed[0]
        return Shortfall("failed", f"{len(proof.failed)} test(s) failed, {len(proof.errors)} error(s): {first}")
    if proof.tampered:
        return Shortfall("tampered", "the test framework was altered during the run: " + ", ".join(proof.tampered[:5]))
    aborted = [test for test, outcome in proof.outcomes.items() if outcome == "aborted"]
    if aborted:
        return Shortfall("not_run", f"{len(aborted)} test(s) did not run and pass (aborted): {aborted[0]}")
    wanted = sorted(set(expected)) if expected is not None else None
    missing = [name for name in wanted if not _passed(proof, name)] if wanted is not None else []
    if not proof.finished:
        total = len(wanted) if wanted is not None else "the"
        reported = len(wanted) - len(missing) if wanted is not None else len(proof.passed)
        return Shortfall(
            "not_run", f"the test process ended before the end of the run ({reported} of {total} selected tests reported passing)"
        )
    if missing:
        return Shortfall("not_run", f"{len(missing)} of {len(wanted or ())} selected tests did not run and pass: {missing[0]}")
    if not proof.passed:
        return Shortfall("not_run", "no test ran")
    return None


def _passed(proof: Proof, name: str) -> bool:
    if proof.outcomes.get(name) == "passed":
        return True
    if "#" in name:  # a Java test method named without its parameters: its runs are ``name(…)``, ``name(…)[n]``
        runs = name + "("
        return any(outcome == "passed" and test.startswith(runs) for test, outcome in proof.outcomes.items())
    nested = name + "$"
    return any(
        outcome == "passed" and (cls == name or cls.startswith(nested))
        for test, outcome in proof.outcomes.items()
        if (cls := proof.classes.get(test)) is not None
    )


class Channel:
    """One run's token pipe and report file, made by the process that starts the tests.

    ``fds`` are handed to the test process (``pass_fds``), ``env`` tells it their numbers. The
    report file is anonymous (``O_TMPFILE``): nothing in or out of the sandbox can open it by name.
    """

    def __init__(self, token: str | None = None, folder: str | None = None):
        self.token = token or new_token()
        self._read, write = os.pipe()
        os.write(write, self.token.encode())
        os.close(write)
        self._report = _anonymous_file(folder or tempfile.gettempdir())

    @property
    def fds(self) -> tuple[int, int]:
        return self._read, self._report

    @property
    def env(self) -> dict[str, str]:
        return {ENV: f"{self._read}:{self._report}"}

    def handed_over(self) -> None:
        """The test process holds its copies now: ours of the token pipe can go."""
        if self._read >= 0:
            os.close(self._read)
            self._read = -1

    def report(self) -> bytes:
        size = os.fstat(self._report).st_size
        return os.pread(self._report, size, 0) if size else b""

    def proof(self) -> Proof:
        return parse(self.report(), self.token)

    def close(self) -> None:
        self.handed_over()
        if self._report >= 0:
            os.close(self._report)
            self._report = -1

    def __enter__(self) -> Channel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _anonymous_file(folder: str) -> int:
    try:
        return os.open(folder, os.O_TMPFILE | os.O_RDWR | os.O_APPEND, 0o600)
    except OSError:  # a file system without O_TMPFILE: a named file, unlinked at once
        fd, path = tempfile.mkstemp(dir=folder)
        os.unlink(path)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
        return fd
