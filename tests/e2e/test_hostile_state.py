"""Answers that attack the harness itself, replayed through the real pipeline (``simpilot replay``
with a ``recorded:`` model, the bridge, bubblewrap, one warm work copy and warm pytest or JUnit
server per repository, ``--jobs 1``, the SQLite store):

* a link planted in the work copy must not steer the host's next write out of the sandbox;
* a proof forged from what the test process can read must not count;
* state one answer leaves behind (byte-code, pytest's rewritten test modules, compiled classes,
  the server's scratch files) must not make the next task's wrong answer pass.

Each attack is answered for one hole and followed, in the same run and on the same work copy, by
wrong answers to other holes of the same file, each of which fails on a clean copy (checked by a
first run). The attack's own outcome must be ``tampered`` (or ``tests_not_run``) with its event,
every later wrong answer must still fail, and the host files the links pointed at are untouched.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from replay.core.recordings import answer_for, write_recording_file
from replay.core.records import Completion, Task
from replay.core.scenarios import write_tasks

from ..conftest import DATA, tiny_scenario
from .test_hostile import choose

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.slow,  # half a minute of replays: .ci/run runs it with the other long checks
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is installed by .ci/setup"),
]

VICTIMS = 2  # wrong answers judged after each attack
HOLES = 10  # holes tried with a wrong answer on a clean copy (enough that more than VICTIMS fail)
WRONG = {"python": "pass", "java": ";"}  # a statement that compiles in a statement hole and does nothing


@dataclass(frozen=True)
class Attack:
    name: str
    language: str
    code: str  # Python: run through exec at the hole; Java: a block of statements at the hole
    events: tuple[str, ...]  # one of these must be in the attack's stored detail
    statuses: frozenset[str] = frozenset({"tampered"})
    with_truth: bool = True  # the hole's real code follows the attack, so its own tests would pass


@pytest.fixture
def place(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Host files the links point at, outside /tmp (the sandbox has its own /tmp)."""
    root = Path(__import__("tempfile").mkdtemp(prefix="simpilot-hostile-state-", dir="/var/tmp"))
    (root / "victim.pth").write_text("# a .pth file: any line a host write put here would run at Python's start\n")
    (root / "package").mkdir()
    (root / "package" / "stats.py").write_text("# a host file\n")
    (root / "package" / "Stats.java").write_text("// a host file\n")
    yield root
    shutil.rmtree(root, ignore_errors=True)


def answer(attack: Attack, task: Task) -> str:
    if attack.language == "python":
        tail = f"\n{task.indent}{task.ground_truth}" if attack.with_truth else "\n" + task.indent + "pass"
        return f"exec({attack.code.strip()!r}, {{}})" + tail
    body = "\n".join(task.indent + "    " + line for line in attack.code.strip().splitlines())
    tail = f"\n{task.indent}{task.ground_truth}" if attack.with_truth else ""
    return "{\n" + body + f"\n{task.indent}}}" + tail


def replay(root: Path, repo: Path, tasks: list[Task], texts: list[str], run: str, db: Path) -> dict[str, tuple[int, str, str]]:
    """One ``simpilot replay`` of ``tasks`` answered with ``texts``: ``{task id: (order, status,
    detail)}``, ``order`` being when the outcome was stored."""
    scenario = root / f"{run}.jsonl"
    write_tasks(scenario, tasks)
    recording = root / f"recording-{run}"
    original = {t.path: (repo / t.path).read_bytes() for t in tasks}
    write_recording_file(recording / "answers.jsonl", [answer_for(t, Completion(t.id, x), original[t.path], "hostile", {}) for t, x in zip(tasks, texts, strict=True)])
    command = [sys.executable, "-m", "replay", "--db", str(db), "replay", str(scenario), "--model", f"recorded:{recording}",
               "--repo", str(repo), "--run", run, "-p", "none", "--jobs", "1"]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        rows = con.execute("SELECT rowid, task_id, status, detail FROM outcomes WHERE run_id = ? ORDER BY rowid", (run,)).fetchall()
    return {task_id: (rowid, status, detail) for rowid, task_id, status, detail in rows}


