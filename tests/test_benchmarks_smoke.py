"""Every benchmark script still runs: each with ``--smoke`` (a tiny input through the same code
path) and ``--results-dir``, as a user would start it, checked for its exit status and for a
results file with the provenance the documentation relies on (``benchmarks/results_file.py``:
the script, its arguments, the date, the commit, the machine, non-empty figures and well-formed
tables).

The quick ones run by default; those that run test suites in the sandbox or replay the demo are
``slow``; those that ask the real local model are ``local_model`` too (and ``llama_server`` when
they start llama.cpp's server), skipped where it is missing unless ``CI=true``, where a skip
would hide that the model was never asked.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lsp_bridge.serving import llama_cache
from replay.config.manifest import project_root
from replay.execution.doctor_checks import local_model_missing

ROOT = project_root()
BENCHMARKS = ROOT / "benchmarks"
IN_CI = os.environ.get("CI", "").lower() == "true"
TIMEOUT = 900  # seconds: a smoke run on a loaded machine; the slowest takes a few minutes


needs_model = [
    pytest.mark.local_model,
    pytest.mark.skipif(bool(local_model_missing()) and not IN_CI, reason="the local model needs: bash .ci/setup"),
]
needs_llama = [
    pytest.mark.llama_server,
    pytest.mark.skipif(llama_cache.find() is None and not IN_CI, reason="llama-server is not built: bash .ci/setup --servers"),
]
slow = [pytest.mark.slow]

# script stem -> (the results file's name, marks); every script of benchmarks/ is here
SCRIPTS: dict[str, tuple[str, list[pytest.MarkDecorator]]] = {
    "context_build": ("context_build", []),
    "editor_clock_speed": ("editor_clock_speed", []),
    "identity_holes": ("identity_holes", []),
    "marking_speed": ("marking_speed", []),
    "noisy_recovery": ("noisy_recovery", []),
    "postprocess_latency": ("postprocess_latency", []),
    "bridge_latency": ("bridge_latency", []),
    "simcopilot_identity": ("simcopilot_identity", []),
    "engine_speed": ("engine_speed", slow),
    "validation_selection": ("validation_selection", slow),
    "program_gate": ("program_gate", slow),
    "judging": ("judging", slow),
    "demo_time": ("demo_time", slow),
    "check_mutations": ("mutations", slow),  # mutates one file of this checkout for seconds, and puts it back
    "context_live": ("context_live", slow + needs_model),
    "scoreboard_live": ("scoreboard_live", slow + needs_model + needs_llama),
}
# what other pages are generated from: these names must stay (README's headline table: demo_time)
EXPECTED: dict[str, tuple[tuple[str, ...], dict[str, list[str]]]] = {
    "demo_time": (
        ("wall_seconds", "target_seconds"),
        {"runs": ["run", "tasks", "passed", "pass_rate"], "devbench_pass_at_1": ["model", "preset", "pass_at_1"]},
    ),
}
PROVENANCE = ("script", "argv", "date", "commit", "dirty", "smoke", "machine", "figures", "tables")
MACHINE = ("cores", "cpu", "memory_gib", "system", "python")


def test_every_benchmark_script_has_a_smoke_run() -> None:
    # results_file writes the files, headline turns one into the README's table: neither measures
    scripts = {p.stem for p in BENCHMARKS.glob("*.py")} - {"results_file", "headline"}
    assert scripts == set(SCRIPTS)


@pytest.mark.parametrize("script", [pytest.param(name, marks=marks, id=name) for name, (_, marks) in SCRIPTS.items()])
def test_a_smoke_run_writes_its_results_file(script: str, tmp_path: Path) -> None:
    results, _ = SCRIPTS[script]
    out = tmp_path / "results"
    proc = subprocess.run(
        [sys.executable, str(BENCHMARKS / f"{script}.py"), "--smoke", "--results-dir", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, f"{script} exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    path = out / f"{results}.json"
    assert path.is_file(), f"{script} wrote no {path.name}; its output:\n{proc.stdout[-2000:]}"
    assert [p.name for p in out.iterdir()] == [path.name]  # nothing else, and nothing in benchmarks/results

    record = json.loads(path.read_text(encoding="utf-8"))
    assert [key for key in PROVENANCE if key not in record] == []
    assert record["script"] == f"benchmarks/{script}.py"
    assert record["argv"] == ["--smoke", "--results-dir", str(out)]
    assert record["smoke"] is True
    assert record["date"][:2] == "20" and "T" in record["date"]
    assert isinstance(record["commit"], str) and len(record["commit"]) == 40
    assert [key for key in MACHINE if key not in record["machine"]] == [] and record["machine"]["cores"] >= 1
    figures = record["figures"]
    assert figures, f"{script} recorded no figure"
    assert all(isinstance(key, str) and (value is None or isinstance(value, (int, float, str))) for key, value in figures.items())
    for name, table in record["tables"].items():
        assert table["columns"], f"{script}: table {name} has no columns"
        assert all(len(row) == len(table["columns"]) for row in table["rows"]), f"{script}: a row of {name} does not fit its columns"
    fixed_figures, fixed_tables = EXPECTED.get(script, ((), {}))
    assert [key for key in fixed_figures if key not in figures] == []
    for name, columns in fixed_tables.items():
        assert record["tables"][name]["columns"] == columns and record["tables"][name]["rows"], f"{script}: table {name}"
