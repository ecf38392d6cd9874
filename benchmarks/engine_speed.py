"""Replay speed: the naive way (fresh copy + whole suite per task, serially) against simpilot's engine.

Both modes judge the ``oracle`` model's answers (the ground truth) on the bundled scenarios, in
the same bubblewrap sandbox, and every task must pass in both:

(a) **naive**, as SimCopilot's scripts and llm-ls's testbed do it: per task a fresh
    ``shutil.copytree`` of the whole repository into a temporary folder, the ground truth written
    into the hole, the repository's own test command (the manifest's ``test_command``, what
    ``--full-suite`` runs) in the sandbox, the copy deleted; one task at a time.
(b) **engine**: ``simpilot replay SCENARIO --model oracle -p none --jobs CORES`` through the same
    library function the CLI calls (``run_replay``, temporary ``--db``): the LSP bridge, warm work
    copies (their set-up and compilation), warm test servers, one reference run per file and the
    tests selected per task. Its wall time is everything from the call to its return.

``--sample N`` tasks per repository (seeded, the same tasks for both modes) are run per repository
with the two modes interleaved, in alternating order, so that the load of this shared machine hits
both alike; the load average is printed with every row. ``--engine-all`` then also replays all
tasks in one engine run, as a user would, and the naive time for them is estimated from each
repository's measured seconds per task (the naive way shares nothing between tasks).

**Engine overhead.** CPU-slot seconds (the engine's wall time × jobs) against the time of *the
tests themselves*: for every task, the sum over its selected tests of each test's own duration —
from its start to its end, its set-up and tear-down included (pytest: set-up + call + tear-down of
the item; JUnit: the launcher's start and finish events of the test) — measured per repository in
one warm process that runs the whole suite three times on an untouched copy, in the same sandbox,
taking each test's fastest run (an oracle-patched file is byte-identical to the original, so these
are the very tests the engine runs). Interpreter and JVM start, imports and collection,
compilation, copying, sandboxing, reference runs and idle slots all count as overhead: the
strictest reading, which a sceptical reviewer cannot call generous.
``overhead = slot seconds / test seconds - 1``. For comparison the overhead over the engine's own
measure of its test runs (request to answer on a warm server: fork, collection or compilation of
the edited file, the tests) is printed too, and the engine's per-phase accounting (exclusive
seconds summed over its worker threads, from timers wrapped around its functions in this process)
shows where the time goes.

The results file holds the sample's figures (``sample_*``: tasks, both modes' seconds and tasks
per minute, their ratio, the overhead in per cent) and, with ``--engine-all``, the same for all
tasks (``all_*``, the naive side estimated); the tables ``repositories`` (one row per repository
of the sample) and ``phases`` (where the engine's slot seconds went, per run). ``--smoke``: one
task of one Python repository.

    .venv/bin/python benchmarks/engine_speed.py [--sample 5] [--seed 0] [--jobs 2] [--engine-all] [--repos lpsolve btreemap]
        [--smoke] [--results-dir DIR]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import shutil
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.results_file import add_arguments, write_results  # noqa: E402
from replay.config.manifest import Manifest, RepoCatalog, project_root  # noqa: E402
from replay.core.records import Status, Task  # noqa: E402
from replay.core.scenarios import read_tasks  # noqa: E402
from replay.environments.commands import suite_command, suite_env  # noqa: E402
from replay.execution import judge as evaluate_module  # noqa: E402
from replay.execution.judge import Evaluator, apply  # noqa: E402
from replay.execution.runners import warm as warm_module  # noqa: E402
from replay.execution.runners.warm import pytest_args  # noqa: E402
from replay.execution.sandbox.bubblewrap import Sandbox  # noqa: E402
from replay.execution.scheduling.references import ReferenceRuns  # noqa: E402
from replay.execution.workcopies import beneath  # noqa: E402
from replay.execution.workcopies.copies import WorkCopy  # noqa: E402
from replay.jobs.replay import run_replay  # noqa: E402
from replay.store import Store  # noqa: E402

SMOKE_REPOSITORY, SMOKE_SAMPLE = "sparsela", 1
ALL = ["lpsolve", "minisql", "ordtree", "sparsela", "textindex", "btreemap", "sparsemat", "variates"]
SCENARIOS = project_root() / "scenarios"
CONSOLE_JAR = "/usr/share/java/junit-platform-console-standalone.jar"
SCRATCH = Path(tempfile.gettempdir())

ROUNDS = 3  # whole-suite runs in one process; each test's fastest run is its duration

# Runs the whole suite ROUNDS times in one interpreter and writes each test item's shortest
# reported duration (set-up + call + tear-down) as JSON. Runs in the sandbox, on a scratch copy.
_PYTEST_DURATIONS = """
import json, sys, pytest
class Durations:
    def __init__(self):
        self.seconds = {}
    def pytest_runtest_logreport(self, report):
        self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + report.duration
