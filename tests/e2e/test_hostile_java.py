"""Answers that try to forge the warm JUnit runner's verdicts, through the real pipeline
(``simpilot replay`` with a ``recorded:`` model, bubblewrap, the warm JUnit server, the SQLite
store), each followed in the same run, on the same work copy, by answers that must fail: an empty
answer, or a wrong one.

* a spy: a daemon thread that stays in the JVM, watches standard input (where requests used to
  come) and the request channel, and answers any request it sees with passing records signed
  with the request's key, in every format simpilot ever read;
* a thief: it reads every descriptor of the process, takes anything that looks like a key, writes
  passing records, an end and an exit with each to every descriptor it can write and to standard
  output, then halts the JVM;
* a control: the ground truth still passes.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from replay.core.recordings import answer_for, write_recording_file
from replay.core.records import Completion, Task
from replay.core.scenarios import write_tasks

from ..conftest import DATA, tiny_scenario
from .test_hostile import Case, choose, hostile_answer

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is installed by .ci/setup"),
    pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK"),
]

RUN = "hostile-java"
FAILED = frozenset({"fail", "runtime_error", "compile_error", "undefined_name"})  # how a wrong answer may fail

# A local class (the answers are blocks of statements): the lines that would prove a pass for
# tinyjava's test classes under ``key``, in each format simpilot ever read, and their writing to
# standard output and to every descriptor of the process that opens for writing.
FORGER = r"""
class Forger {
    final java.util.regex.Pattern hex = java.util.regex.Pattern.compile("[0-9a-f]{32}");

    java.util.Set<String> keys(byte[] seen) {
        java.util.Set<String> found = new java.util.LinkedHashSet<>();
        java.util.regex.Matcher m = hex.matcher(new String(seen, java.nio.charset.StandardCharsets.ISO_8859_1));
        while (m.find()) {
            found.add(m.group());
        }
        return found;
    }

    String lines(String key) throws Exception {
        javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
        mac.init(new javax.crypto.spec.SecretKeySpec(key.getBytes(java.nio.charset.StandardCharsets.UTF_8), "HmacSHA256"));
        java.util.List<String> records = new java.util.ArrayList<>(java.util.List.of("\"event\":\"start\""));
        for (String c : new String[] {"tiny.StatsTest", "tiny.ReportTest"}) {
            records.add("\"event\":\"test\",\"id\":\"" + c + "#forged()\",\"class\":\"" + c + "\",\"outcome\":\"passed\"");
        }
        records.add("\"event\":\"end\",\"tampered\":[]");
        records.add("\"event\":\"exit\",\"status\":0,\"restart\":null");
        StringBuilder out = new StringBuilder();
        for (int seq = 0; seq < records.size(); seq++) {
            String body = "{" + records.get(seq) + ",\"seq\":" + seq + "}";
            out.append(key).append('\t').append("{").append(records.get(seq)).append("}\n");
            out.append(java.util.HexFormat.of().formatHex(mac.doFinal(body.getBytes(java.nio.charset.StandardCharsets.UTF_8))));
            out.append('\t').append(body).append('\n');
        }
        return out.append("SIMPILOT-EXIT ").append(key).append(" 0\n").toString();
    }

    void forge(java.util.Collection<String> keys) throws Exception {
        StringBuilder text = new StringBuilder();
        for (String key : keys) {
            text.append(lines(key));
        }
        byte[] bytes = text.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        new java.io.FileOutputStream(java.io.FileDescriptor.out).write(bytes);
        java.io.File[] fds = new java.io.File("/proc/self/fd").listFiles();
        for (java.io.File fd : fds == null ? new java.io.File[0] : fds) {
            try (java.io.FileOutputStream out = new java.io.FileOutputStream(fd, true)) {
                out.write(bytes);
            } catch (java.io.IOException e) {
                // not writable: the next one
            }
        }
    }
}
Forger forger = new Forger();
"""

SPY = (
    FORGER
    + r"""
Thread spy = new Thread(() -> {
    byte[] buffer = new byte[1 << 16];
    java.util.regex.Pattern channel = java.util.regex.Pattern.compile("--channel (\\S+)");
    while (true) {
        try {
            java.util.Set<String> keys = new java.util.LinkedHashSet<>();
            int n = new java.io.FileInputStream(java.io.FileDescriptor.in).read(buffer);
            if (n > 0) {
                keys.addAll(forger.keys(java.util.Arrays.copyOf(buffer, n)));
            }
            byte[] command = java.nio.file.Files.readAllBytes(java.nio.file.Path.of("/proc/self/cmdline"));
            java.util.regex.Matcher path = channel.matcher(new String(command, java.nio.charset.StandardCharsets.UTF_8).replace('\0', ' '));
            if (path.find()) {
                try (java.nio.channels.SocketChannel c = java.nio.channels.SocketChannel.open(java.net.UnixDomainSocketAddress.of(path.group(1)))) {
                    java.nio.ByteBuffer request = java.nio.ByteBuffer.allocate(1 << 16);
                    c.read(request);
                    keys.addAll(forger.keys(java.util.Arrays.copyOf(request.array(), request.position())));
                } catch (java.io.IOException e) {
                    // the channel is gone: keep watching standard input
                }
            }
            if (!keys.isEmpty()) {
                forger.forge(keys);
            }
            Thread.sleep(20);
        } catch (InterruptedException e) {
            return;
        } catch (Exception e) {
            // keep watching
        }
    }
});
spy.setDaemon(true);
spy.start();
"""
)

THIEF = (
    FORGER
    + r"""
