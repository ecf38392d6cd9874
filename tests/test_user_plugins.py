"""The pytest plugins a repository's tests load: its environment's own, named with ``-p`` after
simpilot's proof reporter, never those of simpilot's environment; what the repository sets itself
stays its own; and a suite missing a plugin's fixture says which environment lacks the plugin.

The list is computed from real interpreters (a venv made here, holding a plugin of its own and a
``.pth`` to borrowed folders; simpilot's own interpreter), and runs go through the real sandbox
and warm pytest server; the slow test marks and replays a library whose tests need
pytest-benchmark, installed from PyPI by its own ``[environment] setup``.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from replay.config.manifest import RepoCatalog, load_manifest
from replay.core.errors import SimpilotError
from replay.core.scenarios import read_tasks
from replay.environments import advice, environment, plugins
from replay.environments.commands import selected_command, suite_command, suite_env
from replay.execution.commands import command_for
from replay.execution.judge import Evaluator
from replay.execution.proof.check import PYTEST_PLUGIN, shortfall
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.validation.gate import check_baseline
from replay.validation.selection import coverage_command
from tests.conftest import DATA
from tests.e2e.conftest import simpilot, tree_digest

AUTOLOAD = "PYTEST_DISABLE_PLUGIN_AUTOLOAD"
# pytest11 names of plugins simpilot's environment holds through its own requirements
SIMPILOTS = {"asyncio", "timeout", "pytest-lsp", "hypothesispytest", "anyio"}
PYTEST = '["{python}", "-m", "pytest", "-q", "tests"]'
TEST = "tests/test_core.py::test_greets"
# A plugin installed in the repository's environment: a fixture the repository's tests use
PLUGIN = '''import pytest


@pytest.fixture
def greeting():
    return "hello"
'''
# The repository's conftest stops every run that sees one of simpilot's plugins, or misses its own
CONFTEST = f'''import pytest


def pytest_configure(config):
    loaded = [n for n in {sorted(SIMPILOTS)!r} if config.pluginmanager.has_plugin(n)]
    if loaded:
        raise pytest.UsageError("simpilot's plugins were loaded: " + ", ".join(loaded))
'''


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SIMPILOT_CACHE", str(tmp_path / "cache"))
    environment._RESOLVED.clear()
    plugins._FOUND.clear()
    return tmp_path / "cache"


def make_repo(root: Path, repository: str = "", tail: str = "", test_command: str = PYTEST) -> Path:
    """A flat library ``greet`` whose test uses the ``greeting`` fixture, with ``repository``
    added to its ``[repository]`` table and ``tail`` after it."""
    (root / "greet").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "greet" / "__init__.py").write_text("def greet(word, name):\n    return f'{word}, {name}'\n")
    (root / "tests" / "conftest.py").write_text(CONFTEST)
    (root / "tests" / "test_core.py").write_text("from greet import greet\n\n\ndef test_greets(greeting):\n    assert greet(greeting, 'Ada') == 'hello, Ada'\n")
    (root / "simpilot.toml").write_text(
        f'[repository]\nname = "greet"\nsources = ["greet"]\ntests = ["tests"]\ntest_command = {test_command}\n{repository}{tail}'
    )
    return root


def venv_with_plugin(folder: Path, borrowed: Path | None = None) -> Path:
    """A venv (no pip) whose site-packages hold the plugin ``greeting`` as an installed
    distribution, ``pytest-greeting``; ``borrowed``: a folder a ``.pth`` appends, holding a
    distribution with a plugin of its own, as simpilot's ``.pth`` appends its site-packages."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    purelib = Path(subprocess.check_output([str(folder / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True).strip())
    install(purelib, "pytest-greeting", "greeting", "pytest_greeting")
    if borrowed is not None:
        install(borrowed, "pytest-borrowed", "borrowed", "pytest_borrowed")
        (purelib / "zz-borrowed.pth").write_text(f"{borrowed}\n")
    return purelib


def install(site: Path, distribution: str, entry: str, module: str) -> None:
    """What pip leaves for a plugin: the module and a dist-info naming its pytest11 entry point."""
    site.mkdir(parents=True, exist_ok=True)
    (site / f"{module}.py").write_text(PLUGIN)
    info = site / f"{distribution.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[pytest11]\n{entry} = {module}\n")


# -- the list of plugins ------------------------------------------------------------------------


