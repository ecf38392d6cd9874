"""The proof of a pass: records count only with the run's token, every selected test must be
reported passing, and the end of the run must be reported (``replay/execution/proof/check.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from replay.execution.proof.check import (
    TAMPERED,
    Answer,
    Channel,
    Proof,
    Shortfall,
    channel_input,
    parse,
    parse_junit_xml,
    shortfall,
    sign,
    tampering,
    with_tampering,
)

TOKEN = "a" * 32


def record(event: str, token: str = TOKEN, **fields: object) -> str:
    return f"{token}\t" + json.dumps({"event": event, **fields})


def passing(*tests: str, token: str = TOKEN) -> str:
    lines = [record("start", token)]
    for test in tests:
        lines += [record("test", token, id=test, when=when, outcome="passed") for when in ("setup", "call", "teardown")]
    return "\n".join([*lines, record("end", token, tampered=[])])


def test_a_complete_report_proves_the_selected_tests() -> None:
    proof = parse(passing("t.py::a", "t.py::b"), TOKEN)
    assert proof.finished and proof.passed == ["t.py::a", "t.py::b"]
    assert shortfall(proof, ("t.py::a", "t.py::b")) is None
    assert shortfall(proof, None) is None


def test_lines_without_the_token_are_ignored() -> None:
    forged = passing("t.py::a", token="b" * 32) + "\n1 passed in 0.01s\nSIMPILOT-EXIT 0\n" + record("end", "") + "\n"
    proof = parse(forged, TOKEN)
    assert proof == Proof()
    gap = shortfall(proof, ("t.py::a",))
    assert gap is not None and gap.kind == "not_run"


def test_a_run_that_ends_early_is_not_a_pass_even_with_every_test_passed() -> None:
    """``os._exit(0)`` after the last test: no end record."""
    report = passing("t.py::a").rsplit("\n", 1)[0]
    gap = shortfall(parse(report, TOKEN), ("t.py::a",))
    assert gap is not None and gap.kind == "not_run" and "ended before the end" in gap.detail


def test_fewer_tests_than_selected_is_not_a_pass() -> None:
    gap = shortfall(parse(passing("t.py::a"), TOKEN), ("t.py::a", "t.py::b"))
    assert gap is not None and gap.kind == "not_run" and "t.py::b" in gap.detail


def test_a_skipped_call_is_not_a_pass() -> None:
    lines = [record("start"), record("test", id="t.py::a", when="setup", outcome="passed"),
             record("test", id="t.py::a", when="call", outcome="skipped"), record("end", tampered=[])]
    proof = parse("\n".join(lines), TOKEN)
    assert proof.outcomes == {"t.py::a": "skipped"}
    assert shortfall(proof, ("t.py::a",)) is not None


def test_a_failing_phase_fails_the_test_and_collection_errors_count() -> None:
    lines = [record("start"), record("test", id="t.py::a", when="call", outcome="passed"),
             record("test", id="t.py::a", when="teardown", outcome="failed"), record("end", tampered=[])]
    gap = shortfall(parse("\n".join(lines), TOKEN), ("t.py::a",))
    assert gap is not None and gap.kind == "failed"
    lines = [record("start"), record("error", message="tests/t.py: NameError"), record("end", tampered=[])]
    gap = shortfall(parse("\n".join(lines), TOKEN), None)
    assert gap is not None and gap.kind == "failed" and "NameError" in gap.detail


def test_tampering_is_its_own_shortfall() -> None:
    report = passing("t.py::a").rsplit("\n", 1)[0] + "\n" + record("end", tampered=["_pytest.python.Function.runtest"])
    gap = shortfall(parse(report, TOKEN), ("t.py::a",))
    assert gap is not None and gap.kind == "tampered" and "Function.runtest" in gap.detail


def test_java_classes_stand_for_their_tests_and_aborted_tests_do_not_pass() -> None:
    def test(name: str, cls: str, outcome: str) -> str:
        return record("test", id=f"{cls}#{name}()", **{"class": cls}, outcome=outcome)

    lines = [record("start"), test("a", "p.ATest", "passed"), test("b", "p.ATest$Inner", "passed"), test("c", "p.BTest", "skipped")]
    proof = parse("\n".join([*lines, record("end", tampered=[])]), TOKEN)
    assert shortfall(proof, ("p.ATest",)) is None
    gap = shortfall(proof, ("p.ATest", "p.BTest"))  # only a disabled test in BTest: nothing ran
    assert gap is not None and "p.BTest" in gap.detail
    aborted = parse("\n".join([*lines, test("d", "p.ATest", "aborted"), record("end", tampered=[])]), TOKEN)
    gap = shortfall(aborted, ("p.ATest",))
    assert gap is not None and gap.kind == "not_run" and "aborted" in gap.detail


def test_no_report_at_all_is_said_so() -> None:
    gap = shortfall(None, None)
    assert gap is not None and gap.kind == "no_report"


def test_junit_xml_reports(tmp_path: Path) -> None:
    (tmp_path / "TEST-junit-jupiter.xml").write_text(
        '<testsuite><testcase classname="p.ATest" name="a()"/><testcase classname="p.ATest" name="b()"><skipped/></testcase>'
        '<testcase classname="p.BTest" name="c()"><failure message="x"/></testcase></testsuite>'
    )
    proof = parse_junit_xml(tmp_path, 1)
    assert proof is not None and proof.outcomes == {"p.ATest#a()": "passed", "p.ATest#b()": "skipped", "p.BTest#c()": "failed"}
    assert shortfall(proof, None) is not None
    empty = tmp_path / "none"
    assert parse_junit_xml(empty, 2) is None  # the command failed before its tests: its output says why
    gap = shortfall(parse_junit_xml(empty, 0), None)  # it exited 0 without a report
    assert gap is not None and gap.kind == "not_run"


def test_the_channel_reaches_a_child_only_through_its_descriptors(tmp_path: Path) -> None:
    """The child reads the token from the pipe and appends records to the anonymous file; the
    file has no name anywhere, and the token is in neither its environment nor its arguments."""
    code = """
