"""Reports computed from the store alone: for every (run, preset) series the paper's strata with
95% intervals, the error taxonomy, mean similarity metrics and the tasks worth a look; then the
comparisons between series. Building (:func:`build_report`, reading the store once) and rendering
(text with rich, JSON, CSV here; HTML in html_report.py) are separate, and every renderer shows
the same :class:`Report`, so the numbers agree across formats."""

from __future__ import annotations

import csv
import hashlib
import math
import os
from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from postprocess import is_ablation
from replay.config.manifest import project_root
from replay.core.errors import SimpilotError
from replay.core.records import Outcome, Task
from replay.core.scenarios import document_text
from replay.reports.comparison import Comparison, Series, compare, pair_tasks, task_digest
from replay.reports.decision_figures import DecisionFigures, decision_figures, decisions_json, render_decisions
from replay.reports.scoreboard import Scoreboard, build_series
from replay.reports.scoreboard import to_json as scoreboard_json
from replay.reports.strata import SMALL_STRATUM, Cutoffs, IntervalMethod, MeanRow, StratumRow, cutoffs, stratify, stratum_means
from replay.reports.tampering import TamperingRow, render_tampering, row_json, tampering
from replay.reports.taxonomy import Taxonomy, taxonomy
from replay.scoring.passk import bootstrap_interval, task_pass_at_k
from replay.scoring.similarity import METRIC_LABELS
from replay.store import RunInfo, Store


@dataclass
class Notable:
    task_id: str
    status: str
    why: str


@dataclass(frozen=True, slots=True)
class OutcomeRow:
    """One outcome with everything an export or a drill-down needs (metrics are None when the
    task of the outcome is not stored with the run)."""

    run_id: str
    model: str
    preset: str
    task_id: str
    repo: str
    language: str
    kind: str
    construct: str
    status: str
    passed: bool
    detail: str
    duration_s: float
    processed: str | None
    raw: str | None
    model_error: str | None
    output_tail: str
    steps: tuple[str, ...]
    metrics: dict[str, float] | None


@dataclass
class Section:
    run_id: str
    model: str
    preset: str
    scenario_hash: str
    rows: list[StratumRow]
    statuses: dict[str, int]
    taxonomy: Taxonomy
    metrics: dict[str, float]  # mean of each metric over the outcomes that have them
    metrics_n: int
    similarity: list[MeanRow] = field(default_factory=list)  # mean indel similarity per stratum
    notable: list[Notable] = field(default_factory=list)
    samples: SampleSummary | None = None  # runs with several samples per task: pass@k over all of them
    decisions: DecisionFigures | None = None  # series with decision tasks: silence, precision, one line (decisions.py)

    @property
    def series(self) -> Series:
        return Series(self.run_id, self.model, self.preset)

    @property
    def label(self) -> str:
        return self.series.label

    def similarity_of(self, dimension: str, value: str) -> float | None:
        return next((m.mean for m in self.similarity if (m.dimension, m.value) == (dimension, value)), None)


@dataclass(frozen=True, slots=True)
class SampleSummary:
    """pass@k of a series whose tasks have several samples (the rest of its section, like every
    per-task table, is about sample 0: the first suggestion): the unbiased pass@1 over every
    sample with a task-level bootstrap interval, and pass@n."""

    n: int  # samples per task (the fewest any task has)
    tasks: int
    pass_at_1: float
    low: float
    high: float
    pass_at_n: float


def sample_summary(outcomes: list[Outcome], preset: str, tasks: Collection[str]) -> SampleSummary | None:
    """pass@1 and pass@n of ``preset`` over every sample of ``tasks``; None when no task has more than one."""
    passed: dict[str, list[bool]] = {}
    for o in outcomes:
        if o.postprocess == preset and o.task_id in tasks:
            passed.setdefault(o.task_id, []).append(o.passed)
    if not passed or max(len(v) for v in passed.values()) < 2:
        return None
    n = min(len(v) for v in passed.values())
    per_task = [task_pass_at_k(v, 1) for v in passed.values()]
    low, high = bootstrap_interval(per_task)
    return SampleSummary(
        n,
        len(per_task),
        math.fsum(per_task) / len(per_task),
        low,
        high,
        math.fsum(task_pass_at_k(v, n) for v in passed.values()) / len(passed),
    )


