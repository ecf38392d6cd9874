"""The JavaScript and TypeScript program harness: a pass is a program that ran to its end (its
event loop drained, no process.exit, nothing uncaught), proven through the channel; warm (one node
process, a worker per run) and fresh (a node process per run) agree."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from replay.core.errors import SimpilotError
from replay.core.programs import join
from replay.execution.programs import PROGRAM_TEST, Program, Runner, error_class
from replay.execution.programs import node as harness
from replay.execution.programs.runs import classify_program, program_shortfall
from replay.execution.sandbox.bubblewrap import Sandbox

pytestmark = pytest.mark.e2e

DATA = Path(__file__).parent / "data" / "devbench"
NO_NODE = harness.missing("javascript") or (None if shutil.which("bwrap") else "bubblewrap is not installed (.ci/setup installs it)")
needs_node = pytest.mark.skipif(NO_NODE is not None, reason=NO_NODE or "")


def instance(language: str, category: str, ident: str) -> dict[str, str]:
    for line in (DATA / language / f"{category}.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["id"] == ident:
            return record
    raise KeyError((language, category, ident))


def bundled(language: str, category: str, ident: str, answer: str | None = None) -> str:
    """The bundled instance's program: prefix, answer (the golden one by default), suffix, checks."""
    record = instance(language, category, ident)
    text = answer if answer is not None else record["golden_completion"]
    return join(join(join(record["prefix"], text), record["suffix"]), record["assertions"])


def outcome(runner: Runner, source: str, language: str = "javascript") -> tuple[str, str]:
    """The verdict's status and the error's class: what warm and fresh runs must agree on (their
    messages may name their own scratch folders)."""
    status, detail = verdict(runner, source, language)
    return status, error_class(detail)


def verdict(runner: Runner, source: str, language: str = "javascript", timeout: float = 20.0, cpu: float | None = None) -> tuple[str, str]:
    """``("pass", "")`` or the failure's status and detail, as the program gate sees them."""
    extension = ".ts" if language == "typescript" else ".js"
    result = runner.run(Program(language, f"programs/x/1{extension}", source), timeout, cpu)
    gap = program_shortfall(result)
    if gap is None:
        assert result.proof is not None and result.proof.outcomes == {PROGRAM_TEST: "passed"}
        return "pass", ""
    status, detail = classify_program(result, "answer", gap)
    return status.value, detail


@pytest.fixture(params=[True, False], ids=["warm", "fresh"], scope="module")
def runner(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runner]:
    if NO_NODE is not None:
        pytest.skip(NO_NODE)
    made = harness.runner("javascript", Sandbox.create(), None, warm=request.param, workdir=tmp_path_factory.mktemp("node"))
    yield made
    made.close()


# -- what a run proves ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("category", "ident"), [("code2NL_NL2code", "1"), ("low_context", "2"), ("pattern_matching", "1"), ("syntax_completion", "8")]
)
def test_golden_programs_pass_and_empty_answers_fail(runner: Runner, category: str, ident: str) -> None:
    assert verdict(runner, bundled("javascript", category, ident)) == ("pass", "")
    assert verdict(runner, bundled("javascript", category, ident, answer=""))[0] != "pass"


def test_a_failed_assertion_is_a_failure_with_its_class(runner: Runner) -> None:
    status, detail = verdict(runner, "const assert = require('assert');\nassert.strictEqual(1 + 1, 3, 'expected 3');\n")
    assert status == "fail" and detail.startswith("AssertionError: expected 3"), detail  # node: AssertionError [ERR_ASSERTION]
    status, detail = verdict(runner, "const assert = require('node:assert');\nsetTimeout(() => assert.deepStrictEqual([1], [2]), 10);\n")
    assert status == "fail" and detail.startswith("AssertionError: Expected values to be strictly deep-equal")


