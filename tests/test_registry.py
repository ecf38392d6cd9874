"""The one registry mechanism: built-ins, scanned packages, plugins through real entry points,
unknown names and names registered twice."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from postprocess.registry import Registry, RegistryError, UnknownName

PLUGIN = """
def shout(text, ctx):
    return text.upper()

def create(spec):
    return ("echo-model", spec)

CONTEXT = (None, {"lines": 3})
HARNESS = "harness"
"""


def _distribution(folder: Path, group_lines: str, module: str = "simpilot_test_plugin") -> Path:
    """A distribution installed by hand into ``folder``: a module and its ``*.dist-info``."""
    (folder / f"{module}.py").write_text(PLUGIN, encoding="utf-8")
    info = folder / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(group_lines, encoding="utf-8")
    return folder


@pytest.fixture
def on_path(tmp_path: Path):
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))
    sys.modules.pop("simpilot_test_plugin", None)


def test_a_plugin_resolves_through_its_entry_point(on_path: Path) -> None:
    _distribution(on_path, "[simpilot.test-steps]\nshout = simpilot_test_plugin:shout\n")
    steps: Registry[object] = Registry("step", "simpilot.test-steps")
    steps.register("same", lambda text, ctx: text)
    assert list(steps) == ["same", "shout"]
    assert "simpilot_test_plugin" not in sys.modules  # listed, not imported yet
    assert steps["shout"]("abc", None) == "ABC"  # type: ignore[operator]
    assert "simpilot_test_plugin" in sys.modules


def test_every_registry_reads_its_group(tmp_path: Path) -> None:
    """Each of the project's registries, in a fresh process, sees a plugin of its group."""
    _distribution(
        tmp_path,
        "[simpilot.models]\necho = simpilot_test_plugin:create\n"
        "[simpilot.contexts]\nthree = simpilot_test_plugin:CONTEXT\n"
        "[simpilot.steps]\nshout = simpilot_test_plugin:shout\n"
        "[simpilot.languages]\ncobol = simpilot_test_plugin:HARNESS\n"
        "[simpilot.programs]\ncobol = simpilot_test_plugin:HARNESS\n",
    )
    script = textwrap.dedent(
        """
        from lsp_bridge.models import create_model, spec_from_json
        from lsp_bridge.contexts import BUILDERS
        from postprocess.presets import run_steps
        from replay.marking.languages import LANGUAGES
        from replay.execution.programs import toolchain
        print(create_model(spec_from_json({"kind": "echo"}))[0])
        print(BUILDERS["three"][1])
        print(run_steps(["shout"], "abc", None).text)
        print(LANGUAGES["cobol"], toolchain("cobol"))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env={"PYTHONPATH": str(tmp_path)}, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:4] == ["echo-model", "{'lines': 3}", "ABC", "harness harness"]


def test_an_unknown_name_is_one_line_listing_the_known_ones() -> None:
    kinds: Registry[int] = Registry("model kind", "simpilot.test-none")
    kinds.register("a", 1)
    kinds.register("b", 2)
    with pytest.raises(UnknownName) as caught:
        kinds["c"]
    assert str(caught.value) == "unknown model kind 'c' (choose from a, b)"
    assert isinstance(caught.value, KeyError)  # dict-like callers keep working
    assert kinds.get("c") is None and "c" not in kinds


def test_a_name_registered_twice_is_an_error() -> None:
    kinds: Registry[int] = Registry("model kind", "simpilot.test-none")
    kinds.register("a", 1, "the first")
    with pytest.raises(RegistryError, match="'a' is registered twice: by the first and by the second"):
        kinds.register("a", 2, "the second")
    with pytest.raises(RegistryError):
        kinds["a"] = 3
    assert kinds["a"] == 1


def test_a_plugin_reusing_a_built_in_name_is_an_error(on_path: Path) -> None:
    _distribution(on_path, "[simpilot.test-clash]\nshout = simpilot_test_plugin:shout\n")
    steps: Registry[object] = Registry("step", "simpilot.test-clash")
    steps.register("shout", str.upper, "the built-in")
    with pytest.raises(RegistryError, match="'shout' is registered twice: by the built-in and by simpilot_test_plugin:shout"):
        list(steps)


def test_lazy_entries_are_imported_on_first_use() -> None:
    harnesses: Registry[object] = Registry("program language", "simpilot.test-none")
    harnesses.register_lazy("textwrap", "textwrap:dedent")
    assert harnesses["textwrap"] is textwrap.dedent


def test_a_scanned_package_adds_its_modules_entries() -> None:
    from replay.marking.languages import LANGUAGES
    from replay.marking.python import PythonMarker

    assert set(LANGUAGES) >= {"python", "java"}
    assert LANGUAGES["python"].marker is PythonMarker
