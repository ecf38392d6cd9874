"""The command that tests a work copy: which tests, through which runner, with the proof reporter.

A repository whose program's output is compared runs as it is; the full suite is the repository's
own test command; a Java repository's selected tests run through simpilot's JUnit runner; else the
repository's command narrowed to the selected tests (``Manifest.select``). A pytest command loads
the proof reporter and runs with pytest's cache off.
"""

from __future__ import annotations

from replay.config.manifest import Manifest, has_pytest_word, with_pytest_options
from replay.environments.commands import selected_command, suite_command
from replay.execution.proof.check import PYTEST_PLUGIN
from replay.execution.runners import junit as java_runner

REPORTS_ENV = "SIMPILOT_REPORTS"  # where a junit_xml test command writes its reports


def with_proof(argv: list[str]) -> list[str]:
    """A pytest command line with the proof reporter loaded, and pytest's cache (``.pytest_cache``
    in the copy, which would carry one run's state into the next) off; any other command as it is."""
    if not has_pytest_word(argv):
        return argv
    cache = [] if "no:cacheprovider" in argv else ["-p", "no:cacheprovider"]
    return with_pytest_options(argv, ["-p", PYTEST_PLUGIN, *cache])


def command_for(manifest: Manifest, path: str | None, tests: tuple[str, ...] | None, full: bool) -> tuple[list[str], dict[str, str]]:
    """The command (and extra environment) testing a copy whose ``path`` was edited: the
    repository's own test command for the full suite, else only ``tests`` (None: all)."""
    if manifest.compare_output:
        return suite_command(manifest), {}
    if full:
        return with_proof(suite_command(manifest)), {}
    if manifest.language == "java":
        return java_runner.toolchain().test_command(manifest, path, tests), {}
    selected = selected_command(manifest, tests) if tests is not None else None
    argv, extra = selected or (suite_command(manifest), {})
    return with_proof(argv), extra
