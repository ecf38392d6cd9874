"""No page quotes a measured figure that no results file holds, and every figure token resolves.

A time, a speed, a ratio or a pass rate typed into a page is true on one machine at one commit
and silently wrong after; the documentation quotes them through the tokens of
``docs/hooks/figures.py`` instead, filled in at build time from ``benchmarks/results/*.json``.
This test reads every page (``docs/**/*.md`` and ``README.md``) outside code and the tokens, finds
every number that looks measured (a number with a unit of time, a percentage, a ratio, a size, a
rate, or a pass count such as 61/61) and fails, naming the file and line, for each whose value no
results file holds (compared at the precision the page quotes). It also fails for a token that
does not resolve and for a committed results file that is a smoke run or lacks its provenance.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "hooks"))

import figures  # noqa: E402  (docs/hooks is not a package: mkdocs loads the hooks by path)
import prose  # noqa: E402

NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
UNIT = (
    r"%|\s?×|x(?![\w])"
    r"|\s?(?:ms|µs|us|s|sec|secs|seconds?|min|mins|minutes?|hours?)(?![\w])"
    r"|\s?(?:KiB|MiB|GiB|TiB|KB|MB|GB|TB)(?![\w])"
    r"|\s?(?:lines|requests|tasks|tokens|programs)?\s?(?:per second|per minute|/s|/min)(?![\w])"
)
MEASURED = re.compile(rf"(?<![\w.,/])(?P<first>{NUMBER})(?:\s?(?:–|-|to)\s?(?P<second>{NUMBER}))?(?P<unit>{UNIT})")
PASS_COUNT = re.compile(r"(?<![\w./,])(?P<first>\d[\d,]*)/(?P<second>\d[\d,]*)(?![\w/.]|\.\d)")
NOT_PROSE = re.compile(r"\[\[[^\]]*\]\]|\]\([^)]*\)|<!--.*?-->|<[^>]+>")


def pages() -> list[Path]:
    return sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]


def _numbers_in(value: Any) -> Iterator[float]:
    """Every number a results value holds: numbers, numbers written inside strings, and those of
    lists and objects (table rows) at any depth."""
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float)):
        yield float(value)
    elif isinstance(value, str):
        for found in re.finditer(NUMBER, value):
            yield float(found.group().replace(",", ""))
    elif isinstance(value, dict):
        for item in value.values():
            yield from _numbers_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from _numbers_in(item)


def held_numbers(folder: Path) -> set[float]:
    """Every number in every results file's figures and tables (read as plain JSON: whether a
    file may be quoted at all is ``test_results_files_are_real_runs_with_provenance``'s job)."""
    held: set[float] = set()
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        held.update(_numbers_in(data.get("figures", {})))
        held.update(_numbers_in(data.get("tables", {})))
    return held


def is_held(typed: str, held: Iterable[float]) -> bool:
    """Whether a number as typed (``1,167``, ``3.3``) is a results value at the precision typed:
    ``122.5`` is held by 122.46, ``122`` by 122.46 too, ``123`` is not."""
    text = typed.replace(",", "")
    decimals = len(text.split(".")[1]) if "." in text else 0
    value = float(text)
    return any(abs(round(number, decimals) - value) < 10 ** -(decimals + 3) for number in held)


def unheld_figures(markdown: str, held: set[float], where: str = "page") -> list[str]:
    """``where:line: 'figure'`` for each measured-looking number in ``markdown``'s prose that no
    results value holds; code, figure tokens, link targets and HTML are not prose."""
    problems: list[str] = []
    for number, line in prose.prose_lines(markdown):
        line = NOT_PROSE.sub(" ", line)
        for found in [*MEASURED.finditer(line), *PASS_COUNT.finditer(line)]:
            typed = [found.group("first")] + ([found.group("second")] if found.group("second") else [])
            if not all(is_held(t, held) for t in typed):
                problems.append(f"{where}:{number}: {found.group().strip()!r} is typed, and no results file holds it")
    return problems


@pytest.fixture(scope="module")
def held() -> set[float]:
    return held_numbers(figures.RESULTS)


