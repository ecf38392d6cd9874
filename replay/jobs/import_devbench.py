"""``simpilot import devbench``: DevBench's instances become validated tasks.

For each language: a synthetic repository ``OUT/devbench-<language>/`` (one program per instance,
its checks under ``checks/``, a ``simpilot.toml`` with a ``[programs]`` table: ``marking/devbench.py``),
optionally an environment with the packages the programs use (``--provision``: installed before,
never during, a run, into simpilot's cache, pinned in ``OUT/devbench.lock.json``), then the
program gate (``program_gate.py``). What it keeps goes to ``OUT/devbench-<language>.jsonl`` (with
``repositories.json`` saying where the repository is); ``OUT/devbench-gate.json`` lists, per
language and category, how many instances survived and why each other one did not; after the
table, one line per reason that dropped instances says what it means and what to do (:data:`ADVICE`).
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.markup import escape

from replay.config.manifest import Manifest, RepoCatalog, open_repository
from replay.core.errors import SimpilotError
from replay.core.paths import cache_root
from replay.core.recordings import RecordedAnswer, write_recording_file
from replay.core.records import Task
from replay.core.scenarios import read_tasks
from replay.execution import programs
from replay.execution.judge import Evaluator
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.importers.devbench import CATEGORIES, FOLDERS, PER_LANGUAGE, Instance, read_instances, repository_name, task_for
from replay.importers.devbench_answers import models_in, read_answers, recorded
from replay.jobs.mark import write_kept
from replay.jobs.output import err
from replay.reports.survival import survival_table
from replay.run.progress import progress
from replay.validation.drops import DropReason
from replay.validation.program_gate import REASONS, ProgramGateReport, validate_programs
from replay.validation.repetition import TARGET_RUNS

LANGUAGES = tuple(FOLDERS)
# what each reason means for the instances it dropped, and what to do about it
ADVICE: dict[DropReason, str] = {
    DropReason.TOOLCHAIN_MISSING: "the machine cannot run their language ('simpilot doctor' says what to install), or they need a "
    "package --provision leaves out on purpose (named per instance in {gate})",
    DropReason.NEEDS_NETWORK: "they call hosts on the network, which the sandbox never gives: left out, as their runs would "
    "measure the network rather than the model",
    DropReason.GOLDEN_FAILS: "their golden completion fails on its own (the error and the output's end per instance in {gate})",
    DropReason.PASSES_EMPTY: "they pass with the hole left empty: their checks do not reach the hole, so they measure nothing",
    DropReason.FLAKY: "the golden completion or the empty answer passed some runs and failed others",
}
NOT_PROVISIONED = "; --provision installs the packages the programs import"
GATE_FILE = "devbench-gate.json"
LOCK_FILE = "devbench.lock.json"
_MANIFEST = """[repository]
name = "{name}"
language = "{language}"
sources = ["programs"]
tests = ["checks"]
timeout = 30

