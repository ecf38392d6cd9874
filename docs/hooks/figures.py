"""Measured figures in the documentation, only ever from the results files the benchmarks write.

A figure typed into a page goes stale the day the code changes, and nobody can tell where it came
from. So pages quote figures through tokens that this hook replaces at build time from
``benchmarks/results/NAME.json`` (the format of ``benchmarks/results_file.py``):

``[[fig:NAME.KEY]]``
    the value of ``figures.KEY``, as rounded by the script;
``[[source:NAME]]``
    one line saying which script measured it, when, at which commit and on which machine;
``[[table:NAME.TABLE]]``
    the table ``tables.TABLE`` as a markdown table;
``[[results]]``
    the whole results page: one section per results file (anchor ``#NAME``, headed by its
    script and the first line of the script's docstring), so that a new
    benchmark's results appear without anyone editing a page.

An unknown file, figure or table, a smoke run's file (a tiny input, not a measurement) and a file
without its provenance (script, date, commit, machine) each fail the build with the page and the
token named. Tokens inside code (a page showing the syntax) are left as written.

The functions below are pure (a results folder in, text out) and raise :class:`FigureError`;
only :func:`on_page_markdown` knows mkdocs. ``SIMPILOT_RESULTS_DIR`` builds the site against
another results folder (another machine's, a fixture's).
"""

from __future__ import annotations

import ast
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prose import map_prose

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
PROVENANCE = ("script", "date", "commit", "machine")
TOKEN = re.compile(r"\[\[(?P<kind>fig|source|table):(?P<name>[A-Za-z0-9_\-]+)(?:\.(?P<key>[^\]]+))?\]\]")
RESULTS_TOKEN = "[[results]]"


class FigureError(ValueError):
    """A token that cannot be filled in, or a results file that cannot be quoted."""


@dataclass(frozen=True)
class Results:
    """One results file, checked: its name (the file's stem) and its JSON."""

    name: str
    path: Path
    data: dict[str, Any]

    @property
    def figures(self) -> dict[str, Any]:
        return self.data["figures"]

    @property
    def tables(self) -> dict[str, dict[str, list[Any]]]:
        return self.data["tables"]


def results_dir() -> Path:
    """The folder the pages quote: ``$SIMPILOT_RESULTS_DIR``, else ``benchmarks/results``."""
    given = os.environ.get("SIMPILOT_RESULTS_DIR")
    return Path(given) if given else RESULTS


