"""Every number in the HTML and JSON reports, recomputed from the store by other code and compared.

The store comes from real replays of a small repository through the command line: the oracle,
the empty model, and a recorded "model" whose answers are the ground truth, hostile markup meant
to break out of the page, or nothing. The recomputation below reads SQLite directly and uses
only the definitions (median, terciles, buckets, Wilson, exact McNemar, rapidfuzz), never the
report's own modules.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import sqlite3
import statistics
from collections import Counter, defaultdict
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

from replay.cli import cli as main
from replay.core.records import Completion
from replay.scoring.stats import mcnemar_exact, wilson
from tests.conftest import DATA, tiny_scenario

HOSTILE = '</pre></details><script>document.title="pwned"</script><img src=x onerror="document.title=\'pwned2\'"> " onmouseover="x'
CATEGORIES = ("local_variable", "global_variable", "function", "class", "library", "if_condition", "if_body", "loop_body")
SERIES = (("t-oracle", "simcopilot"), ("t-empty", "simcopilot"), ("t-hostile", "none"), ("t-hostile", "simcopilot"))


def cli(*args: str) -> Result:
    """The real command line, in this process (the bridge and the tests still run as children)."""
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def replayed_store(base: Path) -> Path:
    """A results database with three real runs over a tiny repository (see the module docstring)."""
    from replay.core.recordings import answer_for, write_recording_file

    repo = base / "tinyrepo"
    shutil.copytree(DATA / "tinyrepo", repo, ignore=shutil.ignore_patterns("__pycache__"))
    tasks, scenario = tiny_scenario(repo, base, per_kind=3)
    answers = []
    for i, t in enumerate(tasks):
        raw = [t.ground_truth, HOSTILE, ""][i % 3]
        original = (repo / t.path).read_bytes()
        answers.append(answer_for(t, Completion(t.id, raw), original, "hostile", {}))
    (base / "hostile").mkdir()
    write_recording_file(base / "hostile" / "tinyrepo.jsonl", answers)
    db = base / "runs.db"
    common = ("--repo", str(repo), "--jobs", "2")
    cli("--db", str(db), "replay", str(scenario), "--model", "oracle", "--run", "t-oracle", "-p", "simcopilot", *common)
    cli("--db", str(db), "replay", str(scenario), "--model", "empty", "--run", "t-empty", "-p", "simcopilot", *common)
    cli("--db", str(db), "replay", str(scenario), "--model", f"recorded:{base / 'hostile'}", "--run", "t-hostile", *common)
    return db


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, dict, Path]:
    base = tmp_path_factory.mktemp("report")
    db = replayed_store(base)
    cli("--db", str(db), "report", "t-oracle", "t-empty", "t-hostile", "--html", str(base / "r.html"),
        "--json", str(base / "r.json"), "--csv", str(base / "csv"))
    return db, (base / "r.html").read_text(encoding="utf-8"), json.loads((base / "r.json").read_text()), base / "csv"


# -- the independent recomputation ----------------------------------------------------------------


def load(db: Path) -> tuple[dict[str, dict], dict[tuple[str, str], dict[str, sqlite3.Row]]]:
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    tasks: dict[str, dict] = {}
    for row in con.execute("SELECT task FROM tasks ORDER BY rowid"):
        t = json.loads(row["task"])
        tasks.setdefault(t["id"], t)
    series: dict[tuple[str, str], dict[str, sqlite3.Row]] = defaultdict(dict)
    for row in con.execute("SELECT * FROM outcomes"):
        series[(row["run_id"], row["postprocess"])][row["task_id"]] = row
    return tasks, series


def groups_of(t: dict, median: float | None, terciles: list[float] | None) -> list[tuple[str, str]]:
    c, r, n = t["comment_distance"], t["reference_distance"], t["lines_removed"]
    comment = "none" if c is None or median is None else "short" if c <= median else "long"
    reference = "none" if r is None or terciles is None else "short" if r <= terciles[0] else "medium" if r <= terciles[1] else "long"
    lines = "1" if n <= 1 else "2" if n == 2 else "3–4" if n <= 4 else "5–8" if n <= 8 else "9+"
    return [("all", "all"), ("headline", f"{t['language']} {t['kind']}"), *(("category", c) for c in t["labels"] if c in CATEGORIES),
            ("comment distance", comment), ("reference distance", reference), ("lines removed", lines),
            ("repository", t["repo"]), ("construct", t["construct"])]


def expected(db: Path) -> dict:
    tasks, series = load(db)
    comments = [t["comment_distance"] for t in tasks.values() if t["comment_distance"] is not None]
    references = [t["reference_distance"] for t in tasks.values() if t["reference_distance"] is not None]
    median = statistics.median(comments) if comments else None
    terciles = (statistics.quantiles(references, n=3, method="inclusive") if len(references) > 1
                else [references[0]] * 2 if references else None)
    strata, classes, metrics, outcomes, indel = {}, {}, {}, {}, {}
    for key, rows in series.items():
        cells: dict[tuple[str, str], list[sqlite3.Row]] = defaultdict(list)
        for task_id, row in rows.items():
            for member in groups_of(tasks[task_id], median, terciles):
                cells[member].append(row)
        for member, members in cells.items():
            n, k = len(members), sum(row["status"] == "pass" for row in members)
            strata[(key, *member)] = (n, k, k / n, *wilson(k, n), n < 10)
            indel[(key, *member)] = statistics.fmean(row["indel_similarity"] for row in members)
        counts = Counter(row["status"] for row in rows.values())
        for status, count in counts.items():
            classes[(key, status)] = (count, count / len(rows))
        names = ("exact_match", "indel_similarity", "levenshtein_similarity", "first_line_match", "identifier_em", "identifier_f1",
                 "devbench_line0", "devbench_cosine")
        metrics[key] = {m: statistics.fmean(row[m] for row in rows.values()) for m in names}
        for task_id, row in rows.items():
            truth, answer = tasks[task_id]["ground_truth"], row["processed"] or ""
            outcomes[(*key, task_id)] = row
            # the stored metrics are themselves what rapidfuzz and the definitions say
            assert row["indel_similarity"] == pytest.approx(fuzz.ratio(answer.strip(), truth.strip()) / 100)
            assert row["levenshtein_similarity"] == pytest.approx(Levenshtein.normalized_similarity(answer.strip(), truth.strip()))
            assert row["exact_match"] == int(" ".join(answer.split()) == " ".join(truth.split()))
    return {"strata": strata, "classes": classes, "metrics": metrics, "indel": indel, "median": median, "terciles": terciles,
            "series": series, "tasks": tasks, "outcomes": outcomes}


def paired(series: dict, first: tuple[str, str], second: tuple[str, str], tasks: dict, median, terciles) -> dict:
    a, b = series[first], series[second]
    cells: dict[tuple[str, str], list[tuple[bool, bool]]] = defaultdict(list)
    for task_id in a.keys() & b.keys():
        for member in groups_of(tasks[task_id], median, terciles):
            cells[member].append((a[task_id]["status"] == "pass", b[task_id]["status"] == "pass"))
    out = {}
    for member, pairs in cells.items():
        only_a = sum(x and not y for x, y in pairs)
        only_b = sum(y and not x for x, y in pairs)
        out[member] = (len(pairs), sum(x for x, _ in pairs), sum(y for _, y in pairs), only_a, only_b, mcnemar_exact(only_a, only_b))
    return out


class Figures(HTMLParser):
    """Every element with a ``data-kind`` attribute, with the text inside it (for table rows)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[dict] = []
        self.scripts = 0
        self.handlers: list[tuple[str, str]] = []
        self._open: list[tuple[str, dict]] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        self.scripts += tag == "script"
        self.handlers += [(tag, k) for k, _ in attrs if k.startswith("on")]
        if "data-kind" in a:
            a["_cells"] = []
            self._open.append((tag, a))
            self.found.append(a)
        if tag == "td" and self._open:
            self._open[-1][1]["_cells"].append("")

    def handle_data(self, data: str) -> None:
        if self._open and self._open[-1][1]["_cells"]:
            self._open[-1][1]["_cells"][-1] += data

    def handle_endtag(self, tag: str) -> None:
        if self._open and self._open[-1][0] == tag:
            self._open.pop()


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def test_every_number_in_the_html_equals_the_recomputation(reports) -> None:
    db, page, _, _ = reports
    want = expected(db)
    parser = Figures()
    parser.feed(page)
    seen = Counter(a["data-kind"] for a in parser.found)
    for kind in ("stratum", "stratum-row", "class", "class-cell", "trend", "trend-similarity", "metric-row", "diff"):
        assert seen[kind], kind
    bars = set()
    for a in parser.found:
        kind = a["data-kind"]
        if kind in ("stratum", "stratum-row", "trend"):
            run, preset = a["data-series"].split("|")
            key = ((run, preset), a["data-dimension"], a["data-value"])
            assert key in want["strata"], key  # a stratum without tasks is no row
            n, k, rate, low, high, small = want["strata"][key]
            assert (int(a["data-n"]), int(a["data-passed"]), int(a["data-small"])) == (n, k, int(small)), key
            assert (float(a["data-rate"]), float(a["data-low"]), float(a["data-high"])) == pytest.approx((rate, low, high)), key
            if kind == "stratum":
                bars.add(key)
            if kind == "stratum-row":  # the visible cells say the same, flag included
                cells = [c.strip() for c in a["_cells"]]
                assert cells[3:8] == [str(n), str(k), pct(rate), pct(low), pct(high)], key
                assert float(a["data-indel"]) == pytest.approx(want["indel"][key]) and cells[8] == f"{want['indel'][key]:.3f}", key
                assert cells[9] == ("⚠ n<10" if small else ""), key
        elif kind == "trend-similarity":
            run, preset = a["data-series"].split("|")
            key = ((run, preset), a["data-dimension"], a["data-value"])
            assert float(a["data-mean"]) == pytest.approx(want["indel"][key]) and int(a["data-n"]) == want["strata"][key][0]
        elif kind in ("class", "class-cell"):
            run, preset = a["data-series"].split("|")
            count, share = want["classes"].get(((run, preset), a["data-status"]), (0, 0.0))
            assert int(a["data-count"]) == count and float(a["data-share"]) == pytest.approx(share)
            if kind == "class-cell":
                assert a["_cells"][0].split()[0] == str(count)
        elif kind == "metric-row":
            run, preset = a["data-series"].split("|")
            for name, value in want["metrics"][(run, preset)].items():
                assert float(a[f"data-{name.replace('_', '-')}"]) == pytest.approx(value), name
    assert bars == set(want["strata"])  # every non-empty stratum of every series has its bar
    assert Counter(a["data-kind"] for a in parser.found if a["data-kind"] == "stratum-row")["stratum-row"] >= len(want["strata"])


