"""The results store: SQLite in WAL mode, one file for all runs.

Everything a report shows is recomputed from these tables: the tasks as they were replayed, the
raw completion of every request, and one outcome per (run, task, post-processor). Rows are
written as soon as they exist, so a crash loses at most the work in flight and ``--resume``
continues from what is stored without counting anything twice. Each run also keeps its
configuration (``run_config.py``: model settings, presets, sandbox, suite) and its hash, which a
resume must match.

Databases made by older versions stay readable: columns added since are added by ``ALTER TABLE``
when a database is opened, and rows stored without them hold NULL until they are filled in.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from replay.core.errors import SimpilotError
from replay.core.records import Completion, Outcome, PromptRecord, Status, Task, Timing
from replay.scoring.similarity import Similarity, similarity

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY, created TEXT NOT NULL, tool_version TEXT NOT NULL, model TEXT NOT NULL,
    model_spec TEXT NOT NULL, presets TEXT NOT NULL, scenarios TEXT NOT NULL, scenario_hash TEXT NOT NULL,
    sandbox TEXT NOT NULL, finished TEXT
);
CREATE TABLE IF NOT EXISTS tasks (
    run_id TEXT NOT NULL, task_id TEXT NOT NULL, task TEXT NOT NULL, PRIMARY KEY (run_id, task_id)
);
CREATE TABLE IF NOT EXISTS completions (
    run_id TEXT NOT NULL, task_id TEXT NOT NULL, raw TEXT, error TEXT, latency_ms REAL NOT NULL,
    request TEXT NOT NULL, created TEXT NOT NULL, sample INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (run_id, task_id, sample)
);
CREATE TABLE IF NOT EXISTS outcomes (
    run_id TEXT NOT NULL, task_id TEXT NOT NULL, postprocess TEXT NOT NULL, processed TEXT,
    status TEXT NOT NULL, detail TEXT NOT NULL, duration_s REAL NOT NULL, output_tail TEXT NOT NULL,
    steps TEXT NOT NULL, created TEXT NOT NULL, sample INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (run_id, task_id, postprocess, sample)
);
CREATE TABLE IF NOT EXISTS presets (
    run_id TEXT NOT NULL, name TEXT NOT NULL, steps TEXT NOT NULL, PRIMARY KEY (run_id, name)
);
"""


# How the model answered each request (records.Timing as JSON; NULL: not reported, or stored
# before timings were kept)
# and how the bridge built its prompt (records.PromptRecord as JSON; NULL: no context strategy)
COMPLETION_COLUMNS = (("timing", "TEXT"), ("prompt", "TEXT"))

# Similarity metrics of each outcome (replay/scoring/similarity.py), added to databases made before they
# existed by ALTER TABLE; rows stored without them are filled in by ``backfill_metrics``.
METRIC_COLUMNS = (
    ("exact_match", "INTEGER"),
    ("indel_similarity", "REAL"),
    ("levenshtein_similarity", "REAL"),
    ("first_line_match", "INTEGER"),
    ("identifier_em", "INTEGER"),
    ("identifier_f1", "REAL"),
    ("devbench_line0", "INTEGER"),
    ("devbench_cosine", "REAL"),
)
_ANY_METRIC_MISSING = " OR ".join(f"{name} IS NULL" for name, _ in METRIC_COLUMNS)
_OUTCOME_COLUMNS = "run_id, task_id, postprocess, processed, status, detail, duration_s, output_tail, steps, created, sample"
# A run's configuration (replay/config/run.py: model settings, presets, sandbox, suite) as JSON and
# its hash, added to databases made before they existed; such runs have NULL in both.
RUN_COLUMNS = (("config", "TEXT"), ("config_hash", "TEXT"))
_RUN_FIELDS = "run_id, created, tool_version, model, model_spec, presets, scenarios, scenario_hash, sandbox, finished, config, config_hash"


def _to_db(text: str | None) -> str | bytes | None:
    """Model output (or text derived from it) as SQLite can hold it, without loss: valid text as
    it is, and text SQLite would refuse (lone surrogates, which some model servers put in their
    JSON) as its UTF-8 bytes with the surrogates passed through, a BLOB that ``_from_db`` turns
    back into the same ``str``."""
    if text is None:
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")
    return text


def _from_db(value: Any) -> Any:
    """A column written by ``_to_db`` as the text it was given (text stored by older versions is
    read as it is)."""
    return value.decode("utf-8", "surrogatepass") if isinstance(value, bytes) else value


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


