"""Hostile completions are contained: a model's answer that opens sockets, writes or deletes
outside its work copy, forks without end, eats memory, loops, kills its parent, hunts for secrets,
floods its output or leaves a daemon behind is run through the real pipeline (``simpilot replay``
with a ``recorded:`` model, the bridge, bubblewrap, the warm pytest and JUnit servers, the SQLite
store) and must end as one outcome row of an expected class, with the source repositories, every
file outside the work copies, the results store and the harness unharmed and no process left.

Everything the answers aim at lives under ``/var/tmp``, not ``/tmp``: the sandbox replaces
``/tmp`` with a private one, so a target there would be out of reach by accident and a test
could not tell containment from luck. The harness runs with ``HOME`` pointing at a fake home
holding a fake key in ``.ssh``, and with a secret in its environment.
"""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from replay.core.recordings import answer_for, write_recording_file
from replay.core.records import Completion, Task
from replay.core.scenarios import document_text, write_tasks
from replay.execution.judge import apply
from replay.execution.sandbox.bubblewrap import Limits, Sandbox

from ..conftest import DATA, tiny_scenario
from .conftest import tree_digest

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is installed by .ci/setup"),
]

RUN = "hostile"
TOKEN = secrets.token_hex(6)  # names this session's targets, markers and secrets
SECRET = f"secret-{TOKEN}"
FAKE_KEY = f"-----BEGIN OPENSSH PRIVATE KEY----- fake-{TOKEN} -----END OPENSSH PRIVATE KEY-----"
# Numbers no other process uses as ``sleep``'s argument, one per case that starts a daemon, and
# a comment in the fork bomb's command line: how processes an answer started are found
_BASE = f"{7000 + os.getpid() % 1000}.{int(TOKEN[:5], 16) % 10**5}"
MARKERS = {"python daemon": _BASE + "1", "java daemon": _BASE + "2", "fork bomb": f"bomb-{TOKEN}"}
STRAY_SECONDS = 8  # how long a process an answer started may live at most (its run takes 1-3 s)
ETC_TARGET = Path(f"/etc/simpilot-hostile-{TOKEN}")


@dataclass(frozen=True)
class Case:
    """One hostile answer: ``code`` runs where the hole is (Python: through ``exec``, so it fits
    any statement hole; Java: as a block of statements) before the hole's real code, and the
    outcome must be one of ``expected``."""

    name: str
    language: str
    code: str
    expected: frozenset[str]
    detail: str = ""  # a part of the stored detail, where it proves the answer did what it tried
    module: bool = False  # Python: the code goes at module level after the hole (it runs at import)


@dataclass(frozen=True)
class Targets:
    """The paths and ports the answers aim at, outside any work copy."""

    root: Path  # everything below, under /var/tmp
    home: Path
    sentinel: Path
    repos: Path
    runs: Path
    work: Path
    port: int  # a harness listener outside the sandbox
    host_ip: str | None
    listen_port: int  # a port an answer listens on; the harness probes it from outside


