"""Named mutations of the checks that decide a figure, each run against the tests that must catch it.

simpilot's figures rest on a few checks: the proof of a pass (``replay/execution/proof/check.py``), the
work copy's state and its host-side writes (``workcopy.py``, ``beneath.py``), which tests a hole
selects and how selected ids are matched (``selection.py``, ``pytest_select.py``, the JUnit
runner's ``--select``, the proof's ``_passed``), the validation gate (``replay/validation/gate.py``),
resume (``replay/run/pipeline.py``: the unit of work and when a run is complete) and the store's
uniqueness (``replay/store``). Each mutation below weakens one of them the way a plausible bug
would (PIT-style: named, one edit each); the tests named with it must then fail. A mutant whose
tests still pass SURVIVED: either a test is missing, or the mutant is equivalent (it changes no
behaviour), which its ``equivalent`` field then says.

    .venv/bin/python benchmarks/check_mutations.py [--check proof,gate,...] [--only NAME] [--no-save] [--smoke] [--results-dir DIR]

First every mutation's tests run without a mutant and must pass (a kill means nothing otherwise).
Then each mutation edits its file in place (its original text must occur exactly once), runs
``pytest -x -q -p no:randomly`` on its tests, and puts the file back: in a ``finally``, at exit,
and on SIGINT/SIGTERM/SIGHUP. The original is put back by replacing the mutated text with it
around its place, so an edit someone else made to the file meanwhile is kept; a run during which
the file lost its mutant is made again, and a mutant brought back later (a ``git stash`` popped)
is undone again. Prints one line per mutation and the totals (mutants, killed, survived, wall
time); writes them to ``benchmarks/results/mutations.json`` (figures: mutants, killed, survived,
equivalent, seconds; the table ``mutations``: one row per mutant with the first test that failed);
exits 1 when a mutant that is not known to be equivalent survives. ``--smoke`` runs one mutation
of the store (its tests take seconds) and writes to a temporary folder.

The mutants are made in the working tree, so other processes importing these files meanwhile see
them: run it when no one else is running tests in the same checkout.
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.results_file import add_arguments, write_results  # noqa: E402
from replay.core.paths import cache_root  # noqa: E402

# The JUnit runner is built once per source text into simpilot's cache (runners/junit.py): a
# mutant's build is removed after its run.
RUNNER_BUILDS = cache_root() / "java"
SMOKE_CHECK, SMOKE_ONLY = "store", "a later verdict ignored"  # one mutant whose tests take seconds

PROOF = "replay/execution/proof/check.py"
WORKCOPY = "replay/execution/workcopies/copies.py"
BENEATH = "replay/execution/workcopies/beneath.py"
SELECTION = "replay/validation/selection.py"
PYTEST_SELECT = "replay/execution/inside/pytest_select.py"
JUNIT_RUNNER = "replay/execution/inside/SimpilotJUnit.java"
GATE = "replay/validation/gate.py"
PIPELINE = "replay/run/pipeline.py"
STORE = "replay/store/__init__.py"

PROOF_TESTS = ("tests/test_proof.py", "tests/test_workcopy.py")
WORKCOPY_TESTS = ("tests/test_workcopy.py",)
SELECTION_TESTS = ("tests/test_selection_ids.py",)
COVERAGE_TESTS = ("tests/e2e/test_selection.py::test_a_parametrized_id_with_a_pipe_is_selected_whole",)  # a sandboxed coverage run
PROBE_TESTS = ("tests/test_java_probes.py::test_probe_failures_become_method_selections",)
JUNIT_TESTS = ("tests/e2e/test_java_gate.py::test_a_selected_method_runs_alone_not_the_methods_its_name_starts",)  # a JVM run
GATE_TESTS = ("tests/test_gate_decisions.py",)
RESUME_TESTS = ("tests/test_resume_units.py",)
STORE_TESTS = ("tests/test_store_samples.py",)
RUN_END = "replay/execution/run_end.py"
REPETITION = "replay/validation/repetition.py"
RECORDS = "replay/core/records.py"
REPO_CONTEXT = "lsp_bridge/repo_context.py"
MANIFEST = "replay/config/manifest.py"
EDITOR_TEXT = "postprocess/editor_text.py"
RUN_END_TESTS = ("tests/test_run_end.py",)
REPETITION_TESTS = ("tests/test_filler_repetition.py", "tests/test_program_gate.py")
REFERENCES = "replay/execution/scheduling/references.py"
LIMITS = "replay/execution/scheduling/limits.py"
LIMIT_TESTS = ("tests/test_reference.py",)
SANDBOX = "replay/execution/sandbox/bubblewrap.py"
PLUGINS = "replay/environments/plugins.py"
PLUGIN_TESTS = (
    "tests/test_user_plugins.py::test_simpilots_own_interpreter_lends_none_of_its_plugins",
    "tests/test_user_plugins.py::test_every_pytest_command_names_the_repositorys_plugins_after_the_proof_reporter",
    "tests/test_user_plugins.py::test_a_named_venvs_plugin_loads_and_simpilots_do_not",
)
SCENARIO_TESTS = ("tests/test_scenario_checks.py",)


@dataclass(frozen=True, slots=True)
class Mutation:
    """One named weakening of a check: ``original_text`` in ``file`` becomes ``mutated_text``;
    ``tests`` must fail then. ``equivalent``: why the mutant changes no behaviour, when it does not."""

    name: str
    file: str
    original_text: str
    mutated_text: str
    tests: tuple[str, ...]
    equivalent: str = ""


MUTATIONS: dict[str, tuple[Mutation, ...]] = {
    # The proof of a pass: records, their signatures and sequence, the end record, the shortfall.
    "proof": (
        Mutation("MAC not verified", PROOF, "if not hmac.compare_digest(sign(token, body)[:64], mac):", "if False:", PROOF_TESTS),
        Mutation("sequence not checked", PROOF, 'if record.get("seq") != expected:', "if False:", PROOF_TESTS),
        Mutation("tampered event ignored", PROOF, 'tampered.append(str(record.get("what", "unknown")))', "pass", PROOF_TESTS),
        Mutation("forged count dropped", PROOF, "if forged:\n        tampered.append", "if False:\n        tampered.append", PROOF_TESTS),
        Mutation("tampering not first", PROOF, "    if proof.tampered:  # first", "    if False:  # first", PROOF_TESTS),
        Mutation("end without start", PROOF, 'elif event == "end" and started:', 'elif event == "end":', PROOF_TESTS),
        Mutation(
            "framework list ignored",
            PROOF,
            'tampered += [f"framework-replaced {t}" for t in record.get("tampered") or ()]',
            "pass",
            PROOF_TESTS,
        ),
        Mutation("unfinished run passes", PROOF, "    if not proof.finished:", "    if False:", PROOF_TESTS),
        Mutation("missing tests pass", PROOF, "    if missing:\n", "    if False:\n", PROOF_TESTS),
        Mutation("with_tampering drops events", PROOF, "tampered=(*base.tampered, *events)", "tampered=base.tampered", PROOF_TESTS),
    ),
    # The work copy: what the host writes back and reads, and when the copy is rebuilt.
    "work copy": (
        Mutation(
            "nothing planted",
            WORKCOPY,
            "    events = []\n    for path, entry in sorted(after.items()):",
            "    events = []\n    for path, entry in []:",
            WORKCOPY_TESTS,
        ),
        Mutation(
            "no rebuild after a changed copy",
            WORKCOPY,
            "                self._rebuild()\n\n    @contextmanager",
            "                pass\n\n    @contextmanager",
            WORKCOPY_TESTS,
        ),
        Mutation(
            "links followed in folders",
            BENEATH,
            "_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC",
            "_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC",
            WORKCOPY_TESTS,
        ),
        Mutation("link followed at the file", BENEATH, "flags | os.O_NOFOLLOW | os.O_NONBLOCK", "flags | os.O_NONBLOCK", WORKCOPY_TESTS),
        Mutation("hard links accepted", BENEATH, "or st.st_nlink != 1", "", WORKCOPY_TESTS),
        Mutation(
            "caches left out of the state",
            BENEATH,
            "                stack.append(relative)",
            "                stack.append(relative) if entry.name != '__pycache__' else None",
            WORKCOPY_TESTS,
        ),
    ),
    # Selection: which tests a hole selects, and how a selected id is matched against the ids a
    # run reports (Java classes and methods, pytest node ids).
    "selection": (
        Mutation(
            "Java class matched by prefix (FooTest runs FooTestHelper)",
            PROOF,
            'outcome == "passed" and (cls == name or cls.startswith(nested))',
            'outcome == "passed" and cls.startswith(name)',
            SELECTION_TESTS,
        ),
        Mutation(
            "Java nested classes do not stand for their class",
            PROOF,
            'outcome == "passed" and (cls == name or cls.startswith(nested))',
            'outcome == "passed" and cls == name',
            SELECTION_TESTS,
        ),
        Mutation("Java method matched by prefix (adds runs addsAll)", PROOF, 'runs = name + "("', "runs = name", SELECTION_TESTS),
        Mutation(
            "Java runner selects methods by prefix (adds runs addsAll)",
            JUNIT_RUNNER,
            "if (m.getName().equals(method) && !m.isSynthetic()",
            "if (m.getName().startsWith(method) && !m.isSynthetic()",
            JUNIT_TESTS,
        ),
        Mutation(
            "Python id proven by a test whose id it prefixes (test_a by test_ab)",
            PROOF,
            'if proof.outcomes.get(name) == "passed":',
            'if any(o == "passed" and t.startswith(name) for t, o in proof.outcomes.items()):',
            SELECTION_TESTS,
        ),
        Mutation(
            "Python selection by prefix (test_a runs test_ab, test_p[1] runs test_p[10])",
            PYTEST_SELECT,
            "keep = [item for item in items if item.nodeid in wanted]",
            "keep = [item for item in items if any(item.nodeid.startswith(w) for w in wanted)]",
            SELECTION_TESTS,
        ),
        Mutation(
            "Python selection by function (a parametrized id runs every case)",
            PYTEST_SELECT,
            "keep = [item for item in items if item.nodeid in wanted]",
            'keep = [item for item in items if item.nodeid.split("[")[0] in {w.split("[")[0] for w in wanted}]',
            SELECTION_TESTS,
        ),
        Mutation(
            "Python selection by class (a method id runs the class's other methods)",
            PYTEST_SELECT,
            "keep = [item for item in items if item.nodeid in wanted]",
            'keep = [item for item in items if item.nodeid.rsplit("::", 1)[0] in {w.rsplit("::", 1)[0] for w in wanted}]',
            SELECTION_TESTS,
        ),
        Mutation(
            "Python hole's last line selects nothing",
            SELECTION,
            "range(task.span.start.line + 1, task.span.end.line + 2)",
            "range(task.span.start.line + 1, task.span.end.line + 1)",
            SELECTION_TESTS,
        ),
        Mutation(
            "Python coverage context cut at the first '|' (test_p[a|b])",
            SELECTION,
            'ids = frozenset(c.rsplit("|", 1)[0] for c in contexts if c)',
            'ids = frozenset(c.split("|", 1)[0] for c in contexts if c)',
            COVERAGE_TESTS,
        ),
        Mutation(
            "Java probe's failures named with their parameters",
            SELECTION,
            'name = test.split("#", 1)[1].split("(", 1)[0] if "#" in test else ""',
            'name = test.split("#", 1)[1] if "#" in test else ""',
            PROBE_TESTS,
        ),
        Mutation(
            "Java candidates not transitive (a test of BTreeMap for a hole in Node)",
            SELECTION,
            "                    relevant.add(user)\n                    todo.append(user)",
            "                    relevant.add(user)",
            SELECTION_TESTS,
        ),
    ),
    # The validation gate: which holes become tasks. Both languages go through the same code;
    # the tests run each condition for a Python and a Java task.
    "gate": (
        Mutation(
            "untouched tests run once",
            GATE,
            "    for attempt in (1, 2):\n        result = evaluator.run_tests(manifest, full_suite=True)",
            "    for attempt in (1,):\n        result = evaluator.run_tests(manifest, full_suite=True)",
            GATE_TESTS,
        ),
        Mutation(
            "untouched code not proven through simpilot's runner",
            GATE,
            "    gap = shortfall(result.proof, None)\n    if gap is not None:\n        found = java_runner.classify",
            "    gap = None\n    if gap is not None:\n        found = java_runner.classify",
            GATE_TESTS,
        ),
        Mutation(
            "Java suite without a test command run once",
            GATE,
            "    for attempt in (1, 2):\n        result = evaluator.run_tests(manifest, tests=None, full_suite=False)",
            "    for attempt in (1,):\n        result = evaluator.run_tests(manifest, tests=None, full_suite=False)",
            GATE_TESTS,
        ),
        Mutation(
            "ground truth that does not reproduce the file kept",
            GATE,
            "if apply(task, original, task.ground_truth) != original:",
            "if False:",
            GATE_TESTS,
        ),
        Mutation("selected tests failing on the untouched code kept", GATE, "if why_not is not None:", "if False:", GATE_TESTS),
        Mutation(
            "hole no selected test executes kept",
            GATE,
            "        if tests:\n            kept.append(replace(task, tests=tests))",
            "        if True:\n            kept.append(replace(task, tests=tests))",
            GATE_TESTS,
        ),
        Mutation(
            "filler run once (its failure counted twice)",
            GATE,
            "verdicts = [evaluator.evaluate(task, fill, limit) for _ in range(MIN_RUNS)]",
            "verdicts = [evaluator.evaluate(task, fill, limit)] * MIN_RUNS",
            GATE_TESTS,
        ),
        Mutation(
            "filler failure no per-test result shows kept",
            GATE,
            "unproven = next((v for v in verdicts if v.status is not Status.PASS and not v.proven), None)",
            "unproven = None",
            GATE_TESTS,
        ),
        Mutation(
            "filler not run again past the first two runs",
            GATE,
            "while again and len(verdicts) < runs",
            "while False and len(verdicts) < runs",
            ("tests/test_filler_repetition.py",),
        ),
        Mutation("filler that passes kept", GATE, "filler_fails=all(failing),", "filler_fails=True,", GATE_TESTS),
        Mutation("filler failing in one run of two kept", GATE, "stable=len(set(failing)) == 1,", "stable=True,", GATE_TESTS),
        Mutation(
            "uncompiled filler not followed by a probe",
            GATE,
            "if verdicts[0].status in _UNCOMPILED[task.language]:",
            "if False:",
            GATE_TESTS,
        ),
        Mutation(
            "throwing probe that passes kept", GATE, "        if self.verdict.status is Status.PASS:", "        if False:", GATE_TESTS
        ),
        Mutation(
            "probe failure no per-test result shows kept", GATE, "        if not self.verdict.proven:", "        if False:", GATE_TESTS
        ),
        Mutation(
            "no compiling probe kept",
            GATE,
            "            return Drop(DropReason.NO_PROBE_COMPILES, NO_PROBE_COMPILES)",
            "            return None",
            GATE_TESTS,
        ),
        Mutation(
            "Java selection not narrowed to the methods the probe reaches",
            GATE,
            "task = replace(task, tests=probe.methods or task.tests)",
            "task = replace(task, tests=task.tests)",
            GATE_TESTS,
        ),
    ),
    # Resume: the unit of work is (task, preset, sample); a run is finished only when every one
    # of them has its outcome and every request its answers.
    "resume": (
        Mutation(
            "a task's remaining presets and samples skipped once any outcome is stored",
            PIPELINE,
            "if not fresh and (task.id, preset, completion.sample) in done:",
            "if not fresh and any(key[0] == task.id for key in done):",
            RESUME_TESTS,
        ),
        Mutation(
            "a preset's remaining samples skipped once one is stored",
            PIPELINE,
            "if not fresh and (task.id, preset, completion.sample) in done:",
            "if not fresh and any(key[:2] == (task.id, preset) for key in done):",
            RESUME_TESTS,
        ),
        Mutation(
            "outcomes of a re-asked request not judged again",
            PIPELINE,
            "if not fresh and (task.id, preset, completion.sample) in done:",
            "if (task.id, preset, completion.sample) in done:",
            RESUME_TESTS,
        ),
        Mutation("stored model errors not asked again", PIPELINE, "fresh = not answered(samples)", "fresh = not samples", RESUME_TESTS),
        Mutation(
            "run complete with one outcome missing",
            PIPELINE,
            " and len(store.outcome_keys(run_id)) == expected:",
            ":",
            RESUME_TESTS,
        ),
        Mutation(
            "run complete with a request unanswered",
            PIPELINE,
            "if all(answered(final.get(t.id)) for t in tasks) and",
            "if True and",
            RESUME_TESTS,
        ),
    ),
    # The store: one outcome per (run, task, preset, sample), the latest verdict kept; one set of
    # answers per request.
    "store": (
        Mutation(
            "outcomes without a key (duplicate rows)",
            STORE,
            "sample INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (run_id, task_id, postprocess, sample)",
            "sample INTEGER NOT NULL DEFAULT 0",
            STORE_TESTS,
        ),
        Mutation(
            "outcome key without the sample",
            STORE,
            "PRIMARY KEY (run_id, task_id, postprocess, sample)",
            "PRIMARY KEY (run_id, task_id, postprocess)",
            STORE_TESTS,
        ),
        Mutation("a later verdict ignored", STORE, "INSERT OR REPLACE INTO outcomes", "INSERT OR IGNORE INTO outcomes", STORE_TESTS),
        Mutation(
            "a re-asked request's earlier answers kept",
            STORE,
            '                self.db.execute("DELETE FROM completions WHERE run_id=? AND task_id=?", (run_id, task_id))',
            "                pass",
            STORE_TESTS,
        ),
    ),
    # What ended a run: memory is never a timeout, a SIGKILL is CPU time only with the budget used.
    "run end": (
        Mutation("an OOM kill read as its signal", RUN_END, "if oom_kills > 0 and returncode != 0:", "if False:", RUN_END_TESTS),
        Mutation("any SIGKILL is CPU time", RUN_END, "cpu_used >= HARD_LIMIT_SHARE * cpu_budget", "True", RUN_END_TESTS),
        Mutation("a MemoryError is a runtime error", RUN_END, "return name in MEMORY_ERRORS or", "return False and", RUN_END_TESTS),
        Mutation("SIGXCPU is a crash", RUN_END, "if returncode == -signal.SIGXCPU:", "if False:", RUN_END_TESTS),
    ),
    # How often an answer that must fail runs: the target, the budget, the floor.
    "repetition": (
        Mutation(
            "the budget ignored: two runs",
            REPETITION,
            "return max(MIN_RUNS, min(TARGET_RUNS, math.floor(budget / cost)))",
            "return MIN_RUNS",
            REPETITION_TESTS,
        ),
        Mutation("no floor of two runs", REPETITION, "return max(MIN_RUNS, min(", "return max(1, min(", REPETITION_TESTS),
    ),
    # Replay's time limits: a JVM's own compile and JIT threads must not make the ground truth a busy loop.
    "limits": (
        Mutation(
            "a JVM run gets the 1 s floor",
            REFERENCES,
            'return REPLAY_MIN_CPU_JVM if task.language == "java" else REPLAY_MIN_CPU',
            "return REPLAY_MIN_CPU",
            LIMIT_TESTS,
        ),
        Mutation(
            "a first run ignores the language",
            LIMITS,
            "REPLAY_MIN_TIMEOUT), min_cpu(task))",
            "REPLAY_MIN_TIMEOUT), REPLAY_MIN_CPU)",
            LIMIT_TESTS,
        ),
    ),
    # What a sandboxed run can see and which pytest plugins a repository's run loads.
    "sandbox": (
        Mutation(
            "the whole file system shown",
            SANDBOX,
            'args = ["bwrap", *system_binds(), "--dev", "/dev"',
            'args = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev"',
            ("tests/test_sandbox.py::test_an_answer_cannot_read_the_ground_truth_on_disk",),
        ),
        Mutation(
            "the sandbox's root writable",
            SANDBOX,
            'args += ["--remount-ro", "/"]',
            "pass",
            ("tests/test_sandbox.py::test_writes_inside_the_work_folder_only",),
        ),
        Mutation(
            "plugin autoload left on",
            PLUGINS,
            'return {AUTOLOAD: "1"} if manages(manifest, argv) else {}',
            "return {}",
            PLUGIN_TESTS,
        ),
        Mutation(
            "simpilot's own plugins named",
            PLUGINS,
            "    return frozenset(found)\n",
            "    return frozenset()\n",
            PLUGIN_TESTS,
        ),
    ),
    # A scenario's records checked when read, and inputs that must not stop a run.
    "input": (
        Mutation("two test ids in one line", RECORDS, r'any(c in test for c in "\n\r\0")', "False", SCENARIO_TESTS),
        Mutation("an empty test list selects nothing", RECORDS, "    if not ids:\n", "    if False:\n", SCENARIO_TESTS),
        Mutation(
            "a Python id without its file",
            RECORDS,
            'if not (sep and name and file.endswith(".py")):',
            "if False:",
            SCENARIO_TESTS,
        ),
        Mutation(
            "a named pipe read as a source",
            REPO_CONTEXT,
            "        if not S_ISREG(stat.st_mode):",
            "        if False:",
            ("tests/test_repo_context.py::test_a_named_pipe_or_a_socket_named_like_a_source_is_skipped_not_waited_on",),
        ),
        Mutation(
            "a named pipe listed as a source",
            MANIFEST,
            "return stat.S_ISREG(os.stat(path).st_mode)",
            "return True",
            ("tests/test_manifest.py::test_a_named_pipe_named_like_a_source_is_no_source_and_marking_does_not_wait_on_it",),
        ),
        Mutation(
            "a lone surrogate written as it came",
            EDITOR_TEXT,
            'return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")',
            "return text",
            ("tests/e2e/test_odd_answers.py",),
        ),
    ),
}


# -- applying a mutation, and always undoing it --------------------------------------------------

_APPLIED: dict[Path, tuple[str, str]] = {}  # file -> (original place, mutated place) of the mutant in it now
_MADE: list[tuple[Path, str, str, str]] = []  # every mutation made: (file, original place, mutated place, name)
_CONTEXT = 60  # characters of the original kept on each side of a mutated place, to find it again


def _apply(mutation: Mutation) -> None:
    path = ROOT / mutation.file
    text = path.read_text()
    found = text.count(mutation.original_text)
    if found != 1:
        raise SystemExit(f"{mutation.name}: the original text occurs {found} times in {mutation.file}, not once: update the mutation")
    start = text.index(mutation.original_text)
    end = start + len(mutation.original_text)
    before, after = text[max(0, start - _CONTEXT) : start], text[end : end + _CONTEXT]
    original_place, mutated_place = before + mutation.original_text + after, before + mutation.mutated_text + after
    _APPLIED[path] = (original_place, mutated_place)
    _MADE.append((path, original_place, mutated_place, mutation.name))
    path.write_text(text[:start] + mutation.mutated_text + text[end:])


def _restore(path: Path) -> None:
    """Put back the original text at the mutated place, keeping whatever else changed in the
    file meanwhile; then move the file's time past the mutant's, so that no bytecode compiled
    from the mutant (by anyone) is taken for the original's. A file rewritten at the mutated
    place meanwhile is left as it is (someone else's edit), with a warning."""
    if path not in _APPLIED:  # already restored (a signal came during a run)
        return
    original_place, mutated_place = _APPLIED.pop(path)
    text = path.read_text()
    if text.count(mutated_place) == 1:
        path.write_text(text.replace(mutated_place, original_place, 1))
    elif text.count(original_place) != 1:
        print(f"warning: {path} was rewritten at the mutated place meanwhile: left as it is, check it", file=sys.stderr)
    later = max(time.time_ns(), path.stat().st_mtime_ns) + 2_000_000_000
    os.utime(path, ns=(later, later))


def _restore_all() -> None:
    for path in list(_APPLIED):
        _restore(path)


def _sweep() -> list[str]:
    """Put back every mutated place made so far that is in its file again, and name them: a
    ``git stash`` taken while a mutant was in place brings the mutant back when it is popped."""
    found = []
    for path, original_place, mutated_place, name in _MADE:
        if path in _APPLIED:
            continue
        text = path.read_text()
        if text.count(mutated_place) == 1:
            path.write_text(text.replace(mutated_place, original_place, 1))
            found.append(f"{path.relative_to(ROOT)}: {name}")
    for where in found:
        print(f"warning: a mutant came back and was undone ({where})", file=sys.stderr)
    return found


def _stop(signum: int, _frame: object) -> None:
    _restore_all()
    raise SystemExit(128 + signum)


# -- running ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Result:
    check: str
    mutation: Mutation
    killed: bool
    seconds: float
    failure: str  # the first failing test, as pytest names it ("" when none failed)


def pytest(tests: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    """``tests`` run until the first failure, in a fresh interpreter that writes no bytecode (none
    of a mutant is left behind)."""
    # -m "": the tests named run whatever their marker (the default run leaves the slow ones out)
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-m", "", "-p", "no:randomly", "-p", "no:cacheprovider", *tests]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)


def run(check: str, mutation: Mutation, attempts: int = 3) -> Result:
    """Run ``mutation``'s tests with the mutant in place. A run during which the file lost the
    mutant (someone else rewrote it: a ``git stash``, a checkout) measured nothing: it is run again."""
    started = time.monotonic()
    path = ROOT / mutation.file
    for attempt in range(1, attempts + 1):
        builds = set(RUNNER_BUILDS.iterdir()) if RUNNER_BUILDS.is_dir() else set()
        _apply(mutation)
        try:
            done = pytest(mutation.tests)
            intact = path.read_text().count(_APPLIED[path][1]) == 1
        finally:
            _restore(path)
            if mutation.file.endswith(".java") and RUNNER_BUILDS.is_dir():
                for build in set(RUNNER_BUILDS.iterdir()) - builds:
                    shutil.rmtree(build, ignore_errors=True)
        if intact:
            break
        print(f"warning: {mutation.file} lost the mutant '{mutation.name}' during its run (attempt {attempt})", file=sys.stderr)
    else:
        raise SystemExit(f"{mutation.name}: {mutation.file} kept changing under the runs; try again when it is left alone")
    failure = next((line.split(" - ")[0] for line in done.stdout.splitlines() if line.startswith(("FAILED ", "ERROR "))), "")
    # exit 5: no test ran (a name that selects nothing): that kills no mutant
    killed = done.returncode not in (0, 5)
    if done.returncode == 5:
        failure = "pytest exit 5: no test ran"
    if killed and not failure:  # the tests pass without the mutant: it broke their collection, or pytest itself
        failure = f"pytest exit {done.returncode}: {' '.join((done.stdout + done.stderr).strip().splitlines()[-1:])}"
    return Result(check, mutation, killed, time.monotonic() - started, failure)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", help=f"comma-separated checks to mutate [default: all: {', '.join(MUTATIONS)}]")
    parser.add_argument("--only", help="run only the mutations whose name contains this text")
    parser.add_argument("--no-save", action="store_true", help="do not write the results file")
    add_arguments(parser)
    args = parser.parse_args()
    if args.smoke:
        args.check, args.only = args.check or SMOKE_CHECK, args.only or SMOKE_ONLY
    checks = args.check.split(",") if args.check else list(MUTATIONS)
    unknown = [c for c in checks if c not in MUTATIONS]
    if unknown:
        parser.error(f"unknown check(s) {', '.join(unknown)}; choose from {', '.join(MUTATIONS)}")
    chosen = [(c, m) for c in checks for m in MUTATIONS[c] if args.only is None or args.only in m.name]
    for _, mutation in chosen:  # every mutation applies before any runs
        text = (ROOT / mutation.file).read_text()
        if text.count(mutation.original_text) != 1:
            parser.error(f"{mutation.name}: its original text occurs {text.count(mutation.original_text)} times in {mutation.file}")

    atexit.register(_sweep)
    atexit.register(_restore_all)  # runs first
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _stop)
    load = round(os.getloadavg()[0], 1)
    print(f"{len(chosen)} mutants of {len(checks)} checks, {os.cpu_count()} cores, load {load}")
    started = time.monotonic()
    # A kill means something only if the same tests pass without the mutant (PIT's green suite).
    suites = sorted({mutation.tests for _, mutation in chosen})
    for tests in suites:
        done = pytest(tests)
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
            parser.exit(2, f"the tests fail without any mutant: {' '.join(tests)}\n{tail}\n")
    green = time.monotonic() - started
    print(f"the tests pass without a mutant ({len(suites)} runs, {green:.1f} s)")
    results = []
    for check, mutation in chosen:
        _sweep()
        result = run(check, mutation)
        results.append(result)
        verdict = "killed  " if result.killed else ("equivalent" if mutation.equivalent else "SURVIVED")
        print(f"{verdict} {result.seconds:5.1f} s  {check:9s} {mutation.name}" + (f"  [{result.failure}]" if result.failure else ""))
    wall = time.monotonic() - started  # the runs without a mutant included
    came_back = _sweep()

    killed = sum(r.killed for r in results)
    equivalent = [r for r in results if not r.killed and r.mutation.equivalent]
    survived = [r for r in results if not r.killed and not r.mutation.equivalent]
    print(
        f"mutants {len(results)}, killed {killed}, survived {len(results) - killed} ({len(equivalent)} equivalent), wall time {wall:.1f} s"
    )
    for r in equivalent:
        print(f"  equivalent: {r.mutation.name}: {r.mutation.equivalent}")
    for r in survived:
        print(f"  SURVIVED: {r.check}: {r.mutation.name} ({r.mutation.file}): no test in {', '.join(r.mutation.tests)} notices it")
    if not args.no_save:
        figures = {
            "checks": len(checks),
            "mutants": len(results),
            "killed": killed,
            "survived": len(results) - killed,
            "equivalent": len(equivalent),
            "seconds": round(wall, 1),
            "seconds_without_mutants": round(green, 1),
            "load_at_start": load,
            "mutants_that_came_back": len(came_back),
        }
        rows = [
            [r.check, r.mutation.name, r.mutation.file, " ".join(r.mutation.tests), r.killed, round(r.seconds, 1), r.failure, r.mutation.equivalent]
            for r in results
        ]
        columns = ["check", "name", "file", "tests", "killed", "seconds", "failure", "equivalent"]
        write_results("mutations", args, figures, {"mutations": (columns, rows)})
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