def test_the_names_a_command_line_loads_or_blocks() -> None:
    argv = ["python", "-m", "pytest", "-p", "benchmark", "-pno:timeout", "-p", "no:cacheprovider", "-q", "-pxdist", "tests", "-p"]
    assert plugins.named_plugins(argv) == {"benchmark", "timeout", "cacheprovider", "xdist"}


def test_simpilots_own_distributions_hold_its_plugins_and_nothing_else() -> None:
    own = plugins.simpilot_distributions()
    assert {"simpilot", "pytest", "pytest-cov", "coverage", "pytest-asyncio", "pytest-timeout", "pytest-lsp", "hypothesis"} <= own
    assert "pytest-benchmark" not in own and "pytest-xdist" not in own
    assert plugins.normalise("Pytest_Asyncio") == "pytest-asyncio" and plugins.normalise("zope.interface") == "zope-interface"


def test_requirements_apply_with_the_extras_asked_for() -> None:
    assert plugins._requirement("pytest-benchmark>=4; extra == 'test'", frozenset()) is None
    assert plugins._requirement("pytest-benchmark>=4; extra == 'test'", frozenset({"test"})).name == "pytest-benchmark"  # type: ignore[union-attr]
    assert plugins._requirement("tomli; python_version < '3'", frozenset()) is None
    assert plugins._requirement("coverage[toml]>=7", frozenset()).extras == {"toml"}  # type: ignore[union-attr]
    assert plugins._requirement("not a requirement ((", frozenset()) is None


def test_the_probe_lists_the_environments_own_plugins_not_the_borrowed_ones(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    manifest = load_manifest(repo / "simpilot.toml")
    venv_with_plugin(tmp_path / "venv", borrowed=tmp_path / "borrowed")
    python = str(tmp_path / "venv" / "bin" / "python")
    prefix, everything = plugins.probe_plugins(manifest, python)
    assert prefix == os.path.realpath(tmp_path / "venv")
    assert everything == [("greeting", "pytest-greeting"), ("borrowed", "pytest-borrowed")]  # in sys.path order
    assert plugins.probe_plugins(manifest, python, (str(tmp_path / "borrowed"),))[1] == [("greeting", "pytest-greeting")]
    with pytest.raises(SimpilotError, match="could not list the pytest plugins of the test interpreter /nonexistent/python"):
        plugins.probe_plugins(manifest, "/nonexistent/python")


def test_simpilots_own_interpreter_lends_none_of_its_plugins(tmp_path: Path) -> None:
    """No [environment]: the tests run with simpilot's interpreter, which holds pytest-asyncio,
    pytest-timeout, hypothesis…; none of them is the repository's."""
    manifest = load_manifest(make_repo(tmp_path / "repo") / "simpilot.toml")
    prefix, everything = plugins.probe_plugins(manifest, sys.executable)
    assert prefix == os.path.realpath(sys.prefix) and {"asyncio", "timeout"} <= {name for name, _ in everything}
    assert not SIMPILOTS & set(plugins.repository_plugins(manifest))
    assert "pytest_cov" not in plugins.repository_plugins(manifest)  # simpilot's too: coverage runs name it themselves


def test_an_interpreter_of_simpilots_environment_keeps_what_was_installed_there_for_the_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the distributions simpilot requires are left out: a plugin installed beside simpilot
    for the repository's tests loads; a foreign interpreter keeps all of its own."""
    found = [("asyncio", "pytest-asyncio"), ("benchmark", "pytest-benchmark"), ("timeout", "pytest_timeout"), ("benchmark", "other")]
    monkeypatch.setattr(plugins, "probe_plugins", lambda manifest, python, borrowed: (os.path.realpath(sys.prefix), found))
    assert plugins._plugins(None, sys.executable, ()) == ("benchmark",)  # type: ignore[arg-type]
    monkeypatch.setattr(plugins, "probe_plugins", lambda manifest, python, borrowed: ("/elsewhere", found))
    assert plugins._plugins(None, "/elsewhere/bin/python", ()) == ("asyncio", "benchmark", "timeout")  # type: ignore[arg-type]


# -- the command lines ---------------------------------------------------------------------------


def test_every_pytest_command_names_the_repositorys_plugins_after_the_proof_reporter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    manifest = load_manifest(make_repo(tmp_path / "repo") / "simpilot.toml")
    monkeypatch.setattr(plugins, "repository_plugins", lambda manifest: ("benchmark", "xdist"))
    assert suite_command(manifest) == [sys.executable, "-m", "pytest", "-p", "benchmark", "-p", "xdist", "-q", "tests"]
    assert suite_env(manifest)[AUTOLOAD] == "1"
    for full, tests in ((True, None), (False, (TEST,)), (False, None)):
        argv, extra = command_for(manifest, "greet/__init__.py", tests, full)
        proof, benchmark = argv.index(PYTEST_PLUGIN), argv.index("benchmark")
        assert argv[proof - 1] == "-p" and proof < benchmark, argv  # the reporter loads before any other plugin
        assert AUTOLOAD not in extra
    selected, _ = command_for(manifest, "greet/__init__.py", (TEST,), False)
    assert selected.index("replay.execution.inside.pytest_select") < selected.index("benchmark")
    covered = coverage_command(manifest)
    assert "pytest_cov" in covered and "benchmark" in covered and "xdist" in covered


def test_what_the_repository_sets_itself_stays_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plugins, "repository_plugins", lambda manifest: ("benchmark", "xdist"))
    decides = load_manifest(make_repo(tmp_path / "decides", f'env = {{ {AUTOLOAD} = "1" }}\n') / "simpilot.toml")
    assert suite_command(decides) == [sys.executable, "-m", "pytest", "-q", "tests"]  # it names its plugins itself
    assert suite_env(decides)[AUTOLOAD] == "1"
    blocks = make_repo(tmp_path / "blocks", test_command='["pytest", "-p", "no:benchmark", "-pxdist", "tests"]')
    assert suite_command(load_manifest(blocks / "simpilot.toml")) == ["pytest", "-p", "no:benchmark", "-pxdist", "tests"]


