"""The identity property where real code repeats the shape of its neighbours: a hole whose lines
differ from the lines above only in an operator or a sign (``if value > 0:`` / ``return "+Inf"``
after ``if value < 0:`` / ``return "-Inf"``), or whose last line also stands, less indented,
after it. ``drop_regenerated`` once took the first for a model's copy of the code above the
cursor and cut a real ground truth down to its last line; every preset must return such a hole
unchanged, while a model's real copy of the lines above is still cut.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from postprocess import PRESETS, HoleContext, run_preset
from postprocess.steps import drop_regenerated
from postprocess.steps.regenerated import lines_match

from .holes import Hole, alterations

# A function that handles neighbouring cases in lines that differ only in a comparison and a sign.
NOT_FINITE = '''def _not_finite(value: float) -> str:
    """The name of an infinite or undefined value, or an empty string."""
    import math

    if math.isnan(value):
        return "NaN"
    if math.isinf(value) and value < 0:
        return "-Inf"
    if math.isinf(value) and value > 0:
        return "+Inf"
    return ""


def ordinal(value: int) -> str:
    return f"{value}th"
'''
# The same shape, with the hole's last line standing again, less indented, after the hole.
CLAMP = """def clamp(x, low, high):
    if x < low:
        x = low
        return x
    if x > high:
        x = high
        return x
    return x
"""


def hole(source: str, first: str, last: str, infill: bool) -> Hole:
    """The hole from the start of the last line ``first`` (after its indentation) to the end of
    the next line ``last`` (both given by their text, stripped)."""
    lines = source.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    i = max(k for k, line in enumerate(lines) if line.strip() == first)
    j = next(k for k in range(i, len(lines)) if lines[k].strip() == last)
    a = starts[i] + len(lines[i]) - len(lines[i].lstrip())
    b = starts[j] + len(lines[j])
    kind = "infill" if infill else "completion"
    return Hole(f"{first!r}..{last!r} {kind}", "python", source[:a], source[a:b], source[b:] if infill else "")


@pytest.mark.parametrize("infill", [False, True], ids=["completion", "infill"])
def test_a_completion_like_its_neighbours_keeps_its_ground_truth_under_every_preset(infill: bool) -> None:
    """The humanize case (``number.py`` 89-91): the hole's first two lines differ from the two
    above only in ``<``/``>`` and ``-``/``+``; its last line closes the function."""
    h = hole(NOT_FINITE, "if math.isinf(value) and value > 0:", 'return ""', infill)
    assert h.truth == 'if math.isinf(value) and value > 0:\n        return "+Inf"\n    return ""'
    assert alterations(h) == []


@pytest.mark.parametrize("infill", [False, True], ids=["completion", "infill"])
@pytest.mark.parametrize(
    ("first", "last"),
    [
        ("x = low", "return x"),  # the body's last line stands again, less indented, after the hole
        ("if x > high:", "return x"),  # a branch like the one above it, its last line repeated below
        ("x = high", "return x"),
    ],
)
def test_a_hole_whose_last_line_stands_again_after_it_keeps_its_ground_truth(first: str, last: str, infill: bool) -> None:
    assert alterations(hole(CLAMP, first, last, infill)) == []


def test_a_real_copy_of_the_lines_above_is_still_cut() -> None:
    """What ``drop_regenerated`` is for: the model starts by writing the lines above the cursor
    again, as they are or spaced and quoted its own way."""
    h = hole(NOT_FINITE, "if math.isinf(value) and value > 0:", 'return ""', False)
    ctx = h.context
    copied = 'if math.isinf(value) and value<0:\n        return "-Inf"\n    ' + h.truth
    assert drop_regenerated(copied, ctx) == "    " + h.truth  # the copy's indentation is reindent's
    for preset in ("simcopilot", "syntax", "ide"):
        assert run_preset(preset, copied, ctx).text == h.truth


@pytest.mark.parametrize(
    ("a", "b", "match"),
    [
        ('return "-Inf"', 'return "+Inf"', False),
        ("if math.isinf(value) and value < 0:", "if math.isinf(value) and value > 0:", False),
        ("total = total + weight", "total = total - weight", False),
        ("while left <= right:", "while left >= right:", False),
        ("result = values[index]", "result = values(index)", False),
        ("this.colIdx = new int[n];", "this.rowIdx = new int[n];", False),
        ('raise ValueError("bad value")', "raise ValueError('bad value')", True),  # quotes
        ("items.append(first,second)", "items.append(first, second)", True),  # spacing
        ("count = count + 1;", "count = count + 1", True),  # a separator
        ("System.out.println(total);", "System.out.println( total );", True),
    ],
)
def test_lines_match_only_copies_that_differ_in_spacing_quotes_or_separators(a: str, b: str, match: bool) -> None:
    assert lines_match(a, b) is match
    assert lines_match(b, a) is match


_COMPARISONS = ["<", ">", "<=", ">=", "==", "!="]
_SIGNS = ["-", "+", ""]


@settings(max_examples=150, deadline=None)
@given(
    name=st.sampled_from(["value", "count", "total_weight", "x"]),
    ops=st.lists(st.sampled_from(_COMPARISONS), min_size=2, max_size=2),
    signs=st.lists(st.sampled_from(_SIGNS), min_size=2, max_size=2),
    bound=st.sampled_from(["0", "10", "limit", "1e-8"]),
    word=st.sampled_from(["Inf", "big", "small value"]),
    tail=st.sampled_from(['return ""', "return None", "pass"]),
    infill=st.booleans(),
)
def test_every_preset_keeps_a_branch_that_differs_from_the_one_above_in_an_operator_or_a_sign(
    name: str, ops: list[str], signs: list[str], bound: str, word: str, tail: str, infill: bool
) -> None:
    """Two neighbouring branches that differ only in their comparison or the sign of what they
    return: the second one, with the line that follows it, is the hole (completion or infill)."""
    if ops[0] == ops[1] and signs[0] == signs[1]:
        return  # the same branch twice: dead code, and a copy by every measure
    branch = [f'    if check({name}) and {name} {op} {bound}:\n        return "{sign}{word}"' for op, sign in zip(ops, signs, strict=True)]
    source = f"def name_of({name}):\n" + "\n".join(branch) + f"\n    {tail}\n\n\ndef other():\n    return 1\n"
    h = hole(source, f"if check({name}) and {name} {ops[1]} {bound}:", tail, infill)
    for preset in sorted(PRESETS):
        ctx = HoleContext("python", h.prefix, h.suffix)
        assert run_preset(preset, h.truth, ctx).text == h.truth, (preset, h.truth)
