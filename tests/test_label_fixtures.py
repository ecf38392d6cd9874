"""The labeller against hand-labelled tasks (tests/data/labels/*.jsonl).

The fixtures were labelled by reading the code, following the definitions in
``replay/marking/labels.py``, independently of the labeller. Accuracy is measured over the eight
yes/no decisions of every task; the target is 95 % per language.
"""

from __future__ import annotations

import functools
import json

import pytest

from replay.config.manifest import open_repository, project_root
from replay.marking.labels import LABELS, RepoIndex, annotate
from replay.marking.languages import LANGUAGES
from tests.conftest import DATA

MIN_ACCURACY = 0.95


def fixtures(language: str) -> list[dict]:
    path = DATA / "labels" / f"{language}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@functools.cache
def parsed_repo(name: str):
    manifest = open_repository(project_root() / "repos" / name)
    make_parser = LANGUAGES[manifest.language].parser
    parser = make_parser()
    files = {}
    for path in manifest.source_files():
        source = (manifest.root / path).read_bytes()
        files[path] = (source, parser.parse(source).root_node)
    return files, RepoIndex.build(manifest.language, files)


def _offset(text: str, line: int, column: int) -> int:
    lines = text.split("\n")
    chars = sum(len(x) + 1 for x in lines[: line - 1]) + column
    return len(text[:chars].encode("utf-8"))


def automatic(entry: dict):
    files, index = parsed_repo(entry["repo"])
    source, root = files[entry["path"]]
    text = source.decode("utf-8")
    start = _offset(text, entry["start"]["line"], entry["start"]["column"])
    end = _offset(text, entry["end"]["line"], entry["end"]["column"])
    assert source[start:end].decode("utf-8") == entry["text"], f"fixture span drifted: {entry['path']} line {entry['start']['line']}"
    return annotate(index, entry["path"], source, root, start, end)


@pytest.mark.parametrize("language", ["python", "java"])
def test_label_accuracy(language: str) -> None:
    entries = fixtures(language)
    assert len(entries) >= 40
    decisions = correct = exact = 0
    misses = []
    for entry in entries:
        got = set(automatic(entry).labels)
        want = set(entry["labels"])
        assert want <= set(LABELS), entry
        for label in LABELS:
            decisions += 1
            correct += (label in got) == (label in want)
        exact += got == want
        if got != want:
            misses.append(f"{entry['path']}:{entry['start']['line']} missing {sorted(want - got)} extra {sorted(got - want)}")
    accuracy = correct / decisions
    print(f"\n{language}: {len(entries)} tasks, label accuracy {accuracy:.1%} ({correct}/{decisions}), exact {exact}/{len(entries)}")
    print("\n".join(misses))
    assert accuracy >= MIN_ACCURACY, "\n".join(misses)


@pytest.mark.parametrize("language", ["python", "java"])
def test_distances_agree_with_hand_counts(language: str) -> None:
    entries = fixtures(language)
    agree_comment = sum(automatic(e).comment_distance == e["comment_distance"] for e in entries)
    agree_reference = sum(automatic(e).reference_distance == e["reference_distance"] for e in entries)
    print(f"\n{language}: comment distance {agree_comment}/{len(entries)}, reference distance {agree_reference}/{len(entries)}")
    assert agree_comment / len(entries) >= MIN_ACCURACY
    assert agree_reference / len(entries) >= 0.85