def test_no_page_types_a_figure_that_no_results_file_holds(held: set[float]) -> None:
    problems = [
        problem
        for page in pages()
        for problem in unheld_figures(page.read_text(encoding="utf-8"), held, str(page.relative_to(ROOT)))
    ]
    assert not problems, "quote measured figures with [[fig:NAME.KEY]] (docs/hooks/figures.py):\n" + "\n".join(problems)


def test_every_figure_token_resolves() -> None:
    problems = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        if not figures.tokens(text):
            continue
        try:
            figures.render(text, figures.RESULTS)
        except figures.FigureError as exc:
            problems.append(f"{page.relative_to(ROOT)}: {exc}")
    assert not problems, "\n".join(problems)


def test_results_files_are_real_runs_with_provenance() -> None:
    problems = []
    for path in sorted(figures.RESULTS.glob("*.json")):
        try:
            figures.load(path)
        except figures.FigureError as exc:
            problems.append(str(exc))
    assert not problems, "\n".join(problems)


# -- the check itself, on pages and results made here ------------------------------------------


def _results(folder: Path, name: str = "demo_time", **changes: Any) -> Path:
    """A results file as ``benchmarks/results_file.py`` writes one."""
    data = {
        "script": f"benchmarks/{name}.py",
        "argv": ["--jobs", "2"],
        "date": "2026-11-28T16:30:00+00:00",
        "commit": "48ea215c0ffee0000000000000000000000000000",
        "dirty": False,
        "smoke": False,
        "machine": {"cores": 2, "cpu": "Some CPU", "memory_gib": 23.4, "system": "Linux 6.1", "python": "3.11.2"},
        "figures": {"wall_seconds": 122.46, "speedup": 10.3, "requests_per_second": 1167},
        "tables": {"runs": {"columns": ["run", "tasks", "passed", "pass_rate"], "rows": [["demo-oracle", 564, 564, 100.0], ["demo-smollm2", 383, 0, 0.0]]}},
    }
    data.update(changes)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_the_check_bites_on_a_typed_figure_that_no_results_file_holds(tmp_path: Path) -> None:
    _results(tmp_path)
    held = held_numbers(tmp_path)
    page = "# Speed\n\nThe demo took 987.6 s on two cores.\n"
    assert unheld_figures(page, held, "docs/x.md") == ["docs/x.md:3: '987.6 s' is typed, and no results file holds it"]


@pytest.mark.parametrize(
    "typed",
    ["took 3.5 minutes", "a 2.6x speed-up", "a 4.1× speed-up", "77.5% of tasks", "61/62 programs pass", "used 512 MiB",
     "ran at 900 requests per second", "ran at 61,905 lines/s", "between 3.0–4.2×", "0.57 ms (p50)"],
)
def test_each_unit_is_caught(tmp_path: Path, typed: str) -> None:
    _results(tmp_path)
    assert len(unheld_figures(f"It {typed}.\n", held_numbers(tmp_path))) == 1, typed


@pytest.mark.parametrize(
    "quoted",
    ["took 122.5 s", "took 122 seconds", "10.3× faster", "1,167 requests per second", "564/564 passed", "a pass rate of 100.0%"],
)
def test_a_figure_a_results_file_holds_passes_at_the_precision_quoted(tmp_path: Path, quoted: str) -> None:
    _results(tmp_path)
    assert unheld_figures(f"It {quoted}.\n", held_numbers(tmp_path)) == []


def test_code_tokens_links_and_plain_numbers_are_not_figures(tmp_path: Path) -> None:
    _results(tmp_path)
    page = (
        "Run `sleep 99 s` first, then [[fig:demo_time.wall_seconds]] s.\n"
        "```console\n$ simpilot demo\ndone in 987.6 s\n```\n"
        "See [the run](results.md#x-12s) of 8 repositories, Python 3.11, UTF-8, x86-64, SHA256, 0x1F and tests/e2e/2/3.\n"
    )
    assert unheld_figures(page, held_numbers(tmp_path)) == []


def test_every_results_number_counts_tables_and_strings_included(tmp_path: Path) -> None:
    _results(tmp_path, figures={"range": "3.0–4.2×"})
    held = held_numbers(tmp_path)
    assert {3.0, 4.2, 564.0, 383.0, 100.0} <= held