best = {}
for _ in range(int(sys.argv[2])):
    durations = Durations()
    code = pytest.main(sys.argv[3:], plugins=[durations])
    if code:
        sys.exit(int(code))
    for test, seconds in durations.seconds.items():
        best[test] = min(seconds, best.get(test, seconds))
with open(sys.argv[1], "w") as f:
    json.dump(best, f)
"""

# The same for JUnit 5 in one JVM, through the launcher API: a test's time runs from its start to
# its end event (its @BeforeEach and @AfterEach included); the shortest of the rounds per test,
# summed per top-level test class and per test method (``Class#method``, all its invocations): what
# tasks select, written as JSON.
_JUNIT_DURATIONS = """
import java.nio.file.*;
import java.util.*;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.*;
import org.junit.platform.launcher.*;
import org.junit.platform.launcher.core.*;

public class SuiteDurations {
    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[1]);
        Map<String, Double> best = new HashMap<>();
        Map<String, String> owner = new HashMap<>();
        Map<String, String> method = new HashMap<>();
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(DiscoverySelectors.selectClasspathRoots(Set.of(Path.of(args[2]).toAbsolutePath()))).build();
        Launcher launcher = LauncherFactory.create();
        for (int round = 0; round < rounds; round++) {
            Map<String, Long> started = new HashMap<>();
            List<String> failed = new ArrayList<>();
            launcher.execute(request, new TestExecutionListener() {
                public void executionStarted(TestIdentifier id) {
                    if (id.isTest()) started.put(id.getUniqueId(), System.nanoTime());
                }
                public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                    if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) failed.add(id.getDisplayName());
                    if (!id.isTest()) return;
                    double seconds = (System.nanoTime() - started.get(id.getUniqueId())) / 1e9;
                    best.merge(id.getUniqueId(), seconds, Math::min);
                    id.getSource().ifPresent(source -> {
                        String name = source instanceof MethodSource m ? m.getClassName() : source instanceof ClassSource c ? c.getClassName() : "";
                        owner.put(id.getUniqueId(), name.split("[$]")[0]);
                        if (source instanceof MethodSource m) method.put(id.getUniqueId(), m.getClassName() + "#" + m.getMethodName());
                    });
                }
            });
            if (!failed.isEmpty()) {
                System.out.println("failed: " + failed);
                System.exit(1);
            }
        }
        Map<String, Double> perClass = new TreeMap<>();
        best.forEach((id, seconds) -> perClass.merge(owner.getOrDefault(id, ""), seconds, Double::sum));
        best.forEach((id, seconds) -> { if (method.containsKey(id)) perClass.merge(method.get(id), seconds, Double::sum); });
        StringBuilder json = new StringBuilder("{");
        perClass.forEach((name, seconds) -> json.append(json.length() > 1 ? ", " : "").append('"').append(name).append("\\": ").append(seconds));
        Files.writeString(Path.of(args[0]), json.append("}").toString());
    }
}
"""


# -- the engine's phases ----------------------------------------------------------------------


class PhaseClock:
    """Exclusive seconds per phase, summed over threads: a phase's time excludes the phases
    nested in it, so the phases add up to the time the wrapped functions were running."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()
        self._local = threading.local()

    def wrap(self, owner: object, name: str, phase: str | Callable[..., str]) -> Callable[[], None]:
        """Time ``owner.name`` under ``phase`` (or the label ``phase`` gives for the call's
        arguments); returns the function that puts the original back."""
        original = getattr(owner, name)

        @functools.wraps(original)
        def timed(*args, **kwargs):
            label = phase if isinstance(phase, str) else phase(*args, **kwargs)
            frames = self._local.__dict__.setdefault("frames", [])
            frames.append([label, 0.0])  # the label and the time spent in nested phases
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - start
                _, nested = frames.pop()
                if frames:
                    frames[-1][1] += elapsed
                with self._lock:
                    self.seconds[label] += elapsed - nested
                    if not any(frame[0] == label for frame in frames):  # count a nested repeat once
                        self.calls[label] += 1

        setattr(owner, name, timed)
        return lambda: setattr(owner, name, original)

    def within(self, label: str) -> bool:
        """Whether this thread is inside a phase called ``label``."""
        return any(frame[0] == label for frame in self._local.__dict__.get("frames", []))

    def merge(self, other: PhaseClock) -> None:
        for label, seconds in other.seconds.items():
            self.seconds[label] += seconds
            self.calls[label] += other.calls[label]