def test_a_command_that_is_not_pytest_keeps_pytests_autoload(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plugins, "repository_plugins", lambda manifest: ("benchmark",))
    script = load_manifest(make_repo(tmp_path / "script", test_command='["bash", "run-tests.sh"]', repository='select_command = ["{python}", "-m", "pytest", "{tests}"]\n') / "simpilot.toml")
    assert suite_command(script) == ["bash", "run-tests.sh"] and AUTOLOAD not in suite_env(script)
    argv, extra = selected_command(script, (TEST,)) or ([], {})
    assert argv == [sys.executable, "-m", "pytest", "-p", "benchmark", TEST] and extra == {AUTOLOAD: "1"}
    selector = load_manifest(make_repo(tmp_path / "selector", repository='select_command = ["./select.sh", "{tests}"]\n') / "simpilot.toml")
    assert suite_env(selector)[AUTOLOAD] == "1"
    assert selected_command(selector, (TEST,)) == (["./select.sh", TEST], {AUTOLOAD: ""})  # empty: pytest autoloads again


# -- what a failing suite says ----------------------------------------------------------------------


FIXTURE_MISSING = "E       fixture 'benchmark' not found\n>       available fixtures: cache, capfd\n"


@pytest.mark.parametrize(
    "tail, says",
    [
        ("", r'install it with \[environment\] setup = \["pip install -e \.", "pip install <the plugin>"\].*simpilot\'s own plugins never load'),
        ('[environment]\nsetup = ["pip install -e ."]\n', r"not installed in the tests' environment: add its installation to \[environment\] setup"),
        (f'[environment]\npython = "{sys.executable}"\n', rf"not installed in the interpreter \[environment\] python names \({sys.executable}\): install it there"),
    ],
)
def test_a_missing_fixture_names_the_environment_that_lacks_its_plugin(tmp_path: Path, tail: str, says: str) -> None:
    manifest = load_manifest(make_repo(tmp_path / "repo", tail=tail) / "simpilot.toml")
    hint = advice.failure_hint(manifest, FIXTURE_MISSING)
    assert hint.startswith("the tests use the fixture 'benchmark', which no conftest.py and no loaded pytest plugin provides: ")
    assert re.search(says, hint), hint


def test_other_signs_of_a_missing_plugin_and_a_plain_failure(tmp_path: Path) -> None:
    decides = load_manifest(make_repo(tmp_path / "repo", f'env = {{ {AUTOLOAD} = "1" }}\n') / "simpilot.toml")
    options = advice.failure_hint(decides, "ERROR: usage: __main__.py [options] [file_or_dir]\n__main__.py: error: unrecognized arguments: --benchmark-disable\n")
    assert options.startswith("pytest is given the option --benchmark-disable, which no loaded pytest plugin adds")
    assert f"sets {AUTOLOAD}, so only the plugins test_command names with -p load" in options
    marker = advice.failure_hint(decides, "'benchmark' not found in `markers` configuration option\n")
    assert marker.startswith("the tests use the marker 'benchmark'")
    asynchronous = advice.failure_hint(decides, "PytestUnhandledCoroutineWarning: async def functions are not natively supported.\n")
    assert asynchronous.startswith("the tests are async def functions and no loaded pytest plugin runs them")
    plain = advice.failure_hint(decides, "E   assert 1 == 2\n")
    assert plain.startswith("make them pass first: run the command below in your own checkout") and "[environment]" not in plain


