"""The project stands on its own: what a new user reads and runs works from a clone."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from replay.config.manifest import project_root

ROOT = project_root()


def project_files() -> list[Path]:
    """Every file of the checkout git knows of or would add (not ignored ones)."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.splitlines()
    return [ROOT / name for name in listed if (ROOT / name).is_file()]


def test_no_file_cites_material_outside_the_repository() -> None:
    """A reader cannot follow a citation of a file the repository does not hold."""
    outside = re.compile("|".join(re.escape(s) for s in ("../" + "shared", "shared/" + "REFERENCE", "REFERENCE" + ".md", "ARCHITECTURE" + ".md")))
    cited = []
    for path in project_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if outside.search(text):
            cited.append(str(path.relative_to(ROOT)))
    assert cited == []


def test_setup_waits_for_another_apt_get_instead_of_failing() -> None:
    """On a fresh machine unattended upgrades often hold the dpkg lock for a minute or two."""
    calls = [line for line in (ROOT / ".ci" / "setup").read_text().splitlines()
             if re.search(r"\bapt-get\b.*\b(update|install)\b", line) and not line.lstrip().startswith(("#", "echo"))]
    assert calls and all("DPkg::Lock::Timeout=" in line for line in calls)


def test_the_version_is_written_in_one_place() -> None:
    """pyproject.toml sets it; the package reads it from the installed metadata (every stored run
    carries it), so no module spells a version of its own."""
    import importlib.metadata
    import tomllib

    import replay

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert replay.__version__ == importlib.metadata.version("simpilot") == declared
    packages = ("replay", "lsp_bridge", "postprocess")
    spelled = [str(p.relative_to(ROOT)) for p in project_files() if p.suffix == ".py" and p.relative_to(ROOT).parts[0] in packages
               and re.search(r"__version__\s*=\s*['\"]\d+\.\d", p.read_text(encoding="utf-8"))]
    assert spelled == []
