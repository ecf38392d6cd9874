"""Text and tables for simpilot's HTML pages: everything shown is escaped (model output and model
names are anyone's text), and tables are plain so that each page styles them its own way."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any


def esc(value: Any) -> str:
    """Text or attribute value, escaped (quotes included)."""
    return html.escape(str(value), quote=True)


def html_table(head: Sequence[Any], rows: Sequence[Sequence[Any]], caption: str = "") -> str:
    """A table of escaped cells, with an optional caption."""
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    body = "".join("<tr>" + "".join(f"<td>{esc(cell)}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table>{cap}<thead><tr>{''.join(f'<th>{esc(h)}</th>' for h in head)}</tr></thead><tbody>{body}</tbody></table>"