# -- real runs ---------------------------------------------------------------------------------------


def test_a_named_venvs_plugin_loads_and_simpilots_do_not(tmp_path: Path) -> None:
    """[environment] python names a venv holding the plugin the tests' fixture comes from: the
    untouched suite passes (its conftest refuses simpilot's plugins), on the warm server too, and
    a broken answer fails the selected test."""
    repo = make_repo(tmp_path / "repo", tail='[environment]\npython = ".venv"\n')
    venv_with_plugin(repo / ".venv")
    manifest = load_manifest(repo / "simpilot.toml")
    assert plugins.repository_plugins(manifest) == ("greeting",)
    with Evaluator(RepoCatalog([manifest]), Sandbox.create(), workdir=tmp_path) as evaluator:
        check_baseline(evaluator, manifest)
        passed = evaluator.run_tests(manifest, tests=(TEST,))
        assert shortfall(passed.proof, (TEST,)) is None, passed.output_tail
        broken = evaluator.run_tests(manifest, "greet/__init__.py", b"def greet(word, name):\n    return name\n", (TEST,))
        assert shortfall(broken.proof, (TEST,)) is not None


def test_without_the_plugin_the_suite_says_which_environment_lacks_it(tmp_path: Path) -> None:
    """The same repository run by simpilot's own interpreter: the fixture's plugin is nowhere, and
    the error says to install it with [environment] setup."""
    manifest = load_manifest(make_repo(tmp_path / "repo") / "simpilot.toml")
    with Evaluator(RepoCatalog([manifest]), Sandbox.create(), workdir=tmp_path) as evaluator, pytest.raises(SimpilotError) as caught:
        check_baseline(evaluator, manifest)
    first = str(caught.value).splitlines()[0]
    assert "the tests use the fixture 'greeting', which no conftest.py and no loaded pytest plugin provides" in first
    assert "[environment] setup" in first and "simpilot's plugins were loaded" not in str(caught.value)


YOURLIB = DATA / "fixtures" / "yourlib"


@pytest.mark.e2e
@pytest.mark.slow  # downloads pytest-benchmark from PyPI: with the long checks
def test_a_library_using_pytest_benchmark_is_marked_and_replayed_without_plugin_settings(tmp_path: Path) -> None:
    """yourlib's simpilot.toml sets neither PYTEST_DISABLE_PLUGIN_AUTOLOAD nor -p: its tests use
    pytest-benchmark's fixture (installed by its own setup) and its conftest stops any run that
    loads a plugin of simpilot's environment, so every kept task and oracle pass shows both."""
    manifest = load_manifest(YOURLIB / "simpilot.toml")
    assert manifest.env == () and not any(part.startswith("-p") for part in manifest.test_command)
    env = {"SIMPILOT_CACHE": str(tmp_path / "cache")}
    before = tree_digest(YOURLIB)
    marked = simpilot("mark", str(YOURLIB), "--out", str(tmp_path / "out"), "--per-kind", "1", "--jobs", "2", env=env, timeout=1200)
    assert marked.returncode == 0, marked.stderr
    tasks = read_tasks(tmp_path / "out" / "yourlib.jsonl")
    assert len(tasks) >= 3 and all(t.validation and t.validation.ok and t.tests for t in tasks)
    db = tmp_path / "runs.db"
    replayed = simpilot("--db", str(db), "replay", str(tmp_path / "out" / "yourlib.jsonl"), "--model", "oracle", "--run", "oracle", "--jobs", "2", env=env, timeout=900)
    assert replayed.returncode == 0, replayed.stderr
    with sqlite3.connect(db) as con:
        statuses = [status for (status,) in con.execute("SELECT status FROM outcomes WHERE run_id = 'oracle'")]
    assert len(statuses) >= len(tasks) and set(statuses) == {"pass"}
    assert tree_digest(YOURLIB) == before
