"""SimCopilot's checkpoint files (``simpilot import lines --format simcopilot``): a program's
``checkpoint_LN_infilling`` and ``checkpoint_LN_Completion`` ranges are the holes a simpilot hole
list gives with the same lines (1-based, inclusive), its ``Task_Name`` is found in the repository,
and a malformed file, a program found nowhere or a range beyond the program is reported."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from replay.cli import cli
from replay.config.manifest import open_repository
from replay.core.errors import SimpilotError
from replay.core.records import Kind
from replay.core.scenarios import read_tasks
from replay.importers.lines import LineHole, read_holes, tasks_from_lines
from replay.importers.simcopilot import parse_checkpoints, read_checkpoints
from tests.conftest import DATA

PROGRAMS = DATA / "simcopilot"  # tally/tally.py, laid out as SimCopilot lays out its programs
CHECKPOINTS = PROGRAMS / "Python_tasks_checkpoints.json"
OUTPUTPROG = DATA / "fixtures" / "outputprog"


def unplaced(holes: list[LineHole]) -> list[LineHole]:
    """The holes without where they were read nor SimCopilot's convention (``closes_block``)."""
    return [replace(h, where="", closes_block=False) for h in holes]


def checkpoints(*entries: dict) -> str:
    return json.dumps(list(entries))


def test_checkpoints_are_the_holes_of_the_same_lines() -> None:
    manifest = open_repository(PROGRAMS)
    holes = read_checkpoints(CHECKPOINTS, manifest)
    assert unplaced(holes) == unplaced(read_holes(PROGRAMS / "tally_holes.json"))
    assert all(h.closes_block for h in holes)  # SimCopilot's holes may run to their block's end
    assert [h.id for h in holes[:2]] == ["tally:infill:1", "tally:infill:2"]
    assert [h.kind for h in holes].count(Kind.COMPLETION) == 4
    assert holes[0].where.endswith("Python_tasks_checkpoints.json entry 1 tally:infill:1")
    result = tasks_from_lines(manifest, holes)
    assert result.rejected == []
    assert result.tasks == tasks_from_lines(manifest, read_holes(PROGRAMS / "tally_holes.json")).tasks


def test_a_range_is_the_lines_simcopilot_cuts_out() -> None:
    """SimCopilot's hole is ``lines[first - 1:last]`` of the program's lines: the task's ground
    truth is those lines, from the first one's code on."""
    manifest = open_repository(PROGRAMS)
    lines = (PROGRAMS / "tally" / "tally.py").read_text().split("\n")
    ranges = json.loads(CHECKPOINTS.read_text())[0]
    pairs = ranges["checkpoint_LN_infilling"] + ranges["checkpoint_LN_Completion"]
    tasks = tasks_from_lines(manifest, read_checkpoints(CHECKPOINTS, manifest)).tasks
    assert [t.ground_truth for t in tasks] == ["\n".join(lines[first - 1 : last]).strip() for first, last in pairs]
    assert tasks[2].ground_truth == 'if score >= 90:\n        return "A"'  # [22, 23]: both lines


@pytest.mark.parametrize(
    ("layout", "task_name", "found"),
    [
        ("simplex/simplex.py", "simplex", "simplex/simplex.py"),  # SimCopilot's Python programs
        ("simplex.py", "simplex", "simplex.py"),
        ("course/A0/Test/Factoring.py", "Factoring", "course/A0/Test/Factoring.py"),  # its Java programs, its CV one
        ("progs/simplex.py", "progs/simplex.py", "progs/simplex.py"),  # a path, taken as it is
        ("progs/simplex/simplex.py", "progs/simplex", "progs/simplex/simplex.py"),
    ],
)
def test_a_task_name_is_found_where_simcopilot_keeps_its_programs(tmp_path: Path, layout: str, task_name: str, found: str) -> None:
    (tmp_path / layout).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / layout).write_text("x = 1\n")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "simplex.txt").write_text("not a program\n")
    text = checkpoints({"Task_Name": task_name, "checkpoint_LN_infilling": [[1, 1]], "checkpoint_LN_Completion": [[1, 1]]})
    holes = parse_checkpoints(text, "c.json", tmp_path, (".py",))
    assert holes == [
        LineHole(found, Kind.INFILL, 1, 1, f"{task_name}:infill:1", f"c.json entry 1 {task_name}:infill:1", closes_block=True),
        LineHole(found, Kind.COMPLETION, 1, 1, f"{task_name}:completion:1", f"c.json entry 1 {task_name}:completion:1", closes_block=True),
    ]