[programs]
checks = "checks"
{environment}"""


@dataclass(frozen=True)
class LanguageImport:
    language: str
    manifest: Manifest
    instances: list[Instance]
    report: ProgramGateReport
    target: Path  # the scenario file (written only when something was kept)
    lock: dict | None  # what --provision installed


@dataclass(frozen=True, slots=True)
class DevBenchRequest:
    """The options of ``simpilot import devbench`` (languages and categories already checked)."""

    folder: Path
    out: Path
    languages: tuple[str, ...]
    categories: tuple[str, ...]
    jobs: int
    limit: int | None = None
    provision: bool = False
    fresh: bool = False
    standard_library_only: bool = False
    repos: Path | None = None
    by_category: bool = False
    answers: bool = False
    models: str | None = None  # comma-separated
    unsafe_no_sandbox: bool = False


def write_repository(folder: Path, language: str, instances: list[Instance], environment: Path | None = None) -> Manifest:
    """The synthetic repository of ``instances`` (all of ``language``) in ``folder``, replacing
    the programs and checks of an earlier import there."""
    for sub in ("programs", "checks"):
        shutil.rmtree(folder / sub, ignore_errors=True)
    for instance in instances:
        text, _ = task_for(instance)
        for rel, content in ((instance.program_path, text), (instance.check_path, instance.assertions)):
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
    env_line = f'environment = "{environment}"\n' if environment is not None else ""
    (folder / "simpilot.toml").write_text(_MANIFEST.format(name=repository_name(language), language=language, environment=env_line))
    return open_repository(folder)


def provisioned(language: str, instances: list[Instance]) -> tuple[Path | None, dict]:
    """Install what ``instances``' programs need for ``language`` into simpilot's cache (one
    folder per language, grown as imports need more; nothing is installed twice); the folder and
    the lock entry (``needed``; ``packages``: name → version; ``not_installed``)."""
    needed = needs(language, instances)
    why = programs.missing(language)
    # nothing can be installed for a toolchain the machine lacks (TypeScript's compiler excepted:
    # installing it is what provisioning TypeScript does)
    if why is not None and not (language == "typescript" and programs.missing("javascript") is None):
        return None, {"needed": needed, "packages": {}, "not_installed": needed, "skipped": why}
    folder = cache_root() / "programs" / language
    lock_path = folder / "simpilot-lock.json"
    lock = json.loads(lock_path.read_text()) if lock_path.is_file() else None
    if lock is not None and set(needed) <= set(lock["needed"]):
        return folder, lock
    folder.mkdir(parents=True, exist_ok=True)
    wanted = sorted(set(needed) | set(lock["needed"] if lock else ()))
    packages = programs.toolchain(language).provision(wanted, folder)
    lock = {
        "needed": wanted,
        "packages": packages,
        "not_installed": [n for n in wanted if n not in packages and not _installed_as(n, packages)],
    }
    lock_path.write_text(json.dumps(lock, indent=1, sort_keys=True))
    return folder, lock


def _installed_as(name: str, packages: dict) -> bool:
    """Whether ``name`` (as the programs' needs spell it) is among the installed ``packages`` (as the
    installer spells them: pip normalises ``python_dotenv`` and ``Python-Dotenv`` alike)."""

    def norm(text: str) -> str:
        return text.lower().replace("_", "-").replace(".", "-")

    return norm(name) in {norm(p) for p in packages}


def needs(language: str, instances: list[Instance]) -> list[str]:
    """The packages ``instances``' programs need, in their toolchain's namespace."""
    module = programs.toolchain(language)
    texts = [join_all(i) for i in instances]
    return sorted(module.needs(texts, language) if programs.MODULES[language] == "node" else module.needs(texts))


_JAVA_IMPORT = re.compile(r"^\s*import\s+(?:static\s+)?([\w.]+)", re.M)
_JDK = ("java.", "javax.xml.", "javax.crypto.", "javax.sql.", "javax.net.", "javax.script.", "org.w3c.", "org.xml.")
_CSHARP_USING = re.compile(r"^\s*using\s+(?:static\s+)?([\w.]+)\s*;", re.M)


def standard_library_only(instance: Instance) -> bool:
    """Whether ``instance``'s program uses nothing but its language's standard library (and,
    for C++, the C and POSIX headers): what a machine runs without ``--provision``."""
    text = join_all(instance)
    language = instance.language
    if language == "python":
        return not programs.toolchain("python").needs([text])
    if language == "java":
        return all(name.startswith(_JDK) for name in _JAVA_IMPORT.findall(text))
    if language in ("javascript", "typescript"):
        return not programs.toolchain(language).needs([text], "javascript")
    if language == "cpp":
        return not programs.toolchain("cpp").libraries(text)
    return all(name == "System" or name.startswith("System.") for name in _CSHARP_USING.findall(text))


def join_all(instance: Instance) -> str:
    return "\n".join((instance.prefix, instance.golden, instance.suffix, instance.assertions))


def import_devbench(
    instances: list[Instance],
    out: Path,
    sandbox: Sandbox,
    *,
    jobs: int = 1,
    provision: bool = False,
    warm: bool = True,
    repos: Path | None = None,
    progress_total: Callable[[int], None] | None = None,
    progress: Callable[[], None] | None = None,
) -> list[LanguageImport]:
    """Write, provision and gate ``instances``, one repository per language, into ``repos``
    (default: ``out``), the scenario files and the gate's summary into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    by_language: dict[str, list[Instance]] = {}
    for instance in instances:
        by_language.setdefault(instance.language, []).append(instance)
    if progress_total is not None:
        progress_total(len(instances))
    imports = []
    locks: dict[str, dict] = {}
    for language, group in by_language.items():
        environment, lock = provisioned(language, group) if provision else (None, None)
        if lock is not None:
            locks[language] = {"environment": str(environment) if environment else None, **lock}
        manifest = write_repository((repos or out) / repository_name(language), language, group, environment)
        tasks = [task_for(i)[1] for i in group]
        with Evaluator(RepoCatalog([manifest]), sandbox, jobs, warm=warm) as evaluator:
            report = validate_programs(evaluator, tasks, jobs, progress)
        target = write_kept(out, manifest, manifest.root, report.kept)
        imports.append(LanguageImport(language, manifest, group, report, target, lock))
    if locks:
        lock_file = out / LOCK_FILE
        previous = json.loads(lock_file.read_text()) if lock_file.is_file() else {}
        lock_file.write_text(json.dumps({**previous, **locks}, indent=1, sort_keys=True))
    write_gate_summary(out / GATE_FILE, imports)
    return imports