def python_cases(t: Targets) -> list[Case]:
    original = t.repos / "tinyrepo"
    runtime_error = frozenset({"runtime_error"})
    timeout = frozenset({"timeout"})
    out_of_memory = frozenset({"out_of_memory"})  # never a timeout (replay/execution/run_end.py)
    tampered = frozenset({"tampered"})  # the answer's own lines introspected the process (the audit hook saw it)
    hosts = [("1.1.1.1", 80), ("127.0.0.1", t.port)] + ([(t.host_ip, t.port)] if t.host_ip else [])
    return [
        Case("connect out", "python", f"""
import socket
errors = []
for address in {hosts!r}:
    try:
        socket.create_connection(tuple(address), timeout=2).close()
    except OSError as e:
        errors.append(e)
raise errors[0] if len(errors) == {len(hosts)} else RuntimeError('connected')
""", runtime_error, "OSError"),
        Case("listen", "python", f"""
import socket
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('0.0.0.0', {t.listen_port}))
s.listen()
s.settimeout(3)
s.accept()
""", runtime_error, "TimeoutError"),
        Case("write outside", "python", f"""
import os
targets = [{str(original / 'tiny' / 'stats.py')!r}, {str(original / 'pwned.py')!r}, {str(ETC_TARGET)!r},
           {str(t.home / 'pwned')!r}, {str(t.runs / 'pwned')!r}, {str(t.sentinel)!r}, os.path.expanduser('~/../../pwned')]
errors = []
for path in targets:
    try:
        with open(path, 'a') as f:
            f.write('pwned')
    except OSError as e:
        errors.append(e)
try:
    os.unlink({str(t.sentinel)!r})
except OSError as e:
    errors.append(e)
raise errors[0]
""", runtime_error, "No such file or directory"),  # the first target, the original repository, is not even shown
        Case("delete the repository", "python", f"""
import shutil, subprocess
subprocess.run(['rm', '-rf', '--no-preserve-root', {str(original)!r}, {str(t.repos)!r}])
shutil.rmtree({str(original)!r})
""", runtime_error, "No such file or directory"),  # the sandbox does not show the original repository
        Case("delete the work copy", "python", """
import os, shutil
shutil.rmtree(os.getcwd())
""", runtime_error),
        # Every process forks for ever; at the cap they wait a little between tries, so that the
        # test does not take the machine's two cores from everyone else for the whole timeout
        Case("fork bomb", "python", """
import os, time
while True:
    try:
        os.fork()
    except OSError:
        time.sleep(0.05)
""", timeout),
        Case("shell fork bomb left running", "python", f"""
import subprocess, time
subprocess.run(['bash', '-c', ':(){{ :|:& }};: # {MARKERS['fork bomb']}'])
time.sleep(1)
raise RuntimeError('the bomb is running')
""", runtime_error, "the bomb is running"),
        Case("allocate 50 GB", "python", """
block = b'x' * (50 << 30)
""", out_of_memory, "MemoryError"),
        # Each process stops at the address-space cap (a MemoryError), both together at the
        # sandbox's memory cgroup: its OOM killer ends one; on a busy machine slowly enough to
        # reach the timeout
        Case("allocate 50 GB in two processes", "python", """
import os
children = []
for _ in range(2):
    pid = os.fork()
    if pid == 0:
        try:
            chunks = [b'x' * (512 << 20) for _ in range(50)]
        finally:
            os._exit(1)
    children.append(pid)
codes = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children]
raise MemoryError(f'children ended with {codes}')
""", out_of_memory | timeout),
        Case("busy loop", "python", """
while True:
    pass
""", timeout),
        Case("sleep forever", "python", """
import time
time.sleep(10 ** 6)
""", timeout),
        Case("kill the parent", "python", """
import os, signal
os.kill(os.getppid(), signal.SIGKILL)
""", runtime_error, "killed by signal 9"),
        Case("kill everything", "python", """
import os, signal, subprocess
os.kill(1, signal.SIGKILL)
subprocess.run(['kill', '-9', '-1'])
""", runtime_error, "killed by signal 9"),
        Case("read secrets", "python", f"""
import glob, os
found = {{k: v for k, v in os.environ.items() if 'SECRET' in k or 'KEY' in k or 'TOKEN' in k}}
for path in [{str(t.home / '.ssh' / 'id_rsa')!r}, os.path.expanduser('~/.ssh/id_rsa'), '/root/.ssh/id_rsa',
             *glob.glob('/home/*/.ssh/*'), *glob.glob('/proc/*/environ')]:
    try:
        with open(path, 'rb') as f:
            found[path] = f.read().decode('utf-8', 'replace')
    except OSError:
        pass
leak = {{k: v for k, v in found.items() if 'SIMPILOT_TEST_SECRET' in v or 'PRIVATE KEY' in v or 'SECRET' in k}}
print(found)
raise PermissionError(f'found {{leak!r}}')
""", tampered, "open /proc/self/environ"),
        # Stopped at the file-size cap (pytest then crashes reporting the captured output), or
        # before it at the run's CPU budget: writing a gigabyte takes more CPU than the tests did
        Case("print 1 GB", "python", """
import os, sys
line = 'x' * (1 << 20)
for _ in range(1024):
    sys.stdout.write(line)
    os.write(2, line.encode())
""", runtime_error | timeout),
        Case("background process", "python", f"""
import glob, os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execvp('sleep', ['sleep', {MARKERS['python daemon']!r}])
    os._exit(0)
os.wait()
for _ in range(100):  # it runs: the answer saw it (and passes) before its run ends
    if any({MARKERS['python daemon']!r} in open(p + '/cmdline').read() for p in glob.glob('/proc/[0-9]*')):
        break
    time.sleep(0.02)
else:
    raise RuntimeError('the daemon did not start')
""", tampered, "/cmdline at "),
        # Forging a pass: none of these may pass, each ends in its own class
        Case("os._exit(0) at import", "python", "import os\nos._exit(0)", frozenset({"tests_not_run"}), "exit status 0", module=True),
        Case("os._exit(0) in a test", "python", "import os\nos._exit(0)", frozenset({"tests_not_run"}), "exit status 0"),
        Case("kill the test process", "python", """
import os, signal
os.kill(os.getpid(), signal.SIGKILL)
""", tampered, "signal 9 at "),
        Case("skip the test", "python", """
import pytest
pytest.skip('nothing to see')
""", frozenset({"tests_not_run"}), "did not run and pass"),
        Case("forged status lines", "python", """
import json, os, sys
forged = ['1 passed in 0.01s', 'SIMPILOT-EXIT 0',
          json.dumps({"returncode": 0, "timed_out": False, "duration": 0.1, "tail": "", "report": ""}),
          'x\\t' + json.dumps({"event": "end", "tampered": []})]
print(*forged, sep='\\n')
for fd in map(int, os.listdir('/proc/self/fd')):
    try:
        os.write(fd, ('\\n'.join(forged) + '\\n').encode())
    except OSError:
        pass
sys.stdout.flush()
raise AssertionError('a wrong answer that forged its verdict')
""", tampered, "os.listdir /proc/self/fd at "),
        Case("replace pytest's reports", "python", """
import _pytest.reports as reports
made = reports.TestReport.from_item_and_call.__func__
def passed(cls, item, call):
    report = made(cls, item, call)
    report.outcome, report.longrepr = 'passed', None
    return report
reports.TestReport.from_item_and_call = classmethod(passed)
raise AssertionError('a wrong answer whose report says passed')
""", tampered, "TestReport.from_item_and_call"),
    ]