# -- the figures hook -----------------------------------------------------------------------------


def test_tokens_are_filled_in_from_the_results_file(tmp_path: Path) -> None:
    _results(tmp_path)
    page = "Took [[fig:demo_time.wall_seconds]] s at [[fig:demo_time.requests_per_second]] requests.\n\n[[source:demo_time]]\n\n[[table:demo_time.runs]]"
    out = figures.render(page, tmp_path)
    assert "Took 122.46 s at 1,167 requests." in out
    assert "measured by `benchmarks/demo_time.py` on 2026-11-28 16:30 UTC at commit `48ea215c0f`, 2 cores, Some CPU" in out
    assert "| run | tasks | passed | pass_rate |" in out and "| demo-oracle | 564 | 564 | 100.0 |" in out


def test_tokens_inside_code_are_left_as_written(tmp_path: Path) -> None:
    _results(tmp_path)
    page = "Write `[[fig:demo_time.nothing]]`:\n\n```\n[[table:missing.runs]]\n```\n"
    assert figures.render(page, tmp_path) == page


@pytest.mark.parametrize(
    ("token", "says"),
    [
        ("[[fig:demo_time.nothing]]", "has no figure 'nothing'"),
        ("[[table:demo_time.nothing]]", "has no table 'nothing'"),
        ("[[fig:absent.wall_seconds]]", "absent.json (run the benchmark that writes it)"),
        ("[[source:demo_time.wall_seconds]]", "takes no key"),
        ("[[fig:demo_time]]", "write [[fig:NAME.KEY]]"),
    ],
)
def test_an_unknown_name_or_key_is_an_error(tmp_path: Path, token: str, says: str) -> None:
    _results(tmp_path)
    with pytest.raises(figures.FigureError, match=re.escape(says)):
        figures.render(f"See {token}.", tmp_path)


def test_a_smoke_run_or_a_file_without_provenance_cannot_be_quoted(tmp_path: Path) -> None:
    _results(tmp_path / "smoke", smoke=True)
    with pytest.raises(figures.FigureError, match="smoke run"):
        figures.render("[[fig:demo_time.wall_seconds]]", tmp_path / "smoke")
    _results(tmp_path / "bare", commit=None, machine=None)
    with pytest.raises(figures.FigureError, match="no commit, machine"):
        figures.render("[[fig:demo_time.wall_seconds]]", tmp_path / "bare")


def test_the_results_page_has_a_section_per_file_named_by_its_script(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "benchmarks").mkdir(parents=True)
    (root / "benchmarks" / "demo_time.py").write_text('"""How long ``simpilot demo`` takes.\n\nMore."""\nwrite_results("demo_time")\n')
    (root / "benchmarks" / "check_mutations.py").write_text('"""Named mutations of the checks."""\n')
    (root / "benchmarks" / "marking_speed.py").write_text('"""Lines per second."""\nwrite_results("marking_speed")\n')
    folder = root / "benchmarks" / "results"
    _results(folder)
    _results(folder, name="mutations", script="benchmarks/check_mutations.py", figures={"killed": 68}, tables={})
    page = figures.render("# Results\n\n[[results]]\n", folder, root)
    assert "## `demo_time.py`: How long `simpilot demo` takes { #demo_time }" in page
    assert "## `check_mutations.py`: Named mutations of the checks { #mutations }" in page
    assert "Run again: `.venv/bin/python benchmarks/demo_time.py --jobs 2`." in page
    assert "| `wall_seconds` | 122.46 |" in page and "### runs" in page
    assert "## `marking_speed.py`: Lines per second { #marking_speed }\n\nLines per second.\n\nNot measured at this commit" in page
    assert page.index("{ #demo_time }") < page.index("{ #mutations }")


def test_prose_lines_blank_code_spans_and_skip_fences() -> None:
    page = "a `b` c\n````md\n```\ninside\n```\n````\nd ``e ` f`` g\nh `unclosed\n"
    assert list(prose.prose_lines(page)) == [(1, "a   c"), (7, "d   g"), (8, "h `unclosed")]