SETUP = "work copy set-up (copy, javac of all classes)"
REFERENCE = "reference runs (untouched code, one per file)"
BOOKKEEPING = "evaluator (borrow copy, patch, restore, classify)"


def instrument(clock: PhaseClock) -> list[Callable[[], None]]:
    """Wrap the engine's stages in timers (their behaviour is unchanged). A test run is booked
    to the reference runs when one of those started it, else to the tasks."""
    def test_run(*_: object) -> str:
        return REFERENCE if clock.within(REFERENCE) else "task test runs on warm servers"

    def one_off(*_: object, **__: object) -> str:
        return SETUP if clock.within(SETUP) else "one-off sandboxed test commands"

    def tests_of(self, manifest, path=None, content=None, *_: object, **__: object) -> str:
        return REFERENCE if content is None else BOOKKEEPING  # the reference runs patch nothing

    return [
        clock.wrap(WorkCopy, "__init__", SETUP),
        clock.wrap(beneath, "tree_state", "state check of the copy after each run (every entry)"),
        clock.wrap(WorkCopy, "_rebuild", "work copy rebuilds"),
        clock.wrap(warm_module._Resident, "_ensure", "warm server start (checked before each run)"),
        clock.wrap(warm_module.PytestServer, "run", test_run),
        clock.wrap(warm_module.JUnitServer, "run", test_run),
        clock.wrap(Sandbox, "run", one_off),
        clock.wrap(evaluate_module, "compile_status", "python compile check"),
        clock.wrap(Evaluator, "run_tests", tests_of),
        clock.wrap(Evaluator, "evaluate", BOOKKEEPING),
        clock.wrap(ReferenceRuns, "timeout", "waiting for a file's reference run"),
        clock.wrap(Evaluator, "close", "closing copies and servers"),
    ]


# -- records ----------------------------------------------------------------------------------


@dataclass
class ModeResult:
    tasks: int = 0
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)

    def add(self, other: ModeResult) -> None:
        self.tasks += other.tasks
        self.seconds += other.seconds
        self.failures += other.failures

    @property
    def per_minute(self) -> float:
        return 60 * self.tasks / self.seconds if self.seconds else 0.0


@dataclass
class EngineResult(ModeResult):
    task_run_seconds: float = 0.0  # the engine's own measure of its per-task test runs
    clock: PhaseClock = field(default_factory=PhaseClock)

    def add(self, other: EngineResult) -> None:  # type: ignore[override]
        super().add(other)
        self.task_run_seconds += other.task_run_seconds
        self.clock.merge(other.clock)


