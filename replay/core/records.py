"""Typed records that join the stages: Task → Completion → Outcome.

Every stage reads one record and writes the next; none reaches back. Records are frozen
dataclasses with explicit ``to_dict``/``from_dict`` so that the JSONL scenario files and the
SQLite store have one documented shape each (``SCHEMA_VERSION`` is written with every task).
"""

from __future__ import annotations

import dataclasses
import enum
import re
from dataclasses import dataclass, field
from typing import Any, Literal, overload

from replay.core.programs import LANGUAGES as PROGRAM_LANGUAGES
from replay.core.repo_paths import relative_path

SCHEMA_VERSION = 2


class RecordError(ValueError):
    """A stored record of the wrong shape. The message names the field (``span.start.line``) and
    what it should hold, so that a hand-edited or truncated scenario line can be found and fixed."""


_JSON_KINDS = (
    (bool, "true/false"),
    (int, "an integer"),
    (float, "a number"),
    (str, "a string"),
    (list, "a list"),
    (dict, "an object"),
    (type(None), "null"),
)


def json_kind(value: Any) -> str:
    """What a parsed JSON value is, in words (``bool`` before ``int``: true is not a number here)."""
    return next((words for kind, words in _JSON_KINDS if isinstance(value, kind)), type(value).__name__)


def _field(d: dict[str, Any], name: str, kind: type, what: str, where: str = "", optional: bool = False) -> Any:
    """``d[name]`` if it is a ``kind`` (``None`` when ``optional`` and absent or null); otherwise a
    :class:`RecordError` saying which field is missing or wrong and what it should be."""
    path = f"{where}{name}"
    if name not in d or (optional and d[name] is None):
        if optional:
            return None
        raise RecordError(f"field '{path}' is missing (expected {what})")
    value = d[name]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise RecordError(f"field '{path}' is {json_kind(value)}, expected {what}")
    return value


@overload
def _object(d: dict[str, Any], name: str, what: str, where: str = "", optional: Literal[False] = False) -> dict[str, Any]: ...
@overload
def _object(d: dict[str, Any], name: str, what: str, where: str = "", *, optional: bool) -> dict[str, Any] | None: ...
def _object(d: dict[str, Any], name: str, what: str, where: str = "", optional: bool = False) -> dict[str, Any] | None:
    return _field(d, name, dict, f"an object with {what}", where, optional)


def _strings(d: dict[str, Any], name: str, where: str = "") -> tuple[str, ...] | None:
    """An optional list of strings, each item checked."""
    items = _field(d, name, list, "a list of strings", where, optional=True)
    if items is None:
        return None
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise RecordError(f"field '{where}{name}' holds {json_kind(item)} at position {i}, expected a list of strings")
    return tuple(items)


class Kind(str, enum.Enum):
    """What the model is shown: INFILL sees code before and after the hole, COMPLETION only before."""

    INFILL = "infill"
    COMPLETION = "completion"


class Decision(str, enum.Enum):
    """What a decision task asks beyond writing code: NOTHING, that the model stay silent (the
    cursor ends a complete statement, block or function, and the ground truth is empty); ONE_LINE,
    that it stop after one line (the ground truth is one line, and a plausible longer answer fails
    the tests). Ordinary tasks have no decision (``Task.decision`` is None)."""

    NOTHING = "no_suggestion"
    ONE_LINE = "one_line"


class Status(str, enum.Enum):
    """The outcome vocabulary. Everything but PASS is a failure; MODEL_ERROR means no answer."""

    PASS = "pass"
    FAIL = "fail"  # a test assertion failed
    SYNTAX_ERROR = "syntax_error"
    INDENTATION_ERROR = "indentation_error"
    COMPILE_ERROR = "compile_error"
    UNDEFINED_NAME = "undefined_name"
    RUNTIME_ERROR = "runtime_error"
    TIMEOUT = "timeout"  # stopped at its wall-clock timeout or its CPU-time limit
    OUT_OF_MEMORY = "out_of_memory"  # ran out of memory: killed by the OOM killer, or an allocation failed (replay/execution/run_end.py)
    TESTS_NOT_RUN = "tests_not_run"  # the selected tests were not all reported as run (os._exit(0), System.exit)
    TAMPERED = "tampered"  # the code under test replaced parts of the test framework
    UNVERIFIED = "unverified"  # the command exited 0 but gives no per-test results to prove it
    EMPTY = "empty"  # the processed answer was blank (and the tests failed)
    SUGGESTED = "suggested"  # something was suggested where nothing was needed (Decision.NOTHING)
    MODEL_ERROR = "model_error"
    TOOLCHAIN_MISSING = "toolchain_missing"  # the machine cannot run the task's language: not a failure of the answer


