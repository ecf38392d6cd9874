"""The HTML report in a real browser: headless Chromium opens the file with no network, runs its
script, draws the charts; the test reads the resulting DOM and keeps a screenshot."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from tests.test_report_recompute import cli, replayed_store

CHROMIUM = shutil.which("chromium")
pytestmark = [pytest.mark.e2e, pytest.mark.skipif(CHROMIUM is None, reason="Chromium is installed by .ci/setup")]
SHOWCASE = Path("/tmp/report/screenshot.png")


def chromium(page: Path, profile: Path, *args: str) -> subprocess.CompletedProcess:
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
               f"--user-data-dir={profile}", "--virtual-time-budget=3000", *args, page.as_uri()]
    return subprocess.run(command, capture_output=True, text=True, timeout=180)  # type: ignore[arg-type]


def png_pixels(path: Path) -> tuple[int, int, bytes]:
    """Width, height and the decompressed (still filtered) image data of a PNG."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    return width, height, zlib.decompress(idat)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("html")
    db = replayed_store(base)
    target = base / "report.html"
    cli("--db", str(db), "report", "t-oracle", "t-empty", "t-hostile", "--html", str(target))
    return target


def test_charts_render_and_the_script_runs(page: Path, tmp_path: Path) -> None:
    result = chromium(page, tmp_path / "profile", "--dump-dom")
    dom = result.stdout
    assert "<svg" in dom, result.stderr[-2000:]
    assert 'data-script="ran"' in dom  # the inline script ran to its end
    assert dom.count('data-sortable="ready"') >= 5  # every table became sortable
    bars = re.findall(r'<rect class="bar[^"]*" data-kind="stratum"[^>]*width="([\d.]+)"', dom)
    assert bars and any(float(w) > 0 for w in bars)  # the oracle's bars have length
    assert len(re.findall(r'<rect class="segment"', dom)) >= 4  # the stacked error classes
    assert len(re.findall(r'<circle class="point', dom)) >= 4  # the trend points
    # the hostile answer stayed text: its script never ran and its image never loaded
    assert "<title>simpilot report" in dom and "pwned" not in re.search(r"<title>(.*?)</title>", dom).group(1)
    assert "<img" not in dom


def test_screenshot_is_not_blank(page: Path, tmp_path: Path) -> None:
    shot = tmp_path / "report.png"
    result = chromium(page, tmp_path / "profile", "--hide-scrollbars", "--window-size=1280,1800", f"--screenshot={shot}")
    assert shot.exists(), result.stderr[-2000:]
    width, height, pixels = png_pixels(shot)
    assert (width, height) == (1280, 1800)
    distinct = len(set(pixels))
    assert distinct > 40, f"the screenshot looks blank ({distinct} distinct byte values)"
    SHOWCASE.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shot, SHOWCASE)