def failing_holes(root: Path, repo: Path, path: str, db: Path) -> list[Task]:
    """Statement holes of ``path`` whose wrong answer fails on a clean copy, their tests having run."""
    candidates, _ = tiny_scenario(repo, root / "candidates", per_kind=50)
    tasks = [t for t in choose(candidates, repo, 1) if t.path == path][:HOLES]
    language = tasks[0].language
    found = replay(root, repo, tasks, [WRONG[language]] * len(tasks), f"baseline-{language}", db)
    kept = [t for t in tasks if found[t.id][1] in ("fail", "runtime_error")]
    assert len(kept) > VICTIMS, f"{path}: {len(kept)} holes fail with a wrong answer"
    return kept


def attack_then_victims(root: Path, repo: Path, holes: list[Task], attacks: list[Attack], db: Path) -> list[str]:
    """Each attack on one hole, then wrong answers to ``VICTIMS`` other holes, one run each;
    what went wrong, in words (empty: every check held)."""
    problems = []
    for i, attack in enumerate(attacks):
        first = holes[i % len(holes)]
        victims = [t for t in holes if t is not first][:VICTIMS]
        texts = [answer(attack, first)] + [WRONG[attack.language]] * len(victims)
        run = re.sub(r"\W+", "-", attack.name)
        found = replay(root, repo, [first, *victims], texts, run, db)
        order, status, detail = found[first.id]
        print(f"  {attack.name:40} {status:14} {detail[:110]}")
        if status not in attack.statuses or not any(event in detail for event in attack.events):
            problems.append(f"{attack.name}: the attack ended {status}: {detail}")
        later = [found[v.id] for v in victims if found[v.id][0] > order]
        if not later:
            problems.append(f"{attack.name}: no wrong answer was judged after the attack")
        passed = [v.id for v in victims if found[v.id][1] == "pass"]
        if passed:
            problems.append(f"{attack.name}: wrong answers passed after it: {passed}")
    return problems


def python_attacks(place: Path) -> list[Attack]:
    stats = "tiny/stats.py"
    original = (DATA / "tinyrepo" / stats).read_text()
    test_file = "tests/test_stats.py"
    names = [n.name for n in ast.parse((DATA / "tinyrepo" / test_file).read_text()).body if isinstance(n, ast.FunctionDef)]
    passing_tests = "".join(f"def {name}(*args, **kwargs):\n    pass\n" for name in names)
    forge = """
import json, os, re
found = set()
for fd in range(64):
    try:
        data = os.pread(fd, 1 << 16, 0)
    except OSError:
        continue
    found.update(re.findall(rb'[0-9a-f]{32,64}', data))
lines = []
for token in found or {b'0' * 32}:
    t = token.decode()
    for seq, record in enumerate([{"event": "start"}] + [{"event": "test", "id": "tests/test_stats.py::" + n, "when": w, "outcome": "passed"}
                                  for n in NAMES for w in ("setup", "call", "teardown")] + [{"event": "end", "tampered": []}]):
        body = json.dumps({**record, "seq": seq})
        lines.append(t + "\\t" + body)
        lines.append(t[:64].ljust(64, "0") + "\\t" + body)
payload = ("\\n".join(lines) + "\\n").encode()
for fd in range(64):
    try:
        os.write(fd, payload)
    except OSError:
        pass
os._exit(0)
""".replace("NAMES", repr(names))
    return [
        Attack("link: the edited file to a host file", "python", f"""
import os
path = os.path.join(os.getcwd(), {stats!r})
os.unlink(path)
os.symlink({str(place / 'victim.pth')!r}, path)
""", ("planted-link tiny/stats.py",)),
        Attack("link: the edited file's folder to a host folder", "python", f"""
import os
if not os.path.islink('tiny'):  # the hole runs once per test
    os.rename('tiny', 'tiny-moved')
    os.symlink({str(place / 'package')!r}, 'tiny')
""", ("planted-link tiny",)),
        Attack("forged proof: descriptors listed", "python", "import os\nos.listdir('/proc/self/fd')\n" + forge,
               ("os.listdir /proc/self/fd", "forged-record"), with_truth=False),
        Attack("forged proof: descriptors guessed", "python", forge, ("forged-record",),
               frozenset({"tampered", "tests_not_run"}), with_truth=False),
        Attack("carrier: unchecked byte-code of the module", "python", f"""
import importlib.util, os, py_compile
source = '/tmp/original_stats.py'
with open(source, 'w') as f:
    f.write({original!r})
target = importlib.util.cache_from_source(os.path.join(os.getcwd(), {stats!r}))
py_compile.compile(source, cfile=target, dfile={stats!r}, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
""", ("planted-cache tiny/__pycache__/",)),
        Attack("carrier: pytest's rewritten test module", "python", f"""
import importlib.util, marshal, os, sys, pytest
test = os.path.join(os.getcwd(), {test_file!r})
st = os.stat(test)
tag = sys.implementation.cache_tag + '-pytest-' + pytest.__version__
os.makedirs(os.path.join(os.path.dirname(test), '__pycache__'), exist_ok=True)
code = compile({passing_tests!r}, test, 'exec')
header = importlib.util.MAGIC_NUMBER + b'\\0\\0\\0\\0' + (int(st.st_mtime) & 0xFFFFFFFF).to_bytes(4, 'little') + (st.st_size & 0xFFFFFFFF).to_bytes(4, 'little')
with open(os.path.join(os.path.dirname(test), '__pycache__', 'test_stats.' + tag + '.pyc'), 'wb') as f:
    f.write(header + marshal.dumps(code))
""", ("planted-cache tests/__pycache__/",)),
        Attack("carrier: the warm server's scratch files", "python", f"""
import hashlib, marshal, os
test = os.path.join(os.getcwd(), {test_file!r})
source = open(test, 'rb').read()
os.makedirs('/tmp/simpilot-rewritten', exist_ok=True)
digest = hashlib.sha256(test.encode() + b'\\0' + source).hexdigest()
with open('/tmp/simpilot-rewritten/' + digest, 'wb') as f:
    marshal.dump(compile({passing_tests!r}, test, 'exec'), f)
""", ("planted-scratch /tmp/simpilot-rewritten",)),
    ]