@dataclass(frozen=True, slots=True)
class RunInfo:
    """A run as the store keeps it: what was replayed, by which model and tool, under which
    configuration (``config``, and its hash, checked when the run is resumed)."""

    run_id: str
    created: str
    tool_version: str
    model: str
    model_spec: dict[str, Any]
    presets: tuple[str, ...]
    scenarios: tuple[str, ...]
    scenario_hash: str
    sandbox: str
    finished: str | None
    config: dict[str, Any] | None = None  # None: a run stored before configurations were
    config_hash: str | None = None


def _run_info(row: tuple[Any, ...]) -> RunInfo:
    """A run from its row of ``_RUN_FIELDS``."""
    return RunInfo(
        row[0],
        row[1],
        row[2],
        row[3],
        json.loads(row[4]),
        tuple(json.loads(row[5])),
        tuple(json.loads(row[6])),
        row[7],
        row[8],
        row[9],
        None if row[10] is None else json.loads(row[10]),
        row[11],
    )


class Store:
    def __init__(self, path: Path):
        self.path = path
        self._truths: dict[tuple[str, str], tuple[str, str]] = {}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self._key_samples()
            self.db.executescript(_SCHEMA)
            self._add_columns("outcomes", METRIC_COLUMNS)
            self._add_columns("runs", RUN_COLUMNS)
            self._add_columns("completions", COMPLETION_COLUMNS)
        except (OSError, sqlite3.Error) as exc:
            raise SimpilotError(f"cannot open the results database {path}: {exc}") from None

    def close(self) -> None:
        self.db.close()

    def _key_samples(self) -> None:
        """Give a database made before samples existed the ``sample`` column, as part of the key
        of completions and outcomes: SQLite cannot change a primary key in place, so the two
        tables are rebuilt (in one transaction) and their rows become sample 0."""
        for table in ("completions", "outcomes"):
            have = [row[1] for row in self.db.execute(f"PRAGMA table_info({table})")]
            if not have or "sample" in have:
                continue
            create = next(part for part in _SCHEMA.split(";") if f"EXISTS {table} (" in part)
            with self._transaction():
                self.db.execute(f"ALTER TABLE {table} RENAME TO old_{table}")
                self.db.execute(create)
                self.db.execute(f"INSERT INTO {table} ({', '.join(have)}) SELECT {', '.join(have)} FROM old_{table}")
                self.db.execute(f"DROP TABLE old_{table}")

    def _add_columns(self, table: str, columns: tuple[tuple[str, str], ...]) -> None:
        """Add the ``columns`` a database made by an older version lacks (their rows get NULL)."""
        have = {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}
        for name, kind in columns:
            if name not in have:
                self.db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """All the writes of the block, or none (the connection autocommits otherwise)."""
        self.db.execute("BEGIN")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # -- runs ---------------------------------------------------------------------------------

    def create_run(self, info: RunInfo, tasks: list[Task] | None = None) -> None:
        """Record a new run and its ``tasks`` in one transaction: a crash in between would leave a
        run that ``--resume`` continues but whose outcomes no report can place."""
        rows = [(info.run_id, t.id, json.dumps(t.to_dict(), sort_keys=True)) for t in tasks or []]
        with self._transaction():
            self.db.execute(
                f"INSERT INTO runs ({_RUN_FIELDS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    info.run_id,
                    info.created,
                    info.tool_version,
                    info.model,
                    json.dumps(info.model_spec, sort_keys=True),
                    json.dumps(list(info.presets)),
                    json.dumps(list(info.scenarios)),
                    info.scenario_hash,
                    info.sandbox,
                    None,
                    None if info.config is None else json.dumps(info.config, sort_keys=True),
                    info.config_hash,
                ),
            )
            self.db.executemany("INSERT OR IGNORE INTO tasks VALUES (?,?,?)", rows)

    def run(self, run_id: str) -> RunInfo | None:
        row = self.db.execute(f"SELECT {_RUN_FIELDS} FROM runs WHERE run_id=?", (run_id,)).fetchone()
        return None if row is None else _run_info(row)

    def runs(self) -> list[RunInfo]:
        return [_run_info(row) for row in self.db.execute(f"SELECT {_RUN_FIELDS} FROM runs ORDER BY created, rowid")]

    def update_run(self, run_id: str, scenario_hash: str, config: dict[str, Any], config_hash: str) -> None:
        """Record the scenario digest and configuration of a run made by an older version, once a
        resume has found them the same as what that version stored (its digest, its columns)."""
        self.db.execute(
            "UPDATE runs SET scenario_hash=?, config=?, config_hash=? WHERE run_id=?",
            (scenario_hash, json.dumps(config, sort_keys=True), config_hash, run_id),
        )

    def finish_run(self, run_id: str) -> None:
        self.db.execute("UPDATE runs SET finished=? WHERE run_id=?", (_now(), run_id))

    def delete_run(self, run_id: str) -> None:
        """Remove a run and everything stored for it, all or nothing."""
        with self._transaction():
            for table in ("outcomes", "completions", "presets", "tasks", "runs"):
                self.db.execute(f"DELETE FROM {table} WHERE run_id=?", (run_id,))
        self._truths = {key: truth for key, truth in self._truths.items() if key[0] != run_id}

    # -- tasks, completions, outcomes ---------------------------------------------------------

    def tasks(self, run_id: str) -> list[Task]:
        return [
            Task.from_dict(json.loads(r[0])) for r in self.db.execute("SELECT task FROM tasks WHERE run_id=? ORDER BY rowid", (run_id,))
        ]

    def add_completion(self, run_id: str, c: Completion) -> None:
        self.add_completions(run_id, [c])

    def add_completions(self, run_id: str, answers: list[Completion]) -> None:
        """Store the answers to one request (every sample, or its error) together: a resume must
        never find half of a request's samples and take them for all of them. The request's
        earlier answers go first (a re-asked request may come back with fewer samples)."""
        with self._transaction():
            for task_id in {c.task_id for c in answers}:
                self.db.execute("DELETE FROM completions WHERE run_id=? AND task_id=?", (run_id, task_id))
            self.db.executemany(
                "INSERT INTO completions (run_id, task_id, raw, error, latency_ms, request, created, sample, timing, prompt)"
                " VALUES (?,?,?,?,?,?,?,?,?,?)",
                [
                    (
                        run_id,
                        c.task_id,
                        _to_db(c.raw),
                        _to_db(c.error),
                        c.latency_ms,
                        json.dumps(c.request, sort_keys=True),
                        _now(),
                        c.sample,
                        json.dumps(c.timing.to_json(), sort_keys=True) if c.timing is not None else None,
                        json.dumps(c.prompt.to_json(), sort_keys=True) if c.prompt is not None else None,
                    )
                    for c in answers
                ],
            )

    def completions(self, run_id: str) -> dict[str, Completion]:
        """Each task's first answer (sample 0), by task id."""
        return {task_id: answers[0] for task_id, answers in self.samples(run_id).items()}

    def samples(self, run_id: str) -> dict[str, list[Completion]]:
        """Every answer of ``run_id``, by task id, in sample order."""
        rows = self.db.execute(
            "SELECT task_id, raw, error, latency_ms, request, sample, timing, prompt FROM completions WHERE run_id=? ORDER BY task_id, sample",
            (run_id,),
        )
        out: dict[str, list[Completion]] = {}
        for r in rows:
            timing = Timing.from_json(json.loads(r[6])) if r[6] else None
            prompt = PromptRecord.from_json(json.loads(r[7])) if r[7] else None
            out.setdefault(r[0], []).append(Completion(r[0], _from_db(r[1]), _from_db(r[2]), r[3], json.loads(r[4]), r[5], timing, prompt))
        return out

    def add_outcome(self, run_id: str, o: Outcome) -> None:
        """Store one verdict with its similarity to the task's ground truth (when the task is stored)."""
        names = _OUTCOME_COLUMNS + "".join(f", {name}" for name, _ in METRIC_COLUMNS)
        metrics = self._similarity(run_id, o.task_id, o.processed)
        self.db.execute(
            f"INSERT OR REPLACE INTO outcomes ({names}) VALUES ({','.join('?' * (11 + len(METRIC_COLUMNS)))})",
            (
                run_id,
                o.task_id,
                o.postprocess,
                _to_db(o.processed),
                o.status.value,
                _to_db(o.detail),
                o.duration_s,
                _to_db(o.output_tail),
                json.dumps(list(o.steps)),
                _now(),
                o.sample,
                *(tuple(metrics.to_dict().values()) if metrics else (None,) * len(METRIC_COLUMNS)),
            ),
        )

    def _similarity(self, run_id: str, task_id: str, processed: str | None) -> Similarity | None:
        truth = self._truth(run_id, task_id)
        return None if truth is None else similarity(processed, *truth)

    def _truth(self, run_id: str, task_id: str) -> tuple[str, str] | None:
        """A stored task's (ground truth, language), read and parsed once per task: every
        outcome of a task (one per preset and ablation) needs it."""
        key = (run_id, task_id)
        if key not in self._truths:
            row = self.db.execute("SELECT task FROM tasks WHERE run_id=? AND task_id=?", (run_id, task_id)).fetchone()
            if row is None:
                return None  # not cached: the task may be stored later
            task = json.loads(row[0])
            self._truths[key] = (task["ground_truth"], task["language"])
        return self._truths[key]

    def backfill_metrics(self, run_id: str) -> int:
        """Compute the metrics of ``run_id``'s outcomes stored without them; how many were filled."""
        missing = self.db.execute(
            f"SELECT task_id, postprocess, processed, sample FROM outcomes WHERE run_id=? AND ({_ANY_METRIC_MISSING})", (run_id,)
        ).fetchall()
        sets = ", ".join(f"{name}=?" for name, _ in METRIC_COLUMNS)
        filled = 0
        with self._transaction():  # all filled in, or none
            for task_id, preset, processed, sample in missing:
                metrics = self._similarity(run_id, task_id, _from_db(processed))
                if metrics is not None:
                    self.db.execute(
                        f"UPDATE outcomes SET {sets} WHERE run_id=? AND task_id=? AND postprocess=? AND sample=?",
                        (*metrics.to_dict().values(), run_id, task_id, preset, sample),
                    )
                    filled += 1
        return filled

    def metrics(self, run_id: str, sample: int | None = 0) -> dict[tuple[str, str], Similarity]:
        """The stored metrics of ``run_id``'s outcomes of ``sample`` (None: every sample, the
        later ones last) by (task id, preset); rows without them are left out."""
        names = ", ".join(name for name, _ in METRIC_COLUMNS)
        rows = self.db.execute(
            f"SELECT task_id, postprocess, {names} FROM outcomes WHERE run_id=? AND NOT ({_ANY_METRIC_MISSING})"
            " AND (? IS NULL OR sample=?) ORDER BY sample",
            (run_id, sample, sample),
        )
        return {(r[0], r[1]): Similarity(*r[2:]) for r in rows}

    def sample_metrics(self, run_id: str) -> dict[tuple[str, str, int], Similarity]:
        """The stored metrics of every outcome of ``run_id`` by (task id, preset, sample)."""
        names = ", ".join(name for name, _ in METRIC_COLUMNS)
        rows = self.db.execute(
            f"SELECT task_id, postprocess, sample, {names} FROM outcomes WHERE run_id=? AND NOT ({_ANY_METRIC_MISSING})", (run_id,)
        )
        return {(r[0], r[1], r[2]): Similarity(*r[3:]) for r in rows}

    def outcomes(self, run_id: str, sample: int | None = 0) -> list[Outcome]:
        """The outcomes of ``run_id`` for ``sample`` (None: every sample), in the order stored.
        Sample 0 is the first answer of each request: what an editor shows first, and all a
        single-sample run has."""
        rows = self.db.execute(
            "SELECT task_id, postprocess, processed, status, detail, duration_s, output_tail, steps, sample FROM outcomes"
            " WHERE run_id=? AND (? IS NULL OR sample=?) ORDER BY rowid",
            (run_id, sample, sample),
        )
        return [
            Outcome(r[0], r[1], _from_db(r[2]), Status(r[3]), _from_db(r[4]), r[5], _from_db(r[6]), tuple(json.loads(r[7])), r[8])
            for r in rows
        ]

    def add_presets(self, run_id: str, definitions: dict[str, tuple[str, ...]]) -> None:
        """Record the steps behind each post-processing name used in ``run_id`` (built-in
        presets change between versions and users define their own: outcomes must say what
        produced them)."""
        self.db.executemany(
            "INSERT OR REPLACE INTO presets VALUES (?,?,?)",
            [(run_id, name, json.dumps(list(steps))) for name, steps in definitions.items()],
        )

    def presets(self, run_id: str) -> dict[str, tuple[str, ...]]:
        rows = self.db.execute("SELECT name, steps FROM presets WHERE run_id=? ORDER BY rowid", (run_id,))
        return {r[0]: tuple(json.loads(r[1])) for r in rows}

    def outcome_keys(self, run_id: str) -> set[tuple[str, str, int]]:
        """(task id, preset, sample) of every outcome stored for ``run_id``."""
        return {(r[0], r[1], r[2]) for r in self.db.execute("SELECT task_id, postprocess, sample FROM outcomes WHERE run_id=?", (run_id,))}
