"""SimCopilot's own holes through simpilot: how many import, and whether every preset returns
their ground truths unchanged.

SimCopilot (Python and Java programs with infill and completion holes, given as line ranges in
``<Language>_tasks_checkpoints.json``) follows its own conventions: a Java completion hole runs to
the ``}`` that closes the cursor's block. This imports both languages' checkpoints as
``simpilot import lines --format simcopilot`` does (without running any test) and prints how many
holes become candidate tasks, by language and kind, and why the others do not. Then every
built-in preset is run on every ground truth (all holes, imported or not: a hole the importer
rejects is SimCopilot's cut, its lines without the white space around them), bare and fenced with
a one-line preamble, with the code after the hole shown (as to an infill) and without it (as to a
completion); the context says whether the hole closes the cursor's block, as the task's context
does. Every preset must return every ground truth unchanged.

    .venv/bin/python benchmarks/simcopilot_identity.py SIMCOPILOT [--show 5] [--no-save] [--results-dir DIR]
    .venv/bin/python benchmarks/simcopilot_identity.py --smoke

``SIMCOPILOT`` is a copy of SimCopilot's repository (its ``example_code/`` folder, or the folder
holding it). SimCopilot's data may not be bundled: the figures are written, without any of its
text, to ``benchmarks/results/simcopilot_identity.json``: the holes, the candidate tasks, the ground
truths and how many each preset altered (``altered_<preset>``: zero is the target), and the tables
``holes`` (per language and kind), ``not_kept`` (why, line numbers written N), ``altered`` (per
preset, with and without the suffix) and ``altered_by_steps``. ``--smoke`` runs on the small
samples in SimCopilot's format bundled with the tests (``tests/data/simcopilot`` for Python,
``tests/data/simcopilot_java`` for Java) instead of ``SIMCOPILOT``.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.results_file import add_arguments, write_results  # noqa: E402
from postprocess import BUILTIN_PRESETS, HoleContext, run_preset  # noqa: E402
from postprocess.bracketview import closes_cursor_block  # noqa: E402
from replay.config.manifest import Manifest, load_manifest  # noqa: E402
from replay.importers.lines import LineHole, tasks_from_lines  # noqa: E402
from replay.importers.simcopilot import read_checkpoints  # noqa: E402

LANGUAGES = {"Python": "python", "Java": "java"}
# the bundled samples in SimCopilot's layout: each folder is what example_code/<Language> holds
SMOKE_SAMPLES = {"Python": ROOT / "tests" / "data" / "simcopilot", "Java": ROOT / "tests" / "data" / "simcopilot_java"}
SUFFIX = ("with suffix", "without suffix")


@dataclass(frozen=True)
class Truth:
    where: str
    language: str
    kind: str
    prefix: str
    truth: str
    suffix: str
    imported: bool


def example_code(folder: Path) -> Path:
    for candidate in (folder, folder / "example_code"):
        if all((candidate / lang / f"{lang}_tasks_checkpoints.json").is_file() for lang in LANGUAGES):
            return candidate
    raise SystemExit(f"{folder}: no Python/Python_tasks_checkpoints.json and Java/Java_tasks_checkpoints.json (nor under example_code/)")


def smoke_example_code(scratch: Path) -> Path:
    """An ``example_code`` folder whose language folders are the bundled samples (linked)."""
    base = scratch / "example_code"
    base.mkdir()
    for folder, sample in SMOKE_SAMPLES.items():
        (base / folder).symlink_to(sample, target_is_directory=True)
    return base


def manifest(root: Path, language: str, scratch: Path) -> Manifest:
    """A manifest for SimCopilot's programs of one language: every file a source, none a test (its
    Java programs are its testers), nothing ever run."""
    path = scratch / f"{language}.toml"
    path.write_text(
        f'[repository]\nname = "simcopilot-{language}"\nlanguage = "{language}"\nsources = ["."]\ntests = []\ntest_command = ["true"]\n',
        encoding="utf-8",
    )
    return load_manifest(path, root=root)


def offsets(text: str) -> list[int]:
    starts = [0]
    for line in text.split("\n")[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    return starts


def truths(m: Manifest, holes: list[LineHole], spans: dict[str, tuple[int, int]]) -> list[Truth]:
    """Every hole's ground truth in its file: the task's span when the hole became one, else the
    hole's lines without the white space around them."""
    found, texts = [], {}
    for hole in holes:
        if hole.file not in texts:
            data = (m.root / hole.file).read_bytes()
            texts[hole.file] = (data, data.decode("utf-8"))
        data, text = texts[hole.file]
        if hole.id in spans:
            a, b = spans[hole.id]
            a, b = len(data[:a].decode("utf-8")), len(data[:b].decode("utf-8"))
        else:
            starts = offsets(text)
            if hole.last_line > len(starts):
                continue
            a, b = starts[hole.first_line - 1], starts[hole.last_line - 1] + len(text.split("\n")[hole.last_line - 1])
            cut = text[a:b]
            if not cut.strip():
                continue
            a += len(cut) - len(cut.lstrip())
            b = a + len(cut.strip())
        found.append(Truth(hole.id or hole.describe(), m.language, hole.kind.value, text[:a], text[a:b], text[b:], hole.id in spans))
    return found


