"""One run on a borrowed work copy: the five ways a copy's tests (or program) are run.

In order: a program whose output is compared runs whole, its output kept; a Java selection runs on
the copy's warm JUnit server; a pytest selection on its warm pytest server (which also stops a run
at its CPU budget); any other pytest or Java command as a fresh sandboxed process with a proof
channel; a full suite with ``junit_xml`` reports writes them to a folder of its own; anything else
runs as it is (its exit status then proves nothing: see ``proof/check.py``).
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from replay.config.manifest import has_pytest_word
from replay.environments.commands import suite_command, suite_env, suite_python
from replay.execution.commands import REPORTS_ENV, command_for
from replay.execution.output import OUTPUT_LIMIT, normalised
from replay.execution.proof.check import Answer, Channel, parse_junit_xml
from replay.execution.runners import junit as java_runner
from replay.execution.runners.warm import pytest_args
from replay.execution.sandbox.bubblewrap import ProcessResult, Sandbox
from replay.execution.workcopies.copies import COPY_PREFIX, WorkCopy


@dataclass(frozen=True, slots=True)
class CopyRunner:
    """Runs tests on work copies in ``sandbox`` (``warm``: on the copies' warm servers where one
    fits the command; ``workdir``: where scratch folders go)."""

    sandbox: Sandbox
    workdir: Path | None
    warm: bool

    def program(self, copy: WorkCopy, timeout: float) -> ProcessResult:
        """One run of a ``compare_output`` repository's program on ``copy``: its output's first
        ``OUTPUT_LIMIT`` bytes kept whole, with the copy's path written ``{root}``."""
        manifest = copy.manifest
        result = self.sandbox.run(suite_command(manifest), copy.root, timeout, suite_env(manifest, copy.root), keep_output=OUTPUT_LIMIT)
        roots = (str(copy.root), os.path.realpath(copy.root))
        return dataclasses.replace(result, output=normalised(result.output or "", roots))

    def run(
        self,
        copy: WorkCopy,
        edited: str | None,
        tests: tuple[str, ...] | None,
        full: bool,
        timeout: float,
        cpu: float | None = None,
        answer: Answer | None = None,
    ) -> ProcessResult:
        """One test run on ``copy``: on its warm server when there is one for the command, which
        also stops the run once it has used ``cpu`` seconds of CPU time (a busy loop)."""
        manifest = copy.manifest
        if answer is not None:
            answer = dataclasses.replace(answer, path=str(copy.root / answer.path))
        if manifest.compare_output:
            return self.program(copy, timeout)
        if self.warm and not full and manifest.language == "java":
            return copy.junit_server().run(java_runner.run_arguments(edited, tests), timeout, cpu)
        command, extra = command_for(manifest, edited, tests, full)
        args = pytest_args(command, suite_python(manifest)) if self.warm and not full else None
        if args is not None:
            return copy.pytest_server().run(args, extra, timeout, cpu, answer)
        env = {**suite_env(manifest, copy.root), **extra}
        if has_pytest_word(command) or (manifest.language == "java" and not full):
            with Channel(answer=answer) as channel:
                return self.sandbox.run(command, copy.root, timeout, env, channel)
        if full and manifest.junit_xml:
            with tempfile.TemporaryDirectory(prefix=f"{COPY_PREFIX}{os.getpid()}-reports-", dir=self.workdir) as reports:
                result = self.sandbox.run(command, copy.root, timeout, {**env, REPORTS_ENV: reports}, writable=(Path(reports),))
                return dataclasses.replace(result, proof=parse_junit_xml(Path(reports), result.returncode))
        return self.sandbox.run(command, copy.root, timeout, env)
