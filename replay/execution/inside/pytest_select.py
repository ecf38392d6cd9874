"""A pytest plugin that runs only the tests named in ``$SIMPILOT_TESTS`` (node ids, one per line).

Given hundreds of node ids as arguments, pytest resolves each one separately, which can cost
more than running the whole suite. simpilot instead passes the test *files* and this plugin
(``-p replay.execution.inside.pytest_select``) deselects every collected test not in the list. It is
imported by the tests' interpreter inside the sandbox, so it imports nothing of simpilot.
"""

from __future__ import annotations

import os

ENV = "SIMPILOT_TESTS"


def pytest_collection_modifyitems(config, items) -> None:
    wanted = {line for line in os.environ.get(ENV, "").split("\n") if line}
    if not wanted:
        return
    keep = [item for item in items if item.nodeid in wanted]
    dropped = [item for item in items if item.nodeid not in wanted]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = keep