TAMPERED_DETAIL = "the answer tampered with the harness: "  # a tampered outcome's detail: this, then "EVENT; EVENT; ..."


@dataclass(frozen=True, slots=True)
class Position:
    """An LSP position: 0-based line and UTF-16 code-unit character (LSP's default encoding)."""

    line: int
    character: int

    def to_dict(self) -> dict[str, int]:
        return {"line": self.line, "character": self.character}

    @classmethod
    def from_dict(cls, d: dict[str, int], where: str = "") -> Position:
        return cls(_field(d, "line", int, "an integer", where), _field(d, "character", int, "an integer", where))


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
    def from_dict(cls, d: dict[str, Any], where: str = "") -> Span:
        """A span from its JSON object, checked to be one: offsets and positions not negative, and
        the end not before the start (a reversed span would patch the file with nothing removed
        and the oracle would "pass")."""
        position = "line and character (integers)"
        span = cls(
            _field(d, "start_byte", int, "an integer", where),
            _field(d, "end_byte", int, "an integer", where),
            Position.from_dict(_object(d, "start", position, where), f"{where}start."),
            Position.from_dict(_object(d, "end", position, where), f"{where}end."),
        )
        if min(span.start_byte, span.end_byte, span.start.line, span.start.character, span.end.line, span.end.character) < 0:
            raise RecordError(f"field '{where.rstrip('.')}' holds a negative offset or position")
        if span.end_byte < span.start_byte or (span.end.line, span.end.character) < (span.start.line, span.start.character):
            raise RecordError(
                f"field '{where.rstrip('.')}' is reversed (bytes {span.start_byte}-{span.end_byte}, "
                f"lines {span.start.line}-{span.end.line}): its end comes before its start"
            )
        return span


