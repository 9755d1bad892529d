"""The HTML report: self-contained, and it renders in headless Chromium."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import flashsched
import pytest

SPEC = {
    "name": "rep",
    "base": {"device": "ssdsim-default", "set": ["ftl.precondition_fill=0.5"]},
    "workloads": {"r": {"synthetic": "read=0.7,bs=4k-16k,iops=3000,n=500"}},
    "grid": {"queue_depth": [1, 8], "seed": [1]},
}


@pytest.fixture(scope="module")
def repro(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("repro")
    flashsched.reproduce(
        "foundation", quick=True, out=out, synthetic_only=True, workers=2, progress=False
    )
    return out


def test_sweep_report_is_self_contained(tmp_path):
    flashsched.sweep(SPEC, out=tmp_path, workers=1)
    page = flashsched.report(tmp_path).read_text()
    assert "Sweep: rep" in page and page.count("<tr>") >= 3
    assert "[geometry]" in page, "resolved device config is shown"
    assert "flashsched" in page and "seeds [1]" in page
    assert not re.search(r'src="(?!data:)', page), "no external resources"


def test_reproduction_report_embeds_figures_and_tables(repro):
    page = (repro / "report.html").read_text()
    imgs = re.findall(r'<img alt="[^"]*" src="data:image/png;base64,', page)
    assert len(imgs) >= 3
    assert 'class="comparison"' in page and "Pollaczek" in page
    assert page.count("Sweep: ") >= 2


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return path
    pytest.skip("chromium not installed")


CHECK = """<script>
window.addEventListener('load', () => {
  const imgs = [...document.images];
  const ok = imgs.filter(i => i.complete && i.naturalWidth > 0).length;
  const tables = document.querySelectorAll('table').length;
  document.body.setAttribute('data-check', `imgs=${imgs.length} decoded=${ok} tables=${tables}`);
});
</script></body>"""


def test_report_renders_in_headless_chromium(repro, tmp_path):
    """Load the report in Chromium; a small script records how many images
    decoded (naturalWidth > 0) and how many tables exist into the DOM."""
    exe = _chromium()
    page = (repro / "report.html").read_text().replace("</body>", CHECK)
    html = tmp_path / "check.html"
    html.write_text(page)
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--virtual-time-budget=5000",
    ]
    dom = subprocess.run(
        [exe, *flags, "--dump-dom", html.as_uri()], capture_output=True, text=True, timeout=120
    ).stdout
    m = re.search(r'data-check="imgs=(\d+) decoded=(\d+) tables=(\d+)"', dom)
    assert m, dom[:500]
    imgs, decoded, tables = map(int, m.groups())
    assert imgs >= 3 and decoded == imgs, m.group(0)
    assert tables >= 3
    shot = tmp_path / "report.png"
    subprocess.run(
        [
            exe,
            *flags,
            f"--screenshot={shot}",
            "--window-size=1200,1600",
            (repro / "report.html").as_uri(),
        ],
        capture_output=True,
        timeout=120,
    )
    assert shot.stat().st_size > 20_000  # a rendered page, not a blank one


def test_report_cli_rejects_a_non_results_dir(tmp_path):
    p = subprocess.run(
        [sys.executable, "-m", "flashsched", "report", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 2 and "neither a reproduction" in p.stderr