def test_a_program_found_nowhere_is_an_error_naming_the_places_looked_at(tmp_path: Path) -> None:
    (tmp_path / "tally").mkdir()
    (tmp_path / "tally" / "tally.java").write_text("class Tally {}\n")  # another language's file
    text = checkpoints({"Task_Name": "tally", "checkpoint_LN_infilling": [[1, 1]]})
    with pytest.raises(SimpilotError) as caught:
        parse_checkpoints(text, "c.json", tmp_path, (".py",))
    message = str(caught.value)
    assert message.startswith("c.json entry 1: Task_Name 'tally': no such program in")
    assert "tally/tally.py, tally.py, any file named tally.py" in message


def test_a_program_found_in_several_places_is_an_error(tmp_path: Path) -> None:
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "tally.py").write_text("x = 1\n")
    with pytest.raises(SimpilotError, match=r"'tally' is ambiguous: a/tally.py, b/tally.py all fit"):
        parse_checkpoints(checkpoints({"Task_Name": "tally", "checkpoint_LN_Completion": []}), "c.json", tmp_path, (".py",))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{]", "c.json: not JSON"),
        ('{"Task_Name": "tally"}', "c.json: is an object, expected a list of programs"),
        ('["tally"]', "entry 1: is a string, expected an object"),
        ('[{"checkpoint_LN_infilling": [[1, 1]]}]', "entry 1: field 'Task_Name' is missing"),
        ('[{"Task_Name": "", "checkpoint_LN_infilling": []}]', "entry 1: field 'Task_Name' is empty"),
        ('[{"Task_Name": "tally", "LN_range": [[1, 47]]}]', "entry 1 (tally): no checkpoint_LN_infilling nor checkpoint_LN_Completion"),
        ('[{"Task_Name": "tally", "checkpoint_LN_completion": [[1, 1]]}]', "entry 1: unknown field 'checkpoint_LN_completion'"),
        ('[{"Task_Name": "tally", "checkpoint_LN_infilling": [9, 9]}]', "checkpoint_LN_infilling[0]: is 9, expected [first_line"),
        ('[{"Task_Name": "tally", "checkpoint_LN_infilling": ["9-12"]}]', 'checkpoint_LN_infilling[0]: is "9-12", expected [first_line'),
        ('[{"Task_Name": "tally", "checkpoint_LN_infilling": [[9, 9], [9]]}]', "checkpoint_LN_infilling[1]: is [9], expected"),
        ('[{"Task_Name": "tally", "checkpoint_LN_Completion": [[9, "12"]]}]', 'checkpoint_LN_Completion[0]: is [9, "12"], expected'),
        ('[{"Task_Name": "tally", "checkpoint_LN_Completion": [[true, 2]]}]', "checkpoint_LN_Completion[0]: is [true, 2], expected"),
        ('[{"Task_Name": "tally", "checkpoint_LN_Completion": [[12, 9]]}]', "checkpoint_LN_Completion[0]: [12, 9] is no range"),
        ('[{"Task_Name": "tally", "checkpoint_LN_Completion": [[0, 3]]}]', "[0, 3] is no range (1-based and inclusive"),
        ('[{"Task_Name": "tally", "checkpoint_LN_Completion": {"1": [1, 1]}}]', "'checkpoint_LN_Completion' is an object, expected a list"),
        ('[{"Task_Name": "../tally", "checkpoint_LN_infilling": []}]', "Task_Name '../tally' is not a name inside the repository"),
        (
            '[{"Task_Name": "tally", "checkpoint_LN_infilling": []}, {"Task_Name": "tally", "checkpoint_LN_infilling": []}]',
            "entry 2: Task_Name 'tally' is already the name of c.json entry 1",
        ),
    ],
)
def test_a_malformed_checkpoint_file_is_an_error_saying_where(text: str, message: str) -> None:
    with pytest.raises(SimpilotError) as caught:
        parse_checkpoints(text, "c.json", PROGRAMS, (".py",))
    assert message in str(caught.value)


