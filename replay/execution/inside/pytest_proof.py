"""A pytest plugin that reports each test's own result to simpilot through the proof channel.

Loaded with ``-p replay.execution.inside.pytest_proof`` by every pytest run simpilot judges (the warm
server's children, fresh processes, the repository's own command under ``--full-suite``). On
import, before pytest loads any ``conftest.py`` and so before any of the repository's code, it

* takes the run's key (and where the answer's lines are) from the pipe named in
  ``$SIMPILOT_PROOF``, and removes the variable; the key then lives only inside an HMAC object
  held by one closure: no module attribute, descriptor, file or variable of the process names it;
* makes the process non-dumpable, so that no other process of the sandbox (a shell the answer
  starts) can read its memory or reopen its descriptors through ``/proc``;
* takes a snapshot of the test framework's functions and classes;
* installs an audit hook (PEP 578) that reports, as a ``tampered`` record written at once, each
  sensitive event raised by the answer's own lines: process and descriptor introspection
  (``/proc/self``, ``/proc/PID``, ``/dev/fd``), ``gc`` object walks, frame and code access (and
  code swapped in a function), ``ctypes``, tracing and audit hooks, signals sent to the test
  process, its parent or its group.

Then it writes one signed record per test phase and one at the end of the session (see
``proof.py`` for the format). A record is written only when pytest itself asked for it: the hook's
first caller outside pluggy must be one of pytest's own runner or session functions (the very
code objects, not names), and no frame on the stack may be the answer's or code compiled from a
string. A call that fails those checks is a ``tampered`` record instead. The end record lists the
framework objects that were replaced during the run.

It runs in the tests' interpreter inside the sandbox, so it imports nothing of simpilot but its sibling
``proof_channel`` (the channel's reader, shared with ``program_server.py``).
"""

from __future__ import annotations

import _thread
import hashlib
import hmac
import json
import os
import sys
import types
from collections.abc import Callable
from typing import Any

import pytest

from . import proof_channel

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
# Where pytest asks for reports: a record's first caller outside pluggy must be code of these modules
_REPORTERS = ("_pytest.runner", "_pytest.main", "_pytest.unittest", "_pytest.subtests")


def _open_channel() -> tuple[bytes, int | None, dict[str, object]]:
    """The key, the report descriptor and the answer's place (``path``, ``first``, ``last``)."""
    carried, report_fd = proof_channel.open_channel()
    if report_fd is None:
        return b"", None, {}
    key, _, rest = carried.partition(b"\n")
    try:
        answer = json.loads(rest) if rest.strip() else {}
    except ValueError:
        answer = {}
    return key, report_fd, answer if isinstance(answer, dict) else {}


Snapshot = list[tuple[str, object, str, object]]  # (qualified name, owner, attribute, value)


def _snapshot() -> Snapshot:
    """The framework's module-level functions and classes, and the methods and properties of
    its classes, each with the module or class that holds it. The objects themselves are kept
    (an id cannot be reused), and so are their owners: swapping a module in ``sys.modules`` for
    one that shows the old objects hides nothing."""
    found: Snapshot = []
    for name, module in list(sys.modules.items()):
        if module is None or not (name in _FRAMEWORK or name.startswith(("_pytest.", "pluggy.")) or name == __name__):
            continue
        for attr, value in list(vars(module).items()):
            if not isinstance(value, _CODE):
                continue
            qualified = f"{name}.{attr}"
            if qualified not in _REBOUND:
                found.append((qualified, module, attr, value))
            if isinstance(value, type) and value.__module__ == name:
                for key, member in list(vars(value).items()):
                    if isinstance(member, _MEMBERS) and f"{qualified}.{key}" not in _REBOUND:
                        found.append((f"{qualified}.{key}", value, key, member))
    return found


def _codes(prefixes: tuple[str, ...]) -> frozenset[types.CodeType]:
    """Every code object of the functions (methods and nested functions included) of the loaded
    modules named by ``prefixes``: frames running them are the framework's own."""
    found: set[types.CodeType] = set()

    def add(code: types.CodeType) -> None:
        if code not in found:
            found.add(code)
            for const in code.co_consts:
                if isinstance(const, types.CodeType):
                    add(const)

    def visit(value: object, depth: int) -> None:
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if isinstance(value, property):
            for part in (value.fget, value.fset, value.fdel):
                visit(part, depth)
        elif isinstance(value, types.FunctionType):
            add(value.__code__)
            wrapped = getattr(value, "__wrapped__", None)
            if wrapped is not None and depth < 3:
                visit(wrapped, depth + 1)
        elif isinstance(value, type) and depth < 3:
            for member in list(vars(value).values()):
                visit(member, depth + 1)

    for name, module in list(sys.modules.items()):
        if module is not None and name.startswith(prefixes) and name.split(".")[0] in {p.split(".")[0] for p in prefixes}:
            for value in list(vars(module).values()):
                if getattr(value, "__module__", name) == name:
                    visit(value, 0)
    return frozenset(found)


