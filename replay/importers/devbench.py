"""DevBench's instances as tasks: each instance is a program with one hole.

DevBench (microsoft/devbench, MIT) has 1,800 instances: six languages × six categories × 50. An
instance is a ``prefix``, a ``golden_completion``, a ``suffix`` and ``assertions`` (checks that run
after the program; empty where the checks live in the suffix or the golden completion, as for all
Java, C++ and C# instances). Its harness runs ``prefix + "\\n" + completion + "\\n" + suffix + "\\n"
+ assertions`` as one program.

Here an instance becomes a file of a synthetic repository (``devbench-<language>``), one program
per file, ``programs/<category>/<id><ext>``, holding ``prefix``, the golden completion and
``suffix`` joined as the harness joins them (:func:`~replay.core.programs.join`: a newline
only where neither side has one, so that a golden completion glued onto the prefix's last line
keeps its own line). The task's hole is the golden completion's place: the document the model
sees is the file without it (prefix + suffix), the cursor where the golden completion began — at
the end of the prefix, or at the start of the next line when the join added a newline there. The
assertions go into ``checks/<category>/<id><ext>``, a test folder: appended to the program when it
runs (``execution/programs``), never shown to the model.

Every task is an infill task (DevBench shows the suffix, even an empty one). Labels: the DevBench
category (also the task's ``construct``, a stratum in reports); the language is the task's.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from replay.core.errors import SimpilotError
from replay.core.json_input import json_object, numbered
from replay.core.programs import EXTENSIONS, join
from replay.core.recordings import text_sha256
from replay.core.records import Kind, Span, Task
from replay.core.textpos import position_at

CATEGORIES = ("api_usage", "code2NL_NL2code", "code_purpose_understanding", "low_context", "pattern_matching", "syntax_completion")
# simpilot's language names, and DevBench's folder for each
FOLDERS = {"python": "python", "java": "java", "javascript": "javascript", "typescript": "typescript", "cpp": "cpp", "csharp": "c_sharp"}
PER_LANGUAGE = 300  # DevBench's instances per language (50 per category)
_FIELDS = ("id", "prefix", "suffix", "golden_completion")


@dataclass(frozen=True, slots=True)
class Instance:
    language: str  # simpilot's name (``csharp`` for DevBench's ``c_sharp``)
    category: str
    id: str
    prefix: str
    suffix: str
    golden: str
    assertions: str
    source: str  # the file it was read from and its line, for messages

    @property
    def program_path(self) -> str:
        return f"programs/{self.category}/{self.id}{EXTENSIONS[self.language]}"

    @property
    def check_path(self) -> str:
        return f"checks/{self.category}/{self.id}{EXTENSIONS[self.language]}"


def repository_name(language: str) -> str:
    return f"devbench-{language}"


def _category_files(folder: Path, language: str) -> Iterator[tuple[str, Path]]:
    """(category, file) of ``language`` under ``folder``: a DevBench checkout
    (``benchmark/<lang>/<category>/<category>.jsonl``), its ``benchmark`` folder, or a folder of
    ``<lang>/<category>.jsonl`` (the bundled sample's layout)."""
    base = folder / "benchmark" if (folder / "benchmark").is_dir() else folder
    lang = base / FOLDERS[language]
    for category in CATEGORIES:
        for candidate in (lang / category / f"{category}.jsonl", lang / f"{category}.jsonl"):
            if candidate.is_file():
                yield category, candidate
                break


def read_instances(
    folder: Path, languages: Iterable[str] = tuple(FOLDERS), categories: Iterable[str] = CATEGORIES, limit: int | None = None
) -> list[Instance]:
    """The instances under ``folder`` of the given languages and categories (at most ``limit``
    per language and category, in the files' order). Raises ``SimpilotError`` naming the file and
    line of an instance that is not DevBench's shape, and when nothing is found."""
    wanted = set(categories)
    unknown = sorted(wanted - set(CATEGORIES))
    if unknown:
        raise SimpilotError(f"unknown DevBench categories: {', '.join(unknown)} (known: {', '.join(CATEGORIES)})")
    found: list[Instance] = []
    for language in languages:
        if language not in FOLDERS:
            raise SimpilotError(f"unknown language {language!r} (DevBench's: {', '.join(FOLDERS)})")
        for category, path in _category_files(folder, language):
            if category not in wanted:
                continue
            taken = 0
            for number, line in numbered(path.read_text(encoding="utf-8").splitlines()):
                if limit is not None and taken >= limit:
                    break
                found.append(_instance(line, language, category, f"{path}:{number}"))
                taken += 1
    if not found:
        raise SimpilotError(
            f"no DevBench instances found under {folder}: expected benchmark/<language>/<category>/<category>.jsonl "
            "(a DevBench checkout) or <language>/<category>.jsonl"
        )
    return found


def _instance(line: str, language: str, category: str, where: str) -> Instance:
    return instance_from(json_line(line, where), language, category, where)


def json_line(line: str, where: str) -> dict:
    """The JSON object on a line of a DevBench file, or an error naming ``where`` (its file and line)."""
    try:
        return json_object(line)
    except ValueError as exc:
        raise SimpilotError(f"{where}: {exc}") from None


def instance_from(d: dict, language: str, category: str, where: str) -> Instance:
    """The instance in a parsed line of a DevBench file (``where``: its file and line, for messages)."""
    bad = [name for name in _FIELDS if not isinstance(d.get(name), str)]
    if bad or not isinstance(d.get("assertions", ""), str):
        raise SimpilotError(f"{where}: field(s) {', '.join(bad or ['assertions'])} missing or not text")
    return Instance(language, category, d["id"], d["prefix"], d["suffix"], d["golden_completion"], d.get("assertions") or "", where)


def program_text(instance: Instance) -> tuple[str, int, int]:
    """The program file's text, and the golden completion's character offsets in it."""
    head = join(instance.prefix, instance.golden) if instance.golden else instance.prefix
    start = len(head) - len(instance.golden)
    whole = join(head, instance.suffix) if instance.suffix else head
    return whole, start, len(head)


def task_for(instance: Instance) -> tuple[str, Task]:
    """The program file's text and the task of its hole."""
    text, start, end = program_text(instance)
    data = text.encode("utf-8")
    start_byte, end_byte = len(text[:start].encode("utf-8")), len(text[:end].encode("utf-8"))
    span = Span(start_byte, end_byte, position_at(text, start), position_at(text, end))
    line_start = text.rfind("\n", 0, start) + 1
    line = text[line_start:start]
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    repo = repository_name(instance.language)
    path = instance.program_path
    kind = Kind.INFILL  # DevBench always gives the model the suffix, even an empty one: an infill request
    task = Task(
        id=f"{repo}:{path}:{kind.value}:{span.start.line + 1}-{span.end.line + 1}",
        repo=repo,
        language=instance.language,
        path=path,
        kind=kind,
        construct=instance.category,
        block=not line.strip(),
        span=span,
        indent=indent,
        ground_truth=instance.golden,
        file_sha256=text_sha256(data.decode("utf-8")),
        lines_removed=instance.golden.count("\n") + (1 if instance.golden and not instance.golden.endswith("\n") else 0),
        labels=(instance.category,),
        tests=None,
    )
    return text, task