@dataclass
class Report:
    runs: list[RunInfo]
    interval: str
    cutoffs: Cutoffs
    sections: list[Section]
    comparisons: list[Comparison]
    outcomes: list[OutcomeRow]
    tasks: dict[str, Task]  # every task of the report by id (the first run's copy)
    requests: dict[tuple[str, str], dict[str, Any]]  # (run, task) → the stored request
    # (run, task id) → that run's task where it differs from the copy in ``tasks`` (re-marked)
    run_tasks: dict[tuple[str, str], Task] = field(default_factory=dict)
    board: Scoreboard | None = None  # latency, the editor clock and cost per series (scoreboard.py)
    # answers that touched the test harness, every series when any did (tampering.py); empty otherwise
    tampering: list[TamperingRow] = field(default_factory=list)

    def __iter__(self):  # a report reads as its sections, as it did before comparisons existed
        return iter(self.sections)

    def __len__(self) -> int:
        return len(self.sections)


def presets_of(run: RunInfo, outcomes: list[Outcome]) -> list[str]:
    """The distinct presets of a run's outcomes: the run's own order first, then any others
    (stored later, e.g. by comparing more presets under the same run) by name. The ablation
    variants ``simpilot compare`` stores (a preset without one step) are its business, not a
    report's."""
    stored = {o.postprocess for o in outcomes if not is_ablation(o.postprocess)}
    return [p for p in run.presets if p in stored] + sorted(stored - set(run.presets))


def notable(run: RunInfo, mine: list[Outcome], tasks: Mapping[str, Task] | None = None) -> list[Notable]:
    """Outcomes worth a look: the oracle failing, or an empty answer passing where code was needed
    (an empty answer is the right one at a ``no_suggestion`` place)."""
    found = []
    for o in mine:
        task = (tasks or {}).get(o.task_id)
        if run.model == "oracle" and not o.passed:
            found.append(Notable(o.task_id, o.status.value, o.detail or "the ground truth failed"))
        elif o.passed and not (o.processed or "").strip() and not (task is not None and task.nothing_needed):
            found.append(Notable(o.task_id, o.status.value, "passed with an empty answer: its tests do not exercise the hole"))
    return found


def build_section(
    run: RunInfo,
    preset: str,
    tasks: dict[str, Task],
    outcomes: list[Outcome],
    cut: Cutoffs,
    method: IntervalMethod,
    metrics: dict[tuple[str, str], Any],
) -> Section:
    mine = {o.task_id: o for o in outcomes if o.postprocess == preset and o.task_id in tasks}
    rows = stratify(list(tasks.values()), lambda i: mine[i].passed if i in mine else None, cut, method, key=f"{run.run_id}|{preset}")
    values = [metrics[(i, preset)].to_dict() for i in mine if (i, preset) in metrics]
    means = {name: math.fsum(v[name] for v in values) / len(values) for name in METRIC_LABELS} if values else {}
    listed = list(mine.values())
    indel = {i: metrics[(i, preset)].indel_similarity for i in mine if (i, preset) in metrics}
    return Section(
        run.run_id,
        run.model,
        preset,
        run.scenario_hash,
        rows,
        dict(Counter(o.status.value for o in listed)),
        taxonomy(listed),
        means,
        len(values),
        stratum_means(list(tasks.values()), indel.get, cut),
        notable(run, listed, tasks),
        decisions=decision_figures(list(tasks.values()), mine, cut, method, key=f"{run.run_id}|{preset}"),
    )


