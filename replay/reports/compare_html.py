"""``simpilot compare --html``: the preset comparison as a page, with the tasks behind each step's
figures — for a step that fixed or broke a task, the answer with and without the step and each
one's verdict, so that a reader can see *what* the step did, not only how often.

Pure: it takes the comparison's rows and the stored outcomes (sample 0) and returns the page.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from postprocess import ablation_name
from replay.core.records import Outcome
from replay.reports.html_text import esc, html_table

STYLE = (
    "body{font:14px sans-serif;margin:24px;max-width:1100px}table{border-collapse:collapse;margin:8px 0}"
    "th,td{border:1px solid #ccc;padding:2px 6px;text-align:right}td:first-child,th:first-child{text-align:left}"
    "pre{background:#f6f6f6;padding:6px;white-space:pre-wrap;margin:2px 0}details{margin:4px 0}"
    ".pass{color:#1b7a3d}.fail{color:#b3261e}.pair{display:grid;grid-template-columns:1fr 1fr;gap:8px}"
)


def _answer(title: str, o: Outcome | None) -> str:
    if o is None:
        return f"<div><b>{esc(title)}</b>: not stored</div>"
    verdict = "pass" if o.passed else "fail"
    detail = f" — {esc(o.detail[:300])}" if o.detail and not o.passed else ""
    return f"<div><b>{esc(title)}</b>: <span class={verdict}>{esc(o.status.value)}</span>{detail}<pre>{esc(o.processed or '')}</pre></div>"


def page(c: Any, outcomes: Mapping[tuple[str, str], Outcome], languages: Mapping[str, str]) -> str:
    """The page of ``c`` (a ``run.compare.PresetComparison``); ``outcomes`` by (task id, variant),
    sample 0; ``languages`` by task id."""
    parts = [f"<!doctype html><meta charset=utf-8><title>simpilot compare {esc(c.run_id)}</title><style>{STYLE}</style>"]
    parts.append(
        f"<h1>Post-processing compared on run {esc(c.run_id)}</h1><p>model {esc(c.model)}; the same raw answers under each preset</p>"
    )
    parts.append(
        html_table(
            ["preset", "pass", "pass %", "95% CI (Wilson)", "Δ points", "+ / −", "McNemar p"],
            [
                [
                    r.preset,
                    f"{r.passed}/{r.n}",
                    f"{100 * r.rate:.1f}",
                    f"{100 * r.low:.1f} – {100 * r.high:.1f}",
                    "" if r.difference is None else f"{100 * r.difference:+.1f}",
                    "" if r.only_this is None else f"+{r.only_this} / −{r.only_first}",
                    "" if r.p_value is None else f"{r.p_value:.3g}",
                ]
                for r in c.rows
            ],
        )
    )
    if c.languages:
        parts.append("<h2>Per language</h2>")
        parts.append(
            html_table(
                ["preset", "language", "pass", "+ / −", "McNemar p"],
                [[r.preset, r.language, f"{r.passed}/{r.n}", f"+{r.only_this} / −{r.only_first}", f"{r.p_value:.3g}"] for r in c.languages],
            )
        )
    parts.append(
        "<h2>What each step does</h2><p>fixed: passes with the preset, fails without the step; broke: the other way round (sample 0)</p>"
    )
    overall = [s for s in c.steps if s.language is None]
    parts.append(
        html_table(
            ["preset", "step", "fixed", "broke", "McNemar p"], [[s.preset, s.step, s.fixed, s.broke, f"{s.p_value:.3g}"] for s in overall]
        )
    )
    for s in overall:
        for direction, examples in (("fixed", s.fixed_examples), ("broke", s.broke_examples)):
            for task_id in examples:
                without = outcomes.get((task_id, ablation_name(s.preset, s.step)))
                parts.append(
                    f"<details><summary>{esc(s.preset)} · {esc(s.step)} {direction} {esc(task_id)} ({esc(languages.get(task_id, ''))})</summary>"
                    f"<div class=pair>{_answer(f'with {s.step}', outcomes.get((task_id, s.preset)))}{_answer(f'without {s.step}', without)}</div></details>"
                )
    return "".join(parts)