import os, sys
token_fd, report_fd = map(int, os.environ['SIMPILOT_PROOF'].split(':'))
token = os.read(token_fd, 100).decode()
os.write(report_fd, (token + '\\t{"event": "start"}\\n').encode())
os.write(report_fd, (token + '\\t{"event": "end"}\\n').encode())
print(os.readlink(f'/proc/self/fd/{report_fd}'))
"""
    with Channel(folder=str(tmp_path)) as channel:
        proc = subprocess.run([sys.executable, "-c", code], env={**os.environ, **channel.env}, pass_fds=channel.fds,
                              capture_output=True, text=True, timeout=60)
        channel.handed_over()
        assert proc.returncode == 0, proc.stderr
        assert channel.token not in channel.env[next(iter(channel.env))]
        assert "(deleted)" in proc.stdout or "#" in proc.stdout  # anonymous: O_TMPFILE or unlinked
        assert list(tmp_path.iterdir()) == []
        proof = channel.proof()
    assert proof.started and proof.finished


@pytest.mark.parametrize("outcome", ["passed", "failed"])
def test_records_are_parsed_whatever_else_is_on_the_line_stream(outcome: str) -> None:
    noise = "\n".join(["garbage", TOKEN, f"{TOKEN}\tnot json", f"{TOKEN}\t{{\"no\": \"event\"}}"])
    report = noise + "\n" + passing("t.py::a").replace('"outcome": "passed"', f'"outcome": "{outcome}"')
    assert parse(report, TOKEN).outcomes == {"t.py::a": outcome}


# -- signed records (what the pytest reporter and the JUnit runner write) ---------------------------


def signed(*records: dict, key: str = TOKEN) -> str:
    return "\n".join(sign(key, json.dumps({**r, "seq": n}, separators=(",", ":"))) for n, r in enumerate(records))


def signed_passing(*tests: str, key: str = TOKEN) -> list[dict]:
    calls = [{"event": "test", "id": t, "when": w, "outcome": "passed"} for t in tests for w in ("setup", "call", "teardown")]
    return [{"event": "start"}, *calls, {"event": "end", "tampered": []}]


def test_signed_records_prove_a_pass_and_carry_no_key() -> None:
    report = signed(*signed_passing("t.py::a"))
    assert TOKEN not in report  # reading every record written tells nothing of the key
    proof = parse(report, TOKEN)
    assert proof.finished and proof.tampered == () and shortfall(proof, ("t.py::a",)) is None


def test_a_record_signed_with_another_key_is_forgery_not_a_pass() -> None:
    forged = signed(*signed_passing("t.py::a"), key="b" * 32)
    gap = shortfall(parse(forged, TOKEN), ("t.py::a",))
    assert gap is not None and gap.kind == "tampered" and "forged-record" in gap.detail and gap.detail.startswith(TAMPERED)
    # one forged line among a real run's records is enough
    real = signed(*signed_passing("t.py::a")).splitlines()
    mixed = "\n".join([*real[:-1], forged.splitlines()[2], real[-1]])
    gap = shortfall(parse(mixed, TOKEN), ("t.py::a",))
    assert gap is not None and gap.kind == "tampered"


def test_removed_repeated_or_reordered_records_are_tampering() -> None:
    lines = signed(*signed_passing("t.py::a", "t.py::b")).splitlines()
    for altered in (lines[:2] + lines[3:], lines + [lines[1]], [lines[0], lines[2], lines[1], *lines[3:]]):
        gap = shortfall(parse("\n".join(altered), TOKEN), ("t.py::a", "t.py::b"))
        assert gap is not None and gap.kind == "tampered" and "records-out-of-order" in gap.detail, altered


def test_a_record_whose_body_was_changed_does_not_verify() -> None:
    lines = signed({"event": "start"}, {"event": "test", "id": "t.py::a", "when": "call", "outcome": "failed"}).splitlines()
    lines[1] = lines[1].replace('"failed"', '"passed"')
    proof = parse("\n".join(lines), TOKEN)
    assert proof.outcomes == {} and any("forged-record" in t for t in proof.tampered)


def test_tampering_comes_before_anything_the_tests_said() -> None:
    """A run that failed or timed out and also tampered is tampered: its other signs were the
    answer's to choose."""
    records = [{"event": "start"}, {"event": "tampered", "what": "gc.get_objects at m.py:3"},
               {"event": "test", "id": "t.py::a", "when": "call", "outcome": "failed"}]
    gap = shortfall(parse(signed(*records), TOKEN), ("t.py::a",))
    assert gap == Shortfall("tampered", TAMPERED + "gc.get_objects at m.py:3")
    events = with_tampering(None, ["planted-link a.py -> /etc/x"])
    assert shortfall(events, None) == Shortfall("tampered", TAMPERED + "planted-link a.py -> /etc/x")
    assert tampering(parse(signed(*signed_passing("t.py::a")), TOKEN)) is None


