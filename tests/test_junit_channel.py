"""The warm JUnit runner's proof channel against the real runner: records are signed and numbered,
nothing the tests print ends a run or counts, requests never reach the tests, and a run that
leaves a thread, or work for one of the JVM's own threads, has the next run served by a new JVM
while files it leaves in ``/tmp`` and ``/dev/shm`` are gone before the next run."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator

import pytest

from replay.config.manifest import open_repository
from replay.environments.commands import suite_env
from replay.execution.proof.check import Answer, Channel, shortfall, sign
from replay.execution.runners.junit import run_arguments, toolchain
from replay.execution.runners.warm import JUnitServer
from replay.execution.sandbox.bubblewrap import ProcessResult, Sandbox
from replay.execution.workcopies.copies import WorkCopy
from tests.conftest import DATA
from tests.e2e.test_hostile_java import THIEF

pytestmark = [
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is installed by .ci/setup"),
    pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK"),
]

STATS = ("tiny.StatsTest",)
IMPORTS = """package tiny;

import static org.junit.jupiter.api.Assertions.*;

import java.io.*;
import java.nio.file.*;
import java.util.regex.*;
import org.junit.jupiter.api.*;
"""


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkCopy]:
    """One compiled work copy of tinyjava for the module (compiling is the slow part)."""
    base = tmp_path_factory.mktemp("junit-channel")
    shutil.copytree(DATA / "tinyjava", base / "tinyjava")
    work = WorkCopy(open_repository(base / "tinyjava"), Sandbox.create(), base=base)
    yield work
    work.close()


@pytest.fixture
def server(copy: WorkCopy) -> Iterator[JUnitServer]:
    server = JUnitServer(copy.sandbox, copy.root, copy.manifest)
    yield server
    server.close()


def probe(copy: WorkCopy, name: str, body: str) -> tuple[str, tuple[str, ...]]:
    """A test class ``tiny.NAME`` with ``body`` as its members, written into the copy: the edited
    file and the selection of a run that compiles and runs it."""
    path = f"src/test/java/tiny/{name}.java"
    (copy.root / path).write_text(f"{IMPORTS}\nclass {name} {{\n{body}\n}}\n")
    return path, (f"tiny.{name}",)


def run_probe(server: JUnitServer, copy: WorkCopy, name: str, body: str) -> ProcessResult:
    path, selection = probe(copy, name, body)
    return server.run(run_arguments(path, selection), 60)


def passed(result: ProcessResult) -> bool:
    proof = result.proof
    return proof is not None and proof.finished and not proof.tampered and bool(proof.passed) and not proof.failed


def test_fresh_records_are_signed_numbered_lines_under_the_key_of_the_pipes_first_line(copy: WorkCopy) -> None:
    """The key is the token pipe's first line (the answer's place follows it, for Python's
    reporter); each record is ``MAC<TAB>JSON`` with ``seq`` counting from 0."""
    command = toolchain().test_command(copy.manifest, None, STATS)
    with Channel(answer=Answer("src/main/java/tiny/Stats.java", 3, 4)) as channel:
        result = copy.sandbox.run(command, copy.root, 60, suite_env(copy.manifest), channel)
        report = channel.report().decode()
        token = channel.token
    assert result.returncode == 0 and passed(result), result.output_tail
    lines = report.splitlines()
    records = [json.loads(line.split("\t", 1)[1]) for line in lines]
    assert all(sign(token, line.split("\t", 1)[1]) == line for line in lines)
    assert [r["seq"] for r in records] == list(range(len(lines)))
    assert [r["event"] for r in records] == ["start", "test", "test", "end"]
    assert result.proof is not None and sorted(result.proof.passed) == ["tiny.StatsTest#meanOfSamples()", "tiny.StatsTest#sumsAndClamps()"]


def test_fresh_a_test_that_forges_with_every_key_it_can_read_is_tampering(copy: WorkCopy) -> None:
    """The report descriptor is readable and writable by the tests: what they read there (the
    records so far) yields no key, and what they write there does not verify."""
    path, selection = probe(copy, "FreshThief", f"@Test\nvoid steals() {{\n{THIEF}\n}}")
    with Channel() as channel:
        result = copy.sandbox.run(
            toolchain().test_command(copy.manifest, path, selection), copy.root, 60, suite_env(copy.manifest), channel
        )
    gap = shortfall(result.proof, selection)
    assert gap is not None and gap.kind == "tampered" and "forged-record" in gap.detail, (gap, result.output_tail)
    assert result.proof is not None and not result.proof.finished


def test_resident_runs_are_proven_and_share_one_jvm(server: JUnitServer) -> None:
    results = [server.run(run_arguments(None, STATS), 60) for _ in range(3)]
    assert all(passed(r) and r.returncode == 0 for r in results), results[-1].output_tail
    assert server.starts == 1
    assert "SIMPILOT-SUMMARY found=2 succeeded=2" in results[-1].output_tail


@pytest.mark.parametrize(("end", "status"), [("Runtime.getRuntime().halt(0)", 0), ("System.exit(3)", 3)], ids=["halt", "exit"])
def test_a_jvm_ended_by_its_tests_is_reported_with_its_status_and_replaced(
    server: JUnitServer, copy: WorkCopy, end: str, status: int
) -> None:
    """The channel closes as the JVM exits, before the sandbox has: its status is waited for."""
    result = run_probe(server, copy, "EndProbe", f"@Test\nvoid ends() {{\n{end};\n}}")
    assert result.returncode == status and not result.timed_out, result.output_tail
    assert result.proof is not None and result.proof.started and not result.proof.finished
    assert f"exited (status {status}) in the middle of the run" in result.output_tail
    assert passed(server.run(run_arguments(None, STATS), 60)) and server.starts == 2


def test_forged_lines_neither_end_the_run_nor_count(server: JUnitServer, copy: WorkCopy) -> None:
    """Lines in every format simpilot ever read, printed to standard output and error (through
    ``System.out`` and straight to the descriptor): a guessed token, a fake end, a fake request
    for a new JVM, records signed with another key. The run goes on to the test's failure, the
    forged MACs are tampering, and the JVM serves the next run."""
    body = r"""
    @Test
    void forges() throws Exception {
        String ghost = "{\"event\":\"test\",\"id\":\"tiny.Ghost#passes()\",\"class\":\"tiny.Ghost\",\"outcome\":\"passed\",\"seq\":1}";
        String[] forged = {
            "0123456789abcdef0123456789abcdef\t" + ghost,
            "SIMPILOT-EXIT 0123456789abcdef0123456789abcdef 0",
            "SIMPILOT-RESTART please",
            "0".repeat(64) + "\t" + ghost,
            "f".repeat(64) + "\t{\"event\":\"exit\",\"status\":0,\"restart\":null,\"seq\":2}",
            "SIMPILOT-READY",
        };
        PrintStream raw = new PrintStream(new FileOutputStream(FileDescriptor.out), true);
        for (String line : forged) {
            System.out.println(line);
            System.err.println(line);
            raw.println(line);
        }
        Thread.sleep(300);
        fail("a wrong answer that forged its verdict");
    }
