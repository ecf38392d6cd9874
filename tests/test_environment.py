"""Per-repository test environments: [environment] parsing, the cached venv and its key, src/
layouts, and what a suite that fails on the untouched code says."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from replay.config.manifest import EnvironmentConfig, RepoCatalog, load_manifest
from replay.core.errors import SimpilotError
from replay.environments import advice, environment, hints, interpreters, venv
from replay.environments.commands import suite_env, suite_python
from replay.environments.environment import source_roots
from replay.environments.venv import cache_key, dependency_files
from replay.execution.judge import Evaluator
from replay.execution.proof.check import shortfall
from replay.execution.sandbox.bubblewrap import Sandbox, needed_paths
from replay.validation.gate import check_baseline

HEADER = '[repository]\nname = "mylib"\nsources = ["src/mylib"]\ntests = ["tests"]\n'
COMMAND = 'test_command = ["{python}", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]\nenv = { PYTEST_DISABLE_PLUGIN_AUTOLOAD = "1" }\n'
CORE = "def double(x):\n    return x * 2\n"
BLANKED = "def double(x):\n    pass\n"
TEST = "tests/test_core.py::test_double"
# An offline stand-in for ``pip install .``: copies the package into the venv's site-packages, so
# an installed copy of the original sits on the tests' path, as after a real install.
INSTALL = '["{python}", "-c", "import shutil, sysconfig; shutil.copytree(\'src/mylib\', sysconfig.get_paths()[\'purelib\'] + \'/mylib\')"]'


def make_repo(root: Path, manifest_tail: str = "", module: str = "") -> Path:
    """A src/-layout library ``mylib`` with one test; ``module``: a module its code imports."""
    (root / "src" / "mylib").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "src" / "mylib" / "__init__.py").write_text((f"import {module}\n" if module else "") + "from .core import double\n")
    (root / "src" / "mylib" / "core.py").write_text(CORE)
    (root / "tests" / "test_core.py").write_text("from mylib import double\n\n\ndef test_double():\n    assert double(3) == 6\n")
    (root / "pyproject.toml").write_text('[project]\nname = "mylib"\nversion = "1"\n')
    (root / "simpilot.toml").write_text(HEADER + COMMAND + manifest_tail)
    return root


def tree_digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SIMPILOT_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


# -- parsing -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "table, message",
    [
        ('environment = "x"\n', "simpilot.toml: environment: expected a table"),
        ("[environment]\n", "simpilot.toml: environment: needs python"),
        ('[environment]\nvenv = "x"\n', "simpilot.toml: environment.venv: unknown key \\(known: python, setup\\)"),
        ("[environment]\npython = 3\n", "simpilot.toml: environment.python: expected a string, got a number 3"),
        ('[environment]\npython = " "\n', "simpilot.toml: environment.python: must be the path"),
        ('[environment]\nsetup = "pip install ."\n', 'simpilot.toml: environment.setup: expected a list of commands, got a string "pip install ."'),
        ("[environment]\nsetup = [[]]\n", "simpilot.toml: environment.setup\\[0\\]: \\[\\] is not a command"),
        ("[environment]\nsetup = [1]\n", "simpilot.toml: environment.setup\\[0\\]: expected a string, got a number 1"),
        ('[environment]\nsetup = [""]\n', "simpilot.toml: environment.setup\\[0\\]: '' is not a command"),
    ],
)
def test_bad_environment_tables(tmp_path: Path, table: str, message: str) -> None:
    text = HEADER + COMMAND + table if table.startswith("[") else table + HEADER + COMMAND  # a top-level key
    (tmp_path / "simpilot.toml").write_text(text)
    with pytest.raises(SimpilotError, match=message):
        load_manifest(tmp_path / "simpilot.toml")


def test_environment_is_for_python_repositories(tmp_path: Path) -> None:
    (tmp_path / "simpilot.toml").write_text('[repository]\nname = "j"\nlanguage = "java"\ntest_command = ["true"]\n[environment]\npython = "x"\n')
    with pytest.raises(SimpilotError, match="is for Python repositories"):
        load_manifest(tmp_path / "simpilot.toml")


def test_environment_forms(tmp_path: Path) -> None:
    (tmp_path / "simpilot.toml").write_text(HEADER + COMMAND + '[environment]\npython = "/usr/bin/python3"\nsetup = ["pip install -e .", ["{python}", "-m", "pip", "list"]]\n')
    manifest = load_manifest(tmp_path / "simpilot.toml")
    assert manifest.environment == EnvironmentConfig("/usr/bin/python3", ("pip install -e .", ("{python}", "-m", "pip", "list")))
    assert load_manifest(make_repo(tmp_path / "plain") / "simpilot.toml").environment is None


def test_locating_a_given_interpreter(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    manifest = load_manifest(repo / "simpilot.toml")
    (repo / "notavenv").mkdir()
    with pytest.raises(SimpilotError, match="does not exist"):
        environment.locate(manifest, "venvs/nope")
    with pytest.raises(SimpilotError, match="folder without bin/python"):
        environment.locate(manifest, "notavenv")
    with pytest.raises(SimpilotError, match="is not on PATH"):
        environment.locate(manifest, "python-that-does-not-exist")
    assert environment.locate(manifest, sys.executable) == os.path.abspath(sys.executable)


# -- the cache key -----------------------------------------------------------------------------


def _interpreter(version: str = "3.11.7 (main)") -> interpreters.Interpreter:
    return interpreters.Interpreter(sys.executable, sys.executable, "%d.%d" % sys.version_info[:2], version, sys.prefix, sys.base_prefix, "", True, True)


def test_cache_key_follows_what_decides_the_venv(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", '[environment]\nsetup = ["pip install -r reqs/dev.txt ."]\n')
    (repo / "reqs").mkdir()
    (repo / "reqs" / "dev.txt").write_text("toolz==1.0.0\n")

    def key(version: str = "3.11.7 (main)") -> str:
        manifest = load_manifest(repo / "simpilot.toml")
        assert manifest.environment is not None
        return cache_key(manifest, manifest.environment, _interpreter(version))

    first = key()
    assert key() == first
    assert dependency_files(load_manifest(repo / "simpilot.toml"), load_manifest(repo / "simpilot.toml").environment) == ["pyproject.toml", "reqs/dev.txt"]
    (repo / "src" / "mylib" / "core.py").write_text(CORE + "# edited\n")
    assert key() == first  # the sources do not decide the venv
    assert key("3.11.8 (main)") != first
    (repo / "reqs" / "dev.txt").write_text("toolz==1.0.1\n")
    second = key()
    assert second != first
    (repo / "requirements-test.txt").write_text("pytest\n")
    third = key()
    assert third != second
    (repo / "pyproject.toml").write_text('[project]\nname = "mylib"\nversion = "2"\n')
    assert key() != third
    (repo / "simpilot.toml").write_text(HEADER + COMMAND + '[environment]\nsetup = ["pip install -r reqs/dev.txt -e ."]\n')
    assert key() not in (first, second, third)


# -- src/ layouts, without [environment] -------------------------------------------------------


def test_src_layout_is_found(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    manifest = load_manifest(repo / "simpilot.toml")
    assert source_roots(manifest) == ("src",)
    assert suite_env(manifest, Path("/copy"))["PYTHONPATH"] == "/copy/src"
    (repo / "simpilot.toml").write_text(HEADER.replace('["src/mylib"]', '["."]') + COMMAND)
    assert source_roots(load_manifest(repo / "simpilot.toml")) == ("src",)  # a src/ folder of packages
    flat = make_repo(tmp_path / "flat")
    (flat / "src" / "__init__.py").write_text("")  # src is itself a package: imported as src.mylib
    assert source_roots(load_manifest(flat / "simpilot.toml")) == ()


def test_src_layout_keeps_the_manifests_pythonpath(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / "simpilot.toml").write_text(HEADER + COMMAND.replace('PYTEST_DISABLE_PLUGIN_AUTOLOAD = "1"', 'PYTHONPATH = "vendor"'))
    assert suite_env(load_manifest(repo / "simpilot.toml"), Path("/copy"))["PYTHONPATH"] == os.pathsep.join(["/copy/src", "vendor"])


def test_src_layout_runs_without_settings(tmp_path: Path) -> None:
    manifest = load_manifest(make_repo(tmp_path / "repo") / "simpilot.toml")
    with Evaluator(RepoCatalog([manifest]), Sandbox.create(), workdir=tmp_path) as evaluator:
        check_baseline(evaluator, manifest)
        blanked = evaluator.run_tests(manifest, "src/mylib/core.py", BLANKED.encode(), (TEST,))
        assert shortfall(blanked.proof, (TEST,)) is not None


# -- a suite that fails on the untouched code ---------------------------------------------------


def test_failing_suite_shows_command_status_and_the_missing_module(tmp_path: Path) -> None:
    manifest = load_manifest(make_repo(tmp_path / "repo", module="toolz_not_installed_anywhere") / "simpilot.toml")
    with Evaluator(RepoCatalog([manifest]), Sandbox.create(), workdir=tmp_path) as evaluator, pytest.raises(SimpilotError) as caught:
        check_baseline(evaluator, manifest)
    message = str(caught.value)
    first, *rest = message.splitlines()
    assert first.startswith("mylib: the tests fail on the untouched code (exit status ")
    assert "'toolz_not_installed_anywhere'" in first and "[environment] setup" in first
    assert rest[0].startswith(f"  command: {sys.executable} -m pytest") and "tests" in rest[0]
    assert any("ModuleNotFoundError: No module named 'toolz_not_installed_anywhere'" in line for line in rest)
    assert len(rest) <= 2 + hints.TAIL_LINES


def test_hint_for_the_repositorys_own_package(tmp_path: Path) -> None:
    manifest = load_manifest(make_repo(tmp_path / "repo") / "simpilot.toml")
    hint = advice.failure_hint(manifest, "E   ModuleNotFoundError: No module named 'mylib.core'\n")
    assert "the repository's own 'mylib'" in hint and "sources" in hint
    assert "make them pass first" in advice.failure_hint(manifest, "E   assert 1 == 2\n")


# -- a venv built by setup, cached ---------------------------------------------------------------


def test_setup_builds_a_cached_venv_and_the_work_copy_is_tested(tmp_path: Path, cache: Path, capfd: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "repo", f"[environment]\nsetup = [{INSTALL}]\n")
    before = tree_digest(repo)
    manifest = load_manifest(repo / "simpilot.toml")
    python = suite_python(manifest)
    assert python.startswith(str(cache / "envs")) and python != sys.executable
    assert "building the test environment" in capfd.readouterr().err
    installed = subprocess.run([python, "-c", "import mylib; print(mylib.__file__)"], capture_output=True, text=True, cwd=tmp_path)
    assert "site-packages" in installed.stdout  # the original's installed copy is on the path
    with Evaluator(RepoCatalog([manifest]), Sandbox.create(), workdir=tmp_path) as evaluator:
        check_baseline(evaluator, manifest)
        untouched = evaluator.run_tests(manifest, tests=(TEST,))
        assert shortfall(untouched.proof, (TEST,)) is None
        blanked = evaluator.run_tests(manifest, "src/mylib/core.py", BLANKED.encode(), (TEST,))
        assert shortfall(blanked.proof, (TEST,)) is not None, "the installed copy was tested, not the work copy"
    assert tree_digest(repo) == before  # the setup ran in a throw-away copy
    environment._RESOLVED.clear()  # as a new process would
    pth = next(Path(python).parent.parent.glob(f"lib/python*/site-packages/{venv.PTH}"))
    pth.write_text("/an/older/simpilot/plugins\n")
    assert suite_python(load_manifest(repo / "simpilot.toml")) == python
    assert "cached environment" in capfd.readouterr().err
    assert pth.read_text().splitlines()[0] == str(interpreters.plugin_folder())  # brought up to date, nothing rebuilt


def test_failing_setup_says_why_and_caches_nothing(tmp_path: Path, cache: Path) -> None:
    repo = make_repo(tmp_path / "repo", "[environment]\nsetup = [\"echo 'no such package: toolz9'; exit 3\"]\n")
    manifest = load_manifest(repo / "simpilot.toml")
    with pytest.raises(SimpilotError) as caught:
        suite_python(manifest)
    first, *rest = str(caught.value).splitlines()
    assert "setup command \"echo 'no such package: toolz9'; exit 3\" failed (exit status 3)" in first and "nothing was cached" in first
    assert any("no such package: toolz9" in line for line in rest) and rest[0].startswith("  command: /bin/sh -c")
    assert [p.name for p in (cache / "envs").iterdir() if not p.name.endswith(".lock")] == []


# -- a given interpreter -------------------------------------------------------------------------


def test_a_given_venv_runs_the_tests_with_simpilots_plugins_appended(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", '[environment]\npython = ".venv"\n')
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(repo / ".venv")], check=True)
    manifest = load_manifest(repo / "simpilot.toml")
    assert suite_python(manifest) == str(repo / ".venv" / "bin" / "python")
    env = suite_env(manifest, Path("/copy"))
    path = env["PYTHONPATH"].split(os.pathsep)
    assert path[0] == "/copy/src" and (Path(path[-1]) / "sitecustomize.py").is_file()
    assert env["PATH"].split(os.pathsep)[0] == str(repo / ".venv" / "bin")
    with Evaluator(RepoCatalog([manifest]), Sandbox.create(), workdir=tmp_path) as evaluator:
        check_baseline(evaluator, manifest)
        blanked = evaluator.run_tests(manifest, "src/mylib/core.py", BLANKED.encode(), (TEST,))
        assert shortfall(blanked.proof, (TEST,)) is not None


def test_a_flat_layout_with_an_environment_puts_the_work_copy_first(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", f'[environment]\npython = "{sys.executable}"\n')
    (repo / "src" / "mylib").rename(repo / "mylib")
    (repo / "src").rmdir()
    toml = repo / "simpilot.toml"
    toml.write_text(toml.read_text().replace("src/mylib", "mylib"))
    manifest = load_manifest(toml)
    assert suite_env(manifest, Path("/copy"))["PYTHONPATH"].split(os.pathsep)[0] == "/copy"
    plain = make_repo(tmp_path / "plain")
    (plain / "src" / "mylib").rename(plain / "mylib")
    (plain / "src").rmdir()
    assert "PYTHONPATH" not in suite_env(load_manifest(plain / "simpilot.toml"), Path("/copy"))  # nothing installed to shadow it


def test_another_python_version_without_pytest_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = interpreters.Interpreter(sys.executable, sys.executable, "3.99", "3.99.0", sys.prefix, sys.base_prefix, "", False, False)
    monkeypatch.setattr(environment, "probe", lambda manifest, python: other)
    manifest = load_manifest(make_repo(tmp_path / "repo", f'[environment]\npython = "{sys.executable}"\n') / "simpilot.toml")
    with pytest.raises(SimpilotError, match=r"is Python 3\.99, not simpilot's .* has no pytest or pytest-cov.*install them in it"):
        suite_python(manifest)
    monkeypatch.setattr(environment, "probe", lambda manifest, python: interpreters.Interpreter(sys.executable, sys.executable, "3.99", "3.99.0", sys.prefix, sys.base_prefix, "", True, True))
    environment._RESOLVED.clear()
    appended = suite_env(manifest)["PYTHONPATH"].split(os.pathsep)[-1]
    assert sys.prefix not in (Path(appended) / "sitecustomize.py").read_text()  # only the plugins: not simpilot's 3.11 packages


# -- the sandbox -------------------------------------------------------------------------------


def test_the_sandbox_shows_a_venv_named_as_the_program(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    assert str(venv) in needed_paths([str(venv / "bin" / "python"), "-c", "pass"])