def survival(imported: LanguageImport) -> dict:
    """Per category: instances, kept, and dropped by reason; with the totals."""
    instance_of = {task_for(i)[1].id: i for i in imported.instances}
    rows: dict[str, dict] = {}
    for category in CATEGORIES:
        rows[category] = {"instances": 0, "kept": 0, **dict.fromkeys(REASONS, 0)}
    for instance in imported.instances:
        rows[instance.category]["instances"] += 1
    for task in imported.report.kept:
        rows[instance_of[task.id].category]["kept"] += 1
    for dropped in imported.report.dropped:
        rows[instance_of[dropped.task.id].category][dropped.reason] += 1
    total = {key: sum(r[key] for r in rows.values()) for key in ("instances", "kept", *REASONS)}
    return {"categories": {c: r for c, r in rows.items() if r["instances"]}, "total": total, "devbench_instances": PER_LANGUAGE}


def write_gate_summary(path: Path, imports: list[LanguageImport]) -> None:
    """``devbench-gate.json``: survival per language and category, and every dropped instance
    with its reason (merged with an earlier import's other languages)."""
    previous = json.loads(path.read_text()) if path.is_file() else {}
    for imported in imports:
        previous[imported.language] = {
            **survival(imported),
            "dropped": [
                {"task": d.task.id, "category": d.task.construct, "reason": d.reason, "error": d.error, "detail": d.detail[:2000]}
                for d in imported.report.dropped
            ],
            # the kept tasks whose empty answer ran fewer times than the target (the budget held no
            # more: repetition.py), and the chance those runs had of catching a one-in-seven pass
            "empty_runs": {
                "target": TARGET_RUNS,
                "short": [{"task": t.id, "runs": n, "detection": round(p, 4)} for t, n, p in imported.report.short_runs()],
            },
        }
    path.write_text(json.dumps(previous, indent=1, sort_keys=True))


def read_gate_summary(out: Path) -> dict:
    path = out / GATE_FILE
    if not path.is_file():
        raise SimpilotError(f"no {GATE_FILE} in {out}: run 'simpilot import devbench' first")
    return json.loads(path.read_text())


def write_answers(folder: Path, out: Path, tasks: list[Task], models: list[str] | None = None) -> dict[str, int]:
    """Write the recorded answers of DevBench at ``folder`` for ``tasks`` (the imported tasks
    that passed the gate) as one recording folder per model, ``out/recordings/<model>/``, one
    file per repository: what ``--model recorded:out/recordings/<model>`` replays. Returns how
    many tasks each model has answers for; answers to instances not among ``tasks`` are skipped,
    and a task a model left unanswered gets none (its replay then records a model error)."""
    wanted = {t.id: t for t in tasks}
    languages = sorted({t.language for t in tasks})
    files: dict[tuple[str, str], list[RecordedAnswer]] = {}
    for entry in read_answers(folder, languages, models):
        answers = recorded(entry)
        if answers and answers[0].task_id in wanted:
            task = wanted[answers[0].task_id]
            if answers[0].file_sha256 != task.file_sha256:
                raise SimpilotError(f"{entry.instance.source}: the instance differs from the imported task {task.id}: import FOLDER again")
            files.setdefault((entry.model, task.repo), []).extend(answers)
    counts: dict[str, int] = {}
    for (model, repo), answers in sorted(files.items()):
        write_recording_file(out / "recordings" / model / f"{repo}.jsonl", answers)
        counts[model] = counts.get(model, 0) + len({a.task_id for a in answers})
    missing = sorted(set(models or ()) - set(counts))
    if missing:
        raise SimpilotError(f"no answers of {', '.join(missing)} in {folder} (models there: {', '.join(models_in(folder, languages))})")
    return counts


