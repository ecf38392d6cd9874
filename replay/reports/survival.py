"""How many imported DevBench instances survived the program gate, per language and category,
and why the others did not (read from ``devbench-gate.json``: nothing is re-run)."""

from __future__ import annotations

from replay.reports.text_tables import Table
from replay.validation.program_gate import REASONS


def survival_table(summary: dict, by_category: bool = False) -> Table:
    """One row per language (and, ``by_category``, per category), next to DevBench's 300 a language."""
    table = Table(title="DevBench instances through the gate")
    for column in ("language", *(["category"] if by_category else []), "imported", "kept", *REASONS, "of DevBench's"):
        table.add_column(column, justify="left" if column in ("language", "category") else "right")
    for language, entry in sorted(summary.items()):
        rows = [(c, r) for c, r in sorted(entry["categories"].items())] if by_category else [("", entry["total"])]
        for category, row in rows:
            cells = [str(row["instances"]), str(row["kept"]), *(str(row[r]) for r in REASONS), str(entry["devbench_instances"])]
            table.add_row(language, *([category] if by_category else []), *cells)
    return table


def survival_markdown(summary: dict) -> str:
    """The per-language table as Markdown (for a README), with the totals."""
    keys = ("instances", "kept", *REASONS)
    head = ["language", "imported", "kept", *REASONS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for language, entry in sorted(summary.items()):
        lines.append("| " + " | ".join([language, *(str(entry["total"][k]) for k in keys)]) + " |")
    lines.append("| **all** | " + " | ".join(str(sum(e["total"][k] for e in summary.values())) for k in keys) + " |")
    return "\n".join(lines)


def categories_markdown(summary: dict) -> str:
    """Kept instances per language and category, as Markdown: ``kept/imported``."""
    categories = sorted({c for entry in summary.values() for c in entry["categories"]})
    lines = ["| language | " + " | ".join(categories) + " |", "|" + "---|" * (len(categories) + 1)]
    for language, entry in sorted(summary.items()):
        rows = entry["categories"]
        cells = [f"{rows[c]['kept']}/{rows[c]['instances']}" if c in rows else "–" for c in categories]
        lines.append(f"| {language} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