def test_comparisons_in_html_and_json_equal_the_recomputation(reports) -> None:
    db, page, data, _ = reports
    want = expected(db)
    comparisons = data["comparisons"]
    # the default comparisons: the hostile run's presets, and the first run against each other on the shared preset
    assert [((c["first"]["run_id"], c["first"]["preset"]), (c["second"]["run_id"], c["second"]["preset"])) for c in comparisons] == [
        (("t-hostile", "none"), ("t-hostile", "simcopilot")),
        (("t-oracle", "simcopilot"), ("t-empty", "simcopilot")),
        (("t-oracle", "simcopilot"), ("t-hostile", "simcopilot")),
    ]
    parser = Figures()
    parser.feed(page)
    diffs = [a for a in parser.found if a["data-kind"] == "diff"]
    for index, c in enumerate(comparisons):
        first, second = (c["first"]["run_id"], c["first"]["preset"]), (c["second"]["run_id"], c["second"]["preset"])
        cells = paired(want["series"], first, second, want["tasks"], want["median"], want["terciles"])
        assert {(s["dimension"], s["value"]) for s in c["strata"]} == set(cells)
        for s in c["strata"]:
            n, k1, k2, only_a, only_b, p = cells[(s["dimension"], s["value"])]
            assert (s["n"], s["passed_first"], s["passed_second"], s["only_first"], s["only_second"]) == (n, k1, k2, only_a, only_b)
            assert s["p_value"] == pytest.approx(p) and s["difference"] == pytest.approx((k2 - k1) / n)
        mine = [a for a in diffs if a["data-comparison"] == str(index)]
        assert len(mine) == len(cells)
        for a in mine:
            n, k1, k2, only_a, only_b, p = cells[(a["data-dimension"], a["data-value"])]
            assert (int(a["data-n"]), int(a["data-passed-first"]), int(a["data-passed-second"])) == (n, k1, k2)
            assert (int(a["data-only-first"]), int(a["data-only-second"])) == (only_a, only_b)
            assert float(a["data-p-value"]) == pytest.approx(p)
        a, b = want["series"][first], want["series"][second]
        flips = sorted(t for t in a.keys() & b.keys() if (a[t]["status"] == "pass") != (b[t]["status"] == "pass"))
        assert sorted(f["task_id"] for f in c["flips"]) == flips
    oracle_vs_empty = comparisons[1]
    assert oracle_vs_empty["strata"][0]["only_first"] == len(want["series"][("t-oracle", "simcopilot")]) > 0