@dataclass(frozen=True, slots=True)
class Validation:
    """Facts established by running the tests at marking time."""

    ground_truth_passes: bool
    filler: str
    filler_fails: bool
    stable: bool
    filler_status: str = ""  # how the filler failed (fail, compile_error, …): weak gates show here
    probe_status: str = ""  # when the filler did not compile: how a compiling, throwing probe failed
    # Decision.ONE_LINE: the plausible longer answer (the line and one more) shown to fail, and how
    longer: str = ""
    longer_status: str = ""

    @property
    def ok(self) -> bool:
        return self.ground_truth_passes and self.filler_fails and self.stable

    def to_dict(self) -> dict[str, Any]:
        """Every field; the one-line fields only when set, so that ordinary tasks keep their shape."""
        data = dataclasses.asdict(self)
        if not self.longer and not self.longer_status:
            del data["longer"], data["longer_status"]
        return data

    @classmethod
    def from_dict(cls, d: dict[str, Any], where: str = "") -> Validation:
        flag = "true or false"
        return cls(
            _field(d, "ground_truth_passes", bool, flag, where),
            _field(d, "filler", str, "a string", where),
            _field(d, "filler_fails", bool, flag, where),
            _field(d, "stable", bool, flag, where),
            _field(d, "filler_status", str, "a string", where, optional=True) or "",
            _field(d, "probe_status", str, "a string", where, optional=True) or "",
            _field(d, "longer", str, "a string", where, optional=True) or "",
            _field(d, "longer_status", str, "a string", where, optional=True) or "",
        )


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
    decision: Decision | None = None  # a decision task: stay silent, or stop after one line

    @property
    def cursor(self) -> Position:
        return self.span.start

    @property
    def nothing_needed(self) -> bool:
        """Whether the right answer is to suggest nothing (the ground truth is empty)."""
        return self.decision is Decision.NOTHING

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
        } | ({} if self.decision is None else {"decision": self.decision.value})

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Task:
        """A task from its JSON object; every field is checked, and a :class:`RecordError` names
        the first one that is missing or of the wrong type. ``path`` must be a plain relative path
        (``repo_paths.relative_path``): scenario files are shared, and it is joined to a checkout
        to read and to write."""
        if not isinstance(d, dict):
            raise RecordError(f"it is {json_kind(d)}, expected a JSON object")
        version = _field(d, "schema_version", int, f"the integer {SCHEMA_VERSION}")
        if version != SCHEMA_VERSION:
            raise RecordError(
                f"task {d.get('id')!r} has schema version {version}, expected {SCHEMA_VERSION} "
                "(it was written by another version of simpilot)"
            )
        text = "a string"
        kind = _field(d, "kind", str, '"infill" or "completion"')
        if kind not in {k.value for k in Kind}:
            raise RecordError(f'field \'kind\' is {kind!r}, expected "infill" or "completion"')
        span = _object(d, "span", "start_byte, end_byte, start and end")
        validation = _object(d, "validation", "ground_truth_passes, filler, filler_fails and stable", optional=True)
        decision = _field(d, "decision", str, '"no_suggestion" or "one_line"', optional=True)
        if decision is not None and decision not in {x.value for x in Decision}:
            raise RecordError(f'field \'decision\' is {decision!r}, expected "no_suggestion" or "one_line"')
        language = _language(_field(d, "language", str, text))
        return cls(
            id=_field(d, "id", str, text),
            repo=_field(d, "repo", str, text),
            language=language,
            path=relative_path(_field(d, "path", str, text)),
            kind=Kind(kind),
            construct=_field(d, "construct", str, text),
            block=_field(d, "block", bool, "true or false"),
            span=Span.from_dict(span, "span."),
            indent=_field(d, "indent", str, text),
            ground_truth=_field(d, "ground_truth", str, text),
            file_sha256=_field(d, "file_sha256", str, text),
            lines_removed=_field(d, "lines_removed", int, "an integer"),
            labels=_strings(d, "labels") or (),
            comment_distance=_field(d, "comment_distance", int, "an integer or null", optional=True),
            reference_distance=_field(d, "reference_distance", int, "an integer or null", optional=True),
            tests=_test_ids(_strings(d, "tests"), language),
            validation=None if validation is None else Validation.from_dict(validation, "validation."),
            schema_version=version,
            decision=None if decision is None else Decision(decision),
        )


_JAVA_CLASS = re.compile(r"[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*")


def _test_ids(ids: tuple[str, ...] | None, language: str) -> tuple[str, ...] | None:
    """``ids`` when each can name a test of ``language``: a Python node id (``tests/test_x.py::
    test_y``, its file a plain relative path) or a Java class, with a method after ``#``. Ids are
    handed to the test runner one a line, so a line break would make one id two; an empty list
    would select no test, and a run of no test proves nothing (``null`` runs the whole suite)."""
    if ids is None:
        return None
    if not ids:
        raise RecordError("field 'tests' is an empty list: name the selected tests, or give null to run the whole suite")
    for i, test in enumerate(ids):
        where = f"field 'tests' holds {test!r} at position {i}"
        if not test or any(c in test for c in "\n\r\0"):
            raise RecordError(f"{where}: a test id is one non-empty line")
        if language == "python":
            file, sep, name = test.partition("::")
            if not (sep and name and file.endswith(".py")):
                raise RecordError(f"{where}, expected a pytest node id such as 'tests/test_x.py::test_y'")
            relative_path(file, "tests")
        elif language == "java":
            if not _JAVA_CLASS.fullmatch(test.partition("#")[0]):
                raise RecordError(f"{where}, expected a test class such as 'com.example.FooTest', or 'com.example.FooTest#method'")
    return ids


def _language(language: str) -> str:
    """``language`` if simpilot can run tasks in it (a task in another would be run as if it were
    something else)."""
    if language not in PROGRAM_LANGUAGES:
        raise RecordError(f"field 'language' is {language!r}, expected one of {', '.join(PROGRAM_LANGUAGES)}")
    return language


# The bridge's notification to its client, just before each answer: ``{uri, position, timing}``
# with ``timing`` a :class:`Timing` as JSON (LSP's completion items have no place for it)
TIMING_METHOD = "simpilot/timing"