# -- (a) the naive way ------------------------------------------------------------------------


def naive(manifest: Manifest, tasks: list[Task], sandbox: Sandbox) -> ModeResult:
    """Fresh copy, ground truth in place, the whole suite; one task after the other."""
    result = ModeResult()
    start = time.perf_counter()
    for task in tasks:
        folder = Path(tempfile.mkdtemp(prefix=f"naive-{manifest.name}-", dir=SCRATCH))
        try:
            root = folder / manifest.name
            shutil.copytree(manifest.root, root, symlinks=True)
            target = root / task.path
            target.write_bytes(apply(task, target.read_bytes(), task.ground_truth))
            for step in manifest.setup:
                sandbox.run([p.replace("{python}", sys.executable) for p in step], root, manifest.timeout, suite_env(manifest))
            run = sandbox.run(suite_command(manifest), root, manifest.timeout, suite_env(manifest))
            if run.returncode != 0 or run.timed_out:
                last = (run.output_tail.strip().splitlines() or [""])[-1]
                result.failures.append(f"{task.id}: exit {run.returncode}{' (timeout)' if run.timed_out else ''}: {last}")
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        result.tasks += 1
    result.seconds = time.perf_counter() - start
    return result


# -- (b) the engine ---------------------------------------------------------------------------


def engine(scenarios: tuple[Path, ...], only: set[str], jobs: int, db_folder: Path, run_id: str) -> EngineResult:
    """``simpilot replay`` on ``scenarios`` (the tasks in ``only``), timed from call to return."""
    result = EngineResult()
    undo = instrument(result.clock)
    try:
        start = time.perf_counter()
        run_replay(db_folder / "bench.db", scenarios, "oracle", ("none",), run_id=run_id, resume=False, jobs=jobs, only=only)
        result.seconds = time.perf_counter() - start
    finally:
        for restore in undo:
            restore()
    store = Store(db_folder / "bench.db")
    try:
        outcomes = store.outcomes(run_id)
    finally:
        store.close()
    result.tasks = len(outcomes)
    result.task_run_seconds = sum(o.duration_s or 0.0 for o in outcomes)
    result.failures = [f"{o.task_id}: {o.status.value}: {o.detail}" for o in outcomes if o.status is not Status.PASS]
    missing = len(only) - len(outcomes)
    if missing:
        result.failures.append(f"{missing} task(s) have no outcome")
    return result


# -- the tests themselves ---------------------------------------------------------------------


def suite_durations(manifest: Manifest, sandbox: Sandbox) -> dict[str, float]:
    """Seconds per test, the fastest of ``ROUNDS`` runs of the whole suite in one process in the
    sandbox on an untouched copy: pytest node id -> set-up + call + tear-down; JUnit top-level
    test class -> the sum of its tests' times."""
    folder = Path(tempfile.mkdtemp(prefix=f"durations-{manifest.name}-", dir=SCRATCH))
    try:
        root = folder / manifest.name
        shutil.copytree(manifest.root, root, symlinks=True)
        if manifest.language == "python":
            return _pytest_durations(manifest, root, sandbox)
        return _junit_durations(manifest, root, sandbox)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _pytest_durations(manifest: Manifest, root: Path, sandbox: Sandbox) -> dict[str, float]:
    args = pytest_args(suite_command(manifest))
    if args is None:
        raise SystemExit(f"{manifest.name}: its test command is not '{{python}} -m pytest ...'; this benchmark cannot time its tests")
    # The repository's own arguments and nothing more: pytest then picks the rootdir the engine's
    # runs and the coverage run that selected the tests picked (a pytest.ini in tests/, say, makes
    # that folder the root), so the node ids here are the ids the tasks name. Forcing the rootdir
    # to the copy's root named such a repository's tests "tests/test_x.py::..." where the tasks
    # say "test_x.py::...", and no selected test was found among them.
    command = [sys.executable, "-c", _PYTEST_DURATIONS, "durations.json", str(ROUNDS), *args]
    run = sandbox.run(command, root, ROUNDS * manifest.timeout, suite_env(manifest))
    if run.returncode != 0:
        raise SystemExit(f"{manifest.name}: the untouched suite failed while timing its tests: {run.output_tail[-500:]}")
    return json.loads((root / "durations.json").read_text())


