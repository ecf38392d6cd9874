"""The report as one self-contained HTML file: no network, no external library, opens anywhere.

Charts are inline SVG drawn here; the only script is a few lines that sort tables and open a
task's drill-down when a link points at it. Model output is hostile input: every piece of text
goes through :func:`esc` (element text and attribute values alike), and no stored text ever
reaches the script or a ``style`` attribute.

Every number a chart or a stratum table shows is also carried, unformatted, by ``data-*``
attributes on its element (``data-kind`` says what it is), so a test — or a curious reader's
own script — can check the figures against the store.
"""

from __future__ import annotations

from replay.reports.decision_figures_html import decisions_section
from replay.reports.html_charts import strata_chart, taxonomy_chart, trend_chart
from replay.reports.html_data import series_key, series_label
from replay.reports.html_tables import comparison_block, metrics_table, sortable, strata_table, tampering_section, taxonomy_table, td
from replay.reports.html_tasks import series_legend, task_detail, tasks_table
from replay.reports.html_text import esc
from replay.reports.report_build import OutcomeRow, Report, Section
from replay.reports.report_json import run_verdict
from replay.reports.report_text import sample_line
from replay.reports.scoreboard import section as scoreboard_section
from replay.reports.strata import DIMENSIONS, SMALL_STRATUM

PALETTE = ("#3b6fb6", "#d9822b", "#2e9e6a", "#b8475b", "#7a5cb8", "#8c6d31", "#3aa1b5", "#6b6b6b")


# -- the page -------------------------------------------------------------------------------------

CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:0 18px 60px;color:#222}
h1{margin:18px 0 4px}h2{border-bottom:2px solid #ddd;padding-bottom:3px;margin-top:34px}
nav a{margin-right:14px}table{border-collapse:collapse;margin:8px 0;font-size:12.5px}
th,td{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}
th{background:#f3f3f3;cursor:pointer;user-select:none}th.asc:after{content:" ▲"}th.desc:after{content:" ▼"}
tr.small td,.flag{color:#a15c00}.flag{font-weight:bold}rect.small,circle.small{fill-opacity:.35}
rect.bar.small{stroke:#a15c00;stroke-dasharray:3 2}text.small{fill:#a15c00;font-weight:bold}
.chart text{font-size:11px;fill:#333}.grid{stroke:#e5e5e5}.whisker{stroke:#222;stroke-width:1.2}
.trend{fill:none;stroke-width:1.8}.tick{fill:#777}.inbar{fill:#fff;font-size:11px}.note{color:#666;font-size:12px}
figure{margin:10px 0 22px}figcaption{font-weight:bold;margin-bottom:4px}.legend .key{margin-right:12px;font-size:12px}
.legend i{display:inline-block;width:11px;height:11px;margin-right:4px;vertical-align:-1px}
pre{background:#f7f7f7;border:1px solid #e3e3e3;padding:6px;overflow:auto;max-height:380px;white-space:pre;font-size:12px}
pre.summary{white-space:pre-wrap}pre.prompt{max-height:none}.diff .add{color:#176b2c;background:#e6f6ea}.diff .del{color:#9b1c1c;background:#fbe9e9}
.diff .hunk{color:#555}details.task{border:1px solid #ddd;margin:4px 0;padding:4px 8px}
details.task summary{cursor:pointer}.badge{color:#fff;border-radius:3px;padding:0 5px;margin-left:6px;font-size:11px}
.outcome{border-top:1px dashed #ccc;margin-top:8px}.meta{color:#555}.warn{background:#fff4e0;border:1px solid #f0c36d;padding:6px 10px}
.vs{color:#888;font-weight:normal}.trends{display:flex;flex-wrap:wrap;gap:0 24px}.trends figure{width:540px}
table.tasks{width:100%;table-layout:auto}table.tasks td:first-child{word-break:break-all}
details.outcomes summary{cursor:pointer;list-style:none}details.outcomes .badge{margin:0 2px 0 0;display:inline-block;min-width:12px;text-align:center}
details.outcomes ol{margin:4px 0;padding-left:20px}ol.series{font-size:12px;columns:2}
"""

SCRIPT = """
(function(){
  function key(td){var s=td.getAttribute('data-sort');return s!==null&&s!==''&&!isNaN(+s)?+s:td.textContent.trim().toLowerCase();}
  document.querySelectorAll('table.sortable').forEach(function(table){
    table.querySelectorAll('th').forEach(function(th,col){
      th.addEventListener('click',function(){
        var asc=!th.classList.contains('asc');
        table.querySelectorAll('th').forEach(function(h){h.classList.remove('asc','desc');});
        th.classList.add(asc?'asc':'desc');
        var body=table.tBodies[0],rows=Array.prototype.slice.call(body.rows);
        rows.sort(function(a,b){var x=key(a.cells[col]),y=key(b.cells[col]);return (x<y?-1:x>y?1:0)*(asc?1:-1);});
        rows.forEach(function(r){body.appendChild(r);});
      });
    });
    table.setAttribute('data-sortable','ready');
  });
  function open(){var id=decodeURIComponent(location.hash.slice(1));var el=id&&document.getElementById(id);
    if(el&&el.tagName==='DETAILS'){el.open=true;el.scrollIntoView();}}
  window.addEventListener('hashchange',open);open();
  document.body.setAttribute('data-script','ran');
})();
"""


def samples_list(sections: list[Section]) -> str:
    """pass@1 over every sample and pass@n of the series with several samples per task (the
    charts and tables below are about sample 0); nothing when no series has them."""
    items = [f"<li>{esc(series_label(s))}: {esc(sample_line(s))}</li>" for s in sections if s.samples is not None]
    return f"<p>Several samples per task:</p><ul>{''.join(items)}</ul>" if items else ""


def render_html(report: Report) -> str:
    sections = report.sections
    colours = {series_key(s): PALETTE[i % len(PALETTE)] for i, s in enumerate(sections)}
    by_task: dict[str, list[OutcomeRow]] = {}
    for o in report.outcomes:
        by_task.setdefault(o.task_id, []).append(o)
    anchors = {task_id: f"task-{i}" for i, task_id in enumerate(sorted(by_task))}
    small = [(s, r) for s in sections for r in s.rows if r.small]
    runs = "".join(
        f"<tr>{td(r.run_id)}{td(r.model)}{td(r.created)}{td(r.scenario_hash[:12])}{td(', '.join(s.preset for s in sections if s.run_id == r.run_id))}"
        f"{td(run_verdict(r))}</tr>"
        for r in report.runs
    )
    legend = "".join(
        f'<span class="key"><i style="background:{colours[series_key(s)]}"></i>{esc(series_label(s))}</span>' for s in sections
    )
    cut = "".join(f"<li><b>{esc(k)}</b>: {esc(v)}</li>" for k, v in report.cutoffs.describe().items())
    out = [
        "<!doctype html><html lang=en><head><meta charset=utf-8>",
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">",
        f"<title>simpilot report: {esc(', '.join(r.run_id for r in report.runs))}</title><style>{CSS}</style></head><body>",
        "<h1>simpilot report</h1>",
        '<nav><a href="#strata">strata</a><a href="#taxonomy">error taxonomy</a>'
        + ('<a href="#tampering">tampering</a>' if report.tampering else "")
        + '<a href="#trends">trends</a><a href="#similarity">similarity</a><a href="#comparisons">comparisons</a>'
        '<a href="#latency">latency</a><a href="#table">all strata</a><a href="#tasks">tasks</a></nav>',
        sortable(["run", "model", "created", "scenario hash", "presets", "how verdicts were reached"], [runs]),
        f"<p>Intervals: <b>{esc(report.interval)}</b>. Cut-offs, computed once over the {len(report.tasks)} tasks of this report:</p><ul>{cut}</ul>",
        f'<p class="warn">⚠ {len(small)} of {sum(len(s.rows) for s in sections)} strata have fewer than {SMALL_STRATUM} tasks: '
        "they are drawn pale with dashed outlines and flagged “⚠ n&lt;10” everywhere; read their intervals with care.</p>"
        if small
        else "",
        f'<p class="legend">{legend}</p>',
        samples_list(sections),
        '<h2 id="strata">Pass rate per stratum</h2>',
    ]
    for dimension in DIMENSIONS:
        if dimension == "decision" and not any(r.dimension == dimension for s in sections for r in s.rows):
            continue  # no decision tasks in this report
        out.append(
            f'<figure data-dimension="{esc(dimension)}"><figcaption>{esc(dimension)}</figcaption>{strata_chart(dimension, sections, colours)}</figure>'
        )
    out += [
        '<h2 id="taxonomy">Error taxonomy</h2>',
        f"<figure><figcaption>outcome classes per model and preset</figcaption>{taxonomy_chart(sections)}</figure>",
        taxonomy_table(sections),
    ]
    sources = [(s, s.taxonomy.undefined_sources) for s in sections if s.taxonomy.undefined_sources]
    if sources:
        out.append(
            "<p>Undefined names found by: "
            + "; ".join(f"{esc(series_label(s))}: " + ", ".join(f"{esc(k)} {v}" for k, v in src.items()) for s, src in sources)
            + "</p>"
        )
    if report.tampering:  # a report of honest runs stays as it was
        out.append(tampering_section(report.tampering, anchors))
    out += ['<h2 id="trends">Trends over distance</h2><div class="trends">']
    for dimension in ("comment distance", "reference distance"):
        for similarity, what in ((False, "pass rate"), (True, "mean indel similarity")):
            out.append(
                f'<figure data-dimension="{esc(dimension)}"><figcaption>{what} over {esc(dimension)}</figcaption>'
                f"{trend_chart(dimension, sections, colours, similarity)}</figure>"
            )
    out += [
        "</div>",
        '<h2 id="similarity">Similarity to the ground truth (means)</h2>',
        "<p>Indel similarity is rapidfuzz's fuzz.ratio/100 (CrossCodeEval, RepoBench); normalised Levenshtein is "
        "rapidfuzz's Levenshtein.normalized_similarity (RepoEval). They are different numbers. A missing answer counts as empty.</p>",
        metrics_table(sections),
        '<h2 id="comparisons">Comparisons</h2>',
    ]
    out += [comparison_block(c, i, anchors) for i, c in enumerate(report.comparisons)] or [
        '<p class="note">one series only: nothing to compare</p>'
    ]
    out.append(decisions_section(sections, series_label))
    if report.board is not None:
        out += [
            '<h2 id="latency">Latency, the simulated editor and the Pareto front</h2>',
            "<p>Each series' first answers: time to the first token (streamed answers) and to the whole answer, "
            "whether a developer pausing at the cursor would have seen it and kept it, and the keystrokes it saved "
            "(<code>simpilot scoreboard</code> sets the editor's timing and the prices).</p>",
            scoreboard_section(report.board),
        ]
    out += [
        '<h2 id="table">All strata</h2>',
        strata_table(sections),
        '<h2 id="tasks">Tasks</h2>',
        "<p>Click a column to sort; click a task for its prompt, answers, diff and test output. Each badge is one "
        "series, numbered as below and coloured by its outcome; click the badges for the outcome and indel similarity in words.</p>",
        series_legend(sections),
        tasks_table(report, sections, anchors, by_task),
    ]
    out += [task_detail(report, task_id, anchor, by_task[task_id], colours) for task_id, anchor in anchors.items()]
    out.append(f"<script>{SCRIPT}</script></body></html>")
    return "\n".join(out)
