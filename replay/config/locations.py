"""Where each marked repository is, remembered next to its scenario files.

``simpilot mark REPO --out DIR`` writes ``DIR/repositories.json``: for each repository marked into
DIR, the folder or manifest file it was given, relative to DIR (so that a checkout of a project
that keeps scenarios and repositories side by side works wherever it is cloned). Later commands
read it from the folders of the scenario files they are given and find the repositories without
``--repo`` (which still wins when given). A repository that is no longer where it was marked is
a clear error naming both places, never a silent fall-back to another copy.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from replay.config.manifest import MANIFEST_NAME, Manifest, RepoCatalog, load_manifest, open_repository
from replay.core.errors import SimpilotError

LOCATIONS_FILE = "repositories.json"


def locations_file(scenario_dir: Path) -> Path:
    return scenario_dir / LOCATIONS_FILE


def remember(scenario_dir: Path, name: str, location: str | Path) -> Path:
    """Record that repository ``name`` was marked from ``location`` (a folder with
    simpilot.toml, or a manifest file) into ``scenario_dir``; other entries are kept."""
    path = locations_file(scenario_dir)
    known = _read(path)
    target = Path(location).expanduser().resolve()
    known[name] = os.path.relpath(target, scenario_dir.resolve())
    scenario_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(known, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def _read(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (ValueError, UnicodeDecodeError) as exc:
        raise SimpilotError(f"{path} is not valid JSON ({exc}): delete it and re-run 'simpilot mark', or pass --repo") from None
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise SimpilotError(f"{path} must map repository names to paths: delete it and re-run 'simpilot mark', or pass --repo")
    return data


def recorded(scenarios: Iterable[Path]) -> dict[str, tuple[Path, Path]]:
    """Repository name -> (where it was marked from, the file saying so), from the folders of
    ``scenarios``. Two folders placing one name in different places is an error."""
    found: dict[str, tuple[Path, Path]] = {}
    for folder in dict.fromkeys(Path(s).resolve().parent for s in scenarios):
        source = locations_file(folder)
        for name, rel in _read(source).items():
            where = (folder / rel).resolve()
            if name in found and found[name][0] != where:
                raise SimpilotError(
                    f"repository {name!r} is recorded at {found[name][0]} ({found[name][1]}) and at {where} ({source}): "
                    "pass --repo to say which"
                )
            found[name] = (where, source)
    return found


def open_recorded(name: str, where: Path, source: Path) -> Manifest:
    """The repository recorded at ``where``; an error saying what to do when it moved."""
    manifest_path = where / MANIFEST_NAME if where.is_dir() else where
    if not manifest_path.is_file():
        raise SimpilotError(
            f"repository {name!r} was marked at {where} (recorded in {source}), which no longer holds it: "
            f"pass --repo NEW_PATH, or re-run 'simpilot mark' where it is now"
        )
    found = load_manifest(manifest_path).name
    if found != name:
        raise SimpilotError(
            f"{where} (recorded in {source} for {name!r}) now holds the repository {found!r}: pass --repo with {name!r}'s folder"
        )
    return open_repository(where)


class RecordedCatalog(RepoCatalog):
    """A catalog that also knows where ``mark`` found each repository (opened only when asked)."""

    def __init__(self, explicit: list[Manifest], recorded_at: dict[str, tuple[Path, Path]]):
        super().__init__(explicit)
        self._recorded = recorded_at

    def get(self, name: str) -> Manifest:
        if name not in self._by_name and name in self._recorded:
            self._by_name[name] = open_recorded(name, *self._recorded[name])
        return super().get(name)


def catalog_for(scenarios: Sequence[Path], repo_paths: Sequence[str] = ()) -> RepoCatalog:
    """The repositories of ``scenarios``: those given with ``--repo`` first, then where ``mark``
    recorded them, then the bundled ones by name."""
    return RecordedCatalog([open_repository(p) for p in repo_paths], recorded(scenarios))