def default_pairs(series: list[Series]) -> list[tuple[Series, Series]]:
    """What a report compares: each run's first preset with its other presets, and the first
    run with every other run on each preset they share (or on their first presets)."""
    by_run: dict[str, list[Series]] = {}
    for s in series:
        by_run.setdefault(s.run_id, []).append(s)
    pairs = [(mine[0], other) for mine in by_run.values() for other in mine[1:]]
    runs = list(by_run.values())
    for other in runs[1:]:
        shared = [(x, y) for x in runs[0] for y in other if x.preset == y.preset]
        pairs += shared or [(runs[0][0], other[0])]
    return pairs


WILSON = IntervalMethod()  # the default interval (a frozen record: one instance serves every call)


def build_report(
    store: Store, run_ids: list[str], method: IntervalMethod = WILSON, pairs: list[tuple[tuple[str, str], tuple[str, str]]] | None = None
) -> Report:
    """Read ``run_ids`` from the store (filling in missing metrics first) and compute everything.
    ``pairs`` of ((run, preset), (run, preset)) replace the default comparisons."""
    runs = [r for r in (store.run(i) for i in run_ids) if r is not None]
    loaded = []
    every_sample: dict[str, list[Outcome]] = {}
    for run in runs:
        store.backfill_metrics(run.run_id)
        every_sample[run.run_id] = store.outcomes(run.run_id, sample=None)
        loaded.append(
            (
                run,
                {t.id: t for t in store.tasks(run.run_id)},
                [o for o in every_sample[run.run_id] if o.sample == 0],  # the per-task tables: the first suggestion
                store.metrics(run.run_id),
                store.completions(run.run_id),
            )
        )
    all_tasks: dict[str, Task] = {}
    run_tasks: dict[tuple[str, str], Task] = {}
    for run, tasks, _, _, _ in loaded:
        for t in tasks.values():
            known = all_tasks.setdefault(t.id, t)
            if known is not t and task_digest(known) != task_digest(t):
                run_tasks[(run.run_id, t.id)] = t
    cut = cutoffs([*all_tasks.values(), *run_tasks.values()])  # a re-marked task counts as the task it is
    sections, rows, requests = [], [], {}
    by_series: dict[tuple[str, str], tuple[Series, dict[str, Outcome], dict[str, Task]]] = {}
    for run, tasks, outcomes, metrics, completions in loaded:
        for preset in presets_of(run, outcomes):
            section = build_section(run, preset, tasks, outcomes, cut, method, metrics)
            section.samples = sample_summary(every_sample[run.run_id], preset, tasks)
            sections.append(section)
            by_series[(run.run_id, preset)] = (section.series, {o.task_id: o for o in outcomes if o.postprocess == preset}, tasks)
        for o in outcomes:
            task = tasks.get(o.task_id)
            c = completions.get(o.task_id)
            m = metrics.get((o.task_id, o.postprocess))
            rows.append(
                OutcomeRow(
                    run.run_id,
                    run.model,
                    o.postprocess,
                    o.task_id,
                    task.repo if task else "",
                    task.language if task else "",
                    task.kind.value if task else "",
                    task.construct if task else "",
                    o.status.value,
                    o.passed,
                    o.detail,
                    o.duration_s,
                    o.processed,
                    c.raw if c else None,
                    c.error if c else None,
                    o.output_tail,
                    o.steps,
                    m.to_dict() if m else None,
                )
            )
        requests.update({(run.run_id, i): c.request for i, c in completions.items()})
    if pairs is None:
        chosen = [((x.run_id, x.preset), (y.run_id, y.preset)) for x, y in default_pairs([s.series for s in sections])]
    else:
        chosen = [p for p in pairs if p[0] in by_series and p[1] in by_series]
    comparisons = []
    for first, second in chosen:
        s1, a, tasks1 = by_series[first]
        s2, b, tasks2 = by_series[second]
        shared, differing = pair_tasks(tasks1, tasks2)
        comparisons.append(compare(s1, s2, shared, a, b, cut, differing))
    board = build_series(store, [(s.series.run_id, s.series.preset) for s in sections]) if sections else None
    tampered = tampering([(s.series, [o for o in every_sample[s.run_id] if o.postprocess == s.preset]) for s in sections])
    return Report(runs, method.name, cut, sections, comparisons, rows, all_tasks, requests, run_tasks, board, tampered)