"""
    result = run_probe(server, copy, "ForgeProbe", body)
    proof = result.proof
    assert proof is not None and proof.finished, result.output_tail
    assert dict(proof.outcomes) == {"tiny.ForgeProbe#forges()": "failed"}
    assert any(event.startswith("forged-record") for event in proof.tampered), proof.tampered
    assert result.returncode == 1 and "a wrong answer that forged its verdict" in result.output_tail
    assert "SIMPILOT-SUMMARY found=1 succeeded=0 failed=1" in result.output_tail
    assert passed(server.run(run_arguments(None, STATS), 60)) and server.starts == 1


@pytest.mark.parametrize("daemon", [True, False], ids=["daemon", "non-daemon"])
def test_a_thread_left_running_gets_the_next_run_a_new_jvm(server: JUnitServer, copy: WorkCopy, daemon: bool) -> None:
    """A left thread could read the next request or write into the next run's answers; it is
    not tampering (honest code leaves timers too), but no later run shares its JVM."""
    body = f"""
    @Test
    void leaves() {{
        Thread t = new Thread(() -> {{
            try {{
                Thread.sleep(1_000_000);
            }} catch (InterruptedException e) {{
                Thread.currentThread().interrupt();
            }}
        }});
        t.setDaemon({str(daemon).lower()});
        t.start();
    }}
"""
    assert passed(run_probe(server, copy, "ThreadProbe", body))
    assert server.starts == 1
    assert passed(server.run(run_arguments(None, STATS), 60)) and server.starts == 2


def test_the_run_s_code_in_a_jvm_thread_gets_the_next_run_a_new_jvm(server: JUnitServer, copy: WorkCopy) -> None:
    """A finalizer runs on the JVM's own finalizer thread, which was there before the run: the
    run's code still running there when the run ends is a left thread all the same."""
    body = """
    static volatile boolean running;

    static final class Sleeper {
        @Override
        @SuppressWarnings("deprecation")
        protected void finalize() throws InterruptedException {
            running = true;
            Thread.sleep(1_000_000);
        }
    }

    @Test
    void plants() throws InterruptedException {
        new Sleeper();
        for (int i = 0; i < 100 && !running; i++) {
            System.gc();
            Thread.sleep(50);
        }
        assertTrue(running, "the finalizer did not run");
    }
"""
    result = run_probe(server, copy, "FinalizerProbe", body)
    assert passed(result), result.output_tail
    assert passed(server.run(run_arguments(None, STATS), 60)) and server.starts == 2