def fenced(t: Truth) -> str:
    return f"Here is the code:\n```{t.language}\n{t.truth}\n```"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("simcopilot", type=Path, nargs="?", help="SimCopilot's example_code folder (or the folder holding it)")
    parser.add_argument("--show", type=int, default=0, help="print this many altered ground truths")
    parser.add_argument("--no-save", action="store_true", help="do not write the results file")
    add_arguments(parser)
    args = parser.parse_args()
    if args.simcopilot is None and not args.smoke:
        parser.error("give SimCopilot's folder, or --smoke to run on the bundled samples")
    with tempfile.TemporaryDirectory() as samples:
        base = smoke_example_code(Path(samples)) if args.smoke and args.simcopilot is None else example_code(args.simcopilot)
        return measure(args, base)


def measure(args: argparse.Namespace, base: Path) -> int:
    """Import both languages' holes from ``base`` (an example_code folder), run every preset on
    every ground truth, print and write the counts; 1 when a preset altered a ground truth."""
    started = time.monotonic()

    holes: Counter[tuple[str, str]] = Counter()
    kept: Counter[tuple[str, str]] = Counter()
    closing: Counter[tuple[str, str]] = Counter()
    rejected: Counter[tuple[str, str]] = Counter()
    cases: list[Truth] = []
    with tempfile.TemporaryDirectory() as scratch:
        for folder, language in LANGUAGES.items():
            m = manifest(base / folder, language, Path(scratch))
            found = read_checkpoints(base / folder / f"{folder}_tasks_checkpoints.json", m)
            result = tasks_from_lines(m, found)
            for hole in found:
                holes[(language, hole.kind.value)] += 1
            for task in result.tasks:
                kept[(language, task.kind.value)] += 1
            for _, why in result.rejected:
                rejected[(language, re.sub(r"\d+", "N", why.split(" (")[0]))] += 1
            spans = {t.id: (t.span.start_byte, t.span.end_byte) for t in result.tasks}
            cases += truths(m, found, spans)

    altered: Counter[tuple[str, str]] = Counter()  # (preset, suffix) -> ground truths altered
    by_step: Counter[tuple[str, str, str]] = Counter()
    shown = 0
    for t in cases:
        closes = closes_cursor_block(t.language, t.prefix, t.truth)
        if closes:
            closing[(t.language, t.kind)] += 1
        for shown_suffix, suffix in zip(SUFFIX, (t.suffix, ""), strict=True):
            ctx = HoleContext(t.language, t.prefix, suffix, closes_block=closes)
            for preset in BUILTIN_PRESETS:
                changed = [run_preset(preset, raw, ctx) for raw in (t.truth, fenced(t))]
                bad = [p for p in changed if p.text != t.truth]
                if bad:
                    altered[(preset, shown_suffix)] += 1
                    by_step[(preset, shown_suffix, "+".join(bad[0].changed_by))] += 1
                    if shown < args.show:
                        shown += 1
                        print(f"== {preset}, {shown_suffix}: {t.where}\ntruth {t.truth[-300:]!r}\ngot   {bad[0].text[-300:]!r}\n")
    seconds = time.monotonic() - started

    print(f"{'language':8s} {'kind':10s} {'holes':>6s} {'kept':>6s} {'share':>6s} {'closing':>8s}")
    for language in LANGUAGES.values():
        for kind in ("infill", "completion"):
            n, k = holes[(language, kind)], kept[(language, kind)]
            print(f"{language:8s} {kind:10s} {n:6d} {k:6d} {k / n if n else 0:6.1%} {closing[(language, kind)]:8d}")
    print(f"{'all':19s} {sum(holes.values()):6d} {sum(kept.values()):6d}")
    print("\nnot kept, why:")
    for (language, why), n in rejected.most_common():
        print(f"  {n:4d} {language}: {why}")
    print(f"\nground truths altered, of {len(cases)} (bare or fenced):")
    print(f"  {'preset':12s} " + " ".join(f"{s:>15s}" for s in SUFFIX))
    for preset in BUILTIN_PRESETS:
        print(f"  {preset:12s} " + " ".join(f"{altered[(preset, s)]:15d}" for s in SUFFIX))
    for (preset, s, steps), n in sorted(by_step.items()):
        print(f"    {preset}, {s}: {n} by {steps}")
    print(f"\n{seconds:.1f} s")

    if not args.no_save:
        figures = {
            "seconds": round(seconds, 1),
            "holes": sum(holes.values()),
            "kept": sum(kept.values()),
            "ground_truths": len(cases),
            "presets": len(BUILTIN_PRESETS),
            "altered": sum(altered.values()),
            "target_altered": 0,
        } | {f"altered_{preset}": sum(altered[(preset, s)] for s in SUFFIX) for preset in BUILTIN_PRESETS}
        tables = {
            "holes": (
                ["language", "kind", "holes", "kept", "closing_the_cursor_block"],
                [[language, kind, holes[(language, kind)], kept[(language, kind)], closing[(language, kind)]]
                 for language in LANGUAGES.values() for kind in ("infill", "completion")],
            ),
            "not_kept": (["language", "why", "holes"], [[language, why, n] for (language, why), n in rejected.most_common()]),
            "altered": (["preset", *SUFFIX], [[preset, *(altered[(preset, s)] for s in SUFFIX)] for preset in BUILTIN_PRESETS]),
            "altered_by_steps": (["preset", "suffix", "steps", "ground_truths"], [[p, s, steps, n] for (p, s, steps), n in sorted(by_step.items())]),
        }
        write_results("simcopilot_identity", args, figures, tables)
    return 1 if sum(altered.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
