"""The error taxonomy reads pytest's short summary: a test's own check that failed is ``fail``,
whichever way pytest words it; an exception raised by the code is ``runtime_error``."""

from __future__ import annotations

import pytest

from replay.core.records import Kind, Position, Span, Status, Task
from replay.execution.classify import classify_failure
from replay.execution.sandbox.bubblewrap import ProcessResult

TASK = Task("r:a.py:infill:1-1", "r", "python", "a.py", Kind.INFILL, "statements", True, Span(0, 1, Position(0, 0), Position(0, 1)),
            "    ", "x = 1", "0" * 64, 1)


def classified(summary: str) -> Status:
    return classify_failure(ProcessResult(1, False, 0.1, summary + "\n1 failed in 0.01s\n"), "x = 2", TASK, "x = 2\n")[0]


@pytest.mark.parametrize(
    "summary",
    [
        pytest.param("E       assert 5.0 == 2.5\nFAILED tests/test_a.py::test_a - assert 5.0 == 2.5", id="rewritten-assert"),
        pytest.param("E       Failed: DID NOT RAISE ValueError\nFAILED tests/test_a.py::test_b - Failed: DID NOT RAISE ValueError", id="raises"),
        pytest.param("E       AssertionError: message here\nFAILED tests/test_a.py::test_d - AssertionError: message here", id="message"),
    ],
)
def test_a_failed_check_is_a_failure(summary: str) -> None:
    assert classified(summary) is Status.FAIL


def test_an_exception_of_the_code_is_a_runtime_error() -> None:
    assert classified("E       KeyError: 'x'\nFAILED tests/test_a.py::test_c - KeyError: 'x'") is Status.RUNTIME_ERROR
    both = "FAILED tests/test_a.py::test_a - assert 1 == 2\nFAILED tests/test_a.py::test_c - ZeroDivisionError: division by zero"
    assert classified(both) is Status.RUNTIME_ERROR