def _junit_durations(manifest: Manifest, root: Path, sandbox: Sandbox) -> dict[str, float]:
    sources = lambda folders: [str(p.relative_to(root)) for f in folders for p in sorted((root / f).rglob("*.java"))]  # noqa: E731
    jars = ":".join([CONSOLE_JAR, *manifest.classpath])
    (root / "SuiteDurations.java").write_text(_JUNIT_DURATIONS)
    steps = [
        ["javac", "-encoding", "UTF-8", "-nowarn", "-d", "out/main", "-cp", jars, *sources(manifest.sources)],
        ["javac", "-encoding", "UTF-8", "-nowarn", "-d", "out/test", "-cp", f"out/main:{jars}", *sources(manifest.tests)],
        ["java", "-cp", f"out/test:out/main:{jars}", "SuiteDurations.java", "durations.json", str(ROUNDS), "out/test"],
    ]
    for step in steps:
        run = sandbox.run(step, root, max(manifest.timeout, 300), suite_env(manifest))
        if run.returncode != 0:
            raise SystemExit(f"{manifest.name}: {step[0]} failed while timing its tests: {run.output_tail[-500:]}")
    return json.loads((root / "durations.json").read_text())


def tests_seconds(tasks: list[Task], durations: dict[str, float]) -> float:
    """The summed durations of each task's selected tests (a test selected by two tasks counts twice)."""
    total = 0.0
    for task in tasks:
        for test in task.tests or durations:
            if test not in durations:
                raise SystemExit(f"{task.id}: selected test {test} was not seen in the timed run of the suite")
            total += durations[test]
    return total


# -- the run ----------------------------------------------------------------------------------


def sample(tasks: list[Task], n: int | None, seed: int) -> list[Task]:
    if n is None or n >= len(tasks):
        return tasks
    chosen = random.Random(f"{seed}:{tasks[0].repo}").sample(range(len(tasks)), n)
    return [tasks[i] for i in sorted(chosen)]


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.1f}/{five:.1f}"


def print_failures(label: str, failures: list[str]) -> None:
    for failure in failures:
        print(f"  FAILED ({label}) {failure}")


IDLE = "idle slots (bridge, scheduling, start, imbalance)"


def phase_table(result: EngineResult, jobs: int, tests: float) -> list[list[object]]:
    """Print where the engine's slot seconds went; the rows ``[phase, seconds, per cent, calls]``."""
    slots = result.seconds * jobs
    busy = sum(result.clock.seconds.values())
    rows: list[list[object]] = []
    print(f"  where the engine's {slots:,.1f} CPU-slot seconds went (exclusive seconds, summed over threads):")
    for label, seconds in sorted(result.clock.seconds.items(), key=lambda kv: -kv[1]):
        print(f"    {label:52} {seconds:9.1f} s {100 * seconds / slots:5.1f} %  ({result.clock.calls[label]} calls)")
        rows.append([label, round(seconds, 1), round(100 * seconds / slots, 1), result.clock.calls[label]])
    print(f"    {IDLE:52} {slots - busy:9.1f} s {100 * (slots - busy) / slots:5.1f} %")
    rows.append([IDLE, round(slots - busy, 1), round(100 * (slots - busy) / slots, 1), None])
    print(f"    the tests themselves: {tests:,.2f} s; the engine's own measure of its per-task test runs: {result.task_run_seconds:,.1f} s")
    return rows