def test_every_number_in_the_json_equals_the_recomputation(reports) -> None:
    db, _, data, _ = reports
    want = expected(db)
    assert data["cutoffs"]["comment_median"] == want["median"]
    assert data["cutoffs"]["reference_terciles"] == pytest.approx(want["terciles"])
    assert [(s["run_id"], s["preset"]) for s in data["sections"]] == list(SERIES)
    for s in data["sections"]:
        key = (s["run_id"], s["preset"])
        for r in s["rows"]:
            if (key, r["dimension"], r["value"]) not in want["strata"]:
                assert r["n"] == 0 and r["rate"] is None
                continue
            n, k, rate, low, high, small = want["strata"][(key, r["dimension"], r["value"])]
            assert (r["n"], r["passed"], r["small"]) == (n, k, small)
            assert (r["rate"], r["low"], r["high"]) == pytest.approx((rate, low, high))
        assert sum(1 for r in s["rows"] if r["n"]) == sum(1 for k in want["strata"] if k[0] == key)
        for c in s["taxonomy"]["classes"]:
            count, share = want["classes"].get((key, c["status"]), (0, 0.0))
            assert (c["count"], c["share"]) == (count, pytest.approx(share))
        assert s["metrics"] == pytest.approx(want["metrics"][key])
        for m in s["indel_similarity_by_stratum"]:
            assert m["mean"] == (pytest.approx(want["indel"][(key, m["dimension"], m["value"])]) if m["n"] else None)
    assert len(data["outcomes"]) == len(want["outcomes"])
    for o in data["outcomes"]:
        row = want["outcomes"][(o["run_id"], o["preset"], o["task_id"])]
        assert (o["status"], o["processed"]) == (row["status"], row["processed"])
        assert o["metrics"] == {name: row[name] for name in o["metrics"]}