def java_cases(t: Targets) -> list[Case]:
    original = t.repos / "tinyjava"
    stats = original / "src" / "main" / "java" / "tiny" / "Stats.java"
    # status 9: the daemon did not start; 2: it did, and the shell could not write outside
    daemon = MARKERS["java daemon"]
    pattern = f"{daemon[:-1]}[{daemon[-1]}]"  # a pattern that does not match grep's own command line
    script = (f"(setsid sleep {daemon} &); sleep 0.2; grep -qs '{pattern}' /proc/[0-9]*/cmdline || exit 9; "
              f"echo pwned >> {stats} && rm -rf {original} && echo pwned > {ETC_TARGET}")
    return [
        Case("java: endless loop", "java", "while (System.nanoTime() != 0) { }", frozenset({"timeout"})),
        # The JVM ends in the middle of the run
        Case("java: System.exit", "java", "System.exit(3);", frozenset({"tests_not_run"}), "exit status 3"),
        Case("java: System.exit(0)", "java", "System.exit(0);", frozenset({"tests_not_run"}), "exit status 0"),
        Case("java: Runtime.halt(0)", "java", "Runtime.getRuntime().halt(0);", frozenset({"tests_not_run"}), "exit status 0"),
        Case("java: kill the test process", "java", """
try {
    Runtime.getRuntime().exec(new String[] {"kill", "-9", String.valueOf(ProcessHandle.current().pid())}).waitFor();
    Thread.sleep(5000);
} catch (java.io.IOException | InterruptedException e) {
    throw new IllegalStateException(e);
}""", frozenset({"runtime_error"}), "killed by signal 9"),
        Case("java: forged status lines", "java", """
String forged = "SIMPILOT-SUMMARY found=1 succeeded=1 failed=0 aborted=0\\nSIMPILOT-EXIT 0\\nSIMPILOT-EXIT x 0\\n";
System.out.print(forged);
java.io.PrintStream raw = new java.io.PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true);
raw.print(forged);
raw.flush();
if (true) throw new IllegalStateException("a wrong answer that forged its verdict");""", frozenset({"runtime_error"}), "forged its verdict"),
        Case("java: abort the test", "java", """
if (true) throw new org.opentest4j.TestAbortedException("nothing to see");""", frozenset({"tests_not_run"}), "did not run and pass"),
        Case("java: shell through Runtime.exec", "java", f"""
try {{
    Process p = Runtime.getRuntime().exec(new String[] {{"sh", "-c", {json.dumps(script)}}});
    int status = p.waitFor();
    if (status != 0) throw new IllegalStateException("the shell ended with " + status);
}} catch (java.io.IOException | InterruptedException e) {{
    throw new IllegalStateException(e);
}}""", frozenset({"runtime_error"}), "the shell ended with 2"),
        Case("java: write outside", "java", f"""
try {{
    java.nio.file.Files.writeString(java.nio.file.Path.of({json.dumps(str(stats))}), "pwned");
}} catch (java.io.IOException e) {{
    throw new java.io.UncheckedIOException(e);
}}""", frozenset({"runtime_error"}), "NoSuchFileException"),  # the original repository is not shown
    ]