# -- the run-time guards ---------------------------------------------------------------------------
#
# Everything the guards use while the tests run is bound here, once, into closures: a name the
# guards looked up in this module's attributes (or in the builtins through them) could be rebound
# by the answer with a plain assignment, without any introspection, and switch a guard off.

# Events that are introspection whenever the answer raises them, and the modules whose frames are
# looked through to find who asked (``inspect.stack()`` is the answer's frame access)
_ALWAYS = {
    "gc.get_objects": (),
    "gc.get_referrers": (),
    "gc.get_referents": (),
    "sys._getframe": ("inspect",),
    "sys._current_frames": ("inspect",),
    "sys._current_exceptions": (),
    "sys.settrace": ("threading",),
    "sys.setprofile": ("threading",),
    "sys.addaudithook": (),
    "signal.pthread_kill": (),
    "function.__new__": (),
    "code.__new__": (),
}
_ATTRIBUTES = ("__code__", "tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back", "__globals__")
_PATHS = ("/proc/self", "/proc/thread-self", "/dev/fd")  # and /proc/<pid>


def _install() -> tuple[Callable[..., None], Callable[..., None], Callable[..., None]]:
    """Open the channel, install the audit hook, and return the three reporting hooks
    (``pytest_collectreport``, ``pytest_runtest_logreport``, ``pytest_sessionfinish``)."""
    key, fd, place = _open_channel()
    snapshot = _snapshot()
    pluggy = _codes(("pluggy",))
    askers = _codes(_REPORTERS)
    always = dict(_ALWAYS)
    attributes = frozenset(_ATTRIBUTES)
    paths = _PATHS
    roots = frozenset({*_FRAMEWORK, "replay"})
    getframe, ident, os_write, dumps, basename = sys._getframe, _thread.get_ident, os.write, json.dumps, os.path.basename
    getpid, getppid, getpgrp = os.getpid, os.getppid, os.getpgrp
    instance_of, text_of, attribute_of, length = isinstance, str, getattr, len
    text, data, number, kind = str, bytes, int, type
    short, names_of, ordered = _short, vars, sorted

    def replaced() -> list[str]:
        """The snapshot's objects that are no longer where they were."""
        return ordered(qualified for qualified, owner, attr, value in snapshot if names_of(owner).get(attr, None) is not value)

    mac = hmac.new(key, digestmod=hashlib.sha256)
    del key
    sequence = [0]
    lock = _thread.allocate_lock()
    writers: set[types.CodeType] = set()  # the only code allowed to write a record

    def write(record: dict[str, object]) -> None:
        """Sign ``record`` and append it to the report; a caller that is not one of the guards
        writes a tampering event instead."""
        if fd is None:
            return
        caller = getframe(1).f_code
        if caller not in writers:
            record = {"event": "tampered", "what": f"reporter-called-from-outside-pytest {caller.co_name}"}
        with lock:
            body = dumps({**record, "seq": sequence[0]}, separators=(",", ":"))
            sequence[0] += 1
            signer = mac.copy()
            signer.update(body.encode())
            data = (signer.hexdigest() + "\t" + body + "\n").encode()
            while data:
                data = data[os_write(fd, data) :]

    # -- the answer's lines: code compiled from a string (exec, eval) is looked through to the
    # frame that ran it
    given, first, last = place.get("path"), place.get("first"), place.get("last")
    answer_path = os.path.abspath(given) if isinstance(given, str) and given else None
    lines = range(first, last + 1) if isinstance(first, int) and isinstance(last, int) else range(0)
    same_file: dict[str, bool] = {}
    abspath, isabs = os.path.abspath, os.path.isabs

    def runs(frame: types.FrameType) -> bool:
        """Whether ``frame`` runs one of the answer's lines."""
        if answer_path is None:
            return False
        name = frame.f_code.co_filename
        same = same_file.get(name)
        if same is None:
            same = same_file[name] = name == answer_path or (not isabs(name) and abspath(name) == answer_path)
        return same and frame.f_lineno in lines

    def compiled_from_text(frame: types.FrameType) -> bool:
        name = frame.f_code.co_filename
        return name.startswith("<") and not name.startswith("<frozen ")

    # -- the audit hook

    def introspective(path: Any) -> str | None:
        if instance_of(path, data):
            path = path.decode("utf-8", "replace")
        if not instance_of(path, text):
            return None
        if path.startswith(paths):
            return path
        if path.startswith("/proc/") and path[6:].split("/", 1)[0].isdigit():
            return path
        return None

    def at_harness(event: str, target: Any) -> bool:
        """Whether a signal goes to this process, its parent, its group or everyone (a process
        the answer started itself may be signalled freely)."""
        if not instance_of(target, number):
            return False
        if event == "os.killpg":
            return target in (0, getpgrp())
        return target <= 1 or target in (getpid(), getppid())

    def alters_code(args: tuple) -> bool:
        """Whether an attribute assignment swaps a function's code or alters a framework class
        (or this reporter's); an ordinary class attribute of the repository's code is no one's
        business."""
        if length(args) < 2:
            return False
        if args[1] in ("__code__", "__globals__"):
            return True
        module: Any = attribute_of(args[0], "__module__", None) if instance_of(args[0], kind) else None
        return instance_of(module, text) and module.split(".")[0] in roots

    busy: set[int] = set()  # threads inside the hook: its own frame walk raises sys._getframe

    def hook(event: str, args: tuple) -> None:
        through: tuple[str, ...] = ()
        detail = ""
        if event in always:
            through = always[event]
        elif event.startswith("ctypes."):
            through = ("ctypes",)
        elif event == "object.__getattr__":
            if length(args) < 2 or args[1] not in attributes:
                return
            detail = text_of(args[1])  # not looked through inspect, which reads __code__ for honest reasons (signature)
        elif event in ("open", "os.listdir", "os.scandir"):
            found = introspective(args[0] if args else None)
            if found is None:
                return
            detail = found
        elif event in ("os.kill", "os.killpg"):
            if length(args) < 2 or not at_harness(event, args[0]):
                return
            detail = f"{args[0]} signal {args[1]}"
        elif event in ("object.__setattr__", "object.__delattr__"):
            if not alters_code(args):
                return
            detail = f"{attribute_of(args[0], '__qualname__', '?')}.{args[1]}"
        else:
            return
        me = ident()
        if me in busy:
            return
        busy.add(me)
        try:
            frame: types.FrameType | None = getframe(1)
            while frame is not None:
                module = frame.f_globals.get("__name__", "")
                if compiled_from_text(frame) or (instance_of(module, text) and module.split(".")[0] in through):
                    frame = frame.f_back
                    continue
                if runs(frame):
                    where = f"{basename(frame.f_code.co_filename)}:{frame.f_lineno}"
                    write({"event": "tampered", "what": f"{event}{' ' + detail if detail else ''} at {where}"})
                break
        finally:
            busy.discard(me)

    # -- the reporting hooks

    def asked_by_pytest(name: str) -> bool:
        """Whether pytest itself called the hook ``name``: its first caller outside pluggy is
        pytest's runner or session code, and no frame on the stack is the answer's or code
        compiled from a string. If not, the call is reported as tampering."""
        frame: types.FrameType | None = getframe(2)  # 0: this function, 1: the hook, 2: its caller
        while frame is not None and frame.f_code in pluggy:
            frame = frame.f_back
        why = ""
        if frame is None or frame.f_code not in askers:
            why = f"reporter-called-from-outside-pytest {name}"
        while frame is not None and not why:
            if runs(frame) or compiled_from_text(frame):
                why = f"reporter-called-from-answer {name} at {basename(frame.f_code.co_filename)}:{frame.f_lineno}"
            frame = frame.f_back
        if why:
            write({"event": "tampered", "what": why})
        return not why

    def collectreport(report) -> None:
        if report.failed and asked_by_pytest("pytest_collectreport"):
            write({"event": "error", "message": f"{report.nodeid or 'collection'}: {short(report)}"})

    def logreport(report) -> None:
        if asked_by_pytest("pytest_runtest_logreport"):
            write({"event": "test", "id": report.nodeid, "when": report.when, "outcome": report.outcome})

    def sessionfinish(session, exitstatus) -> None:
        if asked_by_pytest("pytest_sessionfinish"):
            write({"event": "end", "status": number(exitstatus), "tampered": replaced()})

    writers.update({hook.__code__, asked_by_pytest.__code__, collectreport.__code__, logreport.__code__, sessionfinish.__code__})
    writers.add(getframe(0).f_code)  # the start record, written here
    if fd is not None:
        _non_dumpable()
        sys.addaudithook(hook)
    write({"event": "start"})
    return collectreport, logreport, sessionfinish


def _non_dumpable() -> None:
    """No other process may read this one's memory or descriptors (``PR_SET_DUMPABLE`` 0)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _short(report) -> str:
    text = str(getattr(report, "longrepr", "") or "")
    lines = [line for line in text.splitlines() if line.startswith("E ")]
    return (lines[-1] if lines else text.strip().splitlines()[-1] if text.strip() else "error")[:300]


pytest_collectreport, pytest_runtest_logreport, _finish = _install()
pytest_sessionfinish = pytest.hookimpl(trylast=True)(_finish)
