"""Shared fixtures for the flashsched test suite.

Workloads are kept small (a few thousand requests on the 4 GiB
``ssdsim-default`` preset) so the whole suite runs in well under a minute.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import flashsched
import numpy as np
import pandas as pd
import pytest

DEVICE = "ssdsim-default"
SMALL_WORKLOAD = "read=0.7,bs=4k-16k,iops=3000,n=4000"

SUMMARY_KEYS = {
    "requests",
    "reads",
    "writes",
    "iops",
    "bandwidth_mib_s",
    "simulated_s",
    "wall_s",
    "events",
    "waf",
    "latency_us",
    "read_latency_us",
    "write_latency_us",
    "gc",
}
LATENCY_KEYS = {"mean", "p50", "p90", "p99", "p999", "max"}
GC_KEYS = {"invocations", "pages_moved", "erases"}

# The Amphibian paper's Fig. 5 device: one plane, 4 KiB pages, 50 us reads and
# an instantaneous channel, so the only cost of a read is 50 us per page.
FIG5_OVERRIDES = [
    "geometry.channels=1",
    "geometry.chips_per_channel=1",
    "geometry.dies_per_chip=1",
    "geometry.planes_per_die=1",
    "geometry.page_size=4096",
    "geometry.blocks_per_plane=256",
    "geometry.pages_per_block=64",
    "timing.read_us=50",
    "timing.channel_mb_s=0",
    "ftl.overprovisioning=0.25",
]
# arrival_ns dev start_sector size_sectors type(1=read): R1 16 KiB, then three
# 4 KiB reads at far-apart offsets (all within the 48 MiB logical space).
FIG5_TRACE = "0 0 0 32 1\n0 0 20000 8 1\n0 0 40000 8 1\n0 0 60000 8 1\n"


def check_summary_schema(s: dict[str, Any]) -> None:
    """Assert the documented JSON summary keys are present and well typed."""
    missing = SUMMARY_KEYS - s.keys()
    assert not missing, f"summary lacks {sorted(missing)}"
    for key in ("latency_us", "read_latency_us", "write_latency_us"):
        lat = s[key]
        assert lat.keys() >= LATENCY_KEYS, f"{key} lacks {sorted(LATENCY_KEYS - lat.keys())}"
        for k in LATENCY_KEYS:
            assert isinstance(lat[k], (int, float)) and math.isfinite(lat[k]), (key, k, lat[k])
        if lat.get("count", 1) > 0:
            assert lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["p999"] <= lat["max"], lat
    assert s["gc"].keys() >= GC_KEYS
    for k in GC_KEYS:
        assert isinstance(s["gc"][k], int) and s["gc"][k] >= 0
    assert isinstance(s["requests"], int)
    assert s["reads"] + s["writes"] + s.get("trims", 0) == s["requests"]


def check_requests_frame(df: pd.DataFrame, summary: dict[str, Any]) -> None:
    """Per-request rows agree with each other and with the summary."""
    assert len(df) == summary["requests"]
    arrival = df["arrival_ns"].to_numpy(np.int64)
    dispatch = df["dispatch_ns"].to_numpy(np.int64)
    complete = df["complete_ns"].to_numpy(np.int64)
    assert (arrival <= dispatch).all(), "a request was dispatched before it arrived"
    assert (dispatch <= complete).all(), "a request completed before it was dispatched"
    np.testing.assert_allclose(df["latency_us"], (complete - arrival) / 1000.0)
    np.testing.assert_allclose(df["wait_us"], (dispatch - arrival) / 1000.0)
    assert isinstance(df["op"].dtype, pd.CategoricalDtype)
    assert set(df["op"].unique()) <= {"read", "write"}
    assert (df["op"] == "read").sum() == summary["reads"]
    assert (df["op"] == "write").sum() == summary["writes"]
    assert (df["size"] > 0).all()
    assert int(df.loc[df["op"] == "read", "size"].sum()) == summary["bytes_read"]
    assert int(df.loc[df["op"] == "write", "size"].sum()) == summary["bytes_written"]


def nearest_rank(values_ns: np.ndarray, q: float) -> float:
    """The ceil(q*n)-th smallest value (the summary's percentile definition), in us."""
    v = np.sort(values_ns)
    rank = min(max(math.ceil(q * len(v)), 1), len(v))
    return float(v[rank - 1]) / 1000.0


@pytest.fixture(scope="session")
def small_result() -> flashsched.RunResult:
    """One small synthetic run shared by read-only tests."""
    return flashsched.run(synthetic=SMALL_WORKLOAD, device=DEVICE, seed=7)


@pytest.fixture
def fig5_trace(tmp_path: Path) -> Path:
    p = tmp_path / "fig5.trace"
    p.write_text(FIG5_TRACE)
    return p


@pytest.fixture
def bad_msr_trace(tmp_path: Path) -> Path:
    """An MSR CSV whose third line has a non-numeric size field."""
    p = tmp_path / "bad.csv"
    p.write_text(
        "128166385295514663,hm,0,Write,9056014336,2048,2833\n"
        "128166385295514878,hm,0,Write,11855351808,512,2617\n"
        "128166385295515175,hm,0,Write,5548077056,4k,2320\n"
        "128166385295515400,hm,0,Read,5548077056,4096,2320\n"
    )
    return p


@pytest.fixture(autouse=True)
def figures_fit_for_a_paper(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every figure a test makes in this process is checked as it is saved
    (flashsched.plotstyle.problems: words for axis labels, readable ticks,
    legends off the data, titles that agree with the axes); tests marked
    ``unchecked_figures`` make bad figures on purpose."""
    if request.node.get_closest_marker("unchecked_figures"):
        return
    from matplotlib.figure import Figure

    original = Figure.savefig

    def checked(self: Figure, *args: Any, **kwargs: Any) -> Any:
        from flashsched import plotstyle

        found = plotstyle.problems(self)
        assert not found, f"figure {args[0] if args else ''}: {found}"
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", checked)


@pytest.fixture
def run_cli(tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run ``python -m flashsched ARGS`` in a temp dir; returns the completed process."""

    def run(*args: str, check: bool = False) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            [sys.executable, "-m", "flashsched", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if check:
            assert proc.returncode == 0, proc.stderr
        return proc

    return run


def _traces_dir() -> Path:
    env = os.environ.get("FLASHSCHED_TRACES")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "shared" / "traces"


@pytest.fixture(scope="session")
def traces_dir() -> Path:
    """The shared sample traces (``../shared/traces``); skip when absent."""
    d = _traces_dir()
    if not d.is_dir():
        pytest.skip(f"sample traces not found at {d} (set FLASHSCHED_TRACES)")
    return d


@pytest.fixture(scope="session")
def toml_loads() -> Callable[[str], dict[str, Any]]:
    """``tomllib.loads`` (Python >= 3.11, else the ``tomli`` backport; skip without)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        tomllib = pytest.importorskip("tomli")
    return tomllib.loads


@pytest.fixture(scope="session")
def helpers() -> Any:
    """Assertion helpers, as a namespace (tests cannot import conftest)."""

    class H:
        check_summary_schema = staticmethod(check_summary_schema)
        check_requests_frame = staticmethod(check_requests_frame)
        nearest_rank = staticmethod(nearest_rank)
        DEVICE = DEVICE
        SMALL_WORKLOAD = SMALL_WORKLOAD
        SUMMARY_KEYS = SUMMARY_KEYS
        LATENCY_KEYS = LATENCY_KEYS
        GC_KEYS = GC_KEYS
        FIG5_OVERRIDES = FIG5_OVERRIDES

    return H
