"""The schema of ``simpilot.toml``, a repository's manifest: its tables, keys and types.

This is what an editor validates against (``simpilot config schema simpilot``) and what
:func:`replay.config.manifest.load_manifest` reads the file through, so both agree on every key.
What one key means for another (``compare_lines`` needs ``compare_output``) is checked by the
loader, with the same one-line errors.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic.json_schema import JsonDict

from replay.config.strict import Table

Language = Literal["python", "java", "javascript", "typescript", "cpp", "csharp"]
Command = str | list[str]  # a shell command line, or an argument vector
COMMANDS: JsonDict = {"expected": "a list of commands"}


class Repository(Table):
    """``[repository]``: what simpilot marks and how it runs the repository's tests."""

    name: str = Field(description="The repository's name: letters, digits, '.', '_' or '-'.")
    language: Language = Field("python", description="javascript, typescript, cpp and csharp only with a [programs] table.")
    sources: list[str] = Field(["."], description="Folders whose files may hold holes, relative to the repository root.")
    tests: list[str] = Field(["tests"], description="Test folders: never marked, never shown to the model.")
    test_command: list[str] = Field([], description='The command running the whole suite; "{python}" stands for the tests\' interpreter.')
    select_command: list[str] = Field([], description='A command running chosen tests; "{tests}" stands for their ids.')
    setup: list[Command] = Field(
        [], description="Commands run once in each fresh work copy (each a word or a list of arguments).", json_schema_extra=COMMANDS
    )
    timeout: float = Field(60.0, description="Seconds for one test run.")
    env: dict[str, str] = Field({}, description="Extra environment variables for the tests.")
    junit_xml: bool = Field(False, description="The test command writes JUnit XML reports into $SIMPILOT_REPORTS.")
    compare_output: bool = Field(False, description="No test suite: test_command runs a program whose output is the test.")
    compare_lines: str | None = Field(None, description="With compare_output: a regular expression choosing the compared lines.")


class Environment(Table):
    """``[environment]`` (Python only): the interpreter that runs the tests."""

    python: str | None = Field(None, description="An interpreter or a venv folder (relative to the repository root), or a name on PATH.")
    setup: list[Command] = Field(
        [],
        description="Commands installing the dependencies into a venv simpilot builds and caches (shell lines or argument lists).",
        json_schema_extra=COMMANDS,
    )


class Programs(Table):
    """``[programs]``: every source file is a whole program, tested by running it with its checks."""

    checks: str = Field("checks", description="The folder holding each program's checks, at the same relative path.")
    environment: str | None = Field(None, description="The folder 'simpilot import devbench --provision' installed packages into.")


class Java(Table):
    """``[java]``: what a Java repository's tests need."""

    classpath: list[str] = Field([], description="Extra jars for compiling and testing, relative to the repository root.")


class Source(Table):
    """``[source]``: check the repository out from git instead of using the folder."""

    git: str | None = Field(None, description="The repository's git URL.")
    commit: str | None = Field(None, description="A commit id (7 to 40 hex digits): runs must be reproducible.")


class SimpilotFile(Table):
    """``simpilot.toml``: what simpilot needs to know about a repository to mark and test it."""

    repository: Repository
    environment: Environment | None = None
    programs: Programs | None = None
    java: Java | None = None
    source: Source | None = None
