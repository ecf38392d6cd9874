"""The pytest reporter's own guards, in a real sandboxed pytest run: the audit hook reports the
introspection the answer's own lines do (and only theirs: honest code that merely uses a library
which introspects is not tampering), and a record that pytest did not ask for is refused."""

from __future__ import annotations

import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from replay.execution.proof.check import PYTEST_PLUGIN, Answer, Channel, shortfall
from replay.execution.sandbox.bubblewrap import Sandbox

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is installed by .ci/setup")

MODULE = """\
import os, sys


def target():
{answer}
    return 1
"""
TEST = "from pkg import mod\n\n\ndef test_target():\n    assert mod.target() == 1\n"


def run(tmp_path: Path, answer: str, keys: list[str] | None = None):
    """pytest on a module whose ``target`` holds ``answer`` (the answer's lines), through the
    proof channel: the run's result (its key is added to ``keys``)."""
    body = textwrap.indent(textwrap.dedent(answer).strip("\n"), "    ")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "mod.py").write_text(MODULE.format(answer=body))
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_mod.py").write_text(TEST)
    place = Answer(str(tmp_path / "pkg" / "mod.py"), 5, 4 + body.count("\n") + 1)
    command = [sys.executable, "-m", "pytest", "-q", "-p", PYTEST_PLUGIN, "-p", "no:cacheprovider", "tests"]
    with Channel(answer=place) as channel:
        if keys is not None:
            keys.append(channel.token)
        result = Sandbox.create().run(command, tmp_path, 60, {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}, channel)
    assert result.proof is not None, result.output_tail
    return result


HONEST = {
    "logging": "import logging\nlogging.getLogger('x').warning('hi')",
    "namedtuple and dataclass": "import collections, dataclasses\ncollections.namedtuple('P', 'a b')(1, 2)\ndataclasses.make_dataclass('D', ['a'])(1)",
    "inspect.signature": "import inspect\ninspect.signature(target)",
    "a class attribute": "class C:\n    pass\nC.x = 1\ntype(C()).y = 2",
    "a child process killed": "import subprocess\np = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])\np.kill()\np.wait()",
    "a child process signalled directly": (
        "import signal, subprocess\np = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])\n"
        "os.kill(p.pid, signal.SIGTERM)\np.wait()"
    ),
    "a traceback formatted": "import traceback\ntry:\n    1 / 0\nexcept ZeroDivisionError:\n    traceback.format_exc()",
    "a thread": "import threading\nt = threading.Thread(target=len, args=([],))\nt.start()\nt.join()",
    "/proc/cpuinfo": "open('/proc/cpuinfo').read()",
}


@pytest.mark.parametrize("name", sorted(HONEST))
def test_honest_code_is_not_tampering(tmp_path: Path, name: str) -> None:
    result = run(tmp_path, HONEST[name])
    assert result.proof is not None and result.proof.tampered == (), result.proof
    assert shortfall(result.proof, ("tests/test_mod.py::test_target",)) is None, result.output_tail


SENSITIVE = {
    "gc walk": ("import gc\ngc.get_objects()", "gc.get_objects at mod.py:"),
    "frame access": ("sys._getframe(1).f_locals", "sys._getframe at mod.py:"),
    "inspect.stack": ("import inspect\ninspect.stack()", "sys._getframe at mod.py:"),
    "a code object": ("(lambda: 0).__code__", "object.__getattr__ __code__ at mod.py:"),
    "a function's code swapped": ("def f():\n    pass\nf.__code__ = (lambda: 1).__code__", "object.__setattr__"),
    "ctypes": ("import ctypes\nctypes.CDLL(None)", "ctypes.dlopen at mod.py:"),
    "own status": ("open('/proc/self/status').read()", "open /proc/self/status at mod.py:"),
    "descriptors listed": ("os.listdir('/proc/self/fd')", "os.listdir /proc/self/fd at mod.py:"),
    "the parent's memory": ("open(f'/proc/{os.getppid()}/mem', 'rb')", "/mem at mod.py:"),
    "a signal to itself": ("os.kill(os.getpid(), 0)", "os.kill"),
    "tracing": ("sys.settrace(None)", "sys.settrace at mod.py:"),
    "hidden in exec": ("exec('import gc; gc.get_objects()')", "gc.get_objects at mod.py:"),
}