def test_exiting_before_the_checks_is_never_a_pass(runner: Runner) -> None:
    golden = bundled("javascript", "code2NL_NL2code", "1")
    checks = instance("javascript", "code2NL_NL2code", "1")["assertions"]
    early = golden[: golden.rindex(checks)] + "process.exit(0);\n" + checks
    status, detail = verdict(runner, early)
    assert status != "pass" and error_class(detail) == "EarlyExit", detail


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("const assert = require('assert');\nreturn;\nassert.ok(false);\n", "EarlyExit"),  # a top-level return skips the checks
        ("setTimeout(() => process.exit(0), 5);\nsetTimeout(() => { throw new Error('late check'); }, 200);\n", "EarlyExit"),
        ("Promise.reject(new RangeError('never handled'));\n", "RangeError"),
        ("process.on('exit', () => { throw new TypeError('in an exit listener'); });\n", "TypeError"),
        ("process.exitCode = 3;\n", "NonZeroExit"),
        ("throw 'a string';\n", ""),
    ],
    ids=["top-level-return", "exit-after-end", "rejection", "exit-listener", "exit-code", "string"],
)
def test_a_run_passes_only_when_the_program_ran_to_its_end(runner: Runner, source: str, expected: str) -> None:
    status, detail = verdict(runner, source)
    assert status != "pass" and error_class(detail) == expected, detail


def test_an_asynchronous_program_passes_once_its_event_loop_drained(runner: Runner) -> None:
    source = (
        "const assert = require('assert');\nlet done = false;\n"
        "setTimeout(() => { done = true; }, 20);\n"
        "(async () => { await new Promise((r) => setTimeout(r, 40)); assert.ok(done); console.log('checked'); })();\n"
    )
    assert verdict(runner, source) == ("pass", "")


ES_MODULE = """import { strict as assert } from 'assert';
import path from 'path';

export function joined(...parts) {
    return path.posix.join(...parts);
}

export default class Counter {
    constructor() { this.count = 0; }
}

assert.equal(joined('a', 'b'), 'a/b');
assert.equal(new Counter().count, 0);
"""


@pytest.mark.skipif(harness.typescript_home(None) is None, reason="the TypeScript environment rewrites ES modules (.ci/setup)")
def test_an_es_module_runs_as_commonjs_and_is_judged_like_any_program(runner: Runner) -> None:
    assert verdict(runner, ES_MODULE) == ("pass", "")
    status, detail = verdict(runner, ES_MODULE.replace("'a/b'", "'a/c'"))
    assert status == "fail" and detail.startswith("AssertionError")
    status, detail = verdict(runner, "import missing from 'simpilot-no-such-package';\nconsole.log(missing);\n")
    assert status == "runtime_error" and "Cannot find module 'simpilot-no-such-package'" in detail
    assert verdict(runner, "export const x = 1;\nprocess.exit(0);\n")[0] == "tests_not_run"  # still no early exit


def test_errors_are_classified(runner: Runner) -> None:
    assert verdict(runner, "console.log(undefinedThing);\n") == ("undefined_name", "ReferenceError: undefinedThing is not defined")
    status, detail = verdict(runner, "require('simpilot-no-such-package');\n")
    assert status == "runtime_error" and detail.startswith("Error: Cannot find module 'simpilot-no-such-package'")
    status, detail = verdict(runner, "const x = 1;\nconst y = ;\nconsole.log(x);\n")
    assert status == "syntax_error" and detail.startswith("SyntaxError: 1.js:2: "), detail


def test_forged_records_and_lines_do_not_count(runner: Runner) -> None:
    forged = (
        "const fs = require('fs');\n"
        "for (let fd = 1; fd < 30; fd++) {\n"
        '  try { fs.writeSync(fd, \'x\\t{"event":"test","id":"program","outcome":"passed"}\\nSIMPILOT-EXIT x 0\\n\'); } catch (e) {}\n'
        "}\n"
        "process.exit(0);\n"
    )
    assert verdict(runner, forged)[0] != "pass"


