"""DevBench instances dropped for the machine, not their golden completion
(``replay/validation/program_failures.py``): a package left out of ``--provision`` on purpose is
``toolchain_missing`` with the package named, and a program that reaches for the network the
sandbox never gives is ``needs_network``, also when it swallows the error and fails an assertion
about the data it lacks (DevBench's Python ``pattern_matching/7``, ``/20`` and ``/27``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from replay.core.records import Status
from replay.execution.judge import Verdict
from replay.execution.sandbox.bubblewrap import Sandbox
from replay.importers.devbench import read_instances
from replay.jobs.import_devbench import ADVICE, import_devbench, reason_lines
from replay.validation.drops import PROGRAM_REASONS, DropReason
from replay.validation.program_failures import left_out_package, machine_cause, network_evidence
from replay.validation.program_gate import REASONS, judge_one
from tests.test_program_gate import TASK

SAMPLE = Path(__file__).parent / "data" / "devbench"
# what DevBench's pattern_matching/7 printed in the sandbox before its assertion failed
SWALLOWED = (
    "GET request failed: HTTPSConnectionPool(host='jsonplaceholder.typicode.com', port=443): Max retries exceeded with url: "
    "/posts/1 (Caused by NameResolutionError(\"<urllib3.connection.HTTPSConnection object at 0x7f>: Failed to resolve "
    "'jsonplaceholder.typicode.com' ([Errno -3] Temporary failure in name resolution)\"))\n"
    "Traceback (most recent call last):\n  File \"main.py\", line 31, in <module>\n"
    "AssertionError: GET request should return a response"
)


@pytest.mark.parametrize(
    "output",
    [
        SWALLOWED,
        "socket.gaierror: [Errno -2] Name or service not known",
        "Error: getaddrinfo ENOTFOUND api.github.com\n    at GetAddrInfoReqWrap.onlookup",
        "Error: getaddrinfo EAI_AGAIN registry.example.org",
        "Exception in thread \"main\" java.net.UnknownHostException: api.example.com",
        "curl: (6) Could not resolve host: example.com",
        "OSError: [Errno 101] Network is unreachable",
    ],
)
def test_a_host_out_of_reach_is_evidence_of_a_network_call(output: str) -> None:
    cause = machine_cause(output)
    assert cause is not None and cause.reason is DropReason.NEEDS_NETWORK
    assert network_evidence(output) in cause.detail


@pytest.mark.parametrize(
    "output",
    [
        "AssertionError: expected 3",
        "ConnectionRefusedError: [Errno 111] Connection refused",  # a server of its own on localhost: the program's failure
        "ModuleNotFoundError: No module named 'tornado'",  # --provision installs it: the golden completion's failure here
        "NameError: name 'resolve' is not defined",
    ],
)
def test_a_failure_of_the_program_itself_stays_golden_fails(output: str) -> None:
    assert machine_cause(output) is None


@pytest.mark.parametrize("module", ["tensorflow", "torch", "jax", "torch.nn"])
def test_a_package_left_out_on_purpose_is_a_missing_toolchain_and_named(module: str) -> None:
    output = f"Traceback (most recent call last):\nModuleNotFoundError: No module named '{module}'"
    cause = machine_cause(output)
    top = module.split(".")[0]
    assert left_out_package(output) == top
    assert cause is not None and cause.reason is DropReason.TOOLCHAIN_MISSING
    assert f"needs {top}" in cause.detail and f"pip install {top}" in cause.detail


class Failing:
    """Every run fails with ``output``: a golden completion that never passes."""

    def __init__(self, detail: str, output: str):
        self.detail, self.output = detail, output

    def evaluate(self, task, text, timeout=None, cpu=None) -> Verdict:
        return Verdict(Status.FAIL, self.detail, 0.0, self.output)


def test_the_gate_files_a_swallowed_network_error_as_needs_network_with_its_evidence() -> None:
    result = judge_one(Failing("AssertionError: GET request should return a response", SWALLOWED), TASK)  # type: ignore[arg-type]
    assert result.reason == "needs_network" and result.error == "AssertionError"  # type: ignore[union-attr]
    assert "Temporary failure in name resolution" in result.detail  # type: ignore[union-attr]


def test_the_gate_files_a_left_out_package_as_toolchain_missing() -> None:
    output = "ModuleNotFoundError: No module named 'tensorflow'"
    result = judge_one(Failing(output, output), TASK)  # type: ignore[arg-type]
    assert result.reason == "toolchain_missing" and "tensorflow" in result.detail  # type: ignore[union-attr]


def test_the_reasons_are_the_enums_in_the_tables_order_each_with_advice() -> None:
    assert REASONS == ("toolchain_missing", "needs_network", "golden_fails", "passes_empty", "flaky")
    assert set(ADVICE) == set(PROGRAM_REASONS)
    totals = {"python": {"total": {**dict.fromkeys(REASONS, 0), "needs_network": 3, "golden_fails": 2}}}
    lines = reason_lines(totals, Path("out/devbench-gate.json"), provisioned=False)
    assert lines[0].startswith("  needs_network 3: they call hosts on the network")
    assert lines[1].startswith("  golden_fails 2: ") and "out/devbench-gate.json" in lines[1] and lines[1].endswith("--provision installs the packages the programs import")
    assert not reason_lines(totals, Path("g.json"), provisioned=True)[1].endswith("import")


@pytest.mark.e2e
def test_devbench_programs_that_need_the_network_or_tensorflow_get_honest_reasons(tmp_path: Path) -> None:
    """The real instances, through the real gate in the sandbox: the three the README blamed on
    their golden completions, one that lets its ConnectionError out, and one that needs tensorflow."""
    wanted = {("pattern_matching", "7"), ("pattern_matching", "20"), ("pattern_matching", "27"), ("code2NL_NL2code", "15"), ("api_usage", "48")}
    instances = [i for i in read_instances(SAMPLE, ["python"]) if (i.category, i.id) in wanted]
    assert len(instances) == len(wanted)
    (imported,) = import_devbench(instances, tmp_path / "out", Sandbox.create(False), jobs=2)
    reasons = {d.task.path: (d.reason, d.error) for d in imported.report.dropped}
    assert reasons == {
        "programs/pattern_matching/7.py": ("needs_network", "AssertionError"),
        "programs/pattern_matching/20.py": ("needs_network", "AssertionError"),
        "programs/pattern_matching/27.py": ("needs_network", "UnboundLocalError"),
        "programs/code2NL_NL2code/15.py": ("needs_network", "ConnectionError"),
        "programs/api_usage/48.py": ("toolchain_missing", "ModuleNotFoundError"),
    }