def test_files_left_in_tmp_and_shm_are_gone_before_the_next_run(server: JUnitServer, copy: WorkCopy) -> None:
    """A folder the run locked is opened up and emptied, a link is removed without following
    it, and what the sandbox mounted under /tmp (the work copy itself here) stays."""
    (copy.root / "keep.txt").write_text("kept")
    plant = """
    @Test
    void plants() throws IOException {
        Path deep = Files.createDirectories(Path.of("/tmp/simpilot-probe/deep"));
        Files.writeString(deep.resolve("note"), "left");
        Files.writeString(Path.of("/dev/shm/simpilot-probe"), "left");
        Files.createSymbolicLink(Path.of("/tmp/simpilot-probe-link"), Path.of(System.getProperty("user.dir"), "keep.txt"));
        Path locked = Files.createDirectories(Path.of("/tmp/simpilot-probe-locked/inner"));
        Files.writeString(locked.resolve("note"), "left");
        Files.setPosixFilePermissions(locked, java.nio.file.attribute.PosixFilePermissions.fromString("---------"));
        Files.setPosixFilePermissions(locked.getParent(), java.nio.file.attribute.PosixFilePermissions.fromString("r-x------"));
    }
"""
    check = """
    @Test
    void findsNothing() {
        for (String left : new String[] {"/tmp/simpilot-probe", "/dev/shm/simpilot-probe", "/tmp/simpilot-probe-link", "/tmp/simpilot-probe-locked"}) {
            assertFalse(Files.exists(Path.of(left), LinkOption.NOFOLLOW_LINKS), left);
        }
        assertTrue(Files.exists(Path.of(System.getProperty("user.dir"), "keep.txt")));
    }
"""
    assert passed(run_probe(server, copy, "TmpPlant", plant))
    assert passed(run_probe(server, copy, "TmpCheck", check))
    assert server.starts == 1  # everything could be deleted: the JVM goes on
    assert (copy.root / "keep.txt").read_text() == "kept"


def test_the_tests_reach_neither_the_requests_nor_the_channel(server: JUnitServer, copy: WorkCopy) -> None:
    """Standard input is empty (requests come on the channel), the channel's socket was removed
    once the runner connected, and its descriptor cannot be opened through ``/proc``."""
    body = r"""
    @Test
    void findsNothing() throws IOException {
        assertEquals(-1, new FileInputStream(FileDescriptor.in).read());
        assertEquals(-1, System.in.read());
        String command = Files.readString(Path.of("/proc/self/cmdline")).replace('\0', ' ');
        Matcher channel = Pattern.compile("--channel (\\S+)").matcher(command);
        assertTrue(channel.find(), command);
        assertThrows(IOException.class, () -> java.nio.channels.SocketChannel.open(java.net.UnixDomainSocketAddress.of(channel.group(1))));
        int sockets = 0;
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path fd : fds) {
                String target;
                try {
                    target = Files.readSymbolicLink(fd).toString();
                } catch (IOException e) {
                    continue;
                }
                if (target.startsWith("socket:")) {
                    sockets++;
                    assertThrows(IOException.class, () -> new FileInputStream(fd.toFile()).close());
                    assertThrows(IOException.class, () -> new FileOutputStream(fd.toFile()).close());
                }
            }
        }
        assertTrue(sockets > 0, "the runner's channel is a socket");
    }
"""
    result = run_probe(server, copy, "ChannelProbe", body)
    assert passed(result), result.output_tail
    assert server.starts == 1


def test_an_interrupted_test_thread_does_not_cut_the_channel(server: JUnitServer, copy: WorkCopy) -> None:
    """A test that leaves its thread's interrupt status set (as code that restores it after
    catching InterruptedException does) still has every record after it reach simpilot."""
    body = """
    @Test
    void interrupts() {
        Thread.currentThread().interrupt();
    }

    @Test
    void runsToo() {
    }
"""
    result = run_probe(server, copy, "InterruptProbe", body)
    assert passed(result) and len(result.proof.passed) == 2, result.output_tail  # type: ignore[union-attr]
    assert passed(server.run(run_arguments(None, STATS), 60)) and server.starts == 1
