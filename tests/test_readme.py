"""The README stays the short front door it is meant to be.

It is read first and in full, so it must stay short (at most 150 lines: everything else lives in
``docs/``), start with the two commands a newcomer runs, link only to files that exist, name every
command of the command line, and hold the headline table exactly as ``benchmarks/headline.py``
writes it from the demo's results file now, so that no figure in it is typed or stale.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType

import click
import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
FIRST_COMMANDS = [
    "bash .ci/setup && .venv/bin/simpilot demo          # install everything, then run the demo",
    "bash .ci/setup --servers && .venv/bin/python -m pytest   # install everything (and build llama.cpp's server), then run the tests",
]
LINK = re.compile(r"\[[^\]]*\]\((?P<target>[^)\s]+)\)")


def headline() -> ModuleType:
    spec = importlib.util.spec_from_file_location("headline", ROOT / "benchmarks" / "headline.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def readme() -> str:
    return README.read_text(encoding="utf-8")


def test_the_readme_is_at_most_150_lines(readme: str) -> None:
    assert len(readme.splitlines()) <= 150


def test_the_readme_starts_with_the_two_commands(readme: str) -> None:
    lines = readme.splitlines()
    assert lines[0] == "# simpilot"
    first = [line for line in lines[1:] if line.strip()]
    assert first[0] == "```bash" and first[1:3] == FIRST_COMMANDS and first[3] == "```"


def test_every_relative_link_resolves(readme: str) -> None:
    broken = []
    for match in LINK.finditer(readme):
        target = match.group("target")
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue
        if not (README.parent / target.split("#")[0]).exists():
            broken.append(target)
    assert not broken, f"README links to files that do not exist: {broken}"


def test_the_command_sheet_names_every_command(readme: str) -> None:
    from replay.cli.group import cli

    def leaves(group: click.Group, prefix: str = "simpilot ") -> list[str]:
        found = []
        for name, command in sorted(group.commands.items()):
            found += leaves(command, f"{prefix}{name} ") if isinstance(command, click.Group) else [f"{prefix}{name}"]
        return found

    missing = [name for name in leaves(cli) if f"`{name}" not in readme]
    assert not missing, f"commands missing from the README's command sheet: {missing}"


def test_the_five_minute_files_are_valid_configuration(readme: str) -> None:
    """The ``simpilot.toml`` and ``models.toml`` a newcomer copies are read by the same schemas as
    their own files will be: a renamed key fails here before it fails for them."""
    import tomllib

    from replay.config.models_file import ModelsFile
    from replay.config.simpilot_file import SimpilotFile
    from replay.config.strict import validate

    blocks = re.findall(r"```toml\n(.*?)```", readme, re.S)
    assert len(blocks) == 2, "the README shows one simpilot.toml and one models.toml"
    assert validate(SimpilotFile, tomllib.loads(blocks[0]), "README.md simpilot.toml").repository.name
    assert validate(ModelsFile, tomllib.loads(blocks[1]), "README.md models.toml").models


def test_the_headline_is_what_headline_py_writes_now(readme: str) -> None:
    module = headline()
    assert module.current(readme) == module.block(module.load()), "run .venv/bin/python benchmarks/headline.py"


# -- benchmarks/headline.py on results made here --------------------------------------------------


def _demo_results(path: Path, **changes: object) -> Path:
    data = {
        "script": "benchmarks/demo_time.py", "argv": [], "date": "2026-11-28T16:30:00+00:00",
        "commit": "48ea215c0ffee0000000000000000000000000000", "dirty": False, "smoke": False,
        "machine": {"cores": 2, "cpu": "Some CPU", "memory_gib": 23.4, "system": "Linux 6.1", "python": "3.11.2"},
        "figures": {"wall_seconds": 131.4, "target_seconds": 180, "runs_preset": "simcopilot"},
        "tables": {
            "runs": {"columns": ["run", "tasks", "passed", "pass_rate"],
                     "rows": [["demo-oracle", 564, 564, 100.0], ["demo-smollm2", 383, 0, 0.0]]},
            "devbench_pass_at_1": {"columns": ["model", "preset", "pass_at_1"], "rows": [["gpt-4.1-mini", "none", 60.0], ["gpt-4.1-mini", "simcopilot", 61.7], ["Ministral-3B", "simcopilot", 48.3]]},
        },
    }
    data.update(changes)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_headline_writes_the_runs_and_devbench_tables_with_date_and_commit(tmp_path: Path) -> None:
    module = headline()
    text = module.block(module.load(_demo_results(tmp_path / "demo_time.json")))
    assert text.startswith("Measured 2026-11-28 at commit `48ea215c0f` on 2 cores by `benchmarks/demo_time.py`")
    assert "The whole demo took 131.4 s." in text
    assert "| `demo-oracle` | 564 | 564 | 100.0% |" in text
    assert "| `demo-smollm2` | 383 | 0 | 0.0% |" in text
    assert "| DevBench model | pass@1, `none` | pass@1, `simcopilot` |" in text
    assert "| gpt-4.1-mini | 60.0% | 61.7% |" in text and "| Ministral-3B | — | 48.3% |" in text
    assert "Pass rates are under the `simcopilot` post-processing preset." in text


def test_headline_rewrites_only_its_block(tmp_path: Path) -> None:
    module = headline()
    page = f"# Title\n\nbefore\n\n{module.START}\nold table\n{module.END}\n\nafter\n"
    out = module.updated(page, "new table")
    assert out == f"# Title\n\nbefore\n\n{module.START}\nnew table\n{module.END}\n\nafter\n"
    assert module.current(out) == "new table"


def test_headline_refuses_a_smoke_run_a_wrong_table_or_a_missing_block(tmp_path: Path) -> None:
    module = headline()
    with pytest.raises(module.HeadlineError, match="smoke run"):
        module.block(module.load(_demo_results(tmp_path / "a.json", smoke=True)))
    with pytest.raises(module.HeadlineError, match="expected \\['run', 'tasks', 'passed', 'pass_rate'\\]"):
        module.block(module.load(_demo_results(tmp_path / "b.json", tables={"runs": {"columns": ["run", "verdicts"], "rows": []}})))
    with pytest.raises(module.HeadlineError, match="no <!-- headline:start -->"):
        module.updated("# no block\n", "text")


def test_without_results_the_headline_says_how_to_make_them(tmp_path: Path) -> None:
    module = headline()
    assert module.load(tmp_path / "absent.json") is None
    assert "benchmarks/demo_time.py" in module.block(None)