@dataclass(frozen=True, slots=True)
class Timing:
    """How the model answered one request, as the bridge measured it around the endpoint.

    Every time counts from the moment the bridge began asking the endpoint (after it built the
    prompt): ``queue_ms`` is the part spent waiting for one of the model's request slots,
    ``first_token_ms`` when the first piece of answer text arrived (a streamed answer only: a
    whole answer arrives at once), ``total_ms`` when its last byte did, retries and back-off
    included. Token counts are the endpoint's own (``tokens == "usage"``) or, when it sent none, an
    estimate of a token per four characters (``"estimate"``), never mixed up. ``replayed``: the
    figures are those of the original request, given again by a recording or the raw-output
    store rather than measured now; ``cancelled``: the editor moved on before the answer came."""

    total_ms: float
    first_token_ms: float | None = None
    queue_ms: float = 0.0
    prompt_tokens: int | None = None
    answer_tokens: int | None = None
    tokens: str = ""  # where the counts come from: "usage", "estimate", or "" (no counts)
    attempts: int = 1
    streamed: bool = False
    replayed: bool = False
    cancelled: bool = False

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Timing:
        """The record ``to_json`` wrote; unknown keys are ignored (a newer writer's), missing ones default."""
        known = {f.name for f in dataclasses.fields(cls)}
        try:
            return cls(**{k: v for k, v in data.items() if k in known})
        except TypeError as exc:
            raise RecordError(f"not a timing record: {data!r} ({exc})") from None


# The bridge's notification to its client, just before each answer built with a context strategy:
# ``{uri, position, prompt}`` with ``prompt`` a :class:`PromptRecord` as JSON
PROMPT_METHOD = "simpilot/prompt"


@dataclass(frozen=True, slots=True)
class PromptRecord:
    """How the bridge built one prompt's context (``lsp_bridge/contexts``): the strategy, its
    token budget, what counted the tokens (a model's tokenizer, or an estimate, named), the tokens
    each part took, how long building took, the document lines kept (``window``, inclusive) and
    the other files' lines, as ``(path, first, last, part)`` runs (0-based, inclusive), so that a
    model-free measure can be recomputed from what is stored."""

    strategy: str
    budget: int
    tokenizer: str
    parts: dict[str, int]
    build_ms: float
    window: tuple[int, int] = (0, 0)
    snippets: tuple[tuple[str, int, int, str], ...] = ()

    @property
    def tokens(self) -> int:
        return sum(self.parts.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "budget": self.budget,
            "tokenizer": self.tokenizer,
            "parts": dict(self.parts),
            "build_ms": self.build_ms,
            "window": list(self.window),
            "snippets": [list(s) for s in self.snippets],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PromptRecord:
        try:
            window = data.get("window") or (0, 0)
            return cls(
                str(data["strategy"]),
                int(data["budget"]),
                str(data["tokenizer"]),
                {str(k): int(v) for k, v in data["parts"].items()},
                float(data["build_ms"]),
                (int(window[0]), int(window[1])),
                tuple((str(p), int(a), int(b), str(k)) for p, a, b, k in data.get("snippets") or ()),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise RecordError(f"not a prompt record: {data!r} ({exc})") from None


@dataclass(frozen=True, slots=True)
class Completion:
    """What came back for one task: the raw text exactly as the server sent it, or an error.

    A model may give several answers to one request (samples, or an editor's alternative
    suggestions): each is its own completion, numbered by ``sample`` in the order the server
    listed them, 0 first; an error is stored once, as sample 0."""

    task_id: str
    raw: str | None
    error: str | None = None
    latency_ms: float = 0.0  # the editor's wait: the LSP request's round trip, as the client timed it
    request: dict[str, Any] = field(default_factory=dict)
    sample: int = 0
    timing: Timing | None = None  # the model's side of that wait, when the bridge reported it
    prompt: PromptRecord | None = None  # how the bridge built the prompt, when a context strategy did

    @property
    def ok(self) -> bool:
        return self.error is None and self.raw is not None


@dataclass(frozen=True, slots=True)
class Outcome:
    """The verdict for one (task, post-processor, sample) of a run."""

    task_id: str
    postprocess: str
    processed: str | None
    status: Status
    detail: str = ""
    duration_s: float = 0.0
    output_tail: str = ""
    steps: tuple[str, ...] = ()
    sample: int = 0

    @property
    def passed(self) -> bool:
        return self.status is Status.PASS