def java_attacks(place: Path) -> list[Attack]:
    stats = "src/main/java/tiny/Stats.java"
    test_source = (DATA / "tinyjava" / "src" / "test" / "java" / "tiny" / "StatsTest.java").read_text()
    names = re.findall(r"@Test\s+void\s+(\w+)\(", test_source)
    fake = "package tiny; import org.junit.jupiter.api.Test; class StatsTest { " + " ".join(f"@Test void {n}() {{}}" for n in names) + " }"
    return [
        Attack("java link: the edited file to a host file", "java", f"""
try {{
    java.nio.file.Path p = java.nio.file.Path.of({json.dumps(stats)});
    java.nio.file.Files.delete(p);
    java.nio.file.Files.createSymbolicLink(p, java.nio.file.Path.of({json.dumps(str(place / 'package' / 'Stats.java'))}));
}} catch (java.io.IOException e) {{
    throw new java.io.UncheckedIOException(e);
}}""", ("planted-link src/main/java/tiny/Stats.java",)),
        Attack("java carrier: compiled test classes", "java", f"""
try {{
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("fake");
    java.nio.file.Path src = dir.resolve("StatsTest.java");
    java.nio.file.Files.writeString(src, {json.dumps(fake)});
    int status = javax.tools.ToolProvider.getSystemJavaCompiler().run(null, null, null,
        "-d", ".simpilot/classes/test", "-cp", System.getProperty("java.class.path"), src.toString());
    if (status != 0) throw new IllegalStateException("the fake test did not compile");
}} catch (java.io.IOException e) {{
    throw new java.io.UncheckedIOException(e);
}}""", ("planted-cache .simpilot/classes/test/tiny/StatsTest.class",)),
    ]


def _untouched(place: Path) -> dict[str, bytes]:
    return {str(p.relative_to(place)): p.read_bytes() for p in sorted(place.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("language", ["python", "java"])
def test_attacks_on_the_harness_gain_nothing(tmp_path: Path, place: Path, language: str) -> None:
    repo = tmp_path / "repos" / ("tinyrepo" if language == "python" else "tinyjava")
    shutil.copytree(DATA / repo.name, repo, ignore=shutil.ignore_patterns("__pycache__"))
    db = tmp_path / "simpilot.db"
    before = _untouched(place)
    path = "tiny/stats.py" if language == "python" else "src/main/java/tiny/Stats.java"
    holes = failing_holes(tmp_path, repo, path, db)
    attacks = python_attacks(place) if language == "python" else java_attacks(place)
    print(f"\n{language}: {len(holes)} holes that a wrong answer fails")
    problems = attack_then_victims(tmp_path, repo, holes, attacks, db)
    assert problems == []
    assert _untouched(place) == before  # the host files the links pointed at
    assert sorted(p.name for p in place.iterdir()) == ["package", "victim.pth"]