def _shown(path: Path) -> str:
    """``path`` as a message names it: relative to the repository when it lies inside."""
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def load(path: Path) -> Results:
    """The results file at ``path``, refused unless it is a real run with its provenance."""
    shown = _shown(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FigureError(f"no results file {shown} (run the benchmark that writes it)") from None
    except (OSError, ValueError) as exc:
        raise FigureError(f"{shown}: not a readable JSON results file ({exc})") from None
    if not isinstance(data, dict):
        raise FigureError(f"{shown}: a results file holds a JSON object")
    missing = [key for key in PROVENANCE if not data.get(key)]
    if data.get("machine") and not isinstance(data["machine"], dict):
        missing.append("machine (an object: cores, cpu, memory_gib, system, python)")
    if missing:
        raise FigureError(
            f"{shown}: no {', '.join(missing)}: a figure without its provenance cannot be quoted; "
            "rerun its script, which writes through benchmarks/results_file.py"
        )
    if data.get("smoke"):
        raise FigureError(f"{shown}: a smoke run (--smoke, a tiny input) is not a measurement; rerun the script without --smoke")
    figures, tables = data.get("figures", {}), data.get("tables", {})
    if not isinstance(figures, dict) or not isinstance(tables, dict):
        raise FigureError(f"{shown}: 'figures' and 'tables' must be JSON objects")
    for table, body in tables.items():
        if not (isinstance(body, dict) and isinstance(body.get("columns"), list) and isinstance(body.get("rows"), list)):
            raise FigureError(f"{shown}: table {table!r} needs 'columns' and 'rows' lists")
    return Results(path.stem, path, {**data, "figures": figures, "tables": tables})


def load_all(folder: Path) -> list[Results]:
    """Every results file of ``folder``, by name."""
    return [load(path) for path in sorted(folder.glob("*.json"))]


def value_text(value: Any) -> str:
    """A figure or cell as a page shows it: numbers as the script rounded them, with thousands
    separated; anything else as written."""
    if isinstance(value, bool) or value is None:
        return {True: "yes", False: "no", None: "—"}[value]
    if isinstance(value, (int, float)):
        return f"{value:,}"
    return str(value)


def _cell(value: Any) -> str:
    return value_text(value).replace("|", "\\|").replace("\n", " ")


def figure(results: Results, key: str) -> str:
    """``[[fig:NAME.KEY]]``."""
    if key not in results.figures:
        known = ", ".join(sorted(results.figures)) or "none"
        raise FigureError(f"{results.path.name} has no figure {key!r} (its figures: {known})")
    return value_text(results.figures[key])


def machine_text(machine: Any) -> str:
    """The machine in a few words: cores, processor, memory, system, Python."""
    if not isinstance(machine, dict):
        return str(machine)
    parts = [
        f"{machine['cores']} cores" if machine.get("cores") else "",
        str(machine.get("cpu") or ""),
        f"{machine['memory_gib']} GiB of memory" if machine.get("memory_gib") else "",
        str(machine.get("system") or ""),
        f"Python {machine['python']}" if machine.get("python") else "",
    ]
    return ", ".join(part for part in parts if part)


def source(results: Results) -> str:
    """``[[source:NAME]]``: which script measured the figures, when, at which commit, where."""
    data = results.data
    date = str(data["date"]).replace("T", " ")
    date = re.sub(r"(\d\d:\d\d):\d\d\+00:00$", r"\1 UTC", date)
    dirty = " (with uncommitted changes)" if data.get("dirty") else ""
    return f"measured by `{data['script']}` on {date} at commit `{str(data['commit'])[:10]}`{dirty}, {machine_text(data['machine'])}"


def table(results: Results, key: str) -> str:
    """``[[table:NAME.TABLE]]``: the table as markdown, a blank line before and after."""
    if key not in results.tables:
        known = ", ".join(sorted(results.tables)) or "none"
        raise FigureError(f"{results.path.name} has no table {key!r} (its tables: {known})")
    body = results.tables[key]
    columns = [str(column) for column in body["columns"]]
    lines = ["| " + " | ".join(_cell(column) for column in columns) + " |", "|" + "---|" * len(columns)]
    for row in body["rows"]:
        cells = list(row) if isinstance(row, list) else [row]
        if len(cells) != len(columns):
            raise FigureError(f"{results.path.name}: a row of table {key!r} has {len(cells)} cells for {len(columns)} columns")
        lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    return "\n\n" + "\n".join(lines) + "\n\n"


def script_summary(script: Path) -> str:
    """The first sentence of a script's docstring (what it measures), read without running it."""
    try:
        doc = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise FigureError(f"the script {script.relative_to(ROOT)} that wrote these results is gone") from None
    paragraph = " ".join((doc or "").strip().split("\n\n")[0].split())
    first = re.split(r"(?<=\.)\s", paragraph, maxsplit=1)[0]  # its first sentence, even when wrapped
    return re.sub(r"``([^`]+)``", r"`\1`", first)


def heading_text(summary: str) -> str:
    """A summary short enough for a heading: a long sentence up to its first colon, which in
    these docstrings ends the name of what is measured (``Marking speed: source lines per...``)."""
    return summary.split(":", 1)[0].rstrip(".") if len(summary) > 90 and ":" in summary else summary.rstrip(".")


def section(results: Results, root: Path = ROOT) -> str:
    """One results file as a section of the results page, anchored at its name."""
    data = results.data
    summary = script_summary(root / data["script"])
    argv = " ".join(str(arg) for arg in data.get("argv") or [])
    rerun = f"`.venv/bin/python {data['script']}{' ' + argv if argv else ''}`"
    script = Path(str(data["script"])).name
    lines = [
        f"## `{script}`: {heading_text(summary)} {{ #{results.name} }}",
        "",
        summary,
        "",
        source(results) + ".",
        "",
        f"Run again: {rerun}.",
        "",
    ]
    if results.figures:
        lines += ["| figure | value |", "|---|---|"]
        lines += [f"| `{key}` | {_cell(value)} |" for key, value in results.figures.items()]
        lines.append("")
    for key in results.tables:
        lines += [f"### {key}", table(results, key).strip("\n"), ""]
    return "\n".join(lines)


WRITES = re.compile(r"""write_results\(\s*["']([A-Za-z0-9_\-]+)["']""")


def unmeasured(results: list[Results], root: Path = ROOT) -> list[tuple[str, str]]:
    """The benchmark scripts that write a results file but have none here yet, each with the
    name its file will have (what ``write_results`` is called with; the script's stem when the
    name is not written out), so that links to ``results.md#NAME`` land even before a run."""
    written = {r.data["script"] for r in results} | {f"name:{r.name}" for r in results}
    found = []
    for path in sorted((root / "benchmarks").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        if "write_results(" not in source or path.name == "results_file.py":
            continue
        script = str(path.relative_to(root))
        names = WRITES.findall(source)
        name = names[0] if names else path.stem
        if script not in written and f"name:{name}" not in written:
            found.append((script, name))
    return found


def results_page(results: list[Results], root: Path = ROOT) -> str:
    """``[[results]]``: every results file's section, then a short one for each script that
    has not been measured yet (so that its anchor exists and says how to measure)."""
    parts = [section(r, root) for r in results]
    for script, name in unmeasured(results, root):
        summary = script_summary(root / script)
        parts.append(
            f"## `{Path(script).name}`: {heading_text(summary)} {{ #{name} }}\n\n{summary}\n\n"
            f"Not measured at this commit: no `benchmarks/results/{name}.json` yet. "
            f"Run `.venv/bin/python {script}` and this section fills in.\n"
        )
    return "\n".join(parts)


def render(markdown: str, folder: Path, root: Path = ROOT) -> str:
    """``markdown`` with every figures token outside code filled in from ``folder``."""
    loaded: dict[str, Results] = {}

    def results_named(name: str) -> Results:
        if name not in loaded:
            loaded[name] = load(folder / f"{name}.json")
        return loaded[name]

    def replace(match: re.Match[str]) -> str:
        kind, name, key = match.group("kind"), match.group("name"), match.group("key")
        if kind == "source":
            if key:
                raise FigureError(f"{match.group()}: [[source:NAME]] takes no key")
            return source(results_named(name))
        if not key:
            raise FigureError(f"{match.group()}: write [[{kind}:NAME.KEY]]")
        return figure(results_named(name), key) if kind == "fig" else table(results_named(name), key)

    def change(text: str) -> str:
        if RESULTS_TOKEN in text:
            text = text.replace(RESULTS_TOKEN, results_page(load_all(folder), root))
        return TOKEN.sub(replace, text)

    return map_prose(markdown, change)


def tokens(markdown: str) -> list[str]:
    """The figures tokens ``markdown`` holds outside code, as written."""
    found: list[str] = []

    def collect(text: str) -> str:
        found.extend(match.group() for match in TOKEN.finditer(text))
        found.extend([RESULTS_TOKEN] * text.count(RESULTS_TOKEN))
        return text

    map_prose(markdown, collect)
    return found


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """mkdocs' event: fill in the page's tokens, or fail the build naming the page."""
    from mkdocs.exceptions import PluginError

    try:
        return render(markdown, results_dir())
    except FigureError as exc:
        raise PluginError(f"{page.file.src_uri}: {exc}") from None