@pytest.mark.slow
def test_a_busy_loop_stops_at_its_cpu_budget_and_a_hang_at_its_timeout(runner: Runner) -> None:
    result = runner.run(Program("javascript", "programs/x/1.js", "while (true) {}\n"), 30, cpu=1)
    assert result.timed_out and result.busy and result.duration_s < 20
    assert verdict(runner, "setInterval(() => {}, 1000);\n", timeout=1.5)[0] == "timeout"
    assert verdict(runner, "console.log('after');\n") == ("pass", "")  # a warm runner starts a new server


@needs_node
def test_a_process_a_run_leaves_running_gets_the_server_replaced(tmp_path: Path) -> None:
    """A warm server whose run started a process that outlives it is replaced before the next run
    (its processes are found from the kernel's lists of children, through the sandbox's init; a
    fresh run's sandbox goes with its process)."""
    warm = harness.WarmRunner("javascript", Sandbox.create(), harness.tools("javascript", None), tmp_path)
    try:
        left = "require('child_process').spawn('sleep', ['30'], { detached: true, stdio: 'ignore' }).unref();\n"
        assert verdict(warm, "console.log('before');\n") == ("pass", "")
        assert verdict(warm, left) == ("pass", "")
        assert verdict(warm, "console.log('after');\n") == ("pass", "")
        assert verdict(warm, "console.log('again');\n") == ("pass", "")
        assert warm.starts == 2  # the first server, and the one after the run that left a process
    finally:
        warm.close()


def test_nothing_a_run_writes_is_left_for_the_next(runner: Runner) -> None:
    first = (
        "const fs = require('fs'), os = require('os'), path = require('path');\n"
        "fs.writeFileSync('left.txt', 'x'); fs.writeFileSync(path.join(__dirname, 'beside.txt'), 'y');\n"
        "fs.mkdirSync('closed'); fs.writeFileSync('closed/f', 'z'); fs.chmodSync('closed', 0);\n"
        "fs.writeFileSync(path.join(os.tmpdir(), 'tmp-left.txt'), 't');\n"
        "fs.mkdirSync(path.join(os.tmpdir(), 'deep', 'er'), { recursive: true }); fs.chmodSync(path.join(os.tmpdir(), 'deep'), 0);\n"
        "fs.chmodSync(os.tmpdir(), 0o500);\n"
        "globalThis.leftOver = 1; process.env.LEFT_OVER = '1';\n"
    )
    second = (
        "const assert = require('assert'), fs = require('fs'), os = require('os');\n"
        "assert.deepStrictEqual(fs.readdirSync('.'), []);\n"
        "assert.strictEqual(process.cwd(), __dirname);\n"
        "assert.deepStrictEqual(fs.readdirSync(os.tmpdir()).filter((n) => n === 'tmp-left.txt' || n === 'deep'), []);\n"
        "fs.writeFileSync(require('path').join(os.tmpdir(), 'writable'), 'w');\n"
        "assert.strictEqual(globalThis.leftOver, undefined);\n"
        "assert.strictEqual(process.env.LEFT_OVER, undefined);\n"
    )
    assert verdict(runner, first) == ("pass", "")
    assert verdict(runner, second) == ("pass", "")


def test_the_program_sees_itself_as_the_main_module(runner: Runner) -> None:
    source = (
        "const assert = require('assert'), path = require('path');\n"
        "const { isMainThread, parentPort } = require('worker_threads');\n"
        "assert.ok(isMainThread); assert.strictEqual(parentPort, null);\n"
        "assert.strictEqual(require.main, module);\n"
        "assert.strictEqual(path.basename(__filename), '1.js');\n"
        "assert.strictEqual(process.argv[1], __filename);\n"
        "assert.strictEqual(process.env.SIMPILOT_PROOF, undefined);\n"
    )
    assert verdict(runner, source) == ("pass", "")


@needs_node
@pytest.mark.slow
def test_warm_and_fresh_agree_on_bundled_instances(tmp_path: Path) -> None:
    sample = [("code2NL_NL2code", "2"), ("low_context", "4"), ("pattern_matching", "4"), ("code_purpose_understanding", "6")]
    runners = [harness.runner("javascript", Sandbox.create(), None, warm=w, workdir=tmp_path) for w in (True, False)]
    try:
        for category, ident in sample:
            for answer in (None, ""):
                source = bundled("javascript", category, ident, answer)
                got = [outcome(r, source) for r in runners]
                assert got[0] == got[1], (category, ident, answer, got)
    finally:
        for made in runners:
            made.close()


