"""``simpilot tasks``: what the scenario files hold, counted by language (kinds, constructs and
the eight categories), without running anything."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from replay.jobs.output import out
from replay.jobs.replay import load_tasks
from replay.marking.labels import LABELS
from replay.reports.text_tables import Table


def tasks(scenarios: tuple[Path, ...]) -> None:
    """Print the table of the tasks in ``scenarios``, one column per language."""
    loaded = load_tasks(scenarios)
    languages = sorted({t.language for t in loaded})
    table = Table(title=f"{len(loaded)} tasks in {len(scenarios)} scenario file(s)", title_justify="left")
    table.add_column("", justify="left")
    for language in languages:
        table.add_column(language, justify="right")
    groups = [
        ("tasks", lambda t: ["all"]),
        ("kind", lambda t: [t.kind.value]),
        ("category", lambda t: list(t.labels)),
        ("construct", lambda t: [t.construct]),
    ]
    for title, keys in groups:
        counts = Counter((t.language, key) for t in loaded for key in keys(t))
        values = list(LABELS) if title == "category" else sorted({key for _, key in counts})
        table.add_section()
        for value in values:
            label = value if title == "tasks" else f"{title}: {value}"
            table.add_row(label, *(str(counts.get((language, value), 0)) for language in languages))
    out.print(table)