def summary(naive_line: str, naive_per_minute: float, result: EngineResult, jobs: int, tests: float) -> tuple[dict[str, object], list[list[object]]]:
    """Print tasks per minute of both modes, their ratio, the engine's overhead and its phases;
    return them as figures (without a prefix) and the phase rows."""
    slots = result.seconds * jobs
    print(f"  (a) naive : {naive_line} = {naive_per_minute:,.1f} tasks/min")
    print(f"  (b) engine: {result.tasks} tasks in {result.seconds:,.1f} s = {result.per_minute:,.1f} tasks/min (--jobs {jobs}, set-up included)")
    print(f"  ratio (b)/(a) in tasks per minute: {result.per_minute / naive_per_minute:.1f}x")
    print(f"  engine overhead: {slots:,.1f} CPU-slot s for {tests:,.2f} s of the tests themselves = {100 * (slots / tests - 1):,.0f} %")
    print(f"  (over the engine's own {result.task_run_seconds:,.1f} s of per-task test runs: {100 * (slots / result.task_run_seconds - 1):,.0f} %)")
    phases = phase_table(result, jobs, tests)
    print_failures("engine", result.failures)
    figures = {
        "tasks": result.tasks,
        "naive_tasks_per_minute": round(naive_per_minute, 1),
        "engine_seconds": round(result.seconds, 1),
        "engine_tasks_per_minute": round(result.per_minute, 1),
        "ratio": round(result.per_minute / naive_per_minute, 1),
        "tests_seconds": round(tests, 2),
        "overhead_percent": round(100 * (slots / tests - 1)),
        "overhead_over_own_runs_percent": round(100 * (slots / result.task_run_seconds - 1)),
        "share_task_runs_percent": round(100 * result.clock.seconds.get("task test runs on warm servers", 0.0) / slots, 1),
    }
    return figures, phases