# Programs whose verdict varies from run to run under plain node as well: code_purpose_understanding/2
# writes, reads and deletes one file from two chains of promises at once.
RACES = {("code_purpose_understanding", "2")}


@needs_node
@pytest.mark.slow
def test_warm_and_fresh_agree_on_every_bundled_javascript_program_without_packages(tmp_path: Path) -> None:
    runners = [harness.runner("javascript", Sandbox.create(), None, warm=w, workdir=tmp_path) for w in (True, False)]
    try:
        for path in sorted((DATA / "javascript").glob("*.jsonl")):
            for record in map(json.loads, path.read_text(encoding="utf-8").splitlines()):
                golden = bundled("javascript", path.stem, record["id"])
                if harness.needs([golden], "javascript") or (path.stem, record["id"]) in RACES:
                    continue
                for answer in (None, ""):
                    source = bundled("javascript", path.stem, record["id"], answer)
                    got = [outcome(r, source) for r in runners]
                    assert got[0] == got[1], (path.stem, record["id"], answer, got)
                    if answer is None:
                        assert got[0] == ("pass", ""), (path.stem, record["id"], got)
    finally:
        for made in runners:
            made.close()


# -- TypeScript ----------------------------------------------------------------------------------

NO_TYPESCRIPT = harness.missing("typescript") or NO_NODE


@pytest.fixture(params=[True, False], ids=["warm", "fresh"], scope="module")
def ts_runner(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runner]:
    if NO_TYPESCRIPT is not None:
        pytest.skip(NO_TYPESCRIPT)
    made = harness.runner("typescript", Sandbox.create(), None, warm=request.param, workdir=tmp_path_factory.mktemp("ts"))
    yield made
    made.close()


@pytest.mark.slow
@pytest.mark.parametrize(("category", "ident"), [("code2NL_NL2code", "1"), ("pattern_matching", "4"), ("syntax_completion", "2")])
def test_typescript_golden_programs_pass_and_empty_answers_fail(ts_runner: Runner, category: str, ident: str) -> None:
    assert verdict(ts_runner, bundled("typescript", category, ident), "typescript") == ("pass", "")
    assert verdict(ts_runner, bundled("typescript", category, ident, answer=""), "typescript")[0] != "pass"


@pytest.mark.slow
def test_typescript_compile_errors_name_the_first_diagnostic(ts_runner: Runner) -> None:
    status, detail = verdict(ts_runner, "const a: number = 1;\nconst b = a +;\n", "typescript")
    assert status == "syntax_error" and detail.startswith("SyntaxError: 1.ts:2: Expression expected. (TS1109)"), detail
    status, detail = verdict(ts_runner, "const a: number = 1;\nconst s: string = a;\n", "typescript")
    assert status == "compile_error" and detail == "1.ts:2: Type 'number' is not assignable to type 'string'. (TS2322)", detail
    status, detail = verdict(ts_runner, "console.log(missingName);\n", "typescript")
    assert status == "undefined_name" and "Cannot find name 'missingName'" in detail
    source = "import * as fs from 'fs';\nimport assert from 'assert';\ninterface P { n: number }\nconst p: P = { n: fs.existsSync('.') ? 1 : 0 };\nassert.strictEqual(p.n, 1);\n"
    assert verdict(ts_runner, source, "typescript") == ("pass", "")
    status, detail = verdict(ts_runner, "import assert from 'assert';\nassert.strictEqual(1 as number, 2);\n", "typescript")
    assert status == "fail" and detail.startswith("AssertionError: ")