def test_a_range_beyond_the_program_is_rejected_with_the_others_kept() -> None:
    manifest = open_repository(PROGRAMS)
    text = checkpoints({"Task_Name": "tally", "checkpoint_LN_infilling": [[9, 9], [47, 48], [60, 61]]})
    holes = parse_checkpoints(text, "c.json", PROGRAMS, manifest.extensions)
    result = tasks_from_lines(manifest, holes)
    assert [t.id for t in result.tasks] == ["tally:infill:1"]
    assert [(hole.id, why) for hole, why in result.rejected] == [
        ("tally:infill:2", "the file has 47 lines: line 48 is out of it"),
        ("tally:infill:3", "the file has 47 lines: lines 60-61 are out of it"),
    ]
    assert result.rejected[0][0].describe() == "c.json entry 1 tally:infill:2: tally/tally.py lines 47-48 (infill)"


def test_the_command_line_names_a_missing_program(tmp_path: Path) -> None:
    """The program is looked for before anything runs."""
    file = tmp_path / "Python_tasks_checkpoints.json"
    file.write_text(checkpoints({"Task_Name": "simplex_method", "checkpoint_LN_infilling": [[4, 4]]}))
    args = ["import", "lines", str(file), "--repo", str(OUTPUTPROG), "--out", str(tmp_path / "out"), "--format", "simcopilot"]
    result = CliRunner().invoke(cli, args)
    assert isinstance(result.exception, SimpilotError)
    assert "Task_Name 'simplex_method': no such program in" in str(result.exception)
    assert "simplex_method/simplex_method.py" in str(result.exception)
    assert not (tmp_path / "out").exists()


@pytest.mark.e2e
def test_import_with_the_simcopilot_format_writes_the_tasks_of_the_same_lines(tmp_path: Path) -> None:
    """On a program judged by its output, as SimCopilot judges its own: the checkpoint file and a
    simpilot hole list with the same ranges and ids give the same validated tasks (the hole whose
    filler prints the same dropped, the range beyond the program skipped)."""
    ranges = {
        "checkpoint_LN_infilling": [[39, 41], [54, 54], [150, 151]],  # gcd's body, a neutral strip, beyond the file
        "checkpoint_LN_Completion": [[47, 47]],  # lcm's return
    }
    simcopilot = tmp_path / "Python_tasks_checkpoints.json"
    simcopilot.write_text(checkpoints({"Task_Name": "main", "LN_range": [[1, 141]], "output_to_check": "all_output", **ranges}))
    simpilot = tmp_path / "holes.json"
    simpilot.write_text(
        json.dumps(
            [
                {"file": "main.py", "kind": kind.value, "first_line": first, "last_line": last, "id": f"main:{kind.value}:{n}"}
                for field, kind in (("checkpoint_LN_infilling", Kind.INFILL), ("checkpoint_LN_Completion", Kind.COMPLETION))
                for n, (first, last) in enumerate(ranges[field], start=1)
            ]
        )
    )
    written = {}
    for fmt, file in (("simcopilot", simcopilot), ("simpilot", simpilot)):
        out = tmp_path / fmt
        args = ["import", "lines", str(file), "--repo", str(OUTPUTPROG), "--out", str(out), "--jobs", "2", "--format", fmt]
        result = CliRunner().invoke(cli, args, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        written[fmt] = read_tasks(out / "outputprog.jsonl")
    assert {t.id for t in written["simcopilot"]} == {"main:infill:1", "main:completion:1"}
    assert written["simcopilot"] == written["simpilot"]