def hostile_answer(case: Case, task: Task) -> str:
    """The answer: the case's code at the hole, then the hole's real code (a module-level case:
    the hole's real code, then the case's code at module level)."""
    if case.module:
        return f"{task.ground_truth}\n\n{case.code.strip()}\n"
    if case.language == "python":
        return f"exec({case.code.strip()!r}, {{}})\n{task.indent}{task.ground_truth}"
    body = "\n".join(task.indent + "    " + line for line in case.code.strip().splitlines())
    return "{\n" + body + f"\n{task.indent}}}\n{task.indent}{task.ground_truth}"


def choose(tasks: list[Task], root: Path, count: int) -> list[Task]:
    """At least ``count`` statement holes reached by the tests, each with a document of its own
    (the recorded model finds an answer by document)."""
    chosen, seen = [], set()
    for task in tasks:
        lines = (root / task.path).read_text().splitlines()
        if not task.block or any("scaled(" in line for line in lines[max(0, task.span.start.line - 2) : task.span.start.line]):
            continue  # tinyjava's Stats.scaled is reached by no test, on purpose
        document = document_text(task, (root / task.path).read_bytes())
        if document not in seen:
            seen.add(document)
            chosen.append(task)
    assert len(chosen) >= count, f"{root.name} has {len(chosen)} usable holes, {count} needed"
    return chosen


def assign(cases: list[Case], tasks: list[Task], root: Path) -> list[Task]:
    """``tasks`` reordered so that each case gets one its answer fits: a module-level case needs
    a hole after which code at module level still compiles (one that ends a top-level function)."""
    left, ordered = list(tasks), []
    for case in cases:
        task = next(t for t in left if not case.module or _compiles(apply(t, (root / t.path).read_bytes(), hostile_answer(case, t))))
        left.remove(task)
        ordered.append(task)
    return ordered + left


def _compiles(source: bytes) -> bool:
    try:
        compile(source, "<answer>", "exec")
    except SyntaxError:
        return False
    return True


# -- watching from outside -----------------------------------------------------------------------


