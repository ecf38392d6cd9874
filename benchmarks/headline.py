"""The README's headline table, written from the demo's results file so that no figure in it is typed.

Reads ``benchmarks/results/demo_time.json`` (``demo_time.py`` writes it through
``results_file.py``: table ``runs`` with columns run, tasks, passed, pass_rate; table
``devbench_pass_at_1`` with model, preset, pass_at_1, both rates in per cent; figures
``wall_seconds`` and ``runs_preset``, the preset of the ``runs`` table) and rewrites the
block of README.md between ``<!-- headline:start -->`` and ``<!-- headline:end -->``: the date,
commit and machine of the measurement, then the pass rate of each run of the demo and DevBench's
pass@1 per model, a column per preset. Without a results file the block says how to make one.

    .venv/bin/python benchmarks/headline.py            # rewrite README.md's block
    .venv/bin/python benchmarks/headline.py --check    # exit 1 when README.md's block is stale

``tests/test_readme.py`` checks that the README holds what this script writes now.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "demo_time.json"
README = ROOT / "README.md"
START, END = "<!-- headline:start -->", "<!-- headline:end -->"
RUNS = ["run", "tasks", "passed", "pass_rate"]
DEVBENCH = ["model", "preset", "pass_at_1"]


class HeadlineError(ValueError):
    """A results file or README that the headline cannot be written from or into."""


def _number(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return "—" if value is None else str(value).lower()
    return f"{value:,}" if isinstance(value, (int, float)) else str(value)


def _rows(results: dict[str, Any], table: str, columns: list[str]) -> list[list[Any]] | None:
    """The rows of ``table``, refused unless its columns are exactly ``columns``; None when the
    file has no such table (an older demo_time.py, or a demo without DevBench)."""
    body = results.get("tables", {}).get(table)
    if body is None:
        return None
    if body.get("columns") != columns:
        raise HeadlineError(f"demo_time.json: table {table!r} has columns {body.get('columns')}, expected {columns}")
    return [list(row) for row in body.get("rows", [])]


def block(results: dict[str, Any] | None) -> str:
    """The lines between the markers: what the headline says for ``results`` (None: no file)."""
    if results is None:
        return (
            "No headline figures at this commit yet: run `.venv/bin/python benchmarks/demo_time.py`, "
            "then `.venv/bin/python benchmarks/headline.py`."
        )
    for key in ("script", "date", "commit", "machine"):
        if not results.get(key):
            raise HeadlineError(f"demo_time.json has no {key}: rerun benchmarks/demo_time.py")
    if results.get("smoke"):
        raise HeadlineError("demo_time.json is a smoke run (--smoke), not a measurement: rerun benchmarks/demo_time.py")
    runs = _rows(results, "runs", RUNS)
    if not runs:
        raise HeadlineError("demo_time.json has no 'runs' table: rerun benchmarks/demo_time.py")
    machine = results["machine"]
    where = f"{machine.get('cores')} cores" if isinstance(machine, dict) and machine.get("cores") else "this project's machine"
    dirty = " with uncommitted changes" if results.get("dirty") else ""
    lines = [
        f"Measured {str(results['date'])[:10]} at commit `{str(results['commit'])[:10]}`{dirty} on {where} "
        f"by `{results['script']}` ([details](docs/results.md#demo_time)).",
    ]
    wall = results.get("figures", {}).get("wall_seconds")
    if wall is not None:
        lines[0] += f" The whole demo took {_number(wall)} s."
    preset = results.get("figures", {}).get("runs_preset")
    if preset:
        lines[0] += f" Pass rates are under the `{preset}` post-processing preset."
    lines += ["", "| run | tasks | passed | pass rate |", "|---|---:|---:|---:|"]
    lines += [f"| `{run}` | {_number(tasks)} | {_number(passed)} | {_number(rate)}% |" for run, tasks, passed, rate in runs]
    devbench = _rows(results, "devbench_pass_at_1", DEVBENCH)
    if devbench:
        presets = list(dict.fromkeys(name for _, name, _ in devbench))
        by_model: dict[str, dict[str, Any]] = {}
        for model, name, value in devbench:
            by_model.setdefault(model, {})[name] = value
        lines += ["", "| DevBench model | " + " | ".join(f"pass@1, `{name}`" for name in presets) + " |", "|---|" + "---:|" * len(presets)]
        lines += [
            f"| {model} | " + " | ".join(f"{_number(values[name])}%" if name in values else "—" for name in presets) + " |"
            for model, values in by_model.items()
        ]
    return "\n".join(lines)


def load(path: Path = RESULTS) -> dict[str, Any] | None:
    """The demo's results file, or None when there is none."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise HeadlineError(f"{path}: not a readable results file ({exc})") from None
    if not isinstance(data, dict):
        raise HeadlineError(f"{path}: a results file holds a JSON object")
    return data


def current(readme: str) -> str:
    """What the README's block holds now, between its markers."""
    start, end = readme.find(START), readme.find(END)
    if start < 0 or end < start:
        raise HeadlineError(f"README.md has no {START} … {END} block")
    return readme[start + len(START) : end].strip("\n")


def updated(readme: str, text: str) -> str:
    """``readme`` with its block replaced by ``text``."""
    current(readme)  # the markers must be there
    start, end = readme.find(START), readme.find(END)
    return readme[: start + len(START)] + "\n" + text + "\n" + readme[end:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the README's block differs from what would be written")
    parser.add_argument("--results", type=Path, default=RESULTS, help="the demo's results file (default: %(default)s)")
    parser.add_argument("--readme", type=Path, default=README, help="the file holding the block (default: %(default)s)")
    args = parser.parse_args()
    try:
        text = block(load(args.results))
        readme = args.readme.read_text(encoding="utf-8")
        if args.check:
            if current(readme) != text:
                sys.exit(f"{args.readme}: the headline block is stale; run .venv/bin/python benchmarks/headline.py")
            return
        args.readme.write_text(updated(readme, text), encoding="utf-8")
    except HeadlineError as exc:
        sys.exit(f"error: {exc}")
    print(f"headline: {args.readme}")


if __name__ == "__main__":
    main()
