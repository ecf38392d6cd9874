"""The HTML report's drill-down: one block per task with its source, what each series answered
and how it fared, and the table of tasks that links to them."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from replay.reports.comparison import short_model
from replay.reports.html_data import CLASS_COLOURS, attrs, num, series_key, series_label
from replay.reports.html_tables import sortable, td
from replay.reports.html_text import esc
from replay.reports.report_build import OutcomeRow, Report, Section
from replay.reports.report_source import CURSOR_MARK, prompt_excerpt, source_file

TAIL_LINES = 40  # of a test run's output, shown in a task's block


# -- drill-down --------------------------------------------------------------------------------


def diff_html(truth: str, answer: str | None) -> str:
    if answer is None:
        return '<p class="note">no answer</p>'
    lines = list(difflib.unified_diff(truth.splitlines(), answer.splitlines(), "ground truth", "processed answer", lineterm="", n=2))
    if not lines:
        return '<p class="note">identical to the ground truth</p>'
    out = []
    for line in lines:
        cls = "add" if line.startswith("+") else "del" if line.startswith("-") else "hunk" if line.startswith("@@") else ""
        out.append(f'<span class="{cls}">{esc(line)}</span>' if cls else esc(line))
    return '<pre class="diff">' + "\n".join(out) + "</pre>"


def block(title: str, text: str | None, cls: str = "") -> str:
    body = '<p class="note">none</p>' if text is None else f'<pre class="{cls}">{esc(text) if text else "<i>(empty)</i>"}</pre>'
    return f"<h5>{esc(title)}</h5>{body}"


def task_detail(report: Report, task_id: str, anchor: str, outcomes: list[OutcomeRow], colours: dict[str, str]) -> str:
    task = report.tasks.get(task_id)
    parts = [
        f'<details class="task" id="{anchor}"><summary><code>{esc(task_id)}</code> '
        + "".join(
            f'<span class="badge" style="background:{CLASS_COLOURS.get(o.status, "#999")}">'
            f"{esc(short_model(o.model))} · {esc(o.preset)}: {esc(o.status)}</span>"
            for o in outcomes
        )
        + "</summary>"
    ]
    if task is not None:
        meta = (
            f"{task.repo} · {task.language} · {task.kind.value} · {task.construct} · {task.lines_removed} lines removed · "
            f"labels: {', '.join(task.labels) or 'none'} · comment distance {task.comment_distance} · "
            f"reference distance {task.reference_distance}"
        )
        parts.append(f'<p class="meta">{esc(meta)}</p>')
        request = next((report.requests.get((o.run_id, task_id)) for o in outcomes if (o.run_id, task_id) in report.requests), None)
        excerpt = prompt_excerpt(task, source_file(task, request))
        parts.append(
            block(f"prompt: the document around the cursor ({CURSOR_MARK} marks it)", excerpt, "prompt")
            if excerpt is not None
            else '<h5>prompt</h5><p class="note">the source file is no longer available unchanged</p>'
        )
        parts.append(block("ground truth", task.ground_truth))
    for o in outcomes:
        tail = "\n".join(o.output_tail.splitlines()[-TAIL_LINES:])
        own = report.run_tasks.get((o.run_id, task_id))  # this run's task differs from the one above (re-marked)
        truth = own or task
        parts.append(
            f'<div class="outcome"><h4>{esc(short_model(o.model))} · {esc(o.preset)} ({esc(o.run_id)}): {esc(o.status)}'
            + (f" — {esc(o.detail)}" if o.detail else "")
            + "</h4>"
            + (block(f"ground truth in {o.run_id} (another task under the same id: re-marked?)", own.ground_truth) if own else "")
            + (block("model error", o.model_error) if o.model_error else "")
            + block("raw output", o.raw)
            + block("processed output", o.processed)
            + "<h5>diff against the ground truth</h5>"
            + (diff_html(truth.ground_truth, o.processed) if truth else "")
            + block(f"test output (last {TAIL_LINES} lines)", tail, "tail")
            + "</div>"
        )
    parts.append("</details>")
    return "".join(parts)


def outcome_badges(sections: Sequence[Section], mine: dict[tuple[str, str], OutcomeRow]) -> str:
    """One small badge per series, coloured by the outcome; its title and the list under it give
    the series, the outcome and the indel similarity in words (a column per series made the table
    wider than a page)."""
    badges, lines = [], []
    for i, s in enumerate(sections, 1):
        o = mine.get((s.run_id, s.preset))
        status = o.status if o else ""  # this series has no outcome for the task
        indel = (o.metrics or {}).get("indel_similarity") if o else None
        sim = "–" if indel is None else f"{indel:.2f}"
        words = f"{series_label(s)}: {status if o else 'no outcome'}, indel sim. {sim}"
        data = attrs(kind="task-outcome", series=series_key(s), status=status, indel=num(indel))
        badges.append(f'<span class="badge" {data} style="background:{CLASS_COLOURS.get(status, "#999")}" title="{esc(words)}">{i}</span>')
        lines.append(f"<li>{esc(words)}</li>")
    return f'<details class="outcomes"><summary>{"".join(badges)}</summary><ol>{"".join(lines)}</ol></details>'


def tasks_table(report: Report, sections: Sequence[Section], anchors: dict[str, str], by_task: dict[str, list[OutcomeRow]]) -> str:
    """One row per task in :data:`TASK_COLUMNS` columns, whatever the number of series: each
    series' outcome is a badge numbered as in the legend, with the words a click away."""
    rows = []
    shown = {(s.run_id, s.preset) for s in sections}  # not the ablation variants 'compare' stores
    for task_id, anchor in anchors.items():
        task = report.tasks.get(task_id)
        mine = {key: o for o in by_task[task_id] if (key := (o.run_id, o.preset)) in shown}
        passes = sum(o.passed for o in mine.values())
        indels = [m["indel_similarity"] for o in mine.values() if (m := o.metrics) and "indel_similarity" in m]
        mean = sum(indels) / len(indels) if indels else None
        rows.append(
            f'<tr><td><a href="#{anchor}">{esc(task_id)}</a></td>'
            + td(task.repo if task else "")
            + td(f"{task.language} {task.kind.value}" if task else "")
            + td(task.construct if task else "")
            + td(task.lines_removed if task else "", task.lines_removed if task else -1)
            + td(f"{passes}/{len(mine)}", passes)
            + td("–" if mean is None else f"{mean:.2f}", -1 if mean is None else mean)
            + f'<td data-sort="{passes}">{outcome_badges(sections, mine)}</td></tr>'
        )
    return sortable(TASK_COLUMNS, rows, "tasks")


TASK_COLUMNS = ("task", "repository", "language, kind", "construct", "lines", "passed", "mean indel sim.", "outcome per series")


def series_legend(sections: Sequence[Section]) -> str:
    """The numbers the tasks table's badges carry, with the series each stands for."""
    items = "".join(f"<li>{esc(series_label(s))}</li>" for s in sections)
    return f'<ol class="series">{items}</ol>'