# -- the document the model saw ---------------------------------------------------------------


def source_file(task: Task, request: dict[str, Any] | None) -> bytes | None:
    """The untouched file the task was cut from, if it can still be found unchanged: at the
    address the request named, or in the bundled repositories. ``None`` otherwise."""
    candidates = []
    if request and str(request.get("uri", "")).startswith("file://"):
        candidates.append(Path(unquote(urlparse(request["uri"]).path)))
    candidates.append(project_root() / "repos" / task.repo / task.path)
    for path in candidates:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if hashlib.sha256(data).hexdigest() == task.file_sha256:
            return data
    return None


CURSOR_MARK = "█"  # where the cursor stood; the hole's text was removed there


def prompt_excerpt(task: Task, original: bytes | None, before: int = 15, after: int = 10) -> str | None:
    """The lines of the document around the cursor as the editor had them (the hole removed; for
    completion nothing after the cursor), the cursor marked with :data:`CURSOR_MARK`."""
    if original is None:
        return None
    text = document_text(task, original)
    cursor = len(original[: task.span.start_byte].decode("utf-8"))
    marked = text[:cursor] + CURSOR_MARK + text[cursor:]
    lines = marked.split("\n")
    at = task.span.start.line
    return "\n".join(lines[max(0, at - before) : at + after + 1])


# -- text, JSON, CSV --------------------------------------------------------------------------


def section_json(s: Section) -> dict[str, Any]:
    return {
        "run_id": s.run_id,
        "model": s.model,
        "preset": s.preset,
        "scenario_hash": s.scenario_hash,
        # "stratum" repeats "dimension" under the name earlier versions of this JSON used
        "rows": [{**asdict(r), "stratum": r.dimension} for r in s.rows],
        "statuses": s.statuses,
        "taxonomy": asdict(s.taxonomy),
        "metrics": s.metrics,
        "metrics_n": s.metrics_n,
        "samples": None if s.samples is None else asdict(s.samples),
        "indel_similarity_by_stratum": [asdict(m) for m in s.similarity],
        "notable": [asdict(n) for n in s.notable],
        "decisions": None if s.decisions is None else decisions_json(s.decisions),
    }


def comparison_json(c: Comparison) -> dict[str, Any]:
    data = asdict(c)
    for row, stratum in zip(data["strata"], c.strata, strict=True):
        row["difference"] = stratum.difference
    return data


def run_verdict(run: RunInfo) -> str:
    """How ``run``'s verdicts were reached, as its configuration says (``run_config.verdict_way``:
    each test's result through the proof channel, an output comparison, a program's checks run to
    their end, JUnit XML reports) with the rule's version."""
    verdict = (run.config or {}).get("verdict")
    return verdict if isinstance(verdict, str) else "not recorded (a run stored before its configuration was)"


def to_json(report: Report) -> dict[str, Any]:
    return {
        "runs": [{"run_id": r.run_id, "model": r.model, "verdict": run_verdict(r)} for r in report.runs],
        "interval": report.interval,
        "small_stratum": SMALL_STRATUM,
        "cutoffs": {
            "comment_median": report.cutoffs.comment_median,
            "reference_terciles": report.cutoffs.reference_terciles,
            "described": report.cutoffs.describe(),
        },
        "metric_labels": METRIC_LABELS,
        "sections": [section_json(s) for s in report.sections],
        "comparisons": [comparison_json(c) for c in report.comparisons],
        "outcomes": [asdict(o) for o in report.outcomes],
        "scoreboard": scoreboard_json(report.board) if report.board is not None else None,
        "tampering": [row_json(r) for r in report.tampering],  # always present: empty when no answer tampered
    }


