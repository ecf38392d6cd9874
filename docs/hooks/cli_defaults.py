"""Options without a default on the generated command-line page, shown as such.

Since click 8.3 an option given no default holds the sentinel ``click.core.UNSET`` rather than
``None``, and mkdocs-click (its latest release, 0.9.0) prints whatever the default is, so every
such option's default cell read ``Sentinel.UNSET``. This hook rewrites exactly that cell of the
rendered page to a dash; any other default is left as mkdocs-click wrote it.
"""

from __future__ import annotations

from typing import Any

UNSET_CELL = "<td><code>Sentinel.UNSET</code></td>"
NO_DEFAULT_CELL = "<td>—</td>"


def without_sentinels(html: str) -> str:
    """``html`` with each default cell holding click's unset sentinel shown as no default."""
    return html.replace(UNSET_CELL, NO_DEFAULT_CELL)


def on_page_content(html: str, **_: Any) -> str:
    """mkdocs' event, after the markdown (and so mkdocs-click's tables) became HTML."""
    return without_sentinels(html)
