"""Starting or resuming a run: the checks that a run's inputs are the ones it was made with.

A run mixing two configurations measures neither: before any request, every task's file must be
the one it was marked on (:func:`check_sources`), and a run to resume must have been made with the
same scenarios, model, presets and configuration (:func:`check_resume`). A request's stored
answers count only when complete (:func:`answered`): one that ended in a model error is asked again.
"""

from __future__ import annotations

import datetime as dt
import hashlib

from replay import __version__
from replay.config.manifest import RepoCatalog
from replay.config.model_spec import spec_json
from replay.config.run import config_hash, differences, redact_model_name, redact_spec, without_address
from replay.core.errors import SimpilotError
from replay.core.records import Completion, Task
from replay.core.repo_paths import task_file
from replay.core.scenarios import file_digest, legacy_file_digest
from replay.run.configuration import legacy_config
from replay.run.settings import ReplaySettings
from replay.store import RunInfo, Store


def check_sources(tasks: list[Task], catalog: RepoCatalog) -> None:
    """Every task's file must be byte-identical to the one it was marked on, and its span must lie
    inside that file (a span past its end would make every answer fail as if the model had)."""
    files: dict[tuple[str, str], tuple[str, int]] = {}  # digest, size
    for task in tasks:
        key = (task.repo, task.path)
        if key not in files:
            try:
                data = task_file(catalog.get(task.repo).root, task).read_bytes()
            except OSError as exc:
                raise SimpilotError(
                    f"{task.repo}: cannot read {task.path} ({exc.strerror}): is --repo pointing at the right checkout?"
                ) from None
            files[key] = (hashlib.sha256(data).hexdigest(), len(data))
        digest, size = files[key]
        if digest != task.file_sha256:
            raise SimpilotError(f"{task.repo}: {task.path} changed since its tasks were marked: re-run 'simpilot mark' for this repository")
        if task.span.end_byte > size:
            raise SimpilotError(
                f"{task.repo}: task {task.id}: its span ends at byte {task.span.end_byte}, past the end of {task.path} "
                f"({size} bytes): the scenario file does not match the repository; re-run 'simpilot mark' for it"
            )


NEW_RUN = "start a new run instead: give another --run ID, or leave out --run for a fresh one"


def open_run(store: Store, settings: ReplaySettings, tasks: list[Task], sandbox: str) -> None:
    """Record a new run, or check that the run to resume was made with the same scenarios, model,
    presets and configuration (a run mixing two configurations measures neither)."""
    scenario_hash = file_digest(settings.scenarios)
    model = redact_model_name(settings.model)
    existing = store.run(settings.run_id)
    if existing is not None:
        if not settings.resume:
            raise SimpilotError(
                f"run {settings.run_id!r} already exists in {store.path}: pass --resume to continue it, or choose another --run"
            )
        check_resume(store, existing, settings, scenario_hash, model)
        return
    info = RunInfo(
        run_id=settings.run_id,
        created=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        tool_version=__version__,
        model=model,
        model_spec=redact_spec(spec_json(settings.model_spec)),
        presets=settings.presets,
        scenarios=tuple(str(p) for p in settings.scenarios),
        scenario_hash=scenario_hash,
        sandbox=sandbox,
        finished=None,
        config=settings.config,
        config_hash=config_hash(settings.config),
    )
    store.create_run(info, tasks)


def without_url(model: str) -> str:
    """A ``KIND:MODEL@URL`` model name without its address: the model is the same wherever it
    is served, so a run can be resumed after the endpoint moved."""
    head, sep, url = model.rpartition("@")
    return head if sep and url.startswith(("http://", "https://")) else model


def check_resume(store: Store, run: RunInfo, settings: ReplaySettings, scenario_hash: str, model: str) -> None:
    """Refuse to resume ``run`` with anything that would change its answers or verdicts, saying
    what differs. A run stored by an older version (another scenario digest, no configuration)
    is checked against what it did store, then brought up to date."""
    name = settings.run_id
    legacy_digest = run.scenario_hash != scenario_hash and run.scenario_hash == legacy_file_digest(settings.scenarios)
    if run.scenario_hash != scenario_hash and not legacy_digest:
        raise SimpilotError(
            f"run {name!r} was made with other scenario files (or other versions of them): resume needs the same "
            f"ones ({', '.join(run.scenarios)}); or {NEW_RUN}"
        )
    if without_url(redact_model_name(run.model)) != without_url(model):
        raise SimpilotError(f"run {name!r} was made with the model {run.model!r}, not {model!r}: resume needs the same one; or {NEW_RUN}")
    if tuple(run.presets) != tuple(settings.presets):
        # its report shows the presets it was made with: others would leave them half done
        presets = " ".join(f"-p {p}" for p in run.presets)
        raise SimpilotError(f"run {name!r} was made with {presets}: resume it with the same post-processing options")
    current_hash = config_hash(settings.config)
    stored = None if run.config is None else without_address(run.config)
    if stored is None:
        recorded = {p: steps for p, steps in store.presets(name).items() if p in run.presets}
        diffs = differences(legacy_config(run.model_spec, recorded, run.sandbox), settings.config, known_only=True)
    elif config_hash(stored) != current_hash:
        assert run.config_hash is not None  # stored with the configuration
        diffs = differences(stored, settings.config) or [f"the configuration's hash differs ({run.config_hash[:12]} → {current_hash[:12]})"]
    else:
        diffs = []
    if diffs:
        raise SimpilotError(
            f"run {name!r} cannot be resumed with another configuration: its answers would mix two. "
            f"{'; '.join(diffs)}. Resume it with the settings it was made with, or {NEW_RUN}"
        )
    if legacy_digest or run.config is None or run.config_hash != current_hash:
        store.update_run(name, scenario_hash, settings.config, current_hash)


def answered(samples: list[Completion] | None) -> bool:
    """Whether a request's stored answers are complete: at least one, and none an error."""
    return bool(samples) and all(c.ok for c in samples or ())
