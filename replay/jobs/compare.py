"""Comparing post-processing presets on one run's stored raw answers (``simpilot compare``).

The model is never asked again: every preset, and every preset with one of its steps left out
(the ablation), is applied to the raw answers in the store. Each (task, variant) gets an outcome
row of its own in the run, so every figure can be recomputed from the store; texts that are equal
to one already judged for the same task share its verdict instead of running the tests again
(the tests of a validated task are deterministic: validation ran them twice).

A step's effect is read off the ablation: it *fixed* the tasks that pass with the preset and fail
without the step, and *broke* those that fail with the preset and pass without it. Presets are
paired with the first one task by task; the exact McNemar test says whether a difference could
be chance.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from postprocess import PRESETS, ablation_name, run_steps
from replay.config.locations import catalog_for
from replay.core.errors import SimpilotError
from replay.core.records import Completion, Outcome, Status, Task
from replay.core.scenarios import hole_context
from replay.execution.judge import Evaluator, Verdict
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.execution.scheduling.limits import judge_here
from replay.execution.scheduling.references import ReferenceRuns
from replay.jobs.output import err, out, print_json
from replay.reports.text_tables import Table
from replay.run.pipeline import model_error, outcome
from replay.run.progress import progress
from replay.run.resume import check_sources
from replay.scoring.stats import mcnemar_exact, wilson
from replay.store import Store


@dataclass(frozen=True, slots=True)
class Variant:
    name: str  # the outcome rows' post-processing key
    preset: str
    steps: tuple[str, ...]
    without: str | None = None  # the step left out (an ablation), or None for the preset itself


def variants(presets: Sequence[str]) -> list[Variant]:
    """The presets, then each preset minus each of its steps (a one-step preset's ablation is the
    raw answer itself)."""
    out = [Variant(p, p, PRESETS[p]) for p in presets]
    for p in presets:
        steps = PRESETS[p]
        out += [Variant(ablation_name(p, s), p, tuple(x for x in steps if x != s), s) for s in steps]
    return out


# -- judging ------------------------------------------------------------------------------------


def judge(
    store: Store,
    run_id: str,
    evaluator: Evaluator,
    tasks: list[Task],
    wanted: Sequence[Variant],
    advance: Callable[[], None] = lambda: None,
) -> None:
    """Store an outcome for every (task, variant, sample) the run lacks."""
    samples = store.samples(run_id)
    stored = {(o.task_id, o.postprocess, o.sample): o for o in store.outcomes(run_id, sample=None)}
    by_text: dict[tuple[str, str], Outcome] = {
        (o.task_id, o.processed): o for o in stored.values() if o.processed is not None and o.status is not Status.MODEL_ERROR
    }
    todo: dict[tuple[str, str], list[tuple[Variant, Task, tuple[str, ...], int]]] = {}
    for task in tasks:
        answers = samples.get(task.id) or [Completion(task.id, None, "no answer stored for this task")]
        ctx = None
        for v in wanted:
            for completion in answers:
                if (task.id, v.name, completion.sample) in stored:
                    continue
                if not completion.ok:
                    store.add_outcome(run_id, model_error(task, completion, v.name))
                    continue
                if ctx is None:
                    ctx = hole_context(task, evaluator.original(task))[1]
                processed = run_steps(v.steps, completion.raw or "", ctx)
                known = by_text.get((task.id, processed.text))
                if known is not None:
                    store.add_outcome(run_id, _with(known, v.name, processed.changed_by, completion.sample))
                else:
                    todo.setdefault((task.id, processed.text), []).append((v, task, processed.changed_by, completion.sample))
            advance()
    if not todo:
        return
    references = ReferenceRuns(evaluator, [entries[0][1] for entries in todo.values()])

    def run(key: tuple[str, str]) -> Verdict:
        """The verdict under replay's limits (see ``limits.first_limits``)."""
        return judge_here(evaluator, references, todo[key][0][1], key[1])

    threads = evaluator.threads(entries[0][1] for entries in todo.values())
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="simpilot-compare") as pool:
        futures = {pool.submit(run, key): key for key in todo}
        for future in as_completed(futures):  # the store is written from this thread only
            (task_id, text), verdict = futures[future], future.result()
            for v, task, steps, sample in todo[(task_id, text)]:
                store.add_outcome(run_id, outcome(task, v.name, text, steps, verdict, sample))


def _with(o: Outcome, name: str, steps: tuple[str, ...], sample: int) -> Outcome:
    return Outcome(o.task_id, name, o.processed, o.status, o.detail, o.duration_s, o.output_tail, steps, sample)


# -- summarising (pure) -----------------------------------------------------------------------