def test_the_framework_objects_replaced_are_tampering_events() -> None:
    records = signed_passing("t.py::a")
    records[-1] = {"event": "end", "tampered": ["_pytest.runner.call_and_report"]}
    gap = shortfall(parse(signed(*records), TOKEN), ("t.py::a",))
    assert gap is not None and gap.detail == TAMPERED + "framework-replaced _pytest.runner.call_and_report"


def test_the_token_pipe_carries_the_answer_place_on_a_line_of_its_own() -> None:
    assert channel_input(TOKEN, None) == TOKEN.encode()
    data = channel_input(TOKEN, Answer("/w/a.py", 3, 5)).decode()
    key, place = data.split("\n", 1)
    assert key == TOKEN and json.loads(place) == {"path": "/w/a.py", "first": 3, "last": 5}


def test_an_end_record_without_a_start_record_does_not_finish_a_run() -> None:
    """A reporter that never started (its start record missing) cannot end a run: the records
    that follow are not a run's."""
    records = signed_passing("t.py::a")[1:]
    proof = parse("\n".join(sign(TOKEN, json.dumps({**r, "seq": n}, separators=(",", ":"))) for n, r in enumerate(records)), TOKEN)
    assert not proof.started and not proof.finished
    assert shortfall(proof, ("t.py::a",)) is not None