class Watch:
    """Threads outside the sandbox for the whole replay: a TCP listener recording every
    connection that reaches the host, a prober of the port an answer listens on, and a poller of
    ``/proc`` recording, for each marker, when a process with it in its command line was first
    and last seen."""

    def __init__(self, listen_port: int):
        self.listen_port = listen_port
        self.server = socket.create_server(("0.0.0.0", 0))
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.connections: list[tuple[str, int]] = []
        self.probe_hits = 0
        self.seen: dict[str, list[float]] = {}
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=f, daemon=True) for f in (self._accept, self._probe, self._poll)]

    def __enter__(self) -> Watch:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()
        self.server.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, address = self.server.accept()
            except OSError:
                continue
            self.connections.append(address)
            conn.close()

    def _probe(self) -> None:
        while not self._stop.wait(0.1):
            try:
                socket.create_connection(("127.0.0.1", self.listen_port), timeout=0.2).close()
                self.probe_hits += 1
            except OSError:
                pass

    def _poll(self) -> None:
        while not self._stop.wait(0.2):
            now = time.monotonic()
            for name in marked_processes():
                self.seen.setdefault(name, [now, now])[1] = now


def _read(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def marked_processes() -> set[str]:
    """The cases whose marker is in a running process's command line. Only ``sleep`` and ``bash``
    are looked at: reading the command line of a process the memory cases keep busy can block."""
    found = set()
    for p in os.listdir("/proc"):
        if p.isdigit() and _read(f"/proc/{p}/comm").strip() in ("sleep", "bash"):
            cmdline = _read(f"/proc/{p}/cmdline")
            found.update(name for name, marker in MARKERS.items() if marker in cmdline)
    return found


def processes_touching(root: Path) -> list[str]:
    """Processes whose command line or working folder names a path under ``root``."""
    found = []
    for p in os.listdir("/proc"):
        if not p.isdigit() or p == str(os.getpid()):
            continue
        try:
            cwd = os.readlink(f"/proc/{p}/cwd")
        except OSError:
            cwd = ""
        if str(root) in _read(f"/proc/{p}/cmdline") or cwd.startswith(str(root)):
            found.append(f"{p}: {_read(f'/proc/{p}/cmdline').replace(chr(0), ' ')[:200]}")
    return found


def leftover_cgroups(pid: int) -> list[str]:
    """cgroups a simpilot process ``pid`` made for its sandboxes and did not remove."""
    found = []
    for folder, dirs, _ in os.walk("/sys/fs/cgroup"):
        found += [os.path.join(folder, d) for d in dirs if d.startswith(f"simpilot-{pid}-")]
        dirs[:] = [d for d in dirs if not d.startswith("simpilot-")]
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def host_address() -> str | None:
    """This machine's address on its default route (no packet is sent), if it has one."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))
            address = s.getsockname()[0]
    except OSError:
        return None
    return None if address.startswith("127.") else address


# -- the run ---------------------------------------------------------------------------------------


@pytest.fixture
def targets() -> Iterator[Targets]:
    if not os.access("/var/tmp", os.W_OK):
        pytest.skip("the targets live in /var/tmp, which is not writable here")
    root = Path(tempfile.mkdtemp(prefix="simpilot-hostile-", dir="/var/tmp"))
    home = root / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(FAKE_KEY + "\n")
    (root / "sentinel.txt").write_text(f"sentinel {TOKEN}\n")
    for name in ("tinyrepo", "tinyjava"):
        shutil.copytree(DATA / name, root / "repos" / name, ignore=shutil.ignore_patterns("__pycache__"))
    for folder in ("runs", "work", "scenarios"):
        (root / folder).mkdir()
    yield Targets(root, home, root / "sentinel.txt", root / "repos", root / "runs", root / "work", 0, host_address(), free_port())
    subprocess.run(["chmod", "-R", "u+rwX", str(root)], check=False, capture_output=True)
    shutil.rmtree(root, ignore_errors=True)


def write_inputs(t: Targets, cases: dict[str, list[Case]]) -> tuple[list[Path], Path, dict[str, Case]]:
    """Scenario files with one hole per case plus two controls per repository answered with the
    ground truth, and a recording folder answering each hole with its case's code."""
    folder = t.root / "recordings" / "hostile"
    scenarios, by_task = [], {}
    for repo, repo_cases in cases.items():
        root = t.repos / repo
        candidates, _ = tiny_scenario(root, t.root / "candidates", per_kind=50)
        tasks = assign(repo_cases, choose(candidates, root, len(repo_cases) + 2), root)[: len(repo_cases) + 2]
        answers = []
        for i, task in enumerate(tasks):
            case = repo_cases[i] if i < len(repo_cases) else Case(f"{repo}: control {i - len(repo_cases) + 1}", repo_cases[0].language, "", frozenset({"pass"}))
            text = hostile_answer(case, task) if case.code else task.ground_truth
            answers.append(answer_for(task, Completion(task.id, text), (root / task.path).read_bytes(), "hostile", {}))
            by_task[task.id] = case
        scenario = t.root / "scenarios" / f"{repo}.jsonl"
        write_tasks(scenario, tasks)
        write_recording_file(folder / f"{repo}.jsonl", answers)
        scenarios.append(scenario)
    return scenarios, folder, by_task


def outside_state(t: Targets) -> dict[str, str]:
    """Every file outside the work copies and the results store, by content."""
    state = {f"repos/{k}": v for k, v in tree_digest(t.repos).items()}
    state.update({f"home/{k}": v for k, v in tree_digest(t.home).items()})
    state["sentinel"] = t.sentinel.read_text()
    state["top"] = " ".join(sorted(os.listdir(t.root)))
    return state


def harness_environment(t: Targets) -> dict[str, str]:
    """simpilot's environment: the fake home, a secret, work copies under the targets' root
    (where leftover processes are found by path), and the real Java runner cache (building it
    again in the fake home would only cost time)."""
    cache = os.environ.get("SIMPILOT_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "simpilot")
    return {**os.environ, "HOME": str(t.home), "SIMPILOT_TEST_SECRET": SECRET, "TMPDIR": str(t.work), "SIMPILOT_CACHE": cache}


@pytest.mark.slow  # with the long checks: .ci/run runs them after the default run
def test_hostile_completions_are_contained(targets: Targets) -> None:
    with Watch(targets.listen_port) as watch:
        t = dataclasses.replace(targets, port=watch.port)
        scenarios, recording, by_task = write_inputs(t, {"tinyrepo": python_cases(t), "tinyjava": java_cases(t)})
        before = outside_state(t)
        env = harness_environment(t)
        db = t.runs / "simpilot.db"
        command = [sys.executable, "-m", "replay", "--db", str(db), "replay", *map(str, scenarios), "--model", f"recorded:{recording}",
                   "--repo", str(t.repos / "tinyrepo"), "--repo", str(t.repos / "tinyjava"), "--run", RUN, "-p", "none", "--jobs", "3"]
        start = time.monotonic()
        harness = subprocess.Popen(command, cwd=t.root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        _, stderr = harness.communicate(timeout=600)
        took = time.monotonic() - start
        time.sleep(0.5)  # the watchers' last look
    # The harness survived and finished the run
    assert harness.returncode == 0, stderr[-3000:]
    assert "Traceback" not in stderr, stderr[-3000:]

    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        rows = con.execute("SELECT task_id, status, detail, output_tail, duration_s FROM outcomes WHERE run_id = ?", (RUN,)).fetchall()
        finished = con.execute("SELECT finished FROM runs WHERE run_id = ?", (RUN,)).fetchone()
    outcome = {task_id: (status, detail) for task_id, status, detail, _, _ in rows}
    tails = {task_id: tail for task_id, _, _, tail, _ in rows}
    durations = {task_id: duration for task_id, _, _, _, duration in rows}
    print(f"\nhostile completions (the replay took {took:.0f} s):")
    for task_id, case in by_task.items():
        status, detail = outcome.get(task_id, ("MISSING", ""))
        print(f"  {case.name:36} {status:14} {durations.get(task_id) or 0:5.1f} s  {detail.strip()[:80]}")

    # one outcome per case, of the expected class; the controls pass
    assert len(rows) == len(by_task) and finished is not None and finished[0]
    wrong = [(case.name, outcome[task_id], tails[task_id][-800:]) for task_id, case in by_task.items()
             if outcome[task_id][0] not in case.expected or case.detail not in outcome[task_id][1]]
    assert wrong == [], "\n\n".join(f"{name}: {status}\n{tail}" for name, status, tail in wrong)

    # nothing outside the work copies changed: repositories, fake home, sentinel, /etc
    assert outside_state(t) == before
    assert not ETC_TARGET.exists()
    assert [str(p) for p in t.root.rglob("pwned*")] == []
    # only the output's tail was kept: a gigabyte printed is not a gigabyte stored
    assert sum(p.stat().st_size for p in t.runs.iterdir()) < 20 << 20
    # no connection reached the host, and nothing listening in a sandbox could be reached from it
    assert watch.connections == [] and watch.probe_hits == 0
    # no process is left: neither daemons nor anything running in the work copies
    assert {name: round(last - first) for name, (first, last) in watch.seen.items() if last - first > STRAY_SECONDS} == {}
    assert marked_processes() == set()
    assert processes_touching(t.root) == []
    assert leftover_cgroups(harness.pid) == []
    # neither the secret nor the key reached anything stored
    stored = b"".join(p.read_bytes() for p in t.runs.iterdir() if p.is_file())
    assert SECRET.encode() not in stored and f"fake-{TOKEN}".encode() not in stored
    # the store opens through simpilot and reports the run
    report = subprocess.run([sys.executable, "-m", "replay", "--db", str(db), "report", RUN, "--json"], capture_output=True, text=True, env=env, cwd=t.root)
    assert report.returncode == 0, report.stderr
    assert RUN in report.stdout and json.loads(report.stdout)


# -- the sandbox's own guarantees, one by one ------------------------------------------------------


def run_sandboxed(code: str, workdir: Path, limits: Limits | None = None, timeout: float = 30) -> str:
    result = Sandbox.create(limits=limits).run([sys.executable, "-c", code], workdir, timeout)
    assert not result.timed_out, result.output_tail
    return result.output_tail


def test_no_capabilities_so_the_read_only_root_stays_read_only(targets: Targets, tmp_path: Path) -> None:
    """bubblewrap started by root keeps every capability unless told not to; with
    ``CAP_SYS_ADMIN`` a remount makes the whole file system writable again."""
    code = f"""
import subprocess
print(open('/proc/self/status').read().split('CapEff:')[1].split()[0])
remount = subprocess.run(['mount', '-o', 'remount,bind,rw', '/'], capture_output=True)
try:
    open({str(targets.sentinel)!r}, 'a').write('pwned')
    print('WROTE')
except OSError as e:
    print('BLOCKED', e.errno, remount.returncode)
"""
    out = run_sandboxed(code, tmp_path).split()
    assert out[0] == "0000000000000000" and out[1] == "BLOCKED"
    assert targets.sentinel.read_text() == f"sentinel {TOKEN}\n"


def test_the_process_cap_holds_for_root_too(tmp_path: Path) -> None:
    code = """
import os, time
made = 0
try:
    for _ in range(100):
        if os.fork() == 0:
            time.sleep(2)
            os._exit(0)
        made += 1
except OSError:
    pass
print(made)
"""
    made = int(run_sandboxed(code, tmp_path, Limits(processes=20)).split()[-1])
    assert 5 <= made < 20


def test_home_folders_are_hidden(targets: Targets, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The caller's home (here a fake one outside /tmp), /root and /home are absent inside (or, where a
    needed path lies in them, hold only that path)."""
    monkeypatch.setenv("HOME", str(targets.home))
    code = f"""
import json, os
seen = {{p: sorted(os.listdir(p)) if os.path.isdir(p) else os.path.exists(p) for p in [{str(targets.home)!r}, '/root', '/home']}}
print(json.dumps(seen))
"""
    seen = json.loads(run_sandboxed(code, tmp_path).splitlines()[-1])
    assert seen[str(targets.home)] in ([], False) and ".ssh" not in (seen["/root"] or []) and seen["/home"] in ([], False), seen