def write_csv(report: Report, folder: Path) -> list[Path]:
    """outcomes.csv, strata.csv (every stratum of every series), taxonomy.csv, comparisons.csv
    (every stratum of every comparison) and flips.csv in ``folder``, created with its missing
    parents if need be (see :func:`check_output_folder`); each file written atomically; the
    paths written."""
    metric_names = list(METRIC_LABELS)
    tables: dict[str, tuple[list[str], list[list[Any]]]] = {
        "outcomes.csv": (
            [
                "run_id",
                "model",
                "preset",
                "task_id",
                "repo",
                "language",
                "kind",
                "construct",
                "status",
                "passed",
                "detail",
                "duration_s",
                *metric_names,
                "processed",
                "raw",
                "model_error",
            ],
            [
                [
                    o.run_id,
                    o.model,
                    o.preset,
                    o.task_id,
                    o.repo,
                    o.language,
                    o.kind,
                    o.construct,
                    o.status,
                    int(o.passed),
                    o.detail,
                    o.duration_s,
                    *((o.metrics or {}).get(m, "") for m in metric_names),
                    o.processed,
                    o.raw,
                    o.model_error,
                ]
                for o in report.outcomes
            ],
        ),
        "strata.csv": (
            [
                "run_id",
                "model",
                "preset",
                "interval",
                "dimension",
                "value",
                "n",
                "passed",
                "rate",
                "low",
                "high",
                "small",
                "mean_indel_similarity",
            ],
            [
                [
                    s.run_id,
                    s.model,
                    s.preset,
                    report.interval,
                    r.dimension,
                    r.value,
                    r.n,
                    r.passed,
                    "" if r.rate is None else r.rate,
                    r.low,
                    r.high,
                    int(r.small),
                    _blank(s.similarity_of(r.dimension, r.value)),
                ]
                for s in report.sections
                for r in s.rows
            ],
        ),
        "taxonomy.csv": (
            ["run_id", "model", "preset", "class", "status", "count", "share", "share_of_failures"],
            [
                [s.run_id, s.model, s.preset, k.label, k.status, k.count, k.share, k.share_of_failures]
                for s in report.sections
                for k in s.taxonomy.classes
            ],
        ),
        "comparisons.csv": (
            [
                "first",
                "second",
                "dimension",
                "value",
                "n",
                "passed_first",
                "passed_second",
                "difference",
                "only_first",
                "only_second",
                "p_value",
                "small",
            ],
            [
                [
                    c.first.label,
                    c.second.label,
                    d.dimension,
                    d.value,
                    d.n,
                    d.passed_first,
                    d.passed_second,
                    d.difference,
                    d.only_first,
                    d.only_second,
                    d.p_value,
                    int(d.small),
                ]
                for c in report.comparisons
                for d in c.strata
            ],
        ),
        "flips.csv": (
            ["first", "second", "task_id", "first_status", "second_status"],
            [[c.first.label, c.second.label, f.task_id, f.first_status, f.second_status] for c in report.comparisons for f in c.flips],
        ),
    }
    written = []
    for name, (header, rows) in tables.items():
        path = folder / name
        with _atomic(path, "CSV file") as fh:
            writer = csv.writer(fh)
            writer.writerow(header)
            writer.writerows(rows)
        written.append(path)
    return written


# -- where the report files go ----------------------------------------------------------------
#
# A report file's missing parent folders, and a missing --csv folder, are created (as 'mkdir -p'
# would): 'report … --html out/today/r.html' just works. What cannot work is refused before the
# report is built, in one line naming the path, what is wrong and what to do: a file path that
# is a folder, a folder path that is a file, a parent that is a file, or a folder that is not
# writable (the file itself, or a folder that would have to be created in it). Files are then
# written next to their target and renamed onto it, so that a failure leaves the old file or
# none, never half of one.