@pytest.mark.parametrize("name", sorted(SENSITIVE))
def test_introspection_by_the_answer_is_tampering(tmp_path: Path, name: str) -> None:
    code, event = SENSITIVE[name]
    result = run(tmp_path, f"try:\n{textwrap.indent(code, '    ')}\nexcept OSError:\n    pass")
    gap = shortfall(result.proof, ("tests/test_mod.py::test_target",))
    assert gap is not None and gap.kind == "tampered" and event in gap.detail, (gap, result.output_tail)


def test_a_report_the_answer_writes_itself_is_refused(tmp_path: Path) -> None:
    """The reporter's hooks are reachable as module attributes; calling one is not pytest
    reporting, so it writes a tampering record instead of a test result."""
    code = """
class Report:
    nodeid, when, outcome = 'tests/test_mod.py::test_other', 'call', 'passed'
reporter = sys.modules['replay.execution.inside.pytest_proof']
reporter.pytest_runtest_logreport(Report())
"""
    result = run(tmp_path, code)
    assert result.proof is not None and "tests/test_mod.py::test_other" not in result.proof.outcomes
    gap = shortfall(result.proof, ("tests/test_mod.py::test_target",))
    assert gap is not None and gap.kind == "tampered" and "reporter-called-from-outside-pytest pytest_runtest_logreport" in gap.detail


def test_the_key_is_nowhere_the_tests_can_read(tmp_path: Path) -> None:
    """Neither the environment, the arguments, the descriptors nor the reporter module's
    attributes hold the run's key."""
    code = """
import json
reporter = sys.modules['replay.execution.inside.pytest_proof']
seen = [repr(dict(os.environ)), repr(sys.argv), repr(vars(reporter))]
for fd in range(64):
    try:
        seen.append(os.pread(fd, 1 << 20, 0).decode('latin-1'))
    except OSError:
        pass
with open('seen.json', 'w') as f:
    json.dump(seen, f)
"""
    keys: list[str] = []
    result = run(tmp_path, code, keys)
    seen = (tmp_path / "seen.json").read_text()
    assert len(seen) > 1000 and keys[0] not in seen  # what it read: the environment, argv, the reporter, the descriptors
    assert result.proof is not None and result.proof.tampered == ()


def test_rebinding_the_reporters_names_switches_no_guard_off(tmp_path: Path) -> None:
    """The guards hold everything they use in closures: rebinding the reporter module's names, or
    the builtins through them, changes nothing."""
    code = """
import builtins
reporter = sys.modules['replay.execution.inside.pytest_proof']
for name in list(vars(reporter)) + dir(builtins):
    if not name.startswith('__') and not name.startswith('pytest_'):
        try:
            setattr(reporter, name, lambda *a, **k: False)
        except Exception:
            pass
import gc
gc.get_objects()
"""
    gap = shortfall(run(tmp_path, code).proof, ("tests/test_mod.py::test_target",))
    assert gap is not None and gap.kind == "tampered" and "gc.get_objects at mod.py:" in gap.detail


def test_a_framework_module_swapped_in_sys_modules_hides_nothing(tmp_path: Path) -> None:
    code = """
import types
import _pytest.reports as reports
shown = types.ModuleType('_pytest.reports')
shown.__dict__.update(vars(reports))
made = reports.TestReport.from_item_and_call.__func__
reports.TestReport.from_item_and_call = classmethod(lambda cls, item, call: made(cls, item, call))
sys.modules['_pytest.reports'] = shown
"""
    gap = shortfall(run(tmp_path, code).proof, ("tests/test_mod.py::test_target",))
    assert gap is not None and gap.kind == "tampered" and "TestReport.from_item_and_call" in gap.detail


def test_the_writer_reached_through_a_hooks_closure_writes_only_tampering(tmp_path: Path) -> None:
    """Function internals are not audited; the writer behind the hooks still signs a record only
    for the reporter's own code, and anyone else's call becomes a tampering event."""
    code = """
reporter = sys.modules['replay.execution.inside.pytest_proof']
cells = [c.cell_contents for c in reporter.pytest_runtest_logreport.__closure__]
write = next(c for c in cells if callable(c) and getattr(c, '__name__', '') == 'write')
for when in ('setup', 'call', 'teardown'):
    write({'event': 'test', 'id': 'tests/test_mod.py::test_other', 'when': when, 'outcome': 'passed'})
"""
    result = run(tmp_path, code)
    assert result.proof is not None and "tests/test_mod.py::test_other" not in result.proof.outcomes
    gap = shortfall(result.proof, ("tests/test_mod.py::test_target",))
    assert gap is not None and gap.kind == "tampered" and "reporter-called-from-outside-pytest target" in gap.detail