def import_devbench_command(request: DevBenchRequest) -> None:
    """``simpilot import devbench``: read, gate and write the instances, then say on stderr how
    many survived (per language and category) and what the gate was unsure of."""
    out = request.out
    instances = read_instances(request.folder, request.languages, request.categories, request.limit)
    if request.standard_library_only:
        instances = [i for i in instances if standard_library_only(i)]
        if not instances:
            raise SimpilotError("no instance uses only its language's standard library: leave out --standard-library-only")
    sandbox = Sandbox.create(request.unsafe_no_sandbox)
    with progress("running the DevBench gate") as (bar, tid):
        imports = import_devbench(
            instances,
            out,
            sandbox,
            jobs=request.jobs,
            provision=request.provision,
            warm=not request.fresh,
            repos=request.repos,
            progress_total=lambda n: bar.update(tid, total=n),
            progress=lambda: bar.advance(tid),
        )
    summaries = {i.language: survival(i) for i in imports}
    err.print(survival_table(summaries, request.by_category))
    for line in reason_lines(summaries, out / GATE_FILE, request.provision):
        err.print(line, markup=False, highlight=False)
    for imported in imports:
        state = f"{len(imported.report.kept)} kept → {imported.target}" if imported.report.kept else "nothing kept"
        err.print(f"{imported.manifest.name}: {len(imported.instances)} instances, {state}")
        short = imported.report.short_runs()
        if short:  # too slow for the target's runs: kept, and said how sure the gate is of them
            err.print(
                f"  {len(short)} kept task(s) ran the empty answer fewer than {TARGET_RUNS} times (the time budget): "
                f"at worst {min(n for _, n, _ in short)} runs, a {min(p for _, _, p in short):.0%} chance of catching a one-in-seven pass"
            )
        for altered in imported.report.altered:  # a preset's bug, never the task's: kept, and said
            err.print(f"  preset {altered.preset} changed the golden completion of {escape(altered.task.id)} ({', '.join(altered.steps)})")
    err.print(f"reasons per instance: {out / GATE_FILE}" + (f"; installed packages: {out / LOCK_FILE}" if request.provision else ""))
    if request.answers:
        write_and_say_answers(request.folder, out, [t for i in imports for t in i.report.kept], request.models)


def reason_lines(summaries: dict[str, dict], gate: Path, provisioned: bool) -> list[str]:
    """One line per reason that dropped instances (in the table's order): how many, what the
    reason means and what to do (:data:`ADVICE`; without ``provisioned``, golden completions that
    fail may only lack packages, which ``--provision`` installs)."""
    lines = []
    for reason in REASONS:
        count = sum(summary["total"][reason] for summary in summaries.values())
        if count:
            advice = ADVICE[DropReason(reason)].format(gate=gate)
            extra = NOT_PROVISIONED if reason == DropReason.GOLDEN_FAILS.value and not provisioned else ""
            lines.append(f"  {reason} {count}: {advice}{extra}")
    return lines


def import_devbench_answers(folder: Path, out: Path, models: str | None = None) -> None:
    """``simpilot import devbench-answers``: the recorded answers for the tasks an earlier import
    kept in ``out`` (the gate is not run again)."""
    kept = [t for path in sorted(out.glob("devbench-*.jsonl")) for t in read_tasks(path)]
    if not kept:
        raise SimpilotError(f"no devbench-<language>.jsonl in {out}: run 'simpilot import devbench FOLDER --out {out}' first")
    write_and_say_answers(folder, out, kept, models)


def write_and_say_answers(folder: Path, out: Path, kept: list[Task], models: str | None) -> None:
    """:func:`write_answers` for ``models`` (comma-separated; None: every one), and how to replay them."""
    wanted = [m.strip() for m in models.split(",") if m.strip()] if models else None
    counts = write_answers(folder, out, kept, wanted)
    for model, n in counts.items():
        err.print(f"{model}: answers for {n} of {len(kept)} kept task(s) → {out / 'recordings' / model}")
    scenario = " ".join(str(p) for p in sorted(out.glob("devbench-*.jsonl")))
    first = next(iter(counts), "MODEL")
    err.print(f"replay them: simpilot replay {scenario} --model recorded:{out / 'recordings' / first} (repeat --model for several)")
