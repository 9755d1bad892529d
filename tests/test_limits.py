"""Runs at the limits (issue 21): idle simulated time, extreme intensities,
and the memory estimate made before building a run. Each of these used to
abort the interpreter (allocation failure) or return wrong numbers."""

from __future__ import annotations

import json
import math
import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import flashsched
import numpy as np
import pytest
from flashsched import _core

Z_CSV = "0,hm,0,Write,9056014336,2048,2833\n128166385295514878,hm,0,Write,11855351808,512,2617\n"
TWO = "0.0 0 4096 4096 0\n1.0 0 4096 4096 1\n"
SMALL = [
    "geometry.channels=2",
    "geometry.chips_per_channel=1",
    "geometry.dies_per_chip=1",
    "geometry.planes_per_die=1",
    "geometry.blocks_per_plane=64",
    "geometry.pages_per_block=32",
]


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``flashsched ARGS`` in a child limited to 4 GiB of address space, so a
    runaway allocation fails fast there instead of taking the machine."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    return subprocess.run(
        [sys.executable, "-m", "flashsched", *args],
        capture_output=True,
        text=True,
        preexec_fn=cap,
        env={**os.environ, **(env or {})},
        timeout=300,
    )


# ---- idle simulated time ------------------------------------------------------


def test_stray_zero_timestamp_gives_two_rows(tmp_path: Path) -> None:
    """The issue's MSR file: records 406 years apart. It aborted with a
    615 GB allocation; now two rows, one per second in which I/O completed."""
    (tmp_path / "z.csv").write_text(Z_CSV)
    out = tmp_path / "out"
    r = _cli(
        "run",
        "--trace",
        str(tmp_path / "z.csv"),
        "--device",
        "ssdsim-default",
        "--check",
        "--out",
        str(out),
    )
    assert r.returncode == 0, r.stderr
    rows = (out / "timeseries.csv").read_text().splitlines()
    assert rows[0].startswith("time_s,")
    assert [row.split(",")[0] for row in rows[1:]] == ["0", "12816638529"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["requests"] == 2
    assert summary["simulated_s"] == pytest.approx(1.2816638529e10, rel=1e-9)


def test_timeseries_lists_only_seconds_with_completions(tmp_path: Path) -> None:
    """Gaps of years between bursts (over 10 million seconds): one row per
    busy second, in time order, with IOPS and bytes summing to the run's
    totals."""
    year_s = 365 * 86400
    lines = []
    for burst, t0 in enumerate([0, 3 * year_s, 3 * year_s + 2, 11 * year_s]):
        for i in range(5):
            lines.append(f"{t0 * 1000 + i:.1f} 0 {4096 * (burst * 8 + i)} 4096 {i % 2}")
    (tmp_path / "gaps.trace").write_text("\n".join(lines) + "\n")
    res = flashsched.run(trace=tmp_path / "gaps.trace", device="ssdsim-default", check=True)
    ts = res.timeseries
    assert list(ts["time_s"]) == [0, 3 * year_s, 3 * year_s + 2, 11 * year_s]
    assert ts["ios"].sum() == res.summary["requests"] == 20
    assert ts["bytes"].sum() == 20 * 4096
    assert ts["p99_latency_us"].notna().all()


def test_short_idle_gaps_are_zero_rows(tmp_path: Path) -> None:
    """Under 10 million bins, idle seconds are rows of zero counts and NaN
    latencies (the core stores only the busy ones), and the core's series is
    the records-based one at 1000 ms, gaps included."""
    (tmp_path / "gap.trace").write_text("0.0 0 0 8 1\n3000.0 0 64 8 1\n")
    res = flashsched.run(trace=tmp_path / "gap.trace", device="ssdsim-default", format="ascii-ms")
    ts = res.timeseries
    assert list(ts["time_s"]) == [0, 1, 2, 3]
    assert list(ts["ios"]) == [1, 0, 0, 1]
    assert list(ts["bytes"]) == [4096, 0, 0, 4096]
    assert ts["mean_latency_us"].isna().tolist() == [False, True, True, False]
    assert ts["p99_latency_us"].isna().tolist() == [False, True, True, False]
    ours = res.series(1000)
    for col in ("time_s", "ios", "reads", "writes", "bytes", "iops", "mib_s"):
        assert list(ours[col]) == list(ts[col]), col
    np.testing.assert_allclose(ours["mean_latency_us"], ts["mean_latency_us"])


def test_array_short_idle_gaps_are_rows() -> None:
    """An array at one request every 2 s in 1 s bins: every bin is a row,
    idle ones with zero rates and the GC count and front-end carried."""
    res = flashsched.run_array(
        layout="serial",
        ssds=2,
        device="default",
        overrides=SMALL,
        queue_depth=4,
        bin_ms=1000.0,
        phases=["read=0,bs=64k,iops=0.5,arrival=uniform,n=3"],
    )
    bw = res.bandwidth
    assert list(bw["time_s"]) == [float(i) for i in range(len(bw))]
    assert len(bw) >= 5
    busy = bw["array_mib_s"] > 0
    assert busy.sum() == 3 and (bw.loc[~busy, "array_mib_s"] == 0).all()
    assert bw["array_mib_s"].sum() * 2**20 == pytest.approx(3 * 65536)
    assert (bw["front"] >= 0).all()
    gc = res.gc
    assert len(gc) == 2 * len(bw)
    for _, g in gc.groupby("ssd"):
        assert g["gc_cumulative"].is_monotonic_increasing


def test_array_series_skip_idle_bins() -> None:
    """An array workload at one request a year in 1 ms bins (10^11 bins in
    its span): only bins in which something happened are listed."""
    res = flashsched.run_array(
        layout="raid0",
        ssds=2,
        device="default",
        overrides=SMALL,
        queue_depth=4,
        bin_ms=1.0,
        phases=["read=0,bs=64k,iops=0.0000000317,arrival=uniform,n=3"],
        check=True,
    )
    bw = res.bandwidth
    assert 1 <= len(bw) <= 12
    assert bw["time_s"].is_monotonic_increasing
    assert bw["time_s"].iloc[-1] > 365 * 86400
    assert bw["array_mib_s"].sum() * 2**20 * res.bin_s == pytest.approx(3 * 65536)
    gc = res.gc
    assert len(gc) == 2 * len(bw)


# ---- intensity ---------------------------------------------------------------------


def test_intensity_extremes(tmp_path: Path) -> None:
    path = tmp_path / "two.trace"
    path.write_text(TWO)
    with pytest.raises(flashsched.ConfigError, match=r"intensity.*record #2.*1e-18") as e:
        flashsched.run(trace=path, device="ssdsim-default", intensity=1e-18)
    assert "548 years" in str(e.value)
    for bad in [math.nan, math.inf, -math.inf, 0.0, -1.0, 5e-324]:
        with pytest.raises(flashsched.ConfigError, match="intensity"):
            flashsched.run(trace=path, device="ssdsim-default", intensity=bad)
    res = flashsched.run(trace=path, device="ssdsim-default", intensity=1e-9, check=True)
    lat = res.requests["latency_us"]
    assert (lat > 0).all() and len(lat) == 2
    assert list(res.requests["arrival_ns"]) == [0, 10**15]
    # 10^6 s: under 10 million bins, so idle seconds are zero rows
    ts = res.timeseries
    assert len(ts) == 10**6 + 1
    assert list(ts.loc[ts["ios"] > 0, "time_s"]) == [0, 10**6]
    fast = flashsched.run(trace=path, device="ssdsim-default", intensity=1e12, check=True)
    assert list(fast.requests["arrival_ns"]) == [0, 0]


def test_cli_intensity_error_is_clean(tmp_path: Path) -> None:
    path = tmp_path / "two.trace"
    path.write_text(TWO)
    r = _cli("run", "--trace", str(path), "--device", "ssdsim-default", "--intensity", "1e-18")
    assert r.returncode == 2
    assert "record #2" in r.stderr and "Traceback" not in r.stderr


# ---- memory estimate and limit ------------------------------------------------------

HUGE = [
    "geometry.channels=16",
    "geometry.chips_per_channel=16",
    "geometry.dies_per_chip=8",
    "geometry.planes_per_die=4",
    "geometry.blocks_per_plane=131072",
    "geometry.pages_per_block=2",
]


def test_max_memory_refuses_with_the_geometry_estimate_and_limit() -> None:
    with pytest.raises(flashsched.MemoryLimitError) as e:
        flashsched.run(synthetic="read=1,bs=4k,n=10", device="ssdsim-default", max_memory="1MiB")
    msg = str(e.value)
    assert isinstance(e.value, flashsched.FlashschedError)
    for word in ["ssdsim-default", "geometry", "needs about", "1.0 MiB (max_memory)"]:
        assert word in msg, msg
    # bytes as an int, and "off" (no check) run
    res = flashsched.run(synthetic="read=1,bs=4k,n=10", device="ssdsim-default", max_memory=8 << 30)
    assert res.summary["requests"] == 10
    flashsched.run(synthetic="read=1,bs=4k,n=10", device="ssdsim-default", max_memory="off")
    for bad in ["8 parsecs", "-1G", "0", ""]:
        with pytest.raises(flashsched.ConfigError, match="max_memory"):
            flashsched.run(synthetic="read=1,bs=4k,n=10", device="ssdsim-default", max_memory=bad)
    with pytest.raises(flashsched.ConfigError, match="max_memory"):
        flashsched.run(synthetic="read=1,bs=4k,n=10", max_memory=[8])  # type: ignore[arg-type]
    with pytest.raises(flashsched.MemoryLimitError, match="4 × device"):
        flashsched.run_array(
            ssds=4, overrides=SMALL, phases=["read=1,bs=4k,n=10"], max_memory="1MiB"
        )


def test_huge_geometry_is_an_error_not_an_abort() -> None:
    """A geometry the config accepts but that needs ~45 GiB: refused before
    anything is allocated (it aborted the interpreter before), against the
    memory available now and against an explicit limit."""
    est = flashsched.memory_estimate("default", HUGE)
    assert est["peak"] > 40 << 30
    assert "2147483648 pages" in est["what"]
    with pytest.raises(flashsched.MemoryLimitError, match="131072 blocks"):
        flashsched.run(synthetic="read=1,bs=4k,n=10", overrides=HUGE, max_memory="16GiB")
    avail = _mem_available()
    if avail is None or avail > est["peak"]:
        pytest.skip("this machine could hold the huge geometry")
    with pytest.raises(flashsched.MemoryLimitError, match="memory available now"):
        flashsched.run(synthetic="read=1,bs=4k,n=10", overrides=HUGE)


def test_cli_max_memory_and_environment() -> None:
    r = _cli(
        "run",
        "--synthetic",
        "read=1,bs=4k,n=10",
        "--device",
        "ssdsim-default",
        "--max-memory",
        "1MiB",
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "needs about" in r.stderr and "1.0 MiB (max_memory)" in r.stderr
    r = _cli(
        "run",
        "--synthetic",
        "read=1,bs=4k,n=10",
        "--device",
        "ssdsim-default",
        env={"FLASHSCHED_MAX_MEMORY": "2MiB"},
    )
    assert r.returncode == 2 and "2.0 MiB (max_memory)" in r.stderr
    r = _cli("config", "ssdsim-default")
    assert r.returncode == 0 and "memory estimate:" in r.stderr


def _mem_available() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


RSS_PROBE = textwrap.dedent(
    """
    import json, sys
    from flashsched import _core

    def kb(key):
        for line in open("/proc/self/status"):
            if line.startswith(key):
                return int(line.split()[1]) * 1024

    overrides, check = json.loads(sys.argv[1]), sys.argv[2] == "1"
    base = kb("VmRSS:")
    sim = _core.Simulation(device="default", overrides=overrides, check=check,
                           synthetic="read=0.5,bs=4k,iops=50000,n=20000",
                           keep_records=False, max_memory="off")
    sim.run()
    print(kb("VmHWM:") - base)
    """
)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc (Linux)")
@pytest.mark.parametrize(
    ("geometry", "fill", "check"),
    [
        ("4,4,2,2,256,256", 0.9, True),  # 4 M pages, checker on
        ("2,2,2,2,131072,4", 0.9, False),  # 2 M blocks of 4 pages
        ("8,4,2,2,512,256", 0.8, True),  # 8 M pages
    ],
)
def test_estimate_within_2x_of_peak_rss(geometry: str, fill: float, check: bool) -> None:
    """Peak resident memory of a real run (VmHWM in a fresh interpreter,
    above its RSS before building) within 2× of the estimate. Preconditioned
    devices: their lazily zeroed tables are touched, as a long run would."""
    keys = [
        "channels",
        "chips_per_channel",
        "dies_per_chip",
        "planes_per_die",
        "blocks_per_plane",
        "pages_per_block",
    ]
    overrides = [f"geometry.{k}={v}" for k, v in zip(keys, geometry.split(","))]
    overrides += [f"ftl.precondition_fill={fill}", "ftl.overprovisioning=0.2"]
    est = _core.memory_estimate("default", overrides, check=check)["peak"]
    r = subprocess.run(
        [sys.executable, "-c", RSS_PROBE, json.dumps(overrides), "1" if check else "0"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    peak = int(r.stdout.strip())
    assert 0.5 <= est / peak <= 2.0, f"estimate {est / 1e6:.1f} MB, peak RSS {peak / 1e6:.1f} MB"