class OutputRefused(SimpilotError):
    """A report path that cannot be written, found before anything was built or written: the
    exit status of a usage error, as for a bad option."""

    exit_status = 2


def _folder_problem(folder: Path) -> str | None:
    """Why files cannot be written into ``folder`` (created first when missing), in words
    ending with what to do; None when they can."""
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return f"{existing} is a file, not a folder: choose another path"
    if not os.access(existing, os.W_OK | os.X_OK):
        if existing == folder:
            return f"the folder {folder} is not writable: change its permissions or choose another path"
        return f"the folder {folder} does not exist and cannot be created in {existing}, which is not writable: create it or choose another path"
    return None


def check_output_file(path: Path, what: str) -> None:
    """Raise :class:`OutputRefused` unless the ``what`` (e.g. "HTML report") can be written to
    ``path``. A missing parent folder is not a problem: :func:`write_text_atomically` creates it."""
    if path.is_dir():
        problem: str | None = f"{path} is a folder: give a file name, such as {path / ('report' + _SUFFIX.get(what, ''))}"
    elif path.exists() and not path.is_file():
        problem = f"{path} is not a regular file: choose another path"
    else:
        problem = _folder_problem(path.parent)
    if problem:
        raise OutputRefused(f"cannot write the {what} to {path}: {problem}")


def check_output_folder(folder: Path, what: str = "CSV files") -> None:
    """Raise :class:`OutputRefused` unless the ``what`` can be written into ``folder``; a
    missing folder is not a problem: :func:`write_csv` creates it (and its missing parents)."""
    problem = _folder_problem(folder)
    if problem:
        raise OutputRefused(f"cannot write the {what} into {folder}: {problem}")


_SUFFIX = {"HTML report": ".html", "JSON report": ".json"}


class _atomic:  # noqa: N801 (used as a context manager, like open)
    """``with _atomic(path, what) as fh``: a text file written beside ``path`` and renamed onto
    it when the block ends without error (removed otherwise); an OS error becomes one line. A
    lone surrogate (an answer may hold one; the store keeps it as it came) cannot be UTF-8: it is
    written as its escape, ``\\ud800``, as JSON shows it."""

    def __init__(self, path: Path, what: str) -> None:
        self.path, self.what = path, what
        self.tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")

    def __enter__(self) -> Any:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.fh = self.tmp.open("w", newline="", encoding="utf-8", errors="backslashreplace")
        except OSError as exc:
            raise self._error(exc) from None
        return self.fh

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: Any) -> None:
        try:
            self.fh.close()
            if kind is None:
                os.replace(self.tmp, self.path)
        except OSError as error:
            self.tmp.unlink(missing_ok=True)
            raise self._error(error) from None
        if kind is not None:
            self.tmp.unlink(missing_ok=True)
            if isinstance(exc, OSError):
                raise self._error(exc) from None

    def _error(self, exc: OSError) -> SimpilotError:
        reason = exc.strerror or str(exc)
        return SimpilotError(
            f"cannot write the {self.what} to {self.path}: {reason.lower()}: free some space, fix the permissions or choose another path"
        )


def write_text_atomically(path: Path, text: str, what: str) -> None:
    """``text`` into ``path`` (its missing parent folders created), atomically: a failure leaves
    the old file or none, and is one line (:class:`SimpilotError`), never a traceback."""
    with _atomic(path, what) as fh:
        fh.write(text)


def _blank(x: float | None) -> float | str:
    return "" if x is None else x


def _pct(x: float | None) -> str:
    return "    –" if x is None else f"{100 * x:5.1f}"


