"""A model kind from an installed plugin, named in ``models.toml`` and replayed from the command line.

The plugin is a distribution installed by hand into a folder on ``PYTHONPATH`` (a module and its
``*.dist-info`` with a ``simpilot.models`` entry point), as ``pip install`` would leave it: the
command line accepts its kind, the bridge builds the model through the entry point, and every
task's answer is the plugin's.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

from tests.e2e.conftest import simpilot

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = '''
class Fixed:
    def __init__(self, text):
        self.name = "fixed-text"
        self.text = text

    async def complete(self, request):
        return self.text

    async def aclose(self):
        return None


def create(spec):
    return Fixed(spec.get("text", ""))
'''
ANSWER = "pass  # the plugin's answer"


def installed_plugin(folder: Path) -> Path:
    (folder / "fixed_text_plugin.py").write_text(PLUGIN, encoding="utf-8")
    info = folder / "fixed_text_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fixed-text-plugin\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[simpilot.models]\nfixed-text = fixed_text_plugin:create\n", encoding="utf-8")
    return folder


def test_a_plugins_model_kind_is_named_in_models_toml_and_replayed(tmp_path: Path) -> None:
    plugins = installed_plugin(_made(tmp_path / "site"))
    (tmp_path / "models.toml").write_text(f'[models.team]\nkind = "fixed-text"\ntext = {json.dumps(ANSWER)}\n', encoding="utf-8")
    lines = (ROOT / "scenarios" / "lpsolve.jsonl").read_text(encoding="utf-8").splitlines()[:3]
    scenario = tmp_path / "three.jsonl"
    scenario.write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(plugins), str(ROOT), os.environ.get("PYTHONPATH", "")]))}
    db = tmp_path / "runs" / "simpilot.db"
    result = simpilot("--db", str(db), "replay", str(scenario), "--models", "models.toml", "--model", "team", "--run", "team",
                      cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    with sqlite3.connect(db) as con:
        answers = con.execute("SELECT raw, error FROM completions WHERE run_id = 'team'").fetchall()
        outcomes = con.execute("SELECT COUNT(*) FROM outcomes WHERE run_id = 'team'").fetchone()[0]
    assert answers == [(ANSWER, None)] * len(lines)
    assert outcomes >= len(lines)


def test_an_unknown_kind_lists_the_built_in_and_the_installed_ones(tmp_path: Path) -> None:
    plugins = installed_plugin(_made(tmp_path / "site"))
    (tmp_path / "models.toml").write_text('[models.team]\nkind = "fixed-txt"\n', encoding="utf-8")
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(plugins), str(ROOT)]))}
    result = simpilot("replay", str(ROOT / "scenarios" / "lpsolve.jsonl"), "--models", "models.toml", "--model", "team", cwd=tmp_path, env=env)
    assert result.returncode != 0
    assert "'fixed-txt' is not a model kind" in result.stderr and "openai-chat" in result.stderr and "fixed-text" in result.stderr


def _made(folder: Path) -> Path:
    folder.mkdir(parents=True)
    return folder