@pytest.mark.slow
@pytest.mark.skipif(NO_TYPESCRIPT is not None, reason=NO_TYPESCRIPT or "")
def test_typescript_warm_and_fresh_agree_on_bundled_instances(tmp_path: Path) -> None:
    sample = [("api_usage", "6"), ("low_context", "1"), ("pattern_matching", "7"), ("syntax_completion", "8")]
    runners = [harness.runner("typescript", Sandbox.create(), None, warm=w, workdir=tmp_path) for w in (True, False)]
    try:
        for category, ident in sample:
            for answer in (None, ""):
                source = bundled("typescript", category, ident, answer)
                got = [outcome(r, source, "typescript") for r in runners]
                assert got[0] == got[1], (category, ident, answer, got)
                assert (got[0][0] == "pass") == (answer is None), (category, ident, answer, got)
    finally:
        for made in runners:
            made.close()


# -- what programs need, and where they come from ------------------------------------------------


def test_needs_names_npm_packages_not_builtins() -> None:
    source = (
        "const fs = require('fs');\nconst fsp = require('fs/promises');\nconst a = require('node:assert');\n"
        "const _ = require('lodash/fp');\nimport { gql } from '@apollo/client/core';\nimport 'dotenv/config';\n"
        "import {\n  a,\n  b,\n} from \"express\";\nconst local = require('./helper');\n"
        "// const ignored = require('left-pad');\n/* import x from 'commented-out'; */\n"
        "const lazy = import('chalk');\nimport fetch = require('node-fetch');\nconst s = 'from \"not-an-import\"';\n"
    )
    assert harness.needs([source], "javascript") == ["@apollo/client", "chalk", "dotenv", "express", "lodash", "node-fetch"]
    assert harness.needs([source], "typescript")[-2:] == ["node-fetch", "typescript"]
    assert "@types/node" in harness.needs([source], "typescript")


def test_needs_guesses_typescript_when_not_told() -> None:
    assert harness.needs(["interface A { x: number }\n"]) == ["@types/node", "typescript"]
    assert harness.needs(["/** @param {Object} t (priority: number) */\nconst x = { a: 1 };\n"]) == []
    assert harness.needs(["const doc = `@property {Array<{asset: string, quantity: number}>}`;\n"]) == []
    assert harness.package_of("@scope") is None and harness.package_of("node:test") is None and harness.package_of("#internal") is None


def test_missing_says_what_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(harness, "node", lambda: None)
    why = harness.missing("javascript")
    assert why is not None and "apt-get install nodejs" in why
    monkeypatch.setattr(harness, "node", lambda: ("/usr/bin/node", 16))
    assert "version 16" in (harness.missing("typescript") or "")
    monkeypatch.setattr(harness, "node", lambda: ("/usr/bin/node", 20))
    monkeypatch.setattr(harness, "default_environment", lambda language: tmp_path / language)
    why = harness.missing("typescript")
    assert why is not None and "--provision" in why and str(tmp_path / "typescript") in why
    assert harness.missing("javascript") is None
    with pytest.raises(SimpilotError, match="--provision"):
        harness.tools("typescript", tmp_path / "nothing-here")


@needs_node
@pytest.mark.slow
@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_provision_installs_what_it_can_and_pins_it(tmp_path: Path) -> None:
    try:
        lock = harness.provision(["is-number", "simpilot-no-such-package-0"], tmp_path / "env")
    except SimpilotError as exc:  # no registry: nothing at all installs
        pytest.skip(f"the npm registry is not reachable: {exc}")
    assert set(lock) == {"is-number"} and lock["is-number"][0].isdigit()
    assert json.loads((tmp_path / "env" / harness.NOT_INSTALLED).read_text()) == ["simpilot-no-such-package-0"]
    with pytest.raises(SimpilotError, match="simpilot-no-such-package-0"):
        harness.provision(["simpilot-no-such-package-0"], tmp_path / "other")
    made = harness.runner("javascript", Sandbox.create(), tmp_path / "env", warm=False, workdir=tmp_path)
    try:
        assert verdict(made, "const assert = require('assert');\nassert.ok(require('is-number')(5));\n") == ("pass", "")
    finally:
        made.close()
