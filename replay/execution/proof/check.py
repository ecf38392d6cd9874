"""Proof of a pass: each selected test's own result, through a channel the answer cannot forge.

An exit status proves nothing: ``os._exit(0)`` or ``System.exit(0)`` in the code under test ends
the test process with status 0 before a single test ran, and text printed by the tests can
imitate any status line. So a run passes only when the test framework itself reported every
selected test as run and passed, and reported the end of the run.

The channel. Before each run simpilot draws a random key. The test process receives it through a
pipe that its reporter (``pytest_proof.py``, or the JUnit runner) drains before any of the
repository's code is imported; the key is never written anywhere after that. Each record the
reporter writes is signed with it: ``MAC<TAB>JSON``, where MAC is the hex HMAC-SHA256 of the
JSON's bytes under the key, and the JSON carries ``seq``, the record's number in the run (0 for
``start``). The records go to a descriptor whose file lies outside the sandbox and has no name
there (the warm JUnit server writes them to the stream it answers on).

Why signed rather than a secret prefix: the test process can read what it can reach, including
its own report descriptor (``/proc/self/fd``). A record reveals nothing of the key, so reading
every record written so far does not help to write one more; a record that does not verify is
evidence of forging (``forged-record``), and a record removed or replayed breaks the numbering
(``records-out-of-order``). A process that dies early leaves no end record; a reporter that the
code under test disables writes no records.

What the reporter reports on top (``tampered`` events): framework objects replaced during the
run, and, in Python, the introspection the answer's own code did (``pytest_proof.py``'s audit
hook). Any tampering makes the run ``tampered``, whatever its tests said.

A record's JSON: ``event`` is ``start``; ``test`` (``id``, ``outcome``: passed, failed,
skipped, aborted; Python adds ``when``: setup, call, teardown; Java adds ``class``); ``error``
(a collection or compilation error: ``message``); ``tampered`` (``what``: one event, raised as
it happens, so it stands even if the process is then killed); ``end`` (``tampered``: the
framework objects replaced during the run).

DevBench's single-program runners (``programs/``) still write the older ``KEY<TAB>JSON`` lines,
which count too: the key is needed for either.

Only the parsing and the judgement live here (pure functions); making the channel is
:class:`Channel`, used by the sandbox and the warm servers.
"""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import hmac
import json
import os
import re
import secrets
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

from replay.core.records import TAMPERED_DETAIL as TAMPERED
from replay.execution.inside.proof_channel import ENV

PYTEST_PLUGIN = "replay.execution.inside.pytest_proof"
_SIGNED = re.compile(r"([0-9a-f]{64})\t(.*)")


def new_token() -> str:
    return secrets.token_hex(16)


def sign(key: str, record: str) -> str:
    """The line a reporter writes for ``record`` (its JSON) under the run's ``key``."""
    return hmac.new(key.encode(), record.encode(), hashlib.sha256).hexdigest() + "\t" + record


@dataclass(frozen=True, slots=True)
class Answer:
    """Where the answer's own lines are in the work copy, for the reporter's audit hook: the
    path as the test process sees it, and the 1-based first and last line of the hole's text."""

    path: str
    first: int
    last: int

    def to_json(self) -> str:
        return json.dumps({"path": self.path, "first": self.first, "last": self.last})


def channel_input(token: str, answer: Answer | None) -> bytes:
    """What the token pipe carries: the key, then (on a line of its own) the answer's place."""
    return (token + ("\n" + answer.to_json() + "\n" if answer is not None else "")).encode()


@dataclass(frozen=True, slots=True)
class Proof:
    """What a run's reporter said, keeping only the records that carry the run's token."""

    outcomes: Mapping[str, str] = field(default_factory=dict)  # test id -> passed | failed | skipped | aborted
    classes: Mapping[str, str] = field(default_factory=dict)  # test id -> class (Java)
    errors: tuple[str, ...] = ()  # collection or compilation errors
    tampered: tuple[str, ...] = ()  # tampering events: framework objects replaced, introspection, forged records
    started: bool = False
    finished: bool = False

    @property
    def failed(self) -> list[str]:
        return [test for test, outcome in self.outcomes.items() if outcome == "failed"]

    @property
    def passed(self) -> list[str]:
        return [test for test, outcome in self.outcomes.items() if outcome == "passed"]


def parse(report: bytes | str, token: str) -> Proof:
    """The proof in ``report`` (a reporter's records mixed with anything else). A line that is
    not a record is ignored; a signed line that does not verify under ``token``, or a signed
    record out of sequence, is a tampering event; a record that does not parse is ignored."""
    text = report.decode("utf-8", "replace") if isinstance(report, bytes) else report
    prefix = token + "\t"
    phases: dict[str, dict[str, str]] = {}
    classes: dict[str, str] = {}
    errors: list[str] = []
    tampered: list[str] = []
    started = finished = False
    forged = 0
    expected = 0  # the next signed record's number
    out_of_order = False
    for line in text.splitlines():
        signed = _SIGNED.fullmatch(line)
        if signed is not None:
            mac, body = signed.groups()
            if not hmac.compare_digest(sign(token, body)[:64], mac):
                forged += 1
                continue
        elif line.startswith(prefix):  # the older, unsigned form of DevBench's program runners
            body = line[len(prefix) :]
        else:
            continue
        try:
            record = json.loads(body)
            event = record["event"]
        except (ValueError, KeyError, TypeError):
            continue
        if signed is not None:
            if record.get("seq") != expected:
                out_of_order = True
            expected = record["seq"] + 1 if isinstance(record.get("seq"), int) else expected + 1
        if event == "start":
            started = True
        elif event == "test" and isinstance(record.get("id"), str):
            phases.setdefault(record["id"], {})[str(record.get("when", "call"))] = str(record.get("outcome"))
            if isinstance(record.get("class"), str):
                classes[record["id"]] = record["class"]
        elif event == "error":
            errors.append(str(record.get("message", "")))
        elif event == "tampered":
            tampered.append(str(record.get("what", "unknown")))
        elif event == "end" and started:
            finished = True
            tampered += [f"framework-replaced {t}" for t in record.get("tampered") or ()]
    if forged:
        tampered.append(f"forged-record {forged} line(s) signed with another key")
    if out_of_order:
        tampered.append("records-out-of-order the reporter's records were removed, repeated or reordered")
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
    if proof.tampered:  # first: a run that touched the harness says nothing else worth trusting
        return tampering(proof)
    if proof.errors or proof.failed:
        first = proof.errors[0] if proof.errors else proof.failed[0]
        return Shortfall("failed", f"{len(proof.failed)} test(s) failed, {len(proof.errors)} error(s): {first}")
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


def with_tampering(proof: Proof | None, events: Iterable[str]) -> Proof:
    """``proof`` with more tampering ``events`` (found outside the test process, by the host)."""
    base = proof if proof is not None else Proof()
    return dataclasses.replace(base, tampered=(*base.tampered, *events))


def tampering(proof: Proof | None) -> Shortfall | None:
    """The ``tampered`` shortfall of ``proof`` (None when it shows no tampering): its detail is
    :data:`TAMPERED` and the distinct events, in the order they came."""
    if proof is None or not proof.tampered:
        return None
    return Shortfall("tampered", TAMPERED + "; ".join(dict.fromkeys(proof.tampered)))


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

    def __init__(self, token: str | None = None, folder: str | None = None, answer: Answer | None = None):
        self.token = token or new_token()
        self._read, write = os.pipe()
        os.write(write, channel_input(self.token, answer))
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