@dataclass(frozen=True)
class PresetRow:
    preset: str
    steps: tuple[str, ...]
    n: int
    passed: int
    rate: float
    low: float
    high: float
    # paired with the first preset (None for the first itself)
    difference: float | None
    only_this: int | None  # tasks passing with this preset and not with the first
    only_first: int | None
    p_value: float | None
    statuses: dict[str, int]  # outcome classes over the tasks
    indel_similarity: float | None  # mean over the tasks (rapidfuzz fuzz.ratio / 100), from the stored metrics


@dataclass(frozen=True)
class StepEffect:
    preset: str
    step: str
    fixed: int  # pass with the preset, fail without the step
    broke: int  # fail with the preset, pass without the step
    p_value: float
    language: str | None = None  # None: every task; else only this language's
    fixed_samples: int | None = None  # over every sample (runs with several per task), not only sample 0
    broke_samples: int | None = None
    fixed_examples: tuple[str, ...] = ()  # a few of the tasks (sample 0), for the drill-down
    broke_examples: tuple[str, ...] = ()


@dataclass(frozen=True)
class LanguageRow:
    """A preset against the first preset on one language's tasks (sample 0)."""

    preset: str
    language: str
    n: int
    passed: int
    only_this: int
    only_first: int
    p_value: float


@dataclass(frozen=True)
class PresetComparison:
    run_id: str
    model: str
    rows: list[PresetRow]
    steps: list[StepEffect]
    languages: list[LanguageRow] = field(default_factory=list)  # when the tasks span several languages

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "model": self.model,
            "interval": "wilson-95",
            "test": "exact McNemar, two-sided",
            "presets": [asdict(r) for r in self.rows],
            "steps": [asdict(s) for s in self.steps],
            "languages": [asdict(r) for r in self.languages],
        }


def summarise(
    run_id: str,
    model: str,
    task_ids: Sequence[str],
    presets: Sequence[str],
    outcomes: Sequence[Outcome],
    similarity: Mapping[tuple[str, str], float] | None = None,
    languages: Mapping[str, str] | None = None,
    every_sample: Sequence[Outcome] | None = None,
) -> PresetComparison:
    """The comparison, from outcome rows of sample 0 (and the stored indel similarity of each, by
    (task id, preset), when given). With ``languages`` (task id → language) spanning several, each
    preset and step is also compared per language; with ``every_sample`` (the outcomes of every
    sample) each step's fixed and broke are also counted over all samples."""
    ids = set(task_ids)
    passed: dict[str, set[str]] = {}
    statuses: dict[str, Counter[str]] = {}
    for o in outcomes:
        if o.task_id in ids:
            statuses.setdefault(o.postprocess, Counter())[o.status.value] += 1
        if o.passed:
            passed.setdefault(o.postprocess, set()).add(o.task_id)
    n = len(ids)
    first = passed.get(presets[0], set()) & ids
    rows = []
    for p in presets:
        mine = passed.get(p, set()) & ids
        low, high = wilson(len(mine), n)
        paired = p != presets[0]
        only_this, only_first = len(mine - first), len(first - mine)
        rows.append(
            PresetRow(
                p,
                PRESETS[p],
                n,
                len(mine),
                len(mine) / n if n else 0.0,
                low,
                high,
                (len(mine) - len(first)) / n if paired and n else None,
                only_this if paired else None,
                only_first if paired else None,
                mcnemar_exact(only_this, only_first) if paired else None,
                dict(statuses.get(p, Counter()).most_common()),
                _mean_similarity(similarity, p, ids),
            )
        )
    language_of = dict(languages or {})
    spoken = sorted({language_of[t] for t in ids if t in language_of})
    groups: list[tuple[str | None, set[str]]] = [(None, ids)]
    if len(spoken) > 1:
        groups += [(lang, {t for t in ids if language_of.get(t) == lang}) for lang in spoken]
    by_sample = _passing_samples(every_sample or (), ids)
    effects = []
    for language, members in groups:
        for v in variants(presets):
            if v.without is None:
                continue
            with_step = passed.get(v.preset, set()) & members
            without = passed.get(v.name, set()) & members
            fixed, broke = sorted(with_step - without), sorted(without - with_step)
            fixed_samples = broke_samples = None
            if by_sample:
                with_all = {k for k in by_sample.get(v.preset, set()) if k[0] in members}
                without_all = {k for k in by_sample.get(v.name, set()) if k[0] in members}
                fixed_samples, broke_samples = len(with_all - without_all), len(without_all - with_all)
            effects.append(
                StepEffect(
                    v.preset,
                    v.without,
                    len(fixed),
                    len(broke),
                    mcnemar_exact(len(fixed), len(broke)),
                    language,
                    fixed_samples,
                    broke_samples,
                    tuple(fixed[:EXAMPLES]),
                    tuple(broke[:EXAMPLES]),
                )
            )
    per_language = []
    for language, members in groups[1:]:
        first_here = first & members
        for p in presets[1:]:
            mine = passed.get(p, set()) & members
            a, b = len(mine - first_here), len(first_here - mine)
            per_language.append(LanguageRow(p, str(language), len(members), len(mine), a, b, mcnemar_exact(a, b)))
    return PresetComparison(run_id, model, rows, effects, per_language)