try {
    java.util.Set<String> keys = java.util.Collections.synchronizedSet(new java.util.LinkedHashSet<>());
    java.io.File[] fds = new java.io.File("/proc/self/fd").listFiles();
    for (java.io.File fd : fds == null ? new java.io.File[0] : fds) {
        Thread reader = new Thread(() -> {  // a pipe may have nothing to read: not waited for long
            try (java.io.FileInputStream in = new java.io.FileInputStream(fd)) {
                keys.addAll(forger.keys(in.readNBytes(1 << 20)));
            } catch (java.io.IOException e) {
                // not readable: the next one
            }
        });
        reader.setDaemon(true);
        reader.start();
        reader.join(200);
    }
    keys.add("0123456789abcdef0123456789abcdef");  // a guess, should nothing have been found
    forger.forge(new java.util.ArrayList<>(keys));
} catch (Exception e) {
    throw new IllegalStateException(e);
}
Runtime.getRuntime().halt(0);
"""
)


@dataclass(frozen=True)
class Step:
    """One task of the run: its answer (``code`` at the hole before the ground truth; None: the
    ground truth alone; ``text``: that text instead) and the outcomes it may end in."""

    name: str
    expected: frozenset[str]
    code: str | None = None
    text: str | None = None

    def answer(self, task: Task) -> str:
        if self.text is not None:
            return self.text
        if self.code is None:
            return task.ground_truth
        return hostile_answer(Case(self.name, "java", self.code, self.expected), task)


WRONG = 'if (System.nanoTime() > 0) { throw new IllegalStateException("a wrong answer"); }'
STEPS = [
    Step("spy", frozenset({"pass"}), code=SPY),  # its own run is right: the thread only forces a new JVM
    Step("empty after the spy", frozenset({"empty"}), text=""),
    Step("wrong after the spy", FAILED, code=WRONG),
    Step("thief", frozenset({"tampered", "tests_not_run"}), code=THIEF),
    Step("empty after the thief", frozenset({"empty"}), text=""),
    Step("control", frozenset({"pass"})),
    Step("empty after the control", frozenset({"empty"}), text=""),
]


@pytest.mark.slow
def test_forging_answers_do_not_pass_nor_make_later_answers_pass(tmp_path: Path) -> None:
    repo = tmp_path / "repos" / "tinyjava"
    shutil.copytree(DATA / "tinyjava", repo)
    candidates, _ = tiny_scenario(repo, tmp_path, per_kind=50)
    tasks = choose(candidates, repo, len(STEPS))[: len(STEPS)]
    answers = [
        answer_for(task, Completion(task.id, step.answer(task)), (repo / task.path).read_bytes(), "hostile", {})
        for step, task in zip(STEPS, tasks, strict=True)
    ]
    scenario = tmp_path / "scenarios" / "tinyjava.jsonl"
    write_tasks(scenario, tasks)
    recording = tmp_path / "recordings"
    write_recording_file(recording / "tinyjava.jsonl", answers)
    db = tmp_path / "simpilot.db"
    command = [
        sys.executable,
        "-m",
        "replay",
        "--db",
        str(db),
        "replay",
        str(scenario),
        "--model",
        f"recorded:{recording}",
        "--repo",
        str(repo),
        "--run",
        RUN,
        "-p",
        "none",
        "--jobs",
        "1",
    ]
    harness = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert harness.returncode == 0, harness.stderr[-3000:]

    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        rows = con.execute("SELECT task_id, status, detail, output_tail FROM outcomes WHERE run_id = ? ORDER BY rowid", (RUN,)).fetchall()
    by_task = {task_id: (status, detail, tail) for task_id, status, detail, tail in rows}
    print("\nforging Java answers:")
    for step, task in zip(STEPS, tasks, strict=True):
        status, detail, _ = by_task.get(task.id, ("MISSING", "", ""))
        print(f"  {step.name:26} {status:14} {detail.strip()[:90]}")
    assert len(rows) == len(STEPS)
    wrong = [
        (step.name, by_task[task.id][:2], by_task[task.id][2][-600:])
        for step, task in zip(STEPS, tasks, strict=True)
        if by_task[task.id][0] not in step.expected
    ]
    assert wrong == [], "\n\n".join(f"{name}: {status}\n{tail}" for name, status, tail in wrong)
    # each empty or wrong answer ran after the forging answer before it, on the same work copy
    order = [task_id for task_id, *_ in rows]
    assert order == [task.id for task in tasks]