def compare(manifest: Manifest, chosen: list[Task], engine_first: bool, sandbox: Sandbox, jobs: int, work: Path) -> tuple[ModeResult, EngineResult]:
    """Both modes on one repository's sample, in the order given."""
    n = e = None
    for mode in ("engine", "naive") if engine_first else ("naive", "engine"):
        if mode == "naive":
            n = naive(manifest, chosen, sandbox)
        else:
            e = engine((SCENARIOS / f"{manifest.name}.jsonl",), {t.id for t in chosen}, jobs, work, f"sample-{manifest.name}")
    assert n is not None and e is not None
    return n, e


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", nargs="*", default=None, help=f"[default: all bundled; {SMOKE_REPOSITORY} with --smoke]")
    parser.add_argument("--sample", type=int, default=None, help="tasks per repository for both modes (0: all) [default: 5; 1 with --smoke]")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=max(1, os.cpu_count() or 1), help="the engine's --jobs [default: cores]")
    parser.add_argument("--engine-all", action="store_true", help="also replay every task of the repositories in one engine run")
    add_arguments(parser)
    args = parser.parse_args()
    args.repos = args.repos or ([SMOKE_REPOSITORY] if args.smoke else ALL)
    if args.sample is None:
        args.sample = SMOKE_SAMPLE if args.smoke else 5
    load_before = load()
    figures: dict[str, object] = {"jobs": args.jobs, "sample_per_repository": args.sample or "all", "seed": args.seed, "load_before": load_before}
    repo_rows: list[list[object]] = []
    phase_rows: list[list[object]] = []
    sandbox = Sandbox.create()
    catalog = RepoCatalog()
    work = Path(tempfile.mkdtemp(prefix="engine-speed-", dir=SCRATCH))
    every = {name: read_tasks(SCENARIOS / f"{name}.jsonl") for name in args.repos}
    durations: dict[str, dict[str, float]] = {}
    naive_total, engine_total = ModeResult(), EngineResult()
    tests_total = 0.0
    naive_rate: dict[str, float] = {}  # seconds per task
    print(f"oracle, bubblewrap; engine --jobs {args.jobs}; sample {args.sample or 'all'} task(s) per repository, seed {args.seed}; load average (1/5 min) before: {load_before}")
    print(f"{'repository':11} {'tasks':>5} {'naive':>9} {'engine':>9} {'ratio':>6} {'tests':>8} {'overhead':>9} {'load':>9}")
    try:
        for i, name in enumerate(args.repos):
            manifest = catalog.get(name)
            chosen = sample(every[name], args.sample or None, args.seed)
            durations[name] = suite_durations(manifest, sandbox)
            tests = tests_seconds(chosen, durations[name])
            n, e = compare(manifest, chosen, i % 2 == 0, sandbox, args.jobs, work)  # alternating: noise hits both
            naive_total.add(n)
            engine_total.add(e)
            tests_total += tests
            naive_rate[name] = n.seconds / n.tasks
            overhead = e.seconds * args.jobs / tests - 1
            now = load()
            print(f"{name:11} {len(chosen):>5} {n.seconds:>7.1f} s {e.seconds:>7.1f} s {n.seconds / e.seconds:>5.1f}x {tests:>6.2f} s {100 * overhead:>8.0f}% {now:>9}", flush=True)
            repo_rows.append([name, len(chosen), round(n.seconds, 1), round(e.seconds, 1), round(n.seconds / e.seconds, 1), round(tests, 2), round(100 * overhead), now])
            print_failures("naive", n.failures)
        print(f"\nsample, {naive_total.tasks} tasks, engine run once per repository:")
        naive_line = f"{naive_total.tasks} tasks in {naive_total.seconds:,.1f} s (serial, whole suite, fresh copy)"
        sampled, phases = summary(naive_line, naive_total.per_minute, engine_total, args.jobs, tests_total)
        figures |= {f"sample_{key}": value for key, value in sampled.items()}
        figures |= {"sample_naive_seconds": round(naive_total.seconds, 1)}
        phase_rows += [["sample", *row] for row in phases]
        failures = len(naive_total.failures) + len(engine_total.failures)
        if args.engine_all:
            everything = [t for name in args.repos for t in every[name]]
            full = engine(tuple(SCENARIOS / f"{name}.jsonl" for name in args.repos), {t.id for t in everything}, args.jobs, work, "all")
            tests_all = sum(tests_seconds(every[name], durations[name]) for name in args.repos)
            estimate = sum(naive_rate[name] * len(every[name]) for name in args.repos)
            print(f"\nall {len(everything)} tasks, one engine run (load after it {load()}):")
            naive_line = f"estimated from each repository's sampled seconds per task: {estimate:,.0f} s"
            every_figures, phases = summary(naive_line, 60 * len(everything) / estimate, full, args.jobs, tests_all)
            figures |= {f"all_{key}": value for key, value in every_figures.items()}
            figures |= {"all_naive_estimate_seconds": round(estimate)}
            phase_rows += [["all", *row] for row in phases]
            failures += len(full.failures)
        print()
        print("the tests themselves: per task, the summed durations of its selected tests, each from its start to its end (set-up and")
        print(f"tear-down included), the fastest of {ROUNDS} whole-suite runs in one warm process per repository, in the sandbox;")
        print("overhead = the engine's CPU-slot seconds (wall x jobs) / that - 1: start-up, imports, compilation, copies, reference runs count")
        load_after = load()
        print(f"failures: {failures}; load average (1/5 min) after: {load_after}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        sys.exit(1)
    figures |= {"failures": failures, "load_after": load_after}
    tables = {
        "repositories": (["repository", "tasks", "naive_seconds", "engine_seconds", "ratio", "tests_seconds", "overhead_percent", "load"], repo_rows),
        "phases": (["run", "phase", "seconds", "percent", "calls"], phase_rows),
    }
    write_results("engine_speed", args, figures, tables)


if __name__ == "__main__":
    main()