EXAMPLES = 3  # tasks named per step and direction


def _passing_samples(outcomes: Sequence[Outcome], ids: set[str]) -> dict[str, set[tuple[str, int]]]:
    """(task, sample) pairs passing under each preset, when some task has more than one sample."""
    if not any(o.sample for o in outcomes):
        return {}
    found: dict[str, set[tuple[str, int]]] = {}
    for o in outcomes:
        if o.passed and o.task_id in ids:
            found.setdefault(o.postprocess, set()).add((o.task_id, o.sample))
    return found


def _mean_similarity(similarity: Mapping[tuple[str, str], float] | None, preset: str, ids: set[str]) -> float | None:
    if similarity is None:
        return None
    values = [similarity[(t, preset)] for t in ids if (t, preset) in similarity]
    return math.fsum(values) / len(values) if len(values) == len(ids) and ids else None  # fsum: any order, same bits


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _table(title: str | None, *columns: str, left: int = 1) -> Table:
    """A table whose name columns (the first ``left``) fold rather than being cut, and whose
    numbers never wrap: at 80 columns every name and figure stays whole."""
    table = Table(title=title, title_justify="left")
    for i, col in enumerate(columns):
        if i < left:
            table.add_column(col, justify="left", overflow="fold")
        else:
            table.add_column(col, justify="right", no_wrap=True)
    return table


def render(c: PresetComparison, console: Console) -> None:
    """Pass rates, then the paired differences to the first preset, then the ablation: three
    narrow tables rather than one that a terminal of 80 columns would cut."""
    n = c.rows[0].n if c.rows else 0
    first = c.rows[0].preset if c.rows else "the first preset"
    console.print(
        f"run {c.run_id} · model {c.model} · {n} tasks · post-processing compared on the same raw answers "
        "(Wilson intervals, exact McNemar test)",
        markup=False,
        highlight=False,
    )
    rates = _table(None, "preset", "pass", "pass %", "95% CI", "indel sim.")
    paired = _table(escape(f"paired with {first}, task by task"), "preset", "Δ points", "+ / −", "McNemar p")
    for r in c.rows:
        rates.add_row(
            r.preset,
            f"{r.passed}/{r.n}",
            _pct(r.rate),
            f"{_pct(r.low)} – {_pct(r.high)}",
            "" if r.indel_similarity is None else f"{r.indel_similarity:.3f}",
        )
        if r.difference is not None:
            paired.add_row(r.preset, f"{100 * r.difference:+.1f}", f"+{r.only_this} / −{r.only_first}", f"{r.p_value:.3g}")
    console.print(rates)
    if paired.row_count:
        console.print(paired)
        console.print(
            f"  Δ points: pass % minus {first}'s · + / −: tasks passing only with this preset / only with {first}",
            markup=False,
            highlight=False,
        )
    console.print("  indel sim.: mean rapidfuzz fuzz.ratio/100 of the processed answer to the ground truth")
    for r in c.rows:
        failures = ", ".join(f"{k} {v}" for k, v in r.statuses.items() if k != "pass") or "none"
        console.print(f"  {r.preset} failures: {failures}", highlight=False)
    overall = [s for s in c.steps if s.language is None]
    samples = any(s.fixed_samples is not None for s in overall)
    extra = ("fixed, all", "broke, all") if samples else ()
    steps = _table(
        "what each step does (ablation: the preset without that step)", "preset", "step", "fixed", "broke", "McNemar p", *extra, left=2
    )
    last = None
    for s in overall:
        if last is not None and s.preset != last:
            steps.add_section()
        last = s.preset
        more = (str(s.fixed_samples), str(s.broke_samples)) if samples else ()
        steps.add_row(s.preset, s.step, str(s.fixed), str(s.broke), f"{s.p_value:.3g}", *more)
    console.print(steps)
    console.print(
        "  fixed: passes with the preset, fails without the step · broke: the other way round"
        + (" · counted on sample 0 (McNemar's pairs); 'all': over every sample" if samples else ""),
        markup=False,
        highlight=False,
    )
    if c.languages:
        table = _table(escape(f"per language, paired with {first}"), "preset", "language", "pass", "+ / −", "McNemar p", left=2)
        for lr in c.languages:
            table.add_row(lr.preset, lr.language, f"{lr.passed}/{lr.n}", f"+{lr.only_this} / −{lr.only_first}", f"{lr.p_value:.3g}")
        console.print(table)
        moved = [s for s in c.steps if s.language is not None and (s.fixed or s.broke)]
        if moved:
            table = _table("steps that changed a verdict, per language", "preset", "step", "language", "fixed", "broke", left=3)
            for s in moved:
                table.add_row(s.preset, s.step, str(s.language), str(s.fixed), str(s.broke))
            console.print(table)


