"""Where a runner's runs happen: a folder of the runner's own, a fresh one per run, the run's budget.

Every harness gives each run an empty working folder, with the program's text (when it is a file)
beside it rather than in it, so that the program does not find itself; the folder goes when the
run is over, whatever the program did to its permissions. A fresh run's CPU budget is the
kernel's limit on the whole process, set through the sandbox's limits.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from replay.execution.programs import Program, remove
from replay.execution.runners.warm import cpu_budget
from replay.execution.sandbox.bubblewrap import Sandbox


def runner_home(prefix: str, workdir: Path | None) -> Path:
    """A new folder of a runner's own in ``workdir`` (made when missing; None: the system's
    temporary folder), for its builds and runs; the runner deletes it when it closes."""
    if workdir is not None:
        workdir.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=prefix, dir=workdir))


@contextmanager
def run_folder(home: Path, program: Program, source_name: str) -> Iterator[tuple[Path, Path]]:
    """A fresh folder for one run in ``home``: yields it and the program's text, written as
    ``source_name`` beside the empty working folder ``work``; removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="run-", dir=home))
    try:
        (folder / "work").mkdir()
        source = folder / source_name  # outside the work folder: the program does not find itself there
        source.write_text(program.source, encoding="utf-8")
        yield folder, source
    finally:
        remove(folder)


def budgeted(sandbox: Sandbox, cpu: float | None) -> Sandbox:
    """``sandbox`` with its CPU limit at the run's budget of ``cpu`` seconds (None: as it is);
    how the run ended at that limit the sandbox then says, by its limits."""
    if cpu is None:
        return sandbox
    budget = cpu_budget(cpu, sandbox.limits.cpu_seconds)
    return dataclasses.replace(sandbox, limits=dataclasses.replace(sandbox.limits, cpu_seconds=budget))
