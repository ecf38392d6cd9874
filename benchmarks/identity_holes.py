"""How often each post-processing step alters a correct answer on holes cut by someone else.

Every step must return the ground truth unchanged on any hole. This prints, per step, language
and kind of hole, how many of a fixed random sample of holes it alters: whole-line cuts with the
cursor at column 0 or after the indentation, character cuts, each as infill or completion, from
every source file of the bundled repositories, and DevBench's Python and Java golden completions
(the cursor at the end of the prefix). ``--step NAME --show N`` prints N altered holes of one step.

The results file holds the holes, the alterations summed over the steps (``altered_by_steps``:
zero is the target) and over the presets, and the tables ``steps`` (per step, language and kind of
hole: holes and altered) and ``presets`` (per preset: holes altered, bare or fenced).
``--smoke``: two holes per file.

    python benchmarks/identity_holes.py [--per-file 30] [--seed 0] [--step reindent --show 5] [--smoke] [--results-dir DIR]
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.results_file import add_arguments, write_results  # noqa: E402
from postprocess.presets import PRESETS, STEPS, run_preset, run_steps  # noqa: E402
from tests.holes import Hole, bundled_sources, closes_a_block, devbench_holes, editor_cursor  # noqa: E402

MODES = ("column 0", "after the indentation", "characters")
SMOKE_PER_FILE = 2


def sample(per_file: int, seed: int) -> list[tuple[str, Hole]]:
    """The same cuts as ``tests.holes.cut`` draws, from a seeded generator (no Hypothesis)."""
    rng = random.Random(seed)
    holes = []
    for where, language, text in bundled_sources():
        lines = text.split("\n")
        starts = [0]
        for line in lines[:-1]:
            starts.append(starts[-1] + len(line) + 1)
        for _ in range(per_file):
            mode = rng.choice(MODES)
            if mode == "characters":
                a = editor_cursor(text, rng.randrange(len(text)))
                b = rng.randint(a + 1, min(len(text), a + 600))
            else:
                first = rng.randrange(len(lines))
                last = rng.randint(first, min(len(lines) - 1, first + 8))
                a = starts[first] + (len(lines[first]) - len(lines[first].lstrip(" \t")) if mode != "column 0" else 0)
                b = starts[last] + len(lines[last])
                if b < len(text) and rng.random() < 0.5:
                    b += 1
            closes = closes_a_block(language, text[:a], text[a:b])
            if closes and not text[b:].strip():
                continue  # a completion task ends within the innermost block (see tests/holes.py)
            infill = rng.random() < 0.5 or closes
            where_ = f"{where} [{a}:{b}] {mode}, {'infill' if infill else 'completion'}"
            holes.append((mode, Hole(where_, language, text[:a], text[a:b], text[b:] if infill else "")))
    for language in ("python", "java"):
        holes += [("devbench", hole) for hole in devbench_holes(language)]
    return holes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-file", type=int, default=None, help="[default: 30; 2 with --smoke]")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--step", choices=sorted(STEPS))
    parser.add_argument("--show", type=int, default=0)
    add_arguments(parser)
    args = parser.parse_args()
    args.per_file = args.per_file or (SMOKE_PER_FILE if args.smoke else 30)
    holes = sample(args.per_file, args.seed)
    steps = [args.step] if args.step else list(STEPS)
    totals: Counter[tuple[str, str]] = Counter((h.language, mode) for mode, h in holes)
    altered: Counter[tuple[str, str, str]] = Counter()
    shown = 0
    for mode, hole in holes:
        for step in steps:
            got = run_steps((step,), hole.truth, hole.context).text
            if got != hole.truth:
                altered[(step, hole.language, mode)] += 1
                if shown < args.show:
                    shown += 1
                    print(f"== {step}: {hole.where}\nprefix …{hole.prefix[-120:]!r}\ntruth  {hole.truth[:400]!r}\nsuffix {hole.suffix[:80]!r}…\ngot    {got[:400]!r}\n")
    columns = [(language, mode) for language in ("python", "java") for mode in (*MODES, "devbench")]
    print(f"{'step':22}" + "".join(f"{lang[:2]} {mode[:10]:>10} " for lang, mode in columns))
    print(f"{'(holes)':22}" + "".join(f"{totals[c]:>14} " for c in columns))
    for step in steps:
        print(f"{step:22}" + "".join(f"{altered[(step, *c)]:>14} " for c in columns))
    presets: Counter[str] = Counter()
    if not args.step:
        for _, hole in holes:
            for preset in PRESETS:
                for raw in (hole.truth, f"Here is the code:\n```{hole.language}\n{hole.truth}\n```"):
                    presets[preset] += run_preset(preset, raw, hole.context).text != hole.truth
        print("\npresets, bare and fenced, holes altered of", 2 * len(holes), ":", dict(presets))
    figures = {
        "holes": len(holes),
        "per_file": args.per_file,
        "seed": args.seed,
        "steps": len(steps),
        "altered_by_steps": sum(altered.values()),
        "target_altered": 0,
    }
    tables = {
        "steps": (["step", "language", "cut", "holes", "altered"],
                  [[step, lang, mode, totals[(lang, mode)], altered[(step, lang, mode)]] for step in steps for lang, mode in columns]),
    }
    if not args.step:
        figures |= {"preset_texts": 2 * len(holes), "altered_by_presets": sum(presets.values())}
        tables["presets"] = (["preset", "texts", "altered"], [[preset, 2 * len(holes), presets[preset]] for preset in PRESETS])
    write_results("identity_holes", args, figures, tables)


if __name__ == "__main__":
    main()
