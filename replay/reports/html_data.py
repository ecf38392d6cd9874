"""What the HTML report's elements carry: every number a chart or a stratum table shows is also
carried, unformatted, by ``data-*`` attributes on its element (``data-kind`` says what it is),
so a test — or a curious reader's own script — can check the figures against the store; and the
colours that mark the outcome classes."""

from __future__ import annotations

from typing import Any

from replay.reports.comparison import StratumDiff
from replay.reports.html_text import esc
from replay.reports.report_build import Section
from replay.reports.strata import StratumRow
from replay.reports.tampering import TamperingRow

CLASS_COLOURS = {
    "pass": "#2e9e6a",
    "syntax_error": "#b8475b",
    "indentation_error": "#e07a8f",
    "compile_error": "#8e2c48",
    "undefined_name": "#d9822b",
    "runtime_error": "#e6b34a",
    "fail": "#7a5cb8",
    "timeout": "#3aa1b5",
    "out_of_memory": "#1f5f6b",
    "empty": "#a9a9a9",
    "suggested": "#d4b996",
    "model_error": "#444444",
    "tests_not_run": "#c0392b",
    "tampered": "#5d1f1f",
    "unverified": "#c8c8c8",
    "toolchain_missing": "#e8e8e8",
}


def num(x: float | None) -> str:
    """A number as it goes into a data attribute: full precision, ``""`` for none."""
    return "" if x is None else repr(float(x)) if isinstance(x, float) else str(x)


def pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def attrs(**values: Any) -> str:
    return " ".join(f'data-{k.replace("_", "-")}="{esc(v)}"' for k, v in values.items())


def series_key(s: Section | TamperingRow) -> str:
    return f"{s.run_id}|{s.preset}"


def series_label(s: Section) -> str:
    return s.label


def place(r: StratumRow | StratumDiff) -> dict[str, Any]:
    """Which stratum a row is, and of how many tasks: the attributes every stratum's row carries."""
    return {"dimension": r.dimension, "value": r.value, "n": r.n}


def stratum_attrs(kind: str, r: StratumRow, s: Section, **extra: str) -> str:
    """The data attributes of one stratum of one series (a bar of a chart, a row of a table)."""
    return attrs(
        kind=kind,
        series=series_key(s),
        **place(r),
        passed=r.passed,
        rate=num(r.rate),
        low=num(r.low),
        high=num(r.high),
        small=int(r.small),
        **extra,
    )