def compare_run(
    db: Path, run_id: str, presets: Sequence[str], *, jobs: int, repo_paths: Sequence[str] = (), unsafe_no_sandbox: bool = False
) -> PresetComparison:
    """``simpilot compare``: judge ``presets`` on ``run_id``'s stored raw answers (outcomes it
    lacks are tested and stored in the run) and summarise them."""
    if not db.exists():
        raise SimpilotError(f"no results database at {db}: run 'simpilot replay' first")
    store = Store(db)
    try:
        run = store.run(run_id)
        if run is None:
            known = ", ".join(r.run_id for r in store.runs()[-8:]) or "none"
            raise SimpilotError(f"no run {run_id!r} in {db} (runs: {known})")
        tasks = store.tasks(run_id)
        if not store.completions(run_id):
            raise SimpilotError(f"run {run_id!r} holds no answers yet: finish it with 'simpilot replay … --run {run_id} --resume'")
        wanted = variants(presets)
        recorded = store.presets(run_id)
        clash = [v.name for v in wanted if v.name in recorded and recorded[v.name] != v.steps]
        if clash:
            raise SimpilotError(
                f"run {run_id!r} holds outcomes for {clash[0]!r} made with other steps "
                f"({', '.join(recorded[clash[0]])}): name your preset differently"
            )
        catalog = catalog_for([Path(s) for s in run.scenarios if Path(s).is_file()], repo_paths)
        check_sources(tasks, catalog)
        store.add_presets(run_id, {v.name: v.steps for v in wanted})
        full_suite = "full suite" in run.sandbox
        with (
            Evaluator(catalog, Sandbox.create(unsafe_no_sandbox), jobs, full_suite=full_suite) as evaluator,
            progress(f"compare {run_id}") as (bar, tid),
        ):
            bar.update(tid, total=len(tasks) * len(wanted))
            judge(store, run_id, evaluator, tasks, wanted, lambda: bar.advance(tid))
        similarity = {key: m.indel_similarity for key, m in store.metrics(run_id).items()}
        comparison = summarise(
            run_id,
            run.model,
            [t.id for t in tasks],
            presets,
            store.outcomes(run_id),
            similarity,
            {t.id: t.language for t in tasks},
            store.outcomes(run_id, sample=None),
        )
    finally:
        store.close()
    return comparison


DEFAULT_PRESETS = ("none", "simcopilot", "syntax", "ide")


def compare(
    db: Path,
    run_ids: Sequence[str],
    presets: Sequence[str] = (),
    *,
    jobs: int,
    repo_paths: Sequence[str] = (),
    unsafe_no_sandbox: bool = False,
    as_json: bool = False,
    html_path: Path | None = None,
) -> None:
    """``simpilot compare``: one run's presets (judged where the run lacks outcomes), or several
    runs from their stored outcomes; printed as tables or JSON, the one run's page to ``html_path``."""
    if len(run_ids) > 1:
        compare_several(db, run_ids, presets, as_json)
        return
    run_id = run_ids[0]
    comparison = compare_run(db, run_id, presets or DEFAULT_PRESETS, jobs=jobs, repo_paths=repo_paths, unsafe_no_sandbox=unsafe_no_sandbox)
    if html_path is not None:
        from replay.reports.compare_html import page

        store = Store(db)
        try:
            stored = {(o.task_id, o.postprocess): o for o in store.outcomes(run_id)}
            languages = {t.id: t.language for t in store.tasks(run_id)}
        finally:
            store.close()
        html_path.write_text(page(comparison, stored, languages), encoding="utf-8")
        err.print(f"the comparison with examples: {html_path}")
    if as_json:
        print_json(comparison.to_json())
    else:
        render(comparison, out)


def compare_several(db: Path, run_ids: Sequence[str], presets: Sequence[str], as_json: bool) -> None:
    """``compare`` of several runs (one per context strategy): read from the store, nothing judged again."""
    from replay.reports import strategies

    store = Store(db)
    try:
        result = strategies.compare_runs(store, run_ids, presets)
    finally:
        store.close()
    if as_json:
        print_json(result.to_json())
    else:
        strategies.render(result, out)