def test_the_runs_have_the_outcomes_the_answers_call_for(reports) -> None:
    db, _, data, _ = reports
    statuses = {(s["run_id"], s["preset"]): s["statuses"] for s in data["sections"]}
    assert set(statuses[("t-oracle", "simcopilot")]) == {"pass"}
    assert "pass" not in statuses[("t-empty", "simcopilot")]
    hostile = statuses[("t-hostile", "none")]
    assert hostile.get("pass") and hostile.get("syntax_error") and hostile.get("empty")


def test_model_output_cannot_inject_markup(reports) -> None:
    _, page, _, _ = reports
    parser = Figures()
    parser.feed(page)
    assert parser.scripts == 1  # the report's own sorting script, nothing else
    assert parser.handlers == []  # no on… attribute anywhere
    assert "<script>document.title" not in page and "<img src=x" not in page
    assert html_escaped(HOSTILE) in page  # the answer is shown, as text
    assert "http://" not in page and "https://" not in page  # nothing to fetch


def html_escaped(text: str) -> str:
    import html

    return html.escape(text, quote=True)


def test_small_strata_are_flagged_in_every_output(reports) -> None:
    db, page, data, folder = reports
    small_json = {(s["run_id"], s["preset"], r["dimension"], r["value"]) for s in data["sections"] for r in s["rows"] if r["small"]}
    assert small_json  # a tiny repository: everything is small
    with (folder / "strata.csv").open(encoding="utf-8") as fh:
        small_csv = {(r["run_id"], r["preset"], r["dimension"], r["value"]) for r in csv.DictReader(fh) if r["small"] == "1"}
    assert small_csv == small_json
    assert re.search(r'<rect class="bar small"', page) and "⚠ n&lt;10" in page
    text = cli("--db", str(db), "report", "t-oracle").stdout
    assert "(n<10)" in text and "median" in text and "terciles" in text and "syntax error" not in text
    text = cli("--db", str(db), "report", "t-hostile").stdout
    assert "syntax error" in text and "comparison" in text


def test_bootstrap_report_is_reproducible(reports) -> None:
    db = reports[0]
    one = json.loads(cli("--db", str(db), "report", "t-hostile", "--bootstrap", "300", "--seed", "5", "--json").stdout)
    two = json.loads(cli("--db", str(db), "report", "t-hostile", "--bootstrap", "300", "--seed", "5", "--json").stdout)
    assert one["interval"] == "bootstrap-95 (300 resamples, seed 5)"
    assert one["sections"] == two["sections"]
