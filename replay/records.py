"""Typed records that join the stages: Task → Completion → Outcome.

Every stage reads one record and writes the next; none reaches back. Records are frozen
dataclasses with explicit ``to_dict``/``from_dict`` so that the JSONL scenario files and the
SQLite store have one documented shape each (``SCHEMA_VERSION`` is written with every task).
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field
from typing import Any

SCHEMA_VERSION = 2


class Kind(str, enum.Enum):
    """What the model is shown: INFILL sees code before and after the hole, COMPLETION only before."""

    INFILL = "infill"
    COMPLETION = "completion"


class Status(str, enum.Enum):
    """The outcome vocabulary. Everything but PASS is a failure; MODEL_ERROR means no answer."""

    PASS = "pass"
    FAIL = "fail"  # a test assertion failed
    SYNTAX_ERROR = "syntax_error"
    INDENTATION_ERROR = "indentation_error"
    COMPILE_ERROR = "compile_error"
    UNDEFINED_NAME = "undefined_name"
    RUNTIME_ERROR = "runtime_error"
    TIMEOUT = "timeout"
    TESTS_NOT_RUN = "tests_not_run"  # the selected tests were not all reported as run (os._exit(0), System.exit)
    TAMPERED = "tampered"  # the code under test replaced parts of the test framework
    UNVERIFIED = "unverified"  # the command exited 0 but gives no per-test results to prove it
    EMPTY = "empty"  # the processed answer was blank (and the tests failed)
    MODEL_ERROR = "model_error"


@dataclass(frozen=True, slots=True)
class Position:
    """An LSP position: 0-based line and UTF-16 code-unit character (LSP's default encoding)."""

    line: int
    character: int

    def to_dict(self) -> dict[str, int]:
        return {"line": self.line, "character": self.character}

    @classmethod
    def from_dict(cls, d: dict[str, int]) -> Position:
        return cls(int(d["line"]), int(d["character"]))


@dataclass(frozen=True, slots=True)
class Span:
    """The removed span, both as UTF-8 byte offsets (what tree-sitter and patching use) and as
    LSP positions (what an editor sends). ``end`` is exclusive."""

    start_byte: int
    end_byte: int
    start: Position
    end: Position

    def to_dict(self) -> dict[str, Any]:
        return {
            "start_byte": self.start_byte,
            "end_byte": self.end_byte,
            "start": self.start.to_dict(),
            "end": self.end.to_dict(),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Span:
        return cls(
            int(d["start_byte"]),
            int(d["end_byte"]),
            Position.from_dict(d["start"]),
            Position.from_dict(d["end"]),
        )


@dataclass(frozen=True, slots=True)
class Validation:
    """Facts established by running the tests at marking time."""

    ground_truth_passes: bool
    filler: str
    filler_fails: bool
    stable: bool
    filler_status: str = ""  # how the filler failed (fail, compile_error, …): weak gates show here
    probe_status: str = ""  # when the filler did not compile: how a compiling, throwing probe failed

    @property
    def ok(self) -> bool:
        return self.ground_truth_passes and self.filler_fails and self.stable

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Validation:
        return cls(bool(d["ground_truth_passes"]), str(d["filler"]), bool(d["filler_fails"]), bool(d["stable"]), str(d.get("filler_status", "")), str(d.get("probe_status", "")))


@dataclass(frozen=True, slots=True)
class Task:
    """One hole in one file of one repository.

    ``construct`` says which syntactic thing was removed (``if_condition``, ``loop_body``, …);
    ``block`` is true when the hole starts at a statement boundary (the cursor sits after the
    indentation of a fresh line) rather than inside an expression. ``file_sha256`` pins the
    file the task was cut from so that a changed repository is detected instead of measured.
    """

    id: str
    repo: str
    language: str
    path: str  # POSIX path relative to the repository root
    kind: Kind
    construct: str
    block: bool
    span: Span
    indent: str  # the indentation of the line the hole starts on
    ground_truth: str
    file_sha256: str
    lines_removed: int
    labels: tuple[str, ...] = ()
    comment_distance: int | None = None
    reference_distance: int | None = None
    tests: tuple[str, ...] | None = None  # selected tests; None runs the whole suite
    validation: Validation | None = None
    schema_version: int = SCHEMA_VERSION

    @property
    def cursor(self) -> Position:
        return self.span.start

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "repo": self.repo,
            "language": self.language,
            "path": self.path,
            "kind": self.kind.value,
            "construct": self.construct,
            "block": self.block,
            "span": self.span.to_dict(),
            "indent": self.indent,
            "ground_truth": self.ground_truth,
            "file_sha256": self.file_sha256,
            "lines_removed": self.lines_removed,
            "labels": list(self.labels),
            "comment_distance": self.comment_distance,
            "reference_distance": self.reference_distance,
            "tests": None if self.tests is None else list(self.tests),
            "validation": None if self.validation is None else self.validation.to_dict(),
            "schema_version": self.schema_version,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Task:
        version = int(d.get("schema_version", 0))
        if version != SCHEMA_VERSION:
            raise ValueError(f"task {d.get('id')!r} has schema version {version}, expected {SCHEMA_VERSION}")
        return cls(
            id=d["id"],
            repo=d["repo"],
            language=d["language"],
            path=d["path"],
            kind=Kind(d["kind"]),
            construct=d["construct"],
            block=bool(d["block"]),
            span=Span.from_dict(d["span"]),
            indent=d["indent"],
            ground_truth=d["ground_truth"],
            file_sha256=d["file_sha256"],
            lines_removed=int(d["lines_removed"]),
            labels=tuple(d.get("labels") or ()),
            comment_distance=d.get("comment_distance"),
            reference_distance=d.get("reference_distance"),
            tests=None if d.get("tests") is None else tuple(d["tests"]),
            validation=None if d.get("validation") is None else Validation.from_dict(d["validation"]),
            schema_version=version,
        )


@dataclass(frozen=True, slots=True)
class Completion:
    """What came back for one task: the raw text exactly as the server sent it, or an error."""

    task_id: str
    raw: str | None
    error: str | None = None
    latency_ms: float = 0.0
    request: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None and self.raw is not None


@dataclass(frozen=True, slots=True)
class Outcome:
    """The verdict for one (task, post-processor) pair of a run."""

    task_id: str
    postprocess: str
    processed: str | None
    status: Status
    detail: str = ""
    duration_s: float = 0.0
    output_tail: str = ""
    steps: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return self.status is Status.PASS