def strata_table(report: Report, s: Section) -> Table:
    """One series' strata as a table that fits 80 columns: each dimension is a heading row with
    its values indented under it (two label columns would push the numbers off a narrow
    terminal), and the numbers never wrap."""
    method = "Wilson" if report.interval == "wilson-95" else "bootstrap"
    table = Table(title=escape(f"run {s.run_id} · model {s.model} · post-processing {s.preset}"), title_justify="left")
    table.add_column("stratum", justify="left", overflow="fold")
    for col in ("tasks", "passed", "pass %", f"95% CI ({method})"):
        table.add_column(col, justify="right", no_wrap=True)
    last = None
    for r in s.rows:
        if r.dimension != last:
            if last is not None:
                table.add_section()
            if r.dimension != "all":
                table.add_row(f"[bold]{escape(r.dimension)}[/]")
            last = r.dimension
        flag = f" [yellow](n<{SMALL_STRATUM})[/]" if r.small else ""
        label = escape(r.value) if r.dimension == "all" else "  " + escape(r.value)
        table.add_row(label + flag, str(r.n), str(r.passed), _pct(r.rate), f"{_pct(r.low)} – {_pct(r.high)}")
    return table


def render(report: Report, console: Console) -> None:
    """Every series' strata, outcome classes and similarity, the answers that tampered with the
    harness (when any did), then the comparisons (``report``)."""
    cut_lines = report.cutoffs.describe()
    for s in report.sections:
        console.print(strata_table(report, s))
        if s.samples is not None:
            console.print(f"  {s.preset}: {sample_line(s)}", markup=False, highlight=False)
        for dimension, line in cut_lines.items():
            console.print(f"  {dimension}: {line}", markup=False, highlight=False)
        t = s.taxonomy
        classes = ", ".join(f"{k.label} {k.count} ({100 * k.share:.1f}%)" for k in t.classes if k.count)
        console.print(f"  outcomes: {t.passed} passed of {t.total}; failures: {classes or 'none'}", markup=False, highlight=False)
        if s.decisions is not None:
            render_decisions(s.decisions, console)
        if t.undefined_sources:
            console.print("  undefined names found by: " + ", ".join(f"{k} {v}" for k, v in t.undefined_sources.items()), markup=False)
        if s.metrics:
            console.print(
                "  similarity (mean of "
                + str(s.metrics_n)
                + "): "
                + ", ".join(f"{METRIC_LABELS[k]} {v:.3f}" for k, v in s.metrics.items()),
                markup=False,
                highlight=False,
            )
        if s.notable:
            console.print(f"  [bold]worth a look ({len(s.notable)}):[/]")
            for note in s.notable[:20]:
                console.print(f"    {note.task_id}  [{note.status}] {note.why}", markup=False, highlight=False)
            if len(s.notable) > 20:
                console.print(f"    … and {len(s.notable) - 20} more (see --json)")
        elif s.model == "oracle":
            console.print("  every ground-truth answer passed")
        console.print()
    render_tampering(report.tampering, console)
    for c in report.comparisons:
        console.print(f"[bold]comparison[/]: {c.second.label} vs {c.first.label}", highlight=False)
        for line in c.summary.splitlines():
            console.print("  " + line, markup=False, highlight=False)
        if c.flips:
            shown = ", ".join(f"{f.task_id} ({f.first_status}→{f.second_status})" for f in c.flips[:10])
            console.print(f"  flipped ({len(c.flips)}): {shown}" + (" …" if len(c.flips) > 10 else ""), markup=False, highlight=False)
        if c.differing:
            console.print(
                f"  not compared, different tasks under one id ({len(c.differing)}): {', '.join(c.differing[:10])}"
                + (" …" if len(c.differing) > 10 else ""),
                markup=False,
                highlight=False,
            )
        console.print()


# -- the short summary a replay prints ----------------------------------------------------------


def _overall(s: Section) -> StratumRow | None:
    return next((r for r in s.rows if r.dimension == "all"), None)


def _most_common(t: Taxonomy, shown: int = 3) -> str:
    """The most frequent outcome classes other than a pass, the rest counted (the full report
    lists them all)."""
    classes = sorted((k for k in t.classes if k.count), key=lambda k: -k.count)
    text = ", ".join(f"{k.label} {k.count}" for k in classes[:shown]) or "none"
    return text + (f", {len(classes) - shown} more" if len(classes) > shown else "")


def summary_table(report: Report, sections: list[Section] | None = None) -> Table:
    """One row per series (of ``sections``, default all): the pass rate with its interval and the
    other outcomes, in a table whose numbers never wrap at 80 columns (the outcomes fold instead)."""
    method = "Wilson" if report.interval == "wilson-95" else "bootstrap"
    table = Table(title_justify="left")
    table.add_column("preset", overflow="fold")
    for col in ("passed", "pass %", f"95% CI ({method})"):
        table.add_column(col, justify="right", no_wrap=True)
    table.add_column("other outcomes", overflow="fold")
    for s in report.sections if sections is None else sections:
        r = _overall(s)
        others = _most_common(s.taxonomy)
        if r is None:
            table.add_row(escape(s.preset), "0/0", _pct(None), "", escape(others))
        else:
            table.add_row(escape(s.preset), f"{r.passed}/{r.n}", _pct(r.rate), f"{_pct(r.low)} – {_pct(r.high)}", escape(others))
    return table


def sample_line(s: Section) -> str:
    """pass@1 over every sample and pass@n of a series with several samples per task."""
    m = s.samples
    assert m is not None
    return (
        f"pass@1 over {m.n} samples {100 * m.pass_at_1:.1f}% [{100 * m.low:.1f} – {100 * m.high:.1f}], "
        f"pass@{m.n} {100 * m.pass_at_n:.1f}% ({m.tasks} tasks; the table counts sample 0, the first suggestion)"
    )


def _series_name(series: Series, several: bool) -> str:
    return f"{series.run_id}:{series.preset}" if several else series.preset


def render_summary(report: Report, console: Console, report_command: str) -> None:
    """What ``replay`` prints by default: the pass rate of each preset with its interval, how many
    tasks and model errors, one line per comparison and where the full report is. The strata
    tables (``report``, or ``replay --verbose``) run to hundreds of lines."""
    for run in report.runs:  # each run its own table: the same presets recur across runs
        mine = [s for s in report.sections if s.run_id == run.run_id]
        tasks = max((r.n for s in mine if (r := _overall(s)) is not None), default=0)
        errors = max((k.count for s in mine for k in s.taxonomy.classes if k.status == "model_error"), default=0)
        console.print(escape(f"run {run.run_id} · model {run.model} · {tasks} tasks · {errors} model error(s)"), highlight=False)
        console.print(summary_table(report, mine))
        for s in mine:
            if s.samples is not None:
                console.print(f"  {s.preset}: {sample_line(s)}", markup=False, highlight=False)
    for c in report.comparisons:
        overall = next((d for d in c.strata if d.dimension == "all"), None)
        if overall is not None and overall.n:
            several = c.first.run_id != c.second.run_id
            console.print(
                f"  {_series_name(c.second, several)} vs {_series_name(c.first, several)}: {100 * overall.difference:+.1f} points "
                f"(+{overall.only_second} / −{overall.only_first} tasks, exact McNemar p = {overall.p_value:.3g})",
                markup=False,
                highlight=False,
            )
    notes = sum(len(s.notable) for s in report.sections)
    if notes:
        console.print(f"  {notes} outcome(s) worth a look: see the full report", markup=False, highlight=False)
    # commands are printed whole (soft wrap) so that a narrow terminal does not break them for copying
    console.print(f"full report (strata, error classes, similarity): {report_command}", markup=False, highlight=False, soft_wrap=True)
    console.print(f"charts and every task on one page: {report_command} --html report.html", markup=False, highlight=False, soft_wrap=True)
